package toolbedrock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/adapt/adapttest"
)

// streamed is opts with Stream set.
func streamed(opts agent.Options) agent.Options {
	opts.Stream = true
	return opts
}

// ev is one ConverseStream event: its name and its JSON payload.
func ev(name string, payload map[string]any) [2]string {
	b, err := json.Marshal(payload)
	if err != nil {
		panic(err)
	}
	return [2]string{name, string(b)}
}

func blockStart(i int, id, name string) [2]string {
	return ev("contentBlockStart", map[string]any{"contentBlockIndex": i, "start": map[string]any{"toolUse": map[string]any{"toolUseId": id, "name": name}}})
}

func inputDelta(i int, piece string) [2]string {
	return ev("contentBlockDelta", map[string]any{"contentBlockIndex": i, "delta": map[string]any{"toolUse": map[string]any{"input": piece}}})
}

func textDelta(i int, text string) [2]string {
	return ev("contentBlockDelta", map[string]any{"contentBlockIndex": i, "delta": map[string]any{"text": text}})
}

func blockStop(i int) [2]string {
	return ev("contentBlockStop", map[string]any{"contentBlockIndex": i})
}

var messageStart = ev("messageStart", map[string]any{"role": "assistant"})

// messageEnd is the end of a streamed response: its stop reason, then its
// usage and latency.
func messageEnd(stop string) [][2]string {
	return [][2]string{
		ev("messageStop", map[string]any{"stopReason": stop}),
		ev("metadata", map[string]any{"usage": map[string]any{"inputTokens": 12, "outputTokens": 7, "totalTokens": 19}, "metrics": map[string]any{"latencyMs": 100}}),
	}
}

// streamedToolUses is a streamed response asking for calls, given as
// name/input pairs, each input cut into 3-byte pieces, one call after the
// other; ids are tooluse_1, tooluse_2, ...
func streamedToolUses(pairs ...string) string {
	events := [][2]string{messageStart}
	for i := 0; i < len(pairs); i += 2 {
		events = append(events, blockStart(i/2, fmt.Sprintf("tooluse_%d", i/2+1), pairs[i]))
		for _, p := range adapttest.Pieces(pairs[i+1], 3) {
			events = append(events, inputDelta(i/2, p))
		}
		events = append(events, blockStop(i/2))
	}
	return adapttest.SSE(append(events, messageEnd("tool_use")...)...)
}

// streamedAnswer is a streamed final answer, written a word at a time.
func streamedAnswer(text string) string {
	events := [][2]string{messageStart}
	for _, w := range strings.SplitAfter(text, " ") {
		events = append(events, textDelta(0, w))
	}
	events = append(events, blockStop(0))
	return adapttest.SSE(append(events, messageEnd("end_turn")...)...)
}

func TestStreamLoop(t *testing.T) {
	adapttest.RunnerTests(t, runner(t, streamedToolUses, streamedAnswer, true))
}

func TestStreamControl(t *testing.T) {
	controlTests(t, streamedToolUses, streamedAnswer, true)
}

