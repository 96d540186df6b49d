package toolgemini

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/adapt/adapttest"
	"google.golang.org/genai"
)

// chunk is one streamed chunk whose candidate holds parts (JSON), with a
// finishReason when finish is not "".
func chunk(finish string, parts ...string) [2]string {
	c := `{"content":{"role":"model","parts":[` + strings.Join(parts, ",") + `]},"index":0`
	if finish != "" {
		c += `,"finishReason":"` + finish + `"`
	}
	return [2]string{"", `{"candidates":[` + c + `}]}`}
}

func callPart(id, name, args string) string {
	return `{"functionCall":{"id":"` + id + `","name":"` + name + `","args":` + args + `}}`
}

// TestStreamEvents: the events of a streamed run in order, the text as
// it came, the usage of each step (thoughts count as output), the final
// response put together, and the streaming endpoint asked.
func TestStreamEvents(t *testing.T) {
	calls := adapttest.SSE(
		chunk("", `{"text":"Checking","thought":true}`),
		chunk("", `{"text":"Let me "}`, `{"text":"check."}`),
		chunk("", callPart("fc-1", "get_weather", `{"city":"Oslo","days":2}`)),
		[2]string{"", `{"candidates":[{"content":{"role":"model","parts":[` + callPart("fc-2", "get_time", `{}`) + `]},"finishReason":"STOP","index":0}],` +
			`"usageMetadata":{"promptTokenCount":12,"candidatesTokenCount":7,"thoughtsTokenCount":3,"totalTokenCount":22}}`},
	)
	api := fakeGemini(calls, streamedAnswer("Sunny at ten."))
	var events []string
	var text strings.Builder
	var usage []agent.Usage
	run, err := start(context.Background(), t, api, adapttest.Registry(nil), true, nil, agent.Options{OnEvent: func(e agent.Event) {
		switch e.Kind {
		case agent.TextDelta:
			text.WriteString(e.Text)
		case agent.StepDone:
			usage = append(usage, e.Usage)
		}
		events = append(events, fmt.Sprintf("%d %s %s", e.Step, e.Kind, e.Call.ID))
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"1 text ", "1 text ", "1 call started fc-1", "1 call ready fc-1", "1 call started fc-2", "1 call ready fc-2", "1 step done ",
		"1 call result fc-1", "1 call result fc-2",
		"2 text ", "2 text ", "2 text ", "2 step done ",
	}
	if diff := cmp.Diff(want, events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if got := text.String(); got != "Let me check.Sunny at ten." || run.Answer() != "Sunny at ten." {
		t.Errorf("text %q, answer %q", got, run.Answer())
	}
	if diff := cmp.Diff([]agent.Usage{{InputTokens: 12, OutputTokens: 10}, {InputTokens: 10, OutputTokens: 5}}, usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	for i, p := range api.Paths {
		if p != "/v1/models/gemini-test:streamGenerateContent" {
			t.Errorf("request %d went to %s", i, p)
		}
	}
	// The model content of step 1, as sent back: the chunks' parts in
	// order, the thought included.
	wantTurn := parse(t, `{"role":"model","parts":[{"text":"Checking","thought":true},{"text":"Let me "},{"text":"check."},
		{"functionCall":{"id":"fc-1","name":"get_weather","args":{"city":"Oslo","days":2}}},{"functionCall":{"id":"fc-2","name":"get_time"}}]}`) // the SDK writes empty args as none
	if diff := cmp.Diff(wantTurn, api.Requests[1]["contents"].([]any)[1]); diff != "" {
		t.Errorf("model content sent back (-want +got):\n%s", diff)
	}
	if run.Final.Candidates[0].FinishReason != genai.FinishReasonStop || run.Final.ModelVersion != "gemini-test" || len(run.Contents) != 4 {
		t.Errorf("final %+v, %d contents", run.Final, len(run.Contents))
	}
}

// TestStreamStartsCallsEarly: a call runs as soon as its part arrives,
// while the model still writes the next; the stream goes on only once the
// first call has started, so a runner that waited would never finish.
func TestStreamStartsCallsEarly(t *testing.T) {
	hold := make(chan struct{})
	reg := adapttest.EarlyRegistry(hold)
	reply := adapttest.SSE(chunk("", callPart("fc-1", "first", `{}`)), [2]string{adapttest.Wait}, chunk("STOP", callPart("fc-2", "second", `{}`)))
	api := fakeGemini(reply, streamedAnswer("ok"))
	api.Hold = hold
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := start(ctx, t, api, reg, true, nil, agent.Options{}); err != nil {
		t.Fatal(err)
	}
	want := []adapttest.Result{{Text: "first done"}, {Text: "second done"}}
	if diff := cmp.Diff(want, sentResults(t, api.Requests[1], true)); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
}

// TestStreamBroken: a stream that reports an error, drops, breaks off in
// the middle of a part, ends without a finishReason or before a call in
// pieces is complete ends the run with a clear error, and no call runs on a part that
// did not arrive whole.
func TestStreamBroken(t *testing.T) {
	text := chunk("", `{"text":"Let me check."}`)
	tests := []struct {
		name  string
		reply string
		want  string
		is    error
	}{
		{"error event", adapttest.SSE(text, [2]string{"", `{"error":{"code":503,"message":"the model is overloaded","status":"UNAVAILABLE"}}`}), "the model is overloaded", nil},
		{"dropped connection", adapttest.SSE(text, [2]string{adapttest.Cut}), "unexpected EOF", nil},
		{"dropped in a part", adapttest.SSE(text) + `data: {"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"ci` + adapttest.Cut, "unexpected end of JSON input", nil},
		{"no finishReason", adapttest.SSE(text), "the stream ended before the response was complete", toolreg.ErrTruncated},
		{"nothing", adapttest.SSE(), "the stream ended before the response was complete", toolreg.ErrTruncated},
		{"a call in pieces never complete", adapttest.SSE(chunk("STOP", `{"functionCall":{"name":"get_weather","partialArgs":[{"jsonPath":"$.city","stringValue":"Os"}],"willContinue":true}}`)),
			`the response ended before call "get_weather" was complete`, agent.ErrBrokenStream},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var received adapttest.Received
			api := fakeGemini(tt.reply)
			run, err := start(context.Background(), t, api, adapttest.Registry(&received), true, nil, agent.Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) || (tt.is != nil && !errors.Is(err, tt.is)) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
			if len(received.Args()) != 0 || len(run.Contents) != 1 {
				t.Errorf("a call ran on a part that did not arrive whole (%+v), or the transcript grew to %d", received.Args(), len(run.Contents))
			}
			if len(api.Requests) != 1 {
				t.Errorf("%d requests: the broken stream was asked again", len(api.Requests))
			}
		})
	}
}

// TestStreamCancelled: cancelling while the model streams returns at
// once and leaves no goroutine behind.
func TestStreamCancelled(t *testing.T) {
	before := runtime.NumGoroutine()
	api := fakeGemini(adapttest.SSE(chunk("", `{"text":"Thinking"}`), [2]string{adapttest.Wait}, chunk("STOP", `{"text":" done"}`)))
	api.Hold = make(chan struct{}) // never closed
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	begun := time.Now()
	_, err := start(ctx, t, api, adapttest.Registry(nil), true, nil, agent.Options{OnEvent: func(e agent.Event) {
		if e.Kind == agent.TextDelta {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
	if d := time.Since(begun); d > 2*time.Second {
		t.Errorf("cancellation took %v", d)
	}
	adapttest.NoGoroutinesLeft(t, before)
}
