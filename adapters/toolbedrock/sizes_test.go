package toolbedrock

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/internal/adapt/adapttest"
	"github.com/toolreg/toolreg/toolregtest/providers"
)

// TestSizesAreTheWire: providers.Sizes renders Bedrock's definitions
// without the AWS SDK; its byte counts are those of the tools the SDK
// sends, for the whole array and for each tool, a description with
// characters JSON may escape included.
func TestSizesAreTheWire(t *testing.T) {
	reg := adapttest.Registry(nil)
	reg.MustAdd(toolreg.MustNew("quote", `Quotes a price: "<net> & VAT", in €.`, func(context.Context, struct {
		Amount float64 `json:"amount" jsonschema:"minimum=0.5"`
	}) (string, error) {
		return "", nil
	}))
	api := fakeBedrock(answer("hi"))
	tools, err := New(reg).Tools()
	if err != nil {
		t.Fatal(err)
	}
	in := converseInput()
	in.ToolConfig = &types.ToolConfiguration{Tools: tools}
	if _, err := newClient(t, api).Converse(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	var sent struct {
		ToolConfig struct {
			Tools []json.RawMessage `json:"tools"`
		} `json:"toolConfig"`
	}
	if err := json.Unmarshal(api.Raw[0], &sent); err != nil {
		t.Fatal(err)
	}
	whole := adapttest.RawMember(t, adapttest.RawMember(t, api.Raw[0], "toolConfig"), "tools")
	for _, ds := range providers.Sizes(reg).Dialects {
		if ds.Dialect != "bedrock" {
			continue
		}
		if ds.Request.Bytes != len(whole) {
			t.Errorf("request: Sizes counts %d bytes, the SDK sent %d: %s", ds.Request.Bytes, len(whole), whole)
		}
		for i, ts := range ds.Tools {
			if ts.Size.Bytes != len(sent.ToolConfig.Tools[i]) {
				t.Errorf("%s: Sizes counts %d bytes, the SDK sent %d: %s", ts.Tool, ts.Size.Bytes, len(sent.ToolConfig.Tools[i]), sent.ToolConfig.Tools[i])
			}
		}
		return
	}
	t.Fatal("Sizes has no bedrock dialect")
}
