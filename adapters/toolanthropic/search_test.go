package toolanthropic

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

// searched is a response in which Anthropic's tool search found
// refund_order: the server_tool_use and tool_search_tool_result blocks,
// as the API sends them, then the model's calls (name/input pairs).
func searched(pairs ...string) string {
	blocks := []any{
		map[string]any{"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_bm25", "input": map[string]any{"query": "refund order"}},
		map[string]any{"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1", "content": map[string]any{
			"type": "tool_search_tool_search_result", "tool_references": []any{map[string]any{"type": "tool_reference", "tool_name": "refund_order"}}}},
	}
	for i := 0; i < len(pairs); i += 2 {
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": "toolu_" + pairs[i], "name": pairs[i], "input": json.RawMessage(pairs[i+1])})
	}
	return message("tool_use", blocks...)
}

// TestNativeToolSearch: with deferred tools, every offered tool is
// declared, the deferred ones with defer_loading, and the tool search tool
// after them, the same bytes every step; the search's blocks go back in
// the transcript as the API sent them, and a State resumed through JSON
// sends them again byte for byte; a call of a
// deferred tool the search did not return runs, one of a tool the registry
// lacks is refused.
func TestNativeToolSearch(t *testing.T) {
	for _, r := range runners {
		t.Run(r.name, func(t *testing.T) {
			reply := searched("refund_order", `{"order":"A1"}`, "create_invoice", `{"customer":"ACME"}`, "drop_tables", `{}`)
			if r.name == "Stream" {
				reply = streamed(reply)
			}
			api := fakeAnthropic(reply, r.answer("Refunded."))
			client := newClient(t, api)
			var results []toolreg.Output
			run, err := r.run(context.Background(), New(adapttest.DeferredRegistry(map[string]int{})), &client.Messages, params("refund A1"), adapttest.NativeSearch(&results))
			if err != nil {
				t.Fatal(err)
			}
			adapttest.CheckNativeSearch(t, api, results, "custom", "tool_search_tool_bm25 tool_search_tool_bm25_20251119")
			// The assistant message sent back holds the search's blocks.
			msgs := api.Requests[1]["messages"].([]any)
			var types []string
			for _, b := range msgs[1].(map[string]any)["content"].([]any) {
				types = append(types, b.(map[string]any)["type"].(string))
			}
			if diff := cmp.Diff([]string{"server_tool_use", "tool_search_tool_result", "tool_use", "tool_use", "tool_use"}, types); diff != "" {
				t.Errorf("the assistant's blocks sent back (-want +got):\n%s", diff)
			}
			if !strings.Contains(string(run.State.Transcript), `"tool_references":[{"tool_name":"refund_order","type":"tool_reference"}]`) {
				t.Errorf("the State's transcript lost the search's result:\n%s", run.State.Transcript)
			}
			// A State through JSON, resumed, sends them back as they were.
			b, err := json.Marshal(run.State)
			if err != nil {
				t.Fatal(err)
			}
			var st agent.State
			if err := json.Unmarshal(b, &st); err != nil {
				t.Fatal(err)
			}
			again := fakeAnthropic(r.answer("Still refunded."))
			client = newClient(t, again)
			if _, err := r.resume(context.Background(), New(adapttest.DeferredRegistry(map[string]int{})), &client.Messages, params("ignored"), &st, adapttest.NativeSearch(new([]toolreg.Output))); err != nil {
				t.Fatal(err)
			}
			if a, b := messageJSON(t, api.Raw[1], 1), messageJSON(t, again.Raw[0], 1); a != b {
				t.Errorf("the resumed run sends the searched turn otherwise:\n%s\n%s", a, b)
			}
		})
	}
}

// messageJSON is the i-th message of a request body, as sent.
func messageJSON(t *testing.T, raw []byte, i int) string {
	var msgs []json.RawMessage
	if err := json.Unmarshal(adapttest.RawMember(t, raw, "messages"), &msgs); err != nil || len(msgs) <= i {
		t.Fatalf("messages: %v (%d)", err, len(msgs))
	}
	return string(msgs[i])
}
