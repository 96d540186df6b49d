package toolanthropic

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/adapt/adapttest"
)

// event is one server-sent event of the Messages API: its type names the
// event and is in its data, as the API sends it.
func event(typ string, fields map[string]any) [2]string {
	fields["type"] = typ
	b, _ := json.Marshal(fields)
	return [2]string{typ, string(b)}
}

func blockStart(i int, block map[string]any) [2]string {
	return event("content_block_start", map[string]any{"index": i, "content_block": block})
}

func blockDelta(i int, delta map[string]any) [2]string {
	return event("content_block_delta", map[string]any{"index": i, "delta": delta})
}

func blockStop(i int) [2]string { return event("content_block_stop", map[string]any{"index": i}) }

func inputDelta(i int, piece string) [2]string {
	return blockDelta(i, map[string]any{"type": "input_json_delta", "partial_json": piece})
}

func toolUseStart(i int, id, name string) [2]string {
	return blockStart(i, map[string]any{"type": "tool_use", "id": id, "name": name, "input": map[string]any{}})
}

// messageStart opens a streamed message; end closes it with stopReason.
func messageStart() [][2]string {
	return [][2]string{event("message_start", map[string]any{"message": map[string]any{
		"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 100, "cache_read_input_tokens": 20, "output_tokens": 1}}}),
		event("ping", map[string]any{})}
}

func end(stopReason string) [][2]string {
	return [][2]string{
		event("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stopReason, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 50}}),
		event("message_stop", map[string]any{}),
	}
}

// streamed streams reply (a whole message, as message writes it) as the
// API does: each block started, its text a word at a time or its input in
// 3-byte pieces (after the empty piece the API sends first), stopped; then
// the stop reason and message_stop. Other blocks arrive whole in their
// start.
func streamed(reply string) string {
	var msg struct {
		StopReason string            `json:"stop_reason"`
		Content    []json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal([]byte(reply), &msg); err != nil {
		panic(err)
	}
	events := messageStart()
	for i, raw := range msg.Content {
		var b struct {
			Type, ID, Name, Text string
			Input                json.RawMessage
		}
		json.Unmarshal(raw, &b)
		switch b.Type {
		case "text":
			events = append(events, blockStart(i, map[string]any{"type": "text", "text": ""}))
			for _, w := range strings.SplitAfter(b.Text, " ") {
				events = append(events, blockDelta(i, map[string]any{"type": "text_delta", "text": w}))
			}
		case "tool_use":
			events = append(events, toolUseStart(i, b.ID, b.Name), inputDelta(i, ""))
			for _, p := range adapttest.Pieces(string(b.Input), 3) {
				events = append(events, inputDelta(i, p))
			}
		default:
			var whole map[string]any
			json.Unmarshal(raw, &whole)
			events = append(events, blockStart(i, whole))
		}
		events = append(events, blockStop(i))
	}
	return adapttest.SSE(append(events, end(msg.StopReason)...)...)
}

func streamedUses(pairs ...string) string { return streamed(toolUses(pairs...)) }
func streamedAnswer(text string) string   { return streamed(answer(text)) }

// TestStreamEvents: text, then two tool_use blocks whose inputs arrive in
// many pieces, interleaved, the second closed first; then an
// answer word by word. The events come as they happen, each call is ready when its
// block closes, and the results go back in call order.
func TestStreamEvents(t *testing.T) {
	reply := append(messageStart(),
		blockStart(0, map[string]any{"type": "text", "text": ""}),
		blockDelta(0, map[string]any{"type": "text_delta", "text": "Let me "}),
		blockDelta(0, map[string]any{"type": "text_delta", "text": "check."}),
		blockStop(0),
		toolUseStart(1, "toolu_1", "get_weather"), inputDelta(1, ""),
		toolUseStart(2, "toolu_2", "get_weather"), inputDelta(2, ""))
	a1, a2 := adapttest.Pieces(`{"city":"Oslo","days":2}`, 2), adapttest.Pieces(`{"city":"Rome"}`, 2)
	for i := range max(len(a1), len(a2)) {
		if i < len(a1) {
			reply = append(reply, inputDelta(1, a1[i]))
		}
		if i < len(a2) {
			reply = append(reply, inputDelta(2, a2[i]))
		}
	}
	// The second block closes first (a block closed twice breaks the
	// stream: TestStreamLies).
	reply = append(append(reply, blockStop(2), blockStop(1)), end("tool_use")...)
	api := fakeAnthropic(adapttest.SSE(reply...), streamedAnswer("Rome is warmer."))
	client := newClient(t, api)
	var events adapttest.Events
	run, err := New(adapttest.Registry(nil)).Run(context.Background(), &client.Messages, params("Oslo or Rome?"), nil, agent.Options{Stream: true, OnEvent: events.Record})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"1 text ", "1 text ",
		"1 call started toolu_1", "1 call started toolu_2", "1 call ready toolu_2", "1 call ready toolu_1", "1 step done ",
		"1 call result toolu_1", "1 call result toolu_2",
		"2 text ", "2 text ", "2 text ", "2 step done ",
	}
	if diff := cmp.Diff(want, events.Kinds); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"toolu_1": `{"city":"Oslo","days":2}`, "toolu_2": `{"city":"Rome"}`}, events.Args); diff != "" {
		t.Errorf("inputs as streamed (-want +got):\n%s", diff)
	}
	// Usage: message_start's input (cache reads included), message_delta's output.
	if diff := cmp.Diff([]agent.Usage{{InputTokens: 120, OutputTokens: 50}, {InputTokens: 120, OutputTokens: 50}}, events.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	if events.Text != "Let me check.Rome is warmer." || run.Answer() != "Rome is warmer." {
		t.Errorf("text %q, answer %q", events.Text, run.Answer())
	}
	got := runResults(t, api.Requests[1])
	if diff := cmp.Diff([]adapttest.Result{{Text: `{"city":"Oslo","days":2,"unit":"celsius"}`}, {Text: `{"city":"Rome","days":1,"unit":"celsius"}`}}, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if api.Requests[0]["stream"] != true {
		t.Errorf("the request did not ask for a stream: %v", api.Requests[0])
	}
}

// TestStreamBreaksOff: calls start early, streams that break off, and
// cancellation, as in every streaming runner.
func TestStreamBreaksOff(t *testing.T) {
	text := func(s string) [][2]string {
		return [][2]string{blockStart(0, map[string]any{"type": "text", "text": ""}), blockDelta(0, map[string]any{"type": "text_delta", "text": s})}
	}
	sse := func(events ...[][2]string) string { return adapttest.SSE(slices.Concat(events...)...) }
	early := [][2]string{blockStop(0), toolUseStart(1, "toolu_1", "first"), inputDelta(1, "{}"), blockStop(1),
		toolUseStart(2, "toolu_2", "second"), {adapttest.Wait}, inputDelta(2, "{}"), blockStop(2)}
	// A get_weather call whose input has begun, and the same call closed
	// with its input cut.
	begun := slices.Concat(messageStart(), [][2]string{toolUseStart(0, "toolu_1", "get_weather"), inputDelta(0, `{"city":`)})
	closed := slices.Concat(begun, [][2]string{blockStop(0)})
	adapttest.StreamTests(t, adapttest.Streamer{
		Runner: adapttest.Runner{API: fakeAnthropic, Answer: streamedAnswer, Results: runResults},
		Stream: func(ctx context.Context, api *adapttest.API, reg *toolreg.Registry, opts agent.Options) error {
			client := newClient(t, api)
			opts.Stream = true
			_, err := New(reg).Run(ctx, &client.Messages, params("go"), nil, opts)
			return err
		},
		Early:   sse(messageStart(), text("Both."), early, end("tool_use")),
		Writing: sse(messageStart(), text("Thinking"), [][2]string{{adapttest.Wait}}),
		Broken: []adapttest.Broken{
			{Name: "error event", Reply: sse(begun, [][2]string{{"error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`}}),
				Want: "Overloaded"},
			{Name: "dropped connection", Reply: sse(begun, [][2]string{{adapttest.Cut}}), Want: "unexpected EOF"},
			{Name: "no message_stop", Reply: sse(closed), Want: "the stream ended before the message was complete", Is: toolreg.ErrTruncated},
			{Name: "input cut, then tool_use", Reply: sse(closed, end("tool_use")), Want: "the input of tool_use toolu_1 did not arrive as whole JSON"},
			{Name: "input cut at max_tokens", Reply: sse(closed, end("max_tokens")), Want: `stop_reason "max_tokens"`, Is: toolreg.ErrTruncated},
		},
	})
}

// TestStreamPauseTurn: a streamed message that pauses its turn (a server
// tool still at work) is sent back as it came, and the model asked again.
func TestStreamPauseTurn(t *testing.T) {
	var received adapttest.Received
	paused := streamed(message("pause_turn",
		map[string]any{"type": "text", "text": "Searching."},
		map[string]any{"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": map[string]any{"query": "weather"}}))
	api := fakeAnthropic(paused, streamedAnswer("Sunny."))
	client := newClient(t, api)
	run, err := New(adapttest.Registry(&received)).Run(context.Background(), &client.Messages, params("search"), nil, agent.Options{Stream: true})
	if err != nil || run.Answer() != "Sunny." || run.Steps() != 2 {
		t.Fatalf("err %v, answer %q, steps %d", err, run.Answer(), run.Steps())
	}
	msgs := api.Requests[1]["messages"].([]any)
	want := map[string]any{"role": "assistant", "content": []any{
		map[string]any{"type": "text", "text": "Searching."},
		map[string]any{"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": map[string]any{"query": "weather"}},
	}}
	if diff := cmp.Diff(want, msgs[len(msgs)-1]); len(msgs) != 2 || diff != "" {
		t.Errorf("the paused turn was not sent back as it came (-want +got):\n%s", diff)
	}
	if len(received.Args()) != 0 {
		t.Errorf("a paused turn ran tools: %v", received.Args())
	}
}

// replay answers every request with body, as server-sent events, without
// a network between.
type replay string

func (r replay) RoundTrip(req *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: http.StatusOK, Request: req, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(strings.NewReader(string(r)))}, nil
}

// BenchmarkStream: what the runner adds to each event of a streamed
// message (reporting it, handing calls over) against the SDK's stream and
// accumulation alone, on a message of text and two calls.
func BenchmarkStream(b *testing.B) {
	text := strings.Repeat("The forecast says light rain in the morning. ", 8)
	input := `{"city":"Oslo","days":3,"unit":"celsius"}`
	reply := streamed(message("tool_use", map[string]any{"type": "text", "text": text},
		map[string]any{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": json.RawMessage(input)},
		map[string]any{"type": "tool_use", "id": "toolu_2", "name": "get_weather", "input": json.RawMessage(input)}))
	events := strings.Count(reply, "event: ")
	client := anthropic.NewClient(option.WithHTTPClient(&http.Client{Transport: replay(reply)}), option.WithBaseURL("http://replay"), option.WithAPIKey("test"))
	a := New(adapttest.Registry(nil))
	p := params("hi")
	perEvent := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*events), "ns/event")
	}
	b.Run("sdk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			stream := client.Messages.NewStreaming(context.Background(), p)
			var msg anthropic.Message
			for stream.Next() {
				if err := msg.Accumulate(stream.Current()); err != nil {
					b.Fatal(err)
				}
			}
			if stream.Err() != nil || len(msg.Content) != 3 {
				b.Fatal(stream.Err())
			}
			stream.Close()
		}
		perEvent(b)
	})
	b.Run("runner", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			msg, err := a.streamMessage(context.Background(), &client.Messages, p, 1, func(agent.Event) {}, func(int, toolreg.ToolCall) {})
			if err != nil || len(msg.Content) != 3 {
				b.Fatal(err)
			}
		}
		perEvent(b)
	})
}

