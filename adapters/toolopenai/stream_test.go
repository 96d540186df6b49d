package toolopenai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/adapt/adapttest"
)

// chunk is one Chat Completions stream chunk with the given choice delta
// (nil: no choices) and finish reason.
func chunk(delta map[string]any, finish any) [2]string {
	choices := []any{}
	if delta != nil {
		choices = append(choices, map[string]any{"index": 0, "delta": delta, "finish_reason": finish})
	}
	b, _ := json.Marshal(map[string]any{"id": "chatcmpl-s", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": choices})
	return [2]string{"", string(b)}
}

func usageChunk() [2]string {
	b, _ := json.Marshal(map[string]any{"id": "chatcmpl-s", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": []any{},
		"usage": map[string]any{"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 19}})
	return [2]string{"", string(b)}
}

var done = [2]string{"", "[DONE]"}

// pieces cuts s into pieces of n bytes, as a model streams arguments.
func pieces(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

func callStart(i int, name string) map[string]any {
	return map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": fmt.Sprintf("call_%d", i+1), "type": "function",
		"function": map[string]any{"name": name, "arguments": ""}}}}
}

func argsDelta(i int, piece string) map[string]any {
	return map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": piece}}}}
}

// streamedCalls is a streamed reply asking for calls, given as
// name/arguments pairs, each call's arguments cut into 3-byte pieces and
// written one call after the other.
func streamedCalls(pairs ...string) string {
	events := [][2]string{chunk(map[string]any{"role": "assistant", "content": nil}, nil)}
	for i := 0; i < len(pairs); i += 2 {
		events = append(events, chunk(callStart(i/2, pairs[i]), nil))
		for _, p := range pieces(pairs[i+1], 3) {
			events = append(events, chunk(argsDelta(i/2, p), nil))
		}
	}
	events = append(events, chunk(map[string]any{}, "tool_calls"), usageChunk(), done)
	return adapttest.SSE(events...)
}

// streamedAnswer is a streamed final answer, written a word at a time.
func streamedAnswer(text string) string {
	events := [][2]string{chunk(map[string]any{"role": "assistant", "content": ""}, nil)}
	for _, w := range strings.SplitAfter(text, " ") {
		events = append(events, chunk(map[string]any{"content": w}, nil))
	}
	events = append(events, chunk(map[string]any{}, "stop"), usageChunk(), done)
	return adapttest.SSE(events...)
}

// TestStreamChatControl: agent control is the same when the model streams.
func TestStreamChatControl(t *testing.T) {
	adapttest.ControlTests(t, adapttest.Control{
		Runner: adapttest.Runner{API: fakeOpenAI, Calls: streamedCalls, Answer: streamedAnswer, Results: chatResults},
		Start: func(ctx context.Context, api *adapttest.API, reg *toolreg.Registry, opts agent.Options) (*agent.State, error) {
			client := newClient(t, api)
			run, err := NewChat(reg).Run(ctx, &client.Chat.Completions, chatParams(), nil, streaming(opts))
			return run.State, err
		},
		Resume: func(ctx context.Context, api *adapttest.API, reg *toolreg.Registry, st *agent.State, opts agent.Options) (*agent.State, error) {
			client := newClient(t, api)
			run, err := NewChat(reg).Run(ctx, &client.Chat.Completions, chatParams(), st, streaming(opts))
			return run.State, err
		},
		Tools:   chatToolNames,
		Choice:  chatChoiceOf,
		Allowed: chatAllowedOf,
	})
}

// TestStreamChatEvents: two calls whose arguments arrive interleaved, in
// pieces, then an answer word by word; the events come as they happen,
// the results go back in call order.
func TestStreamChatEvents(t *testing.T) {
	a1, a2 := pieces(`{"city":"Oslo","days":2}`, 4), pieces(`{"city":"Rome"}`, 4)
	events := [][2]string{chunk(map[string]any{"role": "assistant", "content": nil}, nil), chunk(callStart(0, "get_weather"), nil), chunk(callStart(1, "get_weather"), nil)}
	for i := 0; i < max(len(a1), len(a2)); i++ {
		if i < len(a1) {
			events = append(events, chunk(argsDelta(0, a1[i]), nil))
		}
		if i < len(a2) {
			events = append(events, chunk(argsDelta(1, a2[i]), nil))
		}
	}
	events = append(events, chunk(map[string]any{}, "tool_calls"), usageChunk(), done)
	api := fakeOpenAI(adapttest.SSE(events...), streamedAnswer("Rome is warmer."))
	client := newClient(t, api)
	var kinds []string
	var text strings.Builder
	var usage agent.Usage
	args := map[string]string{}
	run, err := NewChat(adapttest.Registry(nil)).Run(context.Background(), &client.Chat.Completions, chatParams(), nil, agent.Options{Stream: true, OnEvent: func(e agent.Event) {
		switch e.Kind {
		case agent.TextDelta:
			text.WriteString(e.Text)
		case agent.ArgumentsDelta:
			args[e.Call.ID] += e.Delta
			return // many: not listed
		case agent.StepDone:
			usage = e.Usage
		}
		kinds = append(kinds, fmt.Sprintf("%d %s %s", e.Step, e.Kind, e.Call.ID))
	}})
	if err != nil {
		t.Fatal(err)
	}
	// call_2's arguments are whole first (they are shorter): it is ready
	// first; the results still go back in call order.
	want := []string{
		"1 call started call_1", "1 call started call_2", "1 call ready call_2", "1 call ready call_1", "1 step done ",
		"1 call result call_1", "1 call result call_2",
		"2 text ", "2 text ", "2 text ", "2 step done ",
	}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"call_1": `{"city":"Oslo","days":2}`, "call_2": `{"city":"Rome"}`}, args); diff != "" {
		t.Errorf("arguments as streamed (-want +got):\n%s", diff)
	}
	if text.String() != "Rome is warmer." || run.Answer() != "Rome is warmer." || usage != (agent.Usage{InputTokens: 12, OutputTokens: 7}) {
		t.Errorf("text %q, answer %q, usage %+v", text.String(), run.Answer(), usage)
	}
	got := chatResults(t, api.Requests[1])
	if diff := cmp.Diff([]adapttest.Result{{Text: `{"city":"Oslo","days":2,"unit":"celsius"}`}, {Text: `{"city":"Rome","days":1,"unit":"celsius"}`}}, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if api.Requests[0]["stream"] != true {
		t.Errorf("the request did not ask for a stream: %v", api.Requests[0])
	}
}

// TestStreamChatStartsCallsEarly: a call whose arguments are complete runs
// while the model still writes the next; the stream goes on only once the
// first call has started, so a runner that waited would never finish.
func TestStreamChatStartsCallsEarly(t *testing.T) {
	hold := make(chan struct{})
	reg := adapttest.EarlyRegistry(hold)
	reply := adapttest.SSE(chunk(callStart(0, "first"), nil), chunk(argsDelta(0, "{}"), nil), chunk(callStart(1, "second"), nil),
		[2]string{adapttest.Wait}, chunk(argsDelta(1, "{}"), nil), chunk(map[string]any{}, "tool_calls"), done)
	api := fakeOpenAI(reply, streamedAnswer("ok"))
	api.Hold = hold
	client := newClient(t, api)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := NewChat(reg).Run(ctx, &client.Chat.Completions, chatParams(), nil, agent.Options{Stream: true}); err != nil {
		t.Fatal(err)
	}
	got := chatResults(t, api.Requests[1])
	if diff := cmp.Diff([]adapttest.Result{{Text: "first done"}, {Text: "second done"}}, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
}

// TestStreamChatBroken: a stream that reports an error, drops, or ends in
// the middle of arguments ends the run with a clear error, and no call runs
// on arguments that did not arrive whole.
func TestStreamChatBroken(t *testing.T) {
	start := []([2]string){chunk(callStart(0, "get_weather"), nil), chunk(argsDelta(0, `{"city":`), nil)}
	tests := []struct {
		name  string
		reply string
		want  string
	}{
		{"error event", adapttest.SSE(append(start, [2]string{"", `{"error":{"message":"the server is overloaded","type":"server_error"}}`})...), "the server is overloaded"},
		{"dropped connection", adapttest.SSE(append(start, [2]string{adapttest.Cut})...), "unexpected EOF"},
		{"ended mid-arguments", adapttest.SSE(append(start, done)...), "the stream ended before the response was complete"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var received adapttest.Received
			api := fakeOpenAI(tt.reply)
			client := newClient(t, api)
			_, err := NewChat(adapttest.Registry(&received)).Run(context.Background(), &client.Chat.Completions, chatParams(), nil, agent.Options{Stream: true})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
			if len(received.Args()) != 0 {
				t.Errorf("a call ran on arguments that did not arrive whole: %+v", received.Args())
			}
		})
	}
	_, err := NewChat(adapttest.Registry(nil)).Run(context.Background(), &newClientFor(t, fakeOpenAI(adapttest.SSE(append(start, done)...))).Chat.Completions, chatParams(), nil, agent.Options{Stream: true})
	if !errors.Is(err, toolreg.ErrTruncated) {
		t.Errorf("a stream ended mid-arguments: err %v, want ErrTruncated", err)
	}
}

func newClientFor(t *testing.T, api *adapttest.API) *openai.Client {
	c := newClient(t, api)
	return &c
}

// TestStreamChatCancelled: cancelling while the model streams returns at
// once and leaves no goroutine behind.
func TestStreamChatCancelled(t *testing.T) {
	before := runtime.NumGoroutine()
	api := fakeOpenAI(adapttest.SSE(chunk(map[string]any{"role": "assistant", "content": "Thinking"}, nil), [2]string{adapttest.Wait}, done))
	api.Hold = make(chan struct{}) // never closed
	client := newClient(t, api)
	ctx, cancel := context.WithCancel(context.Background())
	var once bool
	_, err := NewChat(adapttest.Registry(nil)).Run(ctx, &client.Chat.Completions, chatParams(), nil, agent.Options{Stream: true, OnEvent: func(e agent.Event) {
		if e.Kind == agent.TextDelta && !once {
			once = true
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
	adapttest.NoGoroutinesLeft(t, before)
}

// event is one Responses stream event of the given type.
func event(typ string, fields map[string]any) [2]string {
	fields["type"] = typ
	b, _ := json.Marshal(fields)
	return [2]string{typ, string(b)}
}

// streamedResponse streams what reply (a whole response, as
// responsesCalls and responsesAnswer write it) holds: each function
// call's item added, its arguments in pieces, the item done; text a word
// at a time; then the response completed.
func streamedResponse(reply string) string {
	var resp map[string]any
	json.Unmarshal([]byte(reply), &resp)
	resp["usage"] = map[string]any{"input_tokens": 12, "output_tokens": 7, "total_tokens": 19,
		"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}}
	events := [][2]string{event("response.created", map[string]any{"response": map[string]any{"id": resp["id"], "object": "response", "status": "in_progress", "output": []any{}}})}
	for i, item := range resp["output"].([]any) {
		item := item.(map[string]any)
		switch item["type"] {
		case "function_call":
			started := map[string]any{}
			for k, v := range item {
				started[k] = v
			}
			started["arguments"], started["status"] = "", "in_progress"
			events = append(events, event("response.output_item.added", map[string]any{"output_index": i, "item": started}))
			for _, p := range pieces(item["arguments"].(string), 3) {
				events = append(events, event("response.function_call_arguments.delta", map[string]any{"output_index": i, "item_id": item["id"], "delta": p}))
			}
			events = append(events, event("response.output_item.done", map[string]any{"output_index": i, "item": item}))
		case "message":
			text := item["content"].([]any)[0].(map[string]any)["text"].(string)
			for _, w := range strings.SplitAfter(text, " ") {
				events = append(events, event("response.output_text.delta", map[string]any{"output_index": i, "item_id": item["id"], "content_index": 0, "delta": w}))
			}
		}
	}
	events = append(events, event("response.completed", map[string]any{"response": resp}))
	return adapttest.SSE(events...)
}

// TestStreamResponsesControl: agent control on the streaming Responses API.
func TestStreamResponsesControl(t *testing.T) {
	adapttest.ControlTests(t, responsesControl(t, true, WithClientToolSearch()))
}

// TestStreamResponsesEvents: the events of a streamed Responses run, and
// a stream that breaks off.
func TestStreamResponsesEvents(t *testing.T) {
	api := fakeOpenAI(streamedResponse(responsesCalls("get_weather", `{"city":"Oslo"}`, "get_time", `{}`)), streamedResponse(responsesAnswer("Sunny at ten.")))
	client := newClient(t, api)
	var kinds []string
	var text strings.Builder
	run, err := NewResponses(adapttest.Registry(nil)).Run(context.Background(), &client.Responses, responsesParams(), nil, agent.Options{Stream: true, OnEvent: func(e agent.Event) {
		switch e.Kind {
		case agent.ArgumentsDelta:
			return
		case agent.TextDelta:
			text.WriteString(e.Text)
		}
		kinds = append(kinds, fmt.Sprintf("%d %s %s", e.Step, e.Kind, e.Call.ID))
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"1 call started call_1", "1 call ready call_1", "1 call started call_2", "1 call ready call_2", "1 step done ",
		"1 call result call_1", "1 call result call_2", "2 text ", "2 text ", "2 text ", "2 step done "}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if text.String() != "Sunny at ten." || run.Answer() != "Sunny at ten." {
		t.Errorf("text %q, answer %q", text.String(), run.Answer())
	}

	var received adapttest.Received
	broken := adapttest.SSE(event("response.output_item.added", map[string]any{"output_index": 0, "item": map[string]any{"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather", "arguments": ""}}),
		event("response.function_call_arguments.delta", map[string]any{"output_index": 0, "item_id": "fc_1", "delta": `{"ci`}), [2]string{adapttest.Cut})
	client = newClient(t, fakeOpenAI(broken))
	if _, err := NewResponses(adapttest.Registry(&received)).Run(context.Background(), &client.Responses, responsesParams(), nil, agent.Options{Stream: true}); err == nil || len(received.Args()) != 0 {
		t.Errorf("a dropped stream: err %v, calls %v", err, received.Args())
	}
	failed := adapttest.SSE(event("error", map[string]any{"code": "server_error", "message": "the server is overloaded"}))
	client = newClient(t, fakeOpenAI(failed))
	if _, err := NewResponses(adapttest.Registry(nil)).Run(context.Background(), &client.Responses, responsesParams(), nil, agent.Options{Stream: true}); err == nil || !strings.Contains(err.Error(), "overloaded") {
		t.Errorf("an error event: err %v", err)
	}
}

// TestStreamLies: Chat Completions and Responses streams that break their
// rules after a call is complete end the run, and the calls that ran are
// recorded (adapttest.LieTests).
func TestStreamLies(t *testing.T) {
	huge := `{"city":"` + strings.Repeat("x", 1<<20) + `"}`
	chatOslo := []([2]string){chunk(callStart(0, "get_weather"), nil), chunk(argsDelta(0, `{"city":"Oslo"}`), nil), chunk(callStart(1, "get_weather"), nil)}
	nameDelta := chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]any{"name": "_v2"}}}}, nil)
	finish := []([2]string){chunk(map[string]any{}, "tool_calls"), usageChunk(), done}
	t.Run("chat", func(t *testing.T) {
		adapttest.LieTests(t, fakeOpenAI, func(ctx context.Context, api *adapttest.API, reg *toolreg.Registry) (*agent.State, error) {
			client := newClient(t, api)
			run, err := NewChat(reg).Run(ctx, &client.Chat.Completions, chatParams(), nil, agent.Options{Stream: true})
			return run.State, err
		}, []adapttest.Lie{
			{Name: "a name delta after the call was complete", Reply: adapttest.SSE(slices.Concat(chatOslo, []([2]string){nameDelta, chunk(argsDelta(1, `{"city":"Rome"}`), nil)}, finish)...),
				Want: `handed over as "get_weather"`},
			{Name: "arguments after the call was complete", Reply: adapttest.SSE(slices.Concat(chatOslo, []([2]string){chunk(argsDelta(0, ` `), nil), chunk(argsDelta(1, `{"city":"Rome"}`), nil)}, finish)...),
				Want: "after they were complete"},
			{Name: "arguments past the tool's limit", Reply: adapttest.SSE(slices.Concat(chatOslo, []([2]string){chunk(argsDelta(1, huge), nil)}, finish)...),
				Want: "grew past the tool's limit of 1048576 bytes"},
		})
	})
	item := func(id, callID, args string) map[string]any {
		return map[string]any{"type": "function_call", "id": id, "call_id": callID, "name": "get_weather", "arguments": args, "status": "completed"}
	}
	added := event("response.output_item.added", map[string]any{"output_index": 0, "item": item("fc_1", "call_1", "")})
	delta := func(s string) [2]string {
		return event("response.function_call_arguments.delta", map[string]any{"output_index": 0, "item_id": "fc_1", "delta": s})
	}
	itemDone := event("response.output_item.done", map[string]any{"output_index": 0, "item": item("fc_1", "call_1", `{"city":"Oslo"}`)})
	completed := event("response.completed", map[string]any{"response": map[string]any{"id": "resp_1", "object": "response", "status": "completed",
		"output": []any{item("fc_1", "call_1", `{"city":"Oslo"}`)}}})
	t.Run("responses", func(t *testing.T) {
		adapttest.LieTests(t, fakeOpenAI, func(ctx context.Context, api *adapttest.API, reg *toolreg.Registry) (*agent.State, error) {
			client := newClient(t, api)
			run, err := NewResponses(reg).Run(ctx, &client.Responses, responsesParams(), nil, agent.Options{Stream: true})
			return run.State, err
		}, []adapttest.Lie{
			{Name: "an item done twice", Reply: adapttest.SSE(added, delta(`{"city":"Oslo"}`), itemDone, itemDone, completed), Want: "handed over twice"},
			{Name: "arguments after the item was done", Reply: adapttest.SSE(added, delta(`{"city":"Oslo"}`), itemDone, delta(`,"x":1`), completed), Want: "after they were complete"},
			{Name: "arguments past the tool's limit", Reply: adapttest.SSE(added, delta(huge), itemDone, completed), Want: "grew past the tool's limit of 1048576 bytes"},
		})
	})
}

// streaming is opts with Stream set: the run asks through the streaming API.
func streaming(opts agent.Options) agent.Options {
	opts.Stream = true
	return opts
}
