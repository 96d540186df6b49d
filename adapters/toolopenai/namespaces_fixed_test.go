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
// array, so the namespace rule does not apply: the host's flat
// refund_order, called as it was declared, runs.
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

// TestNamespacesFixedToolsHostNamespace: a function the host's own array
// puts in a namespace runs when called with that namespace.
func TestNamespacesFixedToolsHostNamespace(t *testing.T) {
	api := fakeOpenAI(namespacedResponse("refund_order", "payments", `{"order":"A1"}`), responsesAnswer("Done."))
	client := newClient(t, api)
	ran := map[string]int{}
	var results []toolreg.Output
	params := responsesParams()
	params.Tools = []responses.ToolUnionParam{{OfNamespace: &responses.NamespaceToolParam{Name: "payments", Tools: []responses.NamespaceToolToolUnionParam{{OfFunction: &responses.NamespaceToolToolFunctionParam{
		Name: "refund_order", Parameters: map[string]any{"type": "object"}, Strict: openai.Bool(false),
	}}}}}}
	if _, err := NewResponses(adapttest.DeferredRegistry(ran), WithNamespaces(billing)).Run(context.Background(), &client.Responses, params, nil, adapttest.NativeSearch(&results)); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]int{"refund_order": 1}, ran); diff != "" {
		t.Errorf("tools run (-want +got):\n%s\nresults: %+v", diff, results)
	}
}