// TestStreamLies: a stream that breaks its rules after a call is complete
// ends the run, and the calls that ran are recorded (adapttest.LieTests).
func TestStreamLies(t *testing.T) {
	sse := func(events ...[][2]string) string { return adapttest.SSE(slices.Concat(events...)...) }
	oslo := slices.Concat(messageStart(), [][2]string{toolUseStart(0, "toolu_1", "get_weather"), inputDelta(0, `{"city":"Oslo"}`), blockStop(0)})
	huge := `{"city":"` + strings.Repeat("x", 1<<20) + `"}`
	adapttest.LieTests(t, fakeAnthropic, func(ctx context.Context, api *adapttest.API, reg *toolreg.Registry) (*agent.State, error) {
		client := newClient(t, api)
		run, err := New(reg).Run(ctx, &client.Messages, params("go"), nil, agent.Options{Stream: true})
		return run.State, err
	}, []adapttest.Lie{
		{Name: "input after content_block_stop", Reply: sse(oslo, [][2]string{inputDelta(0, `,"x":1`)}, end("tool_use")), Want: "after they were complete"},
		{Name: "a block stopped twice", Reply: sse(oslo, [][2]string{blockStop(0)}, end("tool_use")), Want: "handed over twice"},
		{Name: "arguments past the tool's limit", Reply: sse(oslo, [][2]string{toolUseStart(1, "toolu_2", "get_weather")}, [][2]string{inputDelta(1, huge)}, end("tool_use")),
			Want: "grew past the tool's limit of 1048576 bytes"},
	})
}
