package toolopenai

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/internal/adapt/adapttest"
)

// TestNamespacesFixedTools: a host that sets params.Tools declares its own
// array, so no function of it is in a namespace; but callName still maps
// the calls by the rule, and the host's flat refund_order, called as it was
// declared, is refused as "(none).refund_order".
func TestNamespacesFixedTools(t *testing.T) {
	api := fakeOpenAI(namespacedResponse("refund_order", "", `{"order":"A1"}`), responsesAnswer("Done."))
	client := newClient(t, api)
	ran := map[string]int{}
	var results []toolreg.Output
	params := responsesParams()
	params.Tools = []responses.ToolUnionParam{{OfFunction: &responses.FunctionToolParam{
		Name: "refund_order", Parameters: map[string]any{"type": "object"}, Strict: openai.Bool(false),
	}}}
	if _, err := NewResponses(adapttest.DeferredRegistry(ran), WithNamespaces(billing)).Run(context.Background(), &client.Responses, params, nil, adapttest.NativeSearch(&results)); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]int{"refund_order": 1}, ran); diff != "" {
		t.Errorf("tools run (-want +got):\n%s\nresults: %+v", diff, results)
	}
}
