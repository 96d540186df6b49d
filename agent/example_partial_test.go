package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/agent"
)

// streamingModel is a Chat Completions server that streams, for the first
// request, a write_file call whose arguments come in the pieces given,
// and for the next, the answer.
func streamingModel(pieces []string, answer string) *httptest.Server {
	n := 0
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		send := func(delta map[string]any, finish any) {
			b, _ := json.Marshal(map[string]any{"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
				"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
			fmt.Fprintf(w, "data: %s\n\n", b)
		}
		call := func(fn map[string]any) map[string]any {
			return map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": "call_1", "type": "function", "function": fn}}}
		}
		if n++; n == 1 {
			send(call(map[string]any{"name": "write_file", "arguments": ""}), nil)
			for _, p := range pieces {
				send(call(map[string]any{"arguments": p}), nil)
			}
			send(map[string]any{}, "tool_calls")
		} else {
			send(map[string]any{"role": "assistant", "content": answer}, nil)
			send(map[string]any{}, "stop")
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
}

// A host shows a long write_file as the model writes it: PartialCalls
// keeps each call's arguments so far, and Decode gives them as the
// tool's arguments type, partial, never validated. The tool runs only
// with the whole arguments (CallReady).
func ExamplePartialCalls() {
	type writeArgs struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	write := toolreg.MustNew("write_file", "Writes a file.", func(_ context.Context, a writeArgs) (string, error) {
		return fmt.Sprintf("wrote %d bytes to %s", len(a.Content), a.Path), nil
	})
	srv := streamingModel([]string{`{"path":"po`, `em.txt","con`, `tent":"Roses are red,\n`, `Violets are`, ` blue\u00e9`, `\n"}`}, "Done.")
	defer srv.Close()
	client := openai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"))
	reg := toolreg.NewRegistry()
	reg.MustAdd(write)

	var calls agent.PartialCalls
	opts := agent.Options{Stream: true, OnEvent: func(e agent.Event) {
		switch e.Kind {
		case agent.ArgumentsDelta:
			var a writeArgs
			if err := calls.Add(e).Decode(&a); err == nil {
				fmt.Printf("partial: path %q, content %q\n", a.Path, a.Content)
			}
		case agent.CallResult:
			fmt.Println("result:", e.Output.Text)
		default:
			calls.Add(e)
		}
	}}
	params := openai.ChatCompletionNewParams{Model: "gpt-4.1-mini", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Write a poem to poem.txt.")}}
	run, err := toolopenai.NewChat(reg).Run(context.Background(), &client.Chat.Completions, params, nil, opts)
	fmt.Println(run.Answer(), err)
	// Output:
	// partial: path "po", content ""
	// partial: path "poem.txt", content ""
	// partial: path "poem.txt", content "Roses are red,\n"
	// partial: path "poem.txt", content "Roses are red,\nViolets are"
	// partial: path "poem.txt", content "Roses are red,\nViolets are blueé"
	// partial: path "poem.txt", content "Roses are red,\nViolets are blueé\n"
	// result: wrote 34 bytes to poem.txt
	// Done. <nil>
}