// TestStreamEvents: two calls whose inputs arrive in pieces, the second's
// before the first's end, then an answer word by word; the events come as
// they happen, the results go back in call order, and Final is the
// response as the stream built it.
func TestStreamEvents(t *testing.T) {
	a1, a2 := adapttest.Pieces(`{"city":"Oslo","days":2}`, 4), adapttest.Pieces(`{"city":"Rome"}`, 4)
	events := [][2]string{messageStart, textDelta(0, "Checking."), blockStop(0), blockStart(1, "tooluse_1", "get_weather"), blockStart(2, "tooluse_2", "get_weather")}
	for i := 0; i < max(len(a1), len(a2)); i++ {
		if i < len(a1) {
			events = append(events, inputDelta(1, a1[i]))
		}
		if i < len(a2) {
			events = append(events, inputDelta(2, a2[i]))
		}
	}
	events = append(events, blockStop(2), blockStop(1))
	api := fakeBedrock(adapttest.SSE(append(events, messageEnd("tool_use")...)...), streamedAnswer("Rome is warmer."))
	var kinds []string
	var text strings.Builder
	var usage []agent.Usage
	args := map[string]string{}
	run, err := New(adapttest.Registry(nil)).Run(context.Background(), newClient(t, api), converseInput(), nil, streamed(agent.Options{OnEvent: func(e agent.Event) {
		switch e.Kind {
		case agent.TextDelta:
			text.WriteString(e.Text)
		case agent.ArgumentsDelta:
			args[e.Call.ID] += e.Delta
			return // many: not listed
		case agent.StepDone:
			usage = append(usage, e.Usage)
		}
		kinds = append(kinds, fmt.Sprintf("%d %s %s", e.Step, e.Kind, e.Call.ID))
	}}))
	if err != nil {
		t.Fatal(err)
	}
	// tooluse_2's input ends first: it is ready first; the results still
	// go back in call order.
	want := []string{
		"1 text ", "1 call started tooluse_1", "1 call started tooluse_2", "1 call ready tooluse_2", "1 call ready tooluse_1", "1 step done ",
		"1 call result tooluse_1", "1 call result tooluse_2",
		"2 text ", "2 text ", "2 text ", "2 step done ",
	}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"tooluse_1": `{"city":"Oslo","days":2}`, "tooluse_2": `{"city":"Rome"}`}, args); diff != "" {
		t.Errorf("inputs as streamed (-want +got):\n%s", diff)
	}
	if text.String() != "Checking.Rome is warmer." || run.Answer() != "Rome is warmer." || len(usage) != 2 || usage[0] != (agent.Usage{InputTokens: 12, OutputTokens: 7}) {
		t.Errorf("text %q, answer %q, usage %+v", text.String(), run.Answer(), usage)
	}
	if run.Final.StopReason != types.StopReasonEndTurn || aws.ToInt64(run.Final.Metrics.LatencyMs) != 100 || aws.ToInt32(run.Final.Usage.OutputTokens) != 7 {
		t.Errorf("final: stop %q, metrics %+v, usage %+v", run.Final.StopReason, run.Final.Metrics, run.Final.Usage)
	}
	// The model's message goes back as it was written: its text, then its
	// tool uses, their inputs whole.
	msgs := requestMessages(t, api.Requests[1])
	wantAsst := map[string]any{"role": "assistant", "content": []any{
		map[string]any{"text": "Checking."},
		map[string]any{"toolUse": map[string]any{"toolUseId": "tooluse_1", "name": "get_weather", "input": map[string]any{"city": "Oslo", "days": float64(2)}}},
		map[string]any{"toolUse": map[string]any{"toolUseId": "tooluse_2", "name": "get_weather", "input": map[string]any{"city": "Rome"}}},
	}}
	if diff := cmp.Diff(wantAsst, msgs[1]); diff != "" {
		t.Errorf("the assistant's message sent back (-want +got):\n%s", diff)
	}
}

// TestStreamReasoning: a reasoning block streamed with its signature goes
// back with the tool use it came with, as Claude's extended thinking
// requires.
func TestStreamReasoning(t *testing.T) {
	reasoning := func(kind, v string) [2]string {
		return ev("contentBlockDelta", map[string]any{"contentBlockIndex": 0, "delta": map[string]any{"reasoningContent": map[string]any{kind: v}}})
	}
	reply := adapttest.SSE(append([][2]string{messageStart, reasoning("text", "The user wants "), reasoning("text", "the time."), reasoning("signature", "c2ln"),
		blockStop(0), blockStart(1, "tooluse_1", "get_time"), inputDelta(1, ""), blockStop(1)}, messageEnd("tool_use")...)...)
	api := fakeBedrock(reply, streamedAnswer("Ten."))
	if _, err := New(adapttest.Registry(nil)).Run(context.Background(), newClient(t, api), converseInput(), nil, streamed(agent.Options{})); err != nil {
		t.Fatal(err)
	}
	got := requestMessages(t, api.Requests[1])[1]["content"]
	want := []any{
		map[string]any{"reasoningContent": map[string]any{"reasoningText": map[string]any{"text": "The user wants the time.", "signature": "c2ln"}}},
		map[string]any{"toolUse": map[string]any{"toolUseId": "tooluse_1", "name": "get_time", "input": map[string]any{}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the assistant's content sent back (-want +got):\n%s", diff)
	}
}

// TestStreamStartsCallsEarly: a call whose input is complete runs while
// the model still writes the next; the stream goes on only once the first
// call has started, so a runner that waited would never finish.
func TestStreamStartsCallsEarly(t *testing.T) {
	hold := make(chan struct{})
	reg := adapttest.EarlyRegistry(hold)
	reply := adapttest.SSE(append([][2]string{messageStart, blockStart(0, "tooluse_1", "first"), inputDelta(0, "{}"), blockStop(0),
		blockStart(1, "tooluse_2", "second"), {adapttest.Wait}, inputDelta(1, "{}"), blockStop(1)}, messageEnd("tool_use")...)...)
	api := fakeBedrock(reply, streamedAnswer("ok"))
	api.Hold = hold
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := New(reg).Run(ctx, newClient(t, api), converseInput(), nil, streamed(agent.Options{})); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]adapttest.Result{{Text: "first done"}, {Text: "second done"}}, converseResults(t, api.Requests[1])); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
}

