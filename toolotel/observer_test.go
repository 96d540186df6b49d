package toolotel_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/toolotel"
)

// chatAPI plays Chat Completions: each request gets the next reply, and a
// 500 error once they run out.
type chatAPI struct {
	mu      sync.Mutex
	replies []string
}

func (f *chatAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.replies) > 0 && strings.HasPrefix(f.replies[0], "data:") {
		w.Header().Set("Content-Type", "text/event-stream")
	} else {
		w.Header().Set("Content-Type", "application/json")
	}
	if len(f.replies) == 0 {
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `{"error":{"message":"no more replies","type":"server_error"}}`)
		return
	}
	io.WriteString(w, f.replies[0])
	f.replies = f.replies[1:]
}

func chatClient(t *testing.T, replies ...string) *openai.ChatCompletionService {
	srv := httptest.NewServer(&chatAPI{replies: replies})
	t.Cleanup(srv.Close)
	c := openai.NewClient(option.WithBaseURL(srv.URL+"/v1/"), option.WithAPIKey("test"), option.WithMaxRetries(0))
	return &c.Chat.Completions
}

// chatReply is a response with the given usage: tool calls (name and
// arguments pairs, ids call_1, call_2, ...) or, with no pairs, an answer.
func chatReply(input, output int, pairs ...string) string {
	msg := map[string]any{"role": "assistant", "content": "Paris is warmer."}
	finish := "stop"
	if len(pairs) > 0 {
		var calls []map[string]any
		for i := 0; i < len(pairs); i += 2 {
			calls = append(calls, map[string]any{"id": fmt.Sprintf("call_%d", i/2+1), "type": "function",
				"function": map[string]any{"name": pairs[i], "arguments": pairs[i+1]}})
		}
		msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": calls}
		finish = "tool_calls"
	}
	b, _ := json.Marshal(map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-test-2026",
		"choices": []any{map[string]any{"index": 0, "finish_reason": finish, "message": msg}},
		"usage":   map[string]any{"prompt_tokens": input, "completion_tokens": output, "total_tokens": input + output}})
	return string(b)
}

// sseReply is chatReply streamed, as server-sent events: one chunk per
// call (or the answer), the finish reason, then the usage.
func sseReply(input, output int, pairs ...string) string {
	chunk := func(choices []any, usage any) string {
		m := map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-test-2026", "choices": choices}
		if usage != nil {
			m["usage"] = usage
		}
		b, _ := json.Marshal(m)
		return "data: " + string(b) + "\n\n"
	}
	var b strings.Builder
	finish := "stop"
	if len(pairs) == 0 {
		b.WriteString(chunk([]any{map[string]any{"index": 0, "delta": map[string]any{"role": "assistant", "content": "Paris is warmer."}}}, nil))
	}
	for i := 0; i < len(pairs); i += 2 {
		call := map[string]any{"index": i / 2, "id": fmt.Sprintf("call_%d", i/2+1), "type": "function",
			"function": map[string]any{"name": pairs[i], "arguments": pairs[i+1]}}
		b.WriteString(chunk([]any{map[string]any{"index": 0, "delta": map[string]any{"role": "assistant", "tool_calls": []any{call}}}}, nil))
		finish = "tool_calls"
	}
	b.WriteString(chunk([]any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish}}, nil))
	b.WriteString(chunk([]any{}, map[string]any{"prompt_tokens": input, "completion_tokens": output, "total_tokens": input + output}))
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

// Spans of a run of gpt-test on Chat Completions.
func runSpan(input, output int) span {
	return span{Name: "invoke_agent", Kind: "internal", Attrs: map[string]string{
		"gen_ai.operation.name":     "invoke_agent",
		"gen_ai.provider.name":      "openai",
		"gen_ai.request.model":      "gpt-test",
		"gen_ai.usage.input_tokens": fmt.Sprint(input), "gen_ai.usage.output_tokens": fmt.Sprint(output),
	}}
}

func chatSpan(step, input, output int) span {
	return span{Name: "chat gpt-test", Kind: "client", Parent: "invoke_agent", Attrs: map[string]string{
		"gen_ai.operation.name":     "chat",
		"gen_ai.provider.name":      "openai",
		"gen_ai.request.model":      "gpt-test",
		"toolreg.step":              fmt.Sprint(step),
		"gen_ai.usage.input_tokens": fmt.Sprint(input), "gen_ai.usage.output_tokens": fmt.Sprint(output),
	}}
}

func callSpan(id string, step int, failure string) span {
	s := toolSpan("get_weather", failure)
	s.Parent = "invoke_agent"
	s.Attrs["gen_ai.tool.call.id"] = id
	s.Attrs["toolreg.step"] = fmt.Sprint(step)
	s.Attrs["toolreg.attempt"] = "1"
	return s
}

// failed marks s as ended by an error of that type.
func failed(s span, errorType string) span {
	s.Attrs["error.type"] = errorType
	s.Status = "Error: " + errorType
	return s
}

func withoutUsage(s span) span {
	delete(s.Attrs, "gen_ai.usage.input_tokens")
	delete(s.Attrs, "gen_ai.usage.output_tokens")
	return s
}

// errAny stands for any error in a test's want.
var errAny = errors.New("any error")

