package toolopenai

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/adapt/adapttest"
)

// searchedResponse is a Responses reply in which the API's tool_search
// found refund_order: the tool_search_call and tool_search_output items, as
// the API sends them, then the model's function calls (name/arguments
// pairs).
func searchedResponse(pairs ...string) string {
	items := []any{
		map[string]any{"type": "tool_search_call", "id": "ts_1", "call_id": "tsc_1", "execution": "server", "status": "completed",
			"arguments": map[string]any{"query": "refund order"}},
		map[string]any{"type": "tool_search_output", "id": "tso_1", "call_id": "tsc_1", "execution": "server", "status": "completed",
			"tools": []any{map[string]any{"type": "function", "name": "refund_order", "description": "Refunds a customer's order, in full or in part.",
				"parameters": map[string]any{"type": "object"}, "strict": false, "defer_loading": true}}},
	}
	for i := 0; i < len(pairs); i += 2 {
		items = append(items, map[string]any{"type": "function_call", "id": "fc_" + pairs[i], "call_id": "call_" + pairs[i],
			"name": pairs[i], "arguments": pairs[i+1], "status": "completed"})
	}
	b, _ := json.Marshal(map[string]any{"id": "resp_1", "object": "response", "created_at": 1, "model": "m", "status": "completed", "output": items})
	return string(b)
}

// TestResponsesNativeToolSearch: with deferred tools, every tool is
// declared, the deferred ones with defer_loading, and tool_search after
// them, the same bytes every step; a step's restriction names the tool
// search too; the found tool's call runs, and so does one of a deferred
// tool the search did not return, while one of a tool the registry lacks
// is refused.
func TestResponsesNativeToolSearch(t *testing.T) {
	api := fakeOpenAI(searchedResponse("refund_order", `{"order":"A1"}`, "create_invoice", `{"customer":"ACME"}`, "drop_tables", `{}`), responsesAnswer("Refunded."))
	client := newClient(t, api)
	ran := map[string]int{}
	var results []toolreg.Output
	_, err := NewResponses(adapttest.DeferredRegistry(ran)).Run(context.Background(), &client.Responses, responsesParams(), nil, agent.Options{
		Defer: toolreg.Tagged("mail"),
		PrepareStep: func(_ context.Context, s *agent.Step) error {
			if s.Number == 2 {
				return s.Hide("get_time")
			}
			return nil
		},
		OnEvent: func(e agent.Event) {
			if e.Kind == agent.CallResult {
				results = append(results, e.Output)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var tools []map[string]any
	if err := json.Unmarshal(adapttest.RawMember(t, api.Raw[0], "tools"), &tools); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tl := range tools {
		name, _ := tl["name"].(string)
		if tl["defer_loading"] == true {
			name += " (deferred)"
		}
		if tl["type"] != "function" {
			name += tl["type"].(string)
		}
		got = append(got, name)
	}
	want := []string{"get_weather", "get_time", "refund_order (deferred)", "create_invoice (deferred)", "send_email (deferred)", "tool_search"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if a, b := adapttest.RawMember(t, api.Raw[0], "tools"), adapttest.RawMember(t, api.Raw[1], "tools"); string(a) != string(b) {
		t.Errorf("the tools of request 2 differ from request 1's")
	}
	if diff := cmp.Diff([]string{"get_weather", "refund_order", "create_invoice", "send_email", "tool_search"}, responsesAllowedOf(t, api.Requests[1])); diff != "" {
		t.Errorf("step 2's allowed_tools (-want +got):\n%s", diff)
	}
	if c := responsesChoiceOf(t, api.Requests[0]); c != agent.Auto {
		t.Errorf("step 1's tool choice %+v", c)
	}
	if len(results) != 3 || results[0].Text != "refunded A1" || results[1].Text != "invoiced ACME" || !results[2].IsError {
		t.Errorf("results %+v", results)
	}
	if strings.Contains(string(api.Raw[0]), agent.SearchToolName) {
		t.Errorf("the loop's own search is declared beside the API's")
	}
}
