package toolopenai

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/adapt/adapttest"
)

// TestNamespacesFixedTools: a host that sets params.Tools declares its own
// array, so the namespace rule does not apply: the host's flat
// refund_order, called as it was declared, runs, as does a function the
// host's array puts in a namespace of its own, called with it.
func TestNamespacesFixedTools(t *testing.T) {
	fn := func() map[string]any { return map[string]any{"type": "object"} }
	for _, tt := range []struct {
		name, namespace string
		tools           []responses.ToolUnionParam
	}{
		{"flat", "", []responses.ToolUnionParam{{OfFunction: &responses.FunctionToolParam{
			Name: "refund_order", Parameters: fn(), Strict: openai.Bool(false),
		}}}},
		{"host namespace", "payments", []responses.ToolUnionParam{{OfNamespace: &responses.NamespaceToolParam{Name: "payments", Tools: []responses.NamespaceToolToolUnionParam{{OfFunction: &responses.NamespaceToolToolFunctionParam{
			Name: "refund_order", Parameters: fn(), Strict: openai.Bool(false),
		}}}}}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			api := fakeOpenAI(namespacedResponse("refund_order", tt.namespace, `{"order":"A1"}`), responsesAnswer("Done."))
			client := newClient(t, api)
			ran := map[string]int{}
			var results []toolreg.Output
			params := responsesParams()
			params.Tools = tt.tools
			if _, err := NewResponses(adapttest.DeferredRegistry(ran), WithNamespaces(billing)).Run(context.Background(), &client.Responses, params, nil, adapttest.NativeSearch(&results)); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(map[string]int{"refund_order": 1}, ran); diff != "" {
				t.Errorf("tools run (-want +got):\n%s\nresults: %+v", diff, results)
			}
		})
	}
}

// TestNamespacesForcedNamespacedTool: forcing a tool that sits in a
// namespace fails the run up front, since tool_choice cannot name the
// namespace; forcing a tool of none is sent.
func TestNamespacesForcedNamespacedTool(t *testing.T) {
	for _, tt := range []struct {
		tool string
		err  error
	}{{"refund_order", agent.ErrInvalidStep}, {"send_email", nil}} {
		t.Run(tt.tool, func(t *testing.T) {
			api := fakeOpenAI(responsesAnswer("Done."))
			client := newClient(t, api)
			opts := adapttest.NativeSearch(nil)
			opts.PrepareStep = func(_ context.Context, s *agent.Step) error {
				s.Choice = agent.Force(tt.tool)
				return nil
			}
			_, err := NewResponses(adapttest.DeferredRegistry(map[string]int{}), WithNamespaces(billing)).Run(context.Background(), &client.Responses, responsesParams(), nil, opts)
			if !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if tt.err != nil && (len(api.Requests) != 0 || !strings.Contains(err.Error(), `namespace "billing"`)) {
				t.Errorf("%d requests sent, err %v: want none, and the namespace named", len(api.Requests), err)
			}
		})
	}
}

// TestRefuseCallHiddenOrUnknown: a wrong pair of a tool the step hides
// says no more than that the tool is not available; a pair naming no tool
// and a plain name are left to the loop.
func TestRefuseCallHiddenOrUnknown(t *testing.T) {
	reg := adapttest.DeferredRegistry(map[string]int{})
	m, err := NewResponses(reg, WithNamespaces(billing)).model(nil, responsesParams(), &agent.State{})
	if err != nil {
		t.Fatal(err)
	}
	m.deferred = toolreg.Deferred
	s := agent.NewStep(1, reg)
	if err := s.Hide("refund_order"); err != nil {
		t.Fatal(err)
	}
	out, refused := m.RefuseCall(s, toolreg.ToolCall{Name: "mail.refund_order"})
	if !refused || !errors.Is(out.Err, agent.ErrNotOffered) || strings.Contains(out.Text, "billing") {
		t.Errorf("hidden: %v %+v; want refused as not offered, its namespace unsaid", refused, out)
	}
	for _, name := range []string{"billing.no_such_tool", "refund_order"} {
		if _, refused := m.RefuseCall(s, toolreg.ToolCall{Name: name}); refused {
			t.Errorf("%s refused by the model, want it left to the loop", name)
		}
	}
}
