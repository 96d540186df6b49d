package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// gemini is Gemini generateContent, on the Developer API or Vertex AI
// (whose paths go through publishers/google).
type gemini struct{ vertex bool }

func (d gemini) name() string {
	if d.vertex {
		return "Gemini on Vertex AI"
	}
	return "Gemini"
}

func (gemini) streams(r *http.Request, _ map[string]any) bool {
	return strings.HasSuffix(r.URL.Path, ":streamGenerateContent")
}

// id is empty: a Gemini call has an id only when the script gives one.
func (gemini) id(n, i int) string { return "" }

func (gemini) error(status int, message string) []byte {
	s := map[int]string{400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
		429: "RESOURCE_EXHAUSTED", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED"}[status]
	if s == "" {
		s = "INTERNAL"
	}
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": status, "message": message, "status": s}})
	return b
}

func (gemini) parts(a answer) []any {
	var parts []any
	for _, w := range words(a.Text) {
		parts = append(parts, map[string]any{"text": w})
	}
	for _, c := range a.Calls {
		fc := map[string]any{"name": c.Name, "args": json.RawMessage(c.Args)}
		if c.ID != "" {
			fc["id"] = c.ID
		}
		parts = append(parts, map[string]any{"functionCall": fc})
	}
	return parts
}

func (gemini) finish(a answer) string {
	if a.Cut == CutMaxTokens {
		return "MAX_TOKENS"
	}
	return "STOP"
}

func (d gemini) response(a answer, parts []any, last bool) map[string]any {
	c := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
	r := map[string]any{"candidates": []any{c}, "modelVersion": a.Model, "responseId": fmt.Sprintf("resp-%d", a.N)}
	if last {
		c["finishReason"] = d.finish(a)
		r["usageMetadata"] = map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}
	}
	return r
}

func (d gemini) answer(a answer) any {
	parts := d.parts(a)
	if a.Text != "" { // whole, not in words
		parts = append([]any{map[string]any{"text": a.Text}}, parts[len(words(a.Text)):]...)
	}
	return d.response(a, parts, true)
}

// events are a chunk per part: text a word at a time, each call whole,
// the finish reason and usage on the last.
func (d gemini) events(a answer) []event {
	parts := d.parts(a)
	var events []event
	for i, p := range parts {
		events = append(events, event{data: d.response(a, []any{p}, i == len(parts)-1)})
	}
	return events
}

func (gemini) tools(f map[string]any) []Tool {
	var out []Tool
	for _, t := range list(f["tools"]) {
		for _, fd := range list(object(t)["functionDeclarations"]) {
			fd := object(fd)
			params := fd["parametersJsonSchema"]
			if params == nil {
				params = fd["parameters"]
			}
			out = append(out, Tool{Name: text(fd["name"]), Description: text(fd["description"]), Parameters: raw(params)})
		}
	}
	return out
}

// last are the contents after the model's last.
func (gemini) last(f map[string]any) []any {
	contents := list(f["contents"])
	for i := len(contents) - 1; i >= 0; i-- {
		if object(contents[i])["role"] == "model" {
			return contents[i+1:]
		}
	}
	return nil
}

func (d gemini) results(f map[string]any) []ToolResult {
	var out []ToolResult
	for _, c := range d.last(f) {
		for _, p := range list(object(c)["parts"]) {
			fr := object(object(p)["functionResponse"])
			if fr == nil {
				continue
			}
			resp := object(fr["response"])
			res := ToolResult{ID: text(fr["id"]), Name: text(fr["name"])}
			v, isErr := resp["error"]
			if !isErr {
				v = resp["output"]
			}
			res.IsError = isErr
			if s, ok := v.(string); ok {
				res.Text = s
			} else if v != nil {
				res.Text = string(raw(v))
			}
			out = append(out, res)
		}
	}
	return out
}