// TestObserverRun runs the OpenAI runner against a fake API with the
// Observer and the middleware, and checks the trace of each run: the run's
// span is the root, its model calls and tool calls its children.
func TestObserverRun(t *testing.T) {
	weather := chatReply(10, 5, "get_weather", `{"city":"Paris"}`, "get_weather", `{"city":"Atlantis"}`)
	for _, tc := range []struct {
		name    string
		replies []string
		opts    agent.Options
		approve bool // every call waits for the host
		stream  bool // agent.Options.Stream: calls start while the model writes
		wantErr error
		spans   []span
	}{
		{"two steps", []string{weather, chatReply(20, 3)}, agent.Options{}, false, false, nil, []span{
			chatSpan(1, 10, 5),
			chatSpan(2, 20, 3),
			callSpan("call_1", 1, ""),
			callSpan("call_2", 1, "tool_error"),
			runSpan(30, 8),
		}},
		{"streamed", []string{sseReply(10, 5, "get_weather", `{"city":"Paris"}`, "get_weather", `{"city":"Atlantis"}`), sseReply(20, 3)},
			agent.Options{}, false, true, nil, []span{
				chatSpan(1, 10, 5),
				chatSpan(2, 20, 3),
				callSpan("call_1", 1, ""),
				callSpan("call_2", 1, "tool_error"),
				runSpan(30, 8),
			}},
		{"max steps", []string{weather}, agent.Options{MaxSteps: 1}, false, false, toolreg.ErrMaxSteps, []span{
			chatSpan(1, 10, 5),
			callSpan("call_1", 1, ""),
			callSpan("call_2", 1, "tool_error"),
			failed(runSpan(10, 5), "max_steps"),
		}},
		{"provider error", nil, agent.Options{}, false, false, errAny, []span{
			failed(withoutUsage(chatSpan(1, 0, 0)), "500"),
			failed(withoutUsage(runSpan(0, 0)), "500"),
		}},
		{"paused", []string{weather}, agent.Options{}, true, false, agent.ErrPaused, []span{
			chatSpan(1, 10, 5),
			func() span { s := runSpan(10, 5); s.Events = []string{"paused"}; return s }(),
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := newRecorder(t)
			var reg *toolreg.Registry
			if tc.approve {
				reg = toolreg.NewRegistry(toolreg.WithApprovalPolicy(func(toolreg.ToolCall) bool { return true }))
				reg.MustAdd(testRegistry().Tools()...)
			} else {
				reg = testRegistry()
			}
			reg.Use(toolotel.Middleware(rec.opts...))
			opts := tc.opts
			opts.Observer = toolotel.NewObserver(rec.opts...)
			opts.Stream = tc.stream
			params := openai.ChatCompletionNewParams{
				Model: "gpt-test", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Paris or Atlantis?")},
			}
			_, err := toolopenai.NewChat(reg).Run(context.Background(), chatClient(t, tc.replies...), params, nil, opts)
			if tc.wantErr == nil && err != nil || tc.wantErr == errAny && err == nil || tc.wantErr != errAny && !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.spans, rec.ended(t, len(tc.spans))); diff != "" {
				t.Errorf("spans (-want +got):\n%s", diff)
			}
		})
	}
}

// TestObserverMetrics checks the metrics of a two-step run, and that an
// agent's name reaches the run's span, its calls' spans and the metrics.
func TestObserverMetrics(t *testing.T) {
	rec := newRecorder(t, toolotel.WithAgentName("weather-bot"))
	reg := testRegistry()
	reg.Use(toolotel.Middleware(rec.opts...))
	client := chatClient(t, chatReply(10, 5, "get_weather", `{"city":"Paris"}`), chatReply(20, 3))
	_, err := toolopenai.NewChat(reg).Run(context.Background(), client, openai.ChatCompletionNewParams{
		Model: "gpt-test", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Paris?")},
	}, nil, agent.Options{Observer: toolotel.NewObserver(rec.opts...)})
	if err != nil {
		t.Fatal(err)
	}
	spans := rec.ended(t, 4)
	var names []string
	for _, s := range spans {
		names = append(names, s.Name+": "+s.Attrs["gen_ai.agent.name"])
	}
	wantNames := []string{"chat gpt-test: ", "chat gpt-test: ", "execute_tool get_weather: weather-bot", "invoke_agent weather-bot: weather-bot"}
	if diff := cmp.Diff(wantNames, names); diff != "" {
		t.Errorf("span names and gen_ai.agent.name (-want +got):\n%s", diff)
	}
	model := "gen_ai.operation.name=chat,gen_ai.provider.name=openai,gen_ai.request.model=gpt-test"
	want := []point{
		{"gen_ai.client.operation.duration", model, 2},
		{"gen_ai.client.token.usage", model + ",gen_ai.token.type=input", 30},
		{"gen_ai.client.token.usage", model + ",gen_ai.token.type=output", 8},
		{"gen_ai.execute_tool.duration", "gen_ai.agent.name=weather-bot,gen_ai.tool.name=get_weather,gen_ai.tool.type=function", 1},
		{"gen_ai.invoke_agent.duration", "gen_ai.agent.name=weather-bot,gen_ai.request.model=gpt-test", 1},
		{"toolreg.tool.calls", "gen_ai.tool.name=get_weather,toolreg.outcome=ok", 1},
	}
	if diff := cmp.Diff(want, rec.collect(t)); diff != "" {
		t.Errorf("metrics (-want +got):\n%s", diff)
	}
}
