package toolanthropic

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/toolreg/toolreg"
)

// FuzzDispatch feeds arbitrary assistant content to both dispatch paths:
// never a panic, valid JSON out.
func FuzzDispatch(f *testing.F) {
	f.Add([]byte(`[{"type":"tool_use","id":"toolu_1","name":"echo","input":{"s":"x"}}]`))
	f.Add([]byte(`[{"type":"text","text":"hi"},{"type":"tool_use","id":"t","name":"nope","input":null},{"type":"tool_use","id":"u","name":"echo","input":{"s":null}}]`))
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("echo", "Echoes.", func(_ context.Context, a struct {
		S string `json:"s,omitempty"`
	}) (string, error) {
		return a.S, nil
	}))
	adapters := []*Adapter{New(reg), New(reg, WithStrict())}
	f.Fuzz(func(t *testing.T, content []byte) {
		for _, a := range adapters {
			out, err := a.CallAllJSON(context.Background(), content)
			if err == nil && out != nil && !json.Valid(out) {
				t.Fatalf("invalid JSON out: %s", out)
			}
			var msg anthropic.Message
			if json.Unmarshal([]byte(`{"id":"m","type":"message","role":"assistant","model":"x","stop_reason":"tool_use","content":`+string(content)+`}`), &msg) == nil {
				a.CallAll(context.Background(), msg)
			}
		}
	})
}
