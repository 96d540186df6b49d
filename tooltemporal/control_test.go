package tooltemporal

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/adapt/adapttest"
	"github.com/toolreg/toolreg/tooltemporal/internal/offline"
	"go.temporal.io/sdk/temporal"
)

// TestAPausedRunnerStateGoesOnInTheWorkflow: the State a runner paused
// is the workflow's input, and the run goes on there; no call runs twice.
func TestAPausedRunnerStateGoesOnInTheWorkflow(t *testing.T) {
	var s seen
	reg := testRegistry(&s)
	script := &offline.Script{Replies: []offline.Reply{reply(call("w", "weather", "Oslo"), call("b", "book", "Oslo")), say("Booked.")}}
	chat, stop := script.Client()
	defer stop()
	params := openai.ChatCompletionNewParams{Model: "scripted", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("book Oslo")}}
	run, err := toolopenai.NewChat(reg).Run(context.Background(), &chat, params, nil, agent.Options{})
	if !errors.Is(err, agent.ErrPaused) {
		t.Fatalf("the runner: %v", err)
	}
	paused := adapttest.Stored(t, run.State)

	a := newAgent(t, reg, script, Options{})
	r := runIn(t, newEnv(t), a, Input{Model: "scripted", State: *paused}, []timed{{time.Hour, []Decision{Approve("b")}}})
	if r.err != nil {
		t.Fatal(r.err)
	}
	want := []string{"user: book Oslo", `assistant calls weather {"city":"Oslo"}, book {"city":"Oslo"}`, "tool w: sunny in Oslo", "tool b: booked Oslo (key b)", "assistant: Booked."}
	if diff := cmp.Diff(want, transcript(t, r.res.State)); diff != "" {
		t.Errorf("transcript (-want +got):\n%s", diff)
	}
	var tools []string
	for _, c := range s.list() {
		tools = append(tools, c.Tool)
	}
	if diff := cmp.Diff([]string{"weather", "book"}, tools); diff != "" {
		t.Errorf("tools that ran (-want +got):\n%s", diff)
	}
}

// TestCancelWhileWaiting: a run cancelled while it waits for the host ends
// as cancelled, without a model call more.
func TestCancelWhileWaiting(t *testing.T) {
	var s seen
	reg := testRegistry(&s)
	script := &offline.Script{Replies: []offline.Reply{reply(call("b", "book", "Oslo")), say("unreachable")}}
	a := newAgent(t, reg, script, Options{})
	env := newEnv(t)
	a.Register(env)
	env.RegisterDelayedCallback(env.CancelWorkflow, 3*24*time.Hour)
	env.ExecuteWorkflow(a.Name(), Input{Model: "scripted", State: firstState(t, reg, "book")})
	err := env.GetWorkflowError()
	if !temporal.IsCanceledError(err) {
		t.Fatalf("err = %v, want a cancellation", err)
	}
	if n := script.Asked.Load(); n != 1 || len(s.list()) != 0 {
		t.Errorf("%d model calls, tools ran %+v", n, s.list())
	}
}

// TestRunsThatCannotStart: a model no worker knows, or a State of another
// provider, fails the run at once, without retries.
func TestRunsThatCannotStart(t *testing.T) {
	tests := []struct {
		name  string
		in    Input
		want  string
		asked int64
	}{
		{"no such model", Input{Model: "gpt-9"}, `no model named "gpt-9" on this worker`, 0},
		{"a state of another provider", Input{Model: "scripted", State: agent.State{Provider: "anthropic", Transcript: json.RawMessage(`[]`)}}, `a state of provider "anthropic" cannot resume on "openai.chat"`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s seen
			reg := testRegistry(&s)
			script := &offline.Script{Replies: []offline.Reply{say("hello")}}
			a := newAgent(t, reg, script, Options{})
			env := newEnv(t)
			a.Register(env)
			env.ExecuteWorkflow(a.Name(), tt.in)
			err := env.GetWorkflowError()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if n := script.Asked.Load(); n != tt.asked {
				t.Errorf("the model was asked %d times, want %d", n, tt.asked)
			}
		})
	}
}

// TestTruncatedIsNotRetried: a cut-off response ends the run with
// toolreg.ErrTruncated and the transcript holding what the model wrote.
func TestTruncatedIsNotRetried(t *testing.T) {
	var s seen
	reg := testRegistry(&s)
	script := &offline.Script{Replies: []offline.Reply{{Text: "half an ans", Truncated: true}}}
	a := newAgent(t, reg, script, Options{})
	r := runIn(t, newEnv(t), a, Input{Model: "scripted", State: firstState(t, reg, "hi")}, nil)
	if !errors.Is(r.err, toolreg.ErrTruncated) {
		t.Fatalf("err = %v", r.err)
	}
	if diff := cmp.Diff([]string{"user: hi", "assistant: half an ans"}, transcript(t, r.res.State)); diff != "" {
		t.Errorf("transcript (-want +got):\n%s", diff)
	}
	if n := script.Asked.Load(); n != 1 {
		t.Errorf("asked %d times", n)
	}
}
