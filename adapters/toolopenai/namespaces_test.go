package toolopenai

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/adapt/adapttest"
)

// billing puts refund_order and create_invoice in one namespace.
var billing = NamespaceByPrefix(map[string]Namespace{
	"refund_": {Name: "billing", Description: "Refunds and invoices."},
	"create_": {Name: "billing", Description: "Refunds and invoices."},
})

// namespacedResponse is a Responses reply of function calls, each given
// as name, namespace and arguments.
func namespacedResponse(triples ...string) string {
	var items []any
	for i := 0; i < len(triples); i += 3 {
		n := strconv.Itoa(i/3 + 1)
		item := map[string]any{"type": "function_call", "id": "fc_" + n, "call_id": "call_" + n,
			"name": triples[i], "arguments": triples[i+2], "status": "completed"}
		if triples[i+1] != "" {
			item["namespace"] = triples[i+1]
		}
		items = append(items, item)
	}
	b, _ := json.Marshal(map[string]any{"id": "resp_1", "object": "response", "created_at": 1, "model": "m", "status": "completed", "output": items})
	return string(b)
}

// TestResponsesNamespaces: the deferred tools the rule groups are declared
// in their namespace, the others as before, the same bytes every step; a
// restricted step names the namespaced tools with their namespace; a call
// runs only under the namespace it was declared in, whether the model
// names another namespace, none, or one for a tool declared outside any;
// the same holds for a streamed reply.
func TestResponsesNamespaces(t *testing.T) {
	reply := namespacedResponse(
		"refund_order", "billing", `{"order":"A1"}`, // declared so: runs
		"create_invoice", "mail", `{"customer":"ACME"}`, // another namespace
		"create_invoice", "", `{"customer":"ACME"}`, // none
		"send_email", "billing", `{"customer":"ACME"}`, // a tool of no namespace
		"send_email", "", `{"customer":"ACME"}`, // declared so: runs
	)
	for _, stream := range []bool{false, true} {
		name := map[bool]string{false: "plain", true: "stream"}[stream]
		t.Run(name, func(t *testing.T) {
			api := fakeOpenAI(reply, responsesAnswer("Done."))
			if stream {
				api = fakeOpenAI(streamedResponse(reply), streamedResponse(responsesAnswer("Done.")))
			}
			client := newClient(t, api)
			ran := map[string]int{}
			var results []toolreg.Output
			opts := adapttest.NativeSearch(&results)
			opts.Stream = stream
			opts.PrepareStep = func(_ context.Context, s *agent.Step) error {
				if s.Number == 2 {
					return s.Hide("get_time")
				}
				return nil
			}
			_, err := NewResponses(adapttest.DeferredRegistry(ran), WithNamespaces(billing)).Run(context.Background(), &client.Responses, responsesParams(), nil, opts)
			if err != nil {
				t.Fatal(err)
			}
			tools := adapttest.RawMember(t, api.Raw[0], "tools")
			if string(tools) != string(adapttest.RawMember(t, api.Raw[1], "tools")) {
				t.Errorf("the tools of request 2 differ from request 1's")
			}
			if !stream {
				adapttest.GoldenJSON(t, "responses_namespaces.json", tools, *update)
			}
			if diff := cmp.Diff(map[string]int{"refund_order": 1, "send_email": 1}, ran); diff != "" {
				t.Errorf("tools run (-want +got):\n%s", diff)
			}
			var refused []toolreg.Output
			for _, r := range results {
				if r.IsError {
					refused = append(refused, r)
				}
			}
			if len(refused) != 3 {
				t.Fatalf("refused %d calls, want 3: %+v", len(refused), results)
			}
			for i, want := range []string{
				`tool "create_invoice" is in namespace "billing", not "mail": call it with namespace "billing"`,
				`tool "create_invoice" is in namespace "billing": call it with that namespace`,
				`tool "send_email" is in no namespace: call it by its name alone, without namespace "billing"`,
			} {
				if refused[i].Text != want {
					t.Errorf("refusal %d = %q, want %q", i, refused[i].Text, want)
				}
				if !errors.Is(refused[i].Err, agent.ErrNotOffered) {
					t.Errorf("refusal %d: err %v is not agent.ErrNotOffered", i, refused[i].Err)
				}
			}
			choice := api.Requests[1]["tool_choice"].(map[string]any)
			var allowed []string
			for _, tl := range choice["tools"].([]any) {
				tl := tl.(map[string]any)
				s, _ := tl["name"].(string)
				if ns, ok := tl["namespace"].(string); ok {
					s = ns + "/" + s
				}
				if s == "" {
					s = tl["type"].(string)
				}
				allowed = append(allowed, s)
			}
			want := []string{"get_weather", "billing/refund_order", "billing/create_invoice", "send_email", "tool_search"}
			if diff := cmp.Diff(want, allowed); diff != "" {
				t.Errorf("step 2's allowed_tools (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNamespaceRuleErrors: a rule that gives a namespace an invalid name,
// or one name two descriptions, fails the run's first request before it
// is sent.
func TestNamespaceRuleErrors(t *testing.T) {
	for name, rule := range map[string]NamespaceRule{
		"invalid name": NamespaceByPrefix(map[string]Namespace{"refund_": {Name: "bil ling"}}),
		"two descriptions": NamespaceByPrefix(map[string]Namespace{
			"refund_": {Name: "billing", Description: "a"},
			"create_": {Name: "billing", Description: "b"},
		}),
	} {
		t.Run(name, func(t *testing.T) {
			api := fakeOpenAI(responsesAnswer("Done."))
			client := newClient(t, api)
			var results []toolreg.Output
			_, err := NewResponses(adapttest.DeferredRegistry(map[string]int{}), WithNamespaces(rule)).Run(context.Background(), &client.Responses, responsesParams(), nil, adapttest.NativeSearch(&results))
			if err == nil || !strings.Contains(err.Error(), "namespace") {
				t.Errorf("err = %v", err)
			}
			if len(api.Requests) != 0 {
				t.Errorf("%d requests sent", len(api.Requests))
			}
		})
	}
}

// TestToolCallsNamespaceOutsideRun: outside a run nothing is namespaced,
// so a call naming a namespace is refused by the registry.
func TestToolCallsNamespaceOutsideRun(t *testing.T) {
	var out struct {
		Output json.RawMessage `json:"output"`
	}
	json.Unmarshal([]byte(namespacedResponse("send_email", "mail", `{"customer":"ACME"}`)), &out)
	a := NewResponses(adapttest.DeferredRegistry(map[string]int{}), WithNamespaces(billing))
	items, err := a.CallAllJSON(context.Background(), out.Output)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(items), "mail.send_email") {
		t.Errorf("items %s", items)
	}
}

// TestNamespacedToolKeepsEveryField: a function declared in a namespace is
// the function declared without one, every member kept (the output_schema
// of a typed Result among them), defer_loading added.
func TestNamespacedToolKeepsEveryField(t *testing.T) {
	type refund struct {
		Order string `json:"order"`
	}
	type receipt struct {
		Amount int `json:"amount"`
	}
	declared := func(rule NamespaceRule) map[string]any {
		reg := toolreg.NewRegistry()
		reg.MustAdd(toolreg.MustNew("refund_order", "Refunds an order.", func(context.Context, refund) (receipt, error) {
			return receipt{}, nil
		}, toolreg.WithDeferred()))
		api := fakeOpenAI(responsesAnswer("Done."))
		client := newClient(t, api)
		var opts []Option
		if rule != nil {
			opts = append(opts, WithNamespaces(rule))
		}
		if _, err := NewResponses(reg, opts...).Run(context.Background(), &client.Responses, responsesParams(), nil, agent.Options{}); err != nil {
			t.Fatal(err)
		}
		tool := api.Requests[0]["tools"].([]any)[0].(map[string]any)
		if rule != nil {
			tool = tool["tools"].([]any)[0].(map[string]any)
		}
		return tool
	}
	flat, grouped := declared(nil), declared(billing)
	if flat["output_schema"] == nil {
		t.Fatalf("the flat declaration has no output_schema: %v", flat)
	}
	if diff := cmp.Diff(flat, grouped); diff != "" {
		t.Errorf("the namespaced function differs from the flat one (-flat +namespaced):\n%s", diff)
	}
}