// TestStreamBroken: a stream that reports an exception, drops, or ends in
// the middle of an input ends the run with a clear error, and no call
// runs on an input that did not arrive whole.
func TestStreamBroken(t *testing.T) {
	begun := [][2]string{messageStart, blockStart(0, "tooluse_1", "get_weather"), inputDelta(0, `{"city":`)}
	tests := []struct {
		name  string
		reply string
		want  string
		is    error
	}{
		{"exception", adapttest.SSE(append(begun, ev("exception:modelStreamErrorException", map[string]any{"message": "the model is overloaded"}))...), "the model is overloaded", nil},
		// Dropped between two messages, the connection reads to the SDK as
		// the stream's end: the response is incomplete all the same.
		{"dropped connection", adapttest.SSE(append(begun, [2]string{adapttest.Cut})...), "the stream ended before the response was complete", toolreg.ErrTruncated},
		{"ended mid-input", adapttest.SSE(begun...), "the stream ended before the response was complete", toolreg.ErrTruncated},
		{"cut off mid-input", adapttest.SSE(append(begun, messageEnd("max_tokens")...)...), "is not whole", toolreg.ErrTruncated},
		{"a block a streamed run does not rebuild", adapttest.SSE(append(begun, ev("contentBlockDelta", map[string]any{"contentBlockIndex": 1,
			"delta": map[string]any{"citation": map[string]any{"title": "a source"}}}))...), "does not rebuild", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var received adapttest.Received
			api := fakeBedrock(tt.reply)
			_, err := New(adapttest.Registry(&received)).Run(context.Background(), newClient(t, api), converseInput(), nil, streamed(agent.Options{}))
			if err == nil || !strings.Contains(err.Error(), tt.want) || tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
			if len(received.Args()) != 0 {
				t.Errorf("a call ran on an input that did not arrive whole: %+v", received.Args())
			}
		})
	}
}

// TestStreamCancelled: cancelling while the model streams returns at once
// and leaves no goroutine behind.
func TestStreamCancelled(t *testing.T) {
	before := runtime.NumGoroutine()
	api := fakeBedrock(adapttest.SSE(messageStart, textDelta(0, "Thinking"), [2]string{adapttest.Wait}, blockStop(0)))
	api.Hold = make(chan struct{}) // never closed
	ctx, cancel := context.WithCancel(context.Background())
	_, err := New(adapttest.Registry(nil)).Run(ctx, newClient(t, api), converseInput(), nil, streamed(agent.Options{OnEvent: func(e agent.Event) {
		if e.Kind == agent.TextDelta {
			cancel()
		}
	}}))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
	adapttest.NoGoroutinesLeft(t, before)
}

// TestStreamLies: a ConverseStream that breaks its rules after a call is
// complete ends the run, and the calls that ran are recorded
// (adapttest.LieTests).
func TestStreamLies(t *testing.T) {
	oslo := [][2]string{messageStart, blockStart(0, "tooluse_1", "get_weather"), inputDelta(0, `{"city":"Oslo"}`), blockStop(0)}
	sse := func(events ...[2]string) string {
		return adapttest.SSE(append(append(append([][2]string(nil), oslo...), events...), messageEnd("tool_use")...)...)
	}
	adapttest.LieTests(t, fakeBedrock, func(ctx context.Context, api *adapttest.API, reg *toolreg.Registry) (*agent.State, error) {
		run, err := New(reg).Run(ctx, newClient(t, api), converseInput(), nil, streamed(agent.Options{}))
		return run.State, err
	}, []adapttest.Lie{
		{Name: "a block stopped twice", Reply: sse(blockStop(0)), Want: "handed over twice"},
		{Name: "input after the block stopped", Reply: sse(inputDelta(0, `,"x":1`)), Want: "after they were complete"},
		{Name: "arguments past the tool's limit", Reply: sse(blockStart(1, "tooluse_2", "get_weather"), inputDelta(1, `{"city":"`+strings.Repeat("x", 1<<20)+`"}`)),
			Want: "grew past the tool's limit of 1048576 bytes"},
	})
}

