package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// usage is what every answer reports it cost, in each provider's names.
var (
	chatUsage      = map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
	responsesUsage = map[string]any{"input_tokens": 10, "output_tokens": 5, "total_tokens": 15,
		"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}}
)

func openAIError(status int, message string) []byte {
	typ := "server_error"
	switch {
	case status == http.StatusTooManyRequests:
		typ = "rate_limit_exceeded"
	case status < 500:
		typ = "invalid_request_error"
	}
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": message, "type": typ, "param": nil, "code": nil}})
	return b
}

// chat is OpenAI Chat Completions.
type chat struct{}

func (chat) name() string                                   { return "OpenAI Chat" }
func (chat) streams(_ *http.Request, f map[string]any) bool { return f["stream"] == true }
func (chat) error(status int, message string) []byte        { return openAIError(status, message) }
func (chat) id(n, i int) string                             { return fmt.Sprintf("call_%d_%d", n, i) }

func (chat) finish(a answer) string {
	switch {
	case a.Cut == CutMaxTokens:
		return "length"
	case len(a.Calls) > 0:
		return "tool_calls"
	}
	return "stop"
}

func (d chat) answer(a answer) any {
	msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
	if a.Text != "" {
		msg["content"] = a.Text
	}
	if len(a.Calls) > 0 {
		var calls []any
		for _, c := range a.Calls {
			calls = append(calls, map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Args}})
		}
		msg["tool_calls"] = calls
	}
	return map[string]any{"id": fmt.Sprintf("chatcmpl-%d", a.N), "object": "chat.completion", "created": 1, "model": a.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": d.finish(a), "message": msg, "logprobs": nil}}, "usage": chatUsage}
}

func (d chat) events(a answer) []event {
	chunk := func(delta map[string]any, finish any, usage any) event {
		choices := []any{}
		if delta != nil {
			choices = append(choices, map[string]any{"index": 0, "delta": delta, "finish_reason": finish})
		}
		c := map[string]any{"id": fmt.Sprintf("chatcmpl-%d", a.N), "object": "chat.completion.chunk", "created": 1, "model": a.Model, "choices": choices}
		if usage != nil {
			c["usage"] = usage
		}
		return event{data: c}
	}
	events := []event{chunk(map[string]any{"role": "assistant", "content": ""}, nil, nil)}
	for _, w := range words(a.Text) {
		events = append(events, chunk(map[string]any{"content": w}, nil, nil))
	}
	for i, c := range a.Calls {
		events = append(events, chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": c.ID, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": ""}}}}, nil, nil))
		for _, p := range pieces(c.Args) {
			events = append(events, chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": p}}}}, nil, nil))
		}
	}
	return append(events, chunk(map[string]any{}, d.finish(a), nil), chunk(nil, nil, chatUsage), event{data: "[DONE]"})
}

func (chat) tools(f map[string]any) []Tool {
	var out []Tool
	for _, t := range list(f["tools"]) {
		fn := object(object(t)["function"])
		if fn == nil {
			fn = object(object(t)["custom"])
		}
		out = append(out, Tool{Name: text(fn["name"]), Description: text(fn["description"]), Parameters: raw(fn["parameters"])})
	}
	return out
}

// last are the messages after the last assistant message.
func (chat) last(f map[string]any) []any {
	msgs := list(f["messages"])
	for i := len(msgs) - 1; i >= 0; i-- {
		if object(msgs[i])["role"] == "assistant" {
			return msgs[i+1:]
		}
	}
	return nil
}

func (d chat) results(f map[string]any) []ToolResult {
	var out []ToolResult
	for _, m := range d.last(f) {
		if m := object(m); m["role"] == "tool" {
			out = append(out, ToolResult{ID: text(m["tool_call_id"]), Text: joinText(m["content"])})
		}
	}
	return out
}

// responsesAPI is OpenAI Responses.
type responsesAPI struct{}

