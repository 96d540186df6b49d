package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// messages is Anthropic Messages.
type messages struct{}

func (messages) name() string                                   { return "Anthropic Messages" }
func (messages) streams(_ *http.Request, f map[string]any) bool { return f["stream"] == true }
func (messages) id(n, i int) string                             { return fmt.Sprintf("toolu_%d_%d", n, i) }

func (messages) error(status int, message string) []byte {
	typ := map[int]string{400: "invalid_request_error", 401: "authentication_error", 403: "permission_error", 404: "not_found_error",
		413: "request_too_large", 429: "rate_limit_error", 529: "overloaded_error"}[status]
	if typ == "" {
		typ = "api_error"
	}
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": message}})
	return b
}

func (messages) stop(a answer) string {
	switch {
	case a.Cut == CutMaxTokens:
		return "max_tokens"
	case len(a.Calls) > 0:
		return "tool_use"
	}
	return "end_turn"
}

func (messages) blocks(a answer) []map[string]any {
	var blocks []map[string]any
	if a.Text != "" {
		blocks = append(blocks, map[string]any{"type": "text", "text": a.Text})
	}
	for _, c := range a.Calls {
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": json.RawMessage(c.Args)})
	}
	return blocks
}

func (d messages) message(a answer, content any, stop any) map[string]any {
	return map[string]any{"id": fmt.Sprintf("msg_%d", a.N), "type": "message", "role": "assistant", "model": a.Model,
		"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 10, "output_tokens": 5}}
}

func (d messages) answer(a answer) any { return d.message(a, d.blocks(a), d.stop(a)) }

func (d messages) events(a answer) []event {
	ev := func(typ string, fields map[string]any) event {
		fields["type"] = typ
		return event{name: typ, data: fields}
	}
	events := []event{ev("message_start", map[string]any{"message": d.message(a, []any{}, nil)}), ev("ping", map[string]any{})}
	for i, b := range d.blocks(a) {
		switch b["type"] {
		case "text":
			events = append(events, ev("content_block_start", map[string]any{"index": i, "content_block": map[string]any{"type": "text", "text": ""}}))
			for _, w := range words(a.Text) {
				events = append(events, ev("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "text_delta", "text": w}}))
			}
		case "tool_use":
			events = append(events, ev("content_block_start", map[string]any{"index": i, "content_block": map[string]any{
				"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}}))
			for _, p := range append([]string{""}, pieces(string(b["input"].(json.RawMessage)))...) {
				events = append(events, ev("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": p}}))
			}
		}
		events = append(events, ev("content_block_stop", map[string]any{"index": i}))
	}
	return append(events,
		ev("message_delta", map[string]any{"delta": map[string]any{"stop_reason": d.stop(a), "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}}),
		ev("message_stop", map[string]any{}))
}

func (messages) tools(f map[string]any) []Tool {
	var out []Tool
	for _, t := range list(f["tools"]) {
		t := object(t)
		out = append(out, Tool{Name: text(t["name"]), Description: text(t["description"]), Parameters: raw(t["input_schema"])})
	}
	return out
}

// last is the last message, when the user sends it.
func (messages) last(f map[string]any) []any {
	msgs := list(f["messages"])
	if len(msgs) == 0 || object(msgs[len(msgs)-1])["role"] != "user" {
		return nil
	}
	return msgs[len(msgs)-1:]
}

func (d messages) results(f map[string]any) []ToolResult {
	var out []ToolResult
	for _, m := range d.last(f) {
		for _, b := range list(object(m)["content"]) {
			if b := object(b); b["type"] == "tool_result" {
				out = append(out, ToolResult{ID: text(b["tool_use_id"]), Text: joinText(b["content"]), IsError: b["is_error"] == true})
			}
		}
	}
	return out
}
