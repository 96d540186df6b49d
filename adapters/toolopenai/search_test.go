package toolopenai

import (
	"context"
	"encoding/json"
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
	var results []toolreg.Output
	opts := adapttest.NativeSearch(&results)
	opts.PrepareStep = func(_ context.Context, s *agent.Step) error {
		if s.Number == 2 {
			return s.Hide("get_time")
		}
		return nil
	}
	_, err := NewResponses(adapttest.DeferredRegistry(map[string]int{})).Run(context.Background(), &client.Responses, responsesParams(), nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	adapttest.CheckNativeSearch(t, api, results, "function", "tool_search")
	if diff := cmp.Diff([]string{"get_weather", "refund_order", "create_invoice", "send_email", "tool_search"}, responsesAllowedOf(t, api.Requests[1])); diff != "" {
		t.Errorf("step 2's allowed_tools (-want +got):\n%s", diff)
	}
	if c := responsesChoiceOf(t, api.Requests[0]); c != agent.Auto {
		t.Errorf("step 1's tool choice %+v", c)
	}
}