// TestStreamInputCopiesEveryField: a streamed run asks ConverseStream with
// everything the host set in its ConverseInput. The fixture sets every
// exported field, so a field a later SDK adds fails here until streamInput
// copies it.
func TestStreamInputCopiesEveryField(t *testing.T) {
	tier := types.ServiceTier{Type: types.ServiceTierTypeFlex}
	in := &bedrockruntime.ConverseInput{
		ModelId:                           aws.String("model"),
		AdditionalModelRequestFields:      document.NewLazyDocument(map[string]any{"top_k": 5}),
		AdditionalModelResponseFieldPaths: []string{"/stop_sequence"},
		GuardrailConfig: &types.GuardrailConfiguration{
			GuardrailIdentifier: aws.String("g"), GuardrailVersion: aws.String("1"), Trace: types.GuardrailTraceEnabled,
		},
		InferenceConfig:   &types.InferenceConfiguration{MaxTokens: aws.Int32(10)},
		Messages:          []types.Message{{Role: types.ConversationRoleUser}},
		OutputConfig:      &types.OutputConfig{},
		PerformanceConfig: &types.PerformanceConfiguration{Latency: types.PerformanceConfigLatencyOptimized},
		ProjectIdentifier: aws.String("project"),
		PromptVariables:   map[string]types.PromptVariableValues{"v": &types.PromptVariableValuesMemberText{Value: "x"}},
		RequestMetadata:   map[string]string{"k": "v"},
		ServiceTier:       &tier,
		System:            []types.SystemContentBlock{&types.SystemContentBlockMemberText{Value: "be brief"}},
		ToolConfig:        &types.ToolConfiguration{},
	}
	iv := reflect.ValueOf(in).Elem()
	for i := range iv.NumField() {
		if f := iv.Type().Field(i); f.IsExported() && iv.Field(i).IsZero() {
			t.Errorf("the fixture leaves ConverseInput.%s unset: set it, and make streamInput copy it", f.Name)
		}
	}
	out := streamInput(in)
	ov := reflect.ValueOf(out).Elem()
	for i := range ov.NumField() {
		f := ov.Type().Field(i)
		if !f.IsExported() || f.Name == "GuardrailConfig" {
			continue
		}
		from := iv.FieldByName(f.Name)
		if !from.IsValid() {
			t.Errorf("ConverseStreamInput.%s has no ConverseInput field to come from", f.Name)
			continue
		}
		if !reflect.DeepEqual(from.Interface(), ov.Field(i).Interface()) {
			t.Errorf("streamInput does not copy %s", f.Name)
		}
	}
	want := &types.GuardrailStreamConfiguration{GuardrailIdentifier: aws.String("g"), GuardrailVersion: aws.String("1"), Trace: types.GuardrailTraceEnabled}
	if !reflect.DeepEqual(out.GuardrailConfig, want) {
		t.Errorf("GuardrailConfig = %+v, want %+v", out.GuardrailConfig, want)
	}
	if streamInput(&bedrockruntime.ConverseInput{}).GuardrailConfig != nil {
		t.Error("no guardrail became one")
	}
}

// TestStreamInputInTheModelsOrder: a model writes an input's members in
// the order it likes and its strings with escapes of its own; the SDK
// hands the final response back re-encoded (members sorted). The call
// handed over early and the response's agree, so the run goes on, and
// the tool runs once, with the input as streamed.
func TestStreamInputInTheModelsOrder(t *testing.T) {
	api := fakeBedrock(streamedToolUses("get_weather", `{"unit":"celsius","days":2,"city":"Caf\u00e9 Oslo"}`), streamedAnswer("ok"))
	run, err := New(adapttest.Registry(nil)).Run(context.Background(), newClient(t, api), converseInput(), nil, streamed(agent.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	if run.Answer() != "ok" {
		t.Errorf("answer %q", run.Answer())
	}
	want := []adapttest.Result{{Text: `{"city":"Café Oslo","days":2,"unit":"celsius"}`}}
	if diff := cmp.Diff(want, converseResults(t, api.Requests[1])); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
}