func (responsesAPI) name() string                                   { return "OpenAI Responses" }
func (responsesAPI) streams(_ *http.Request, f map[string]any) bool { return f["stream"] == true }
func (responsesAPI) error(status int, message string) []byte        { return openAIError(status, message) }
func (responsesAPI) id(n, i int) string                             { return fmt.Sprintf("call_%d_%d", n, i) }

// output is the response's output items, each done.
func (responsesAPI) output(a answer) []map[string]any {
	var items []map[string]any
	if a.Text != "" {
		items = append(items, map[string]any{"type": "message", "id": fmt.Sprintf("msg_%d", a.N), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": a.Text, "annotations": []any{}}}})
	}
	for i, c := range a.Calls {
		items = append(items, map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d_%d", a.N, i+1), "call_id": c.ID,
			"name": c.Name, "arguments": c.Args, "status": "completed"})
	}
	return items
}

func (d responsesAPI) response(a answer, status string, output []map[string]any) map[string]any {
	r := map[string]any{"id": fmt.Sprintf("resp_%d", a.N), "object": "response", "created_at": 1, "model": a.Model,
		"status": status, "output": output, "usage": responsesUsage}
	if status == "incomplete" {
		r["incomplete_details"] = map[string]any{"reason": "max_output_tokens"}
	}
	return r
}

func (d responsesAPI) status(a answer) string {
	if a.Cut == CutMaxTokens {
		return "incomplete"
	}
	return "completed"
}

func (d responsesAPI) answer(a answer) any { return d.response(a, d.status(a), d.output(a)) }

func (d responsesAPI) events(a answer) []event {
	ev := func(typ string, fields map[string]any) event {
		fields["type"] = typ
		return event{name: typ, data: fields}
	}
	events := []event{ev("response.created", map[string]any{"response": d.response(a, "in_progress", []map[string]any{})})}
	for i, item := range d.output(a) {
		started := map[string]any{}
		for k, v := range item {
			started[k] = v
		}
		started["status"] = "in_progress"
		switch item["type"] {
		case "message":
			started["content"] = []any{}
			events = append(events, ev("response.output_item.added", map[string]any{"output_index": i, "item": started}))
			for _, w := range words(a.Text) {
				events = append(events, ev("response.output_text.delta", map[string]any{"output_index": i, "item_id": item["id"], "content_index": 0, "delta": w}))
			}
		case "function_call":
			started["arguments"] = ""
			events = append(events, ev("response.output_item.added", map[string]any{"output_index": i, "item": started}))
			for _, p := range pieces(item["arguments"].(string)) {
				events = append(events, ev("response.function_call_arguments.delta", map[string]any{"output_index": i, "item_id": item["id"], "delta": p}))
			}
		}
		events = append(events, ev("response.output_item.done", map[string]any{"output_index": i, "item": item}))
	}
	end := "response.completed"
	if a.Cut == CutMaxTokens {
		end = "response.incomplete"
	}
	return append(events, ev(end, map[string]any{"response": d.answer(a)}))
}

func (responsesAPI) tools(f map[string]any) []Tool {
	var out []Tool
	for _, t := range list(f["tools"]) {
		t := object(t)
		if name := text(t["name"]); name != "" {
			out = append(out, Tool{Name: name, Description: text(t["description"]), Parameters: raw(t["parameters"])})
		}
	}
	return out
}

// last are the input items after the last the model wrote (all of them
// when the request goes on from previous_response_id).
func (responsesAPI) last(f map[string]any) []any {
	items := list(f["input"])
	for i := len(items) - 1; i >= 0; i-- {
		it := object(items[i])
		if t := it["type"]; t == "function_call" || t == "reasoning" || (it["role"] == "assistant") {
			return items[i+1:]
		}
	}
	return items
}

func (d responsesAPI) results(f map[string]any) []ToolResult {
	var out []ToolResult
	for _, it := range d.last(f) {
		if it := object(it); it["type"] == "function_call_output" {
			out = append(out, ToolResult{ID: text(it["call_id"]), Text: joinText(it["output"])})
		}
	}
	return out
}
