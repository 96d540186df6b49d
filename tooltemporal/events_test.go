package tooltemporal

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/tooltemporal/internal/offline"
)

// TestEvents: the events of a run reach Options.OnEvent as they happen,
// each once, and the QueryEvents Query returns the same, after a Seq.
func TestEvents(t *testing.T) {
	var s seen
	reg := testRegistry(&s)
	script := &offline.Script{Replies: []offline.Reply{reply(call("w", "weather", "Oslo"), call("b", "book", "Oslo")), say("Booked.")}}
	var got []Event
	a := newAgent(t, reg, script, Options{OnEvent: func(e Event) { got = append(got, e) }})
	env := newEnv(t)
	var whilePaused []Event
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(QueryEvents, 0)
		if err == nil {
			err = v.Get(&whilePaused)
		}
		if err != nil {
			t.Error(err)
		}
	}, time.Minute)
	r := runIn(t, env, a, Input{Model: "scripted", State: firstState(t, reg, "book Oslo")}, []timed{{time.Hour, []Decision{Approve("b")}}})
	if r.err != nil {
		t.Fatal(r.err)
	}
	var lines []string
	for i, e := range got {
		if e.Seq != i+1 {
			t.Errorf("event %d has Seq %d", i, e.Seq)
		}
		line := fmt.Sprintf("%d %v", e.Step, e.Kind)
		if e.Call != nil {
			line += " " + e.Call.ID
		}
		if e.Result != nil {
			line += ": " + e.Result.Text
		}
		if e.Kind == agent.StepDone {
			line += fmt.Sprintf(" %+v", e.Usage)
		}
		lines = append(lines, line)
	}
	want := []string{
		"1 step done {InputTokens:100 OutputTokens:20}", "1 call ready w", "1 call ready b",
		"1 call result w: sunny in Oslo", "1 call result b: booked Oslo (key b)",
		"2 step done {InputTokens:200 OutputTokens:20}",
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	// Paused after step 1: its calls and its model call.
	if diff := cmp.Diff(got[:3], whilePaused); diff != "" {
		t.Errorf("events while paused (-OnEvent +Query):\n%s", diff)
	}
	for _, after := range []int{0, 2, len(got), len(got) + 5} {
		v, err := env.QueryWorkflow(QueryEvents, after)
		if err != nil {
			t.Fatal(err)
		}
		var q []Event
		if err := v.Get(&q); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(got[min(after, len(got)):], q, cmp.Comparer(func(a, b []Event) bool { return len(a) == 0 && len(b) == 0 || cmp.Equal(a, b) })); diff != "" {
			t.Errorf("after %d (-OnEvent +Query):\n%s", after, diff)
		}
	}
}

// TestObserverSeesALiveRun: a run that is not replayed is observed: the
// run and each model call.
func TestObserverSeesALiveRun(t *testing.T) {
	var s seen
	reg := testRegistry(&s)
	var obs countingObserver
	script := &offline.Script{Replies: []offline.Reply{reply(call("w", "weather", "Oslo")), say("Sunny.")}}
	a := newAgent(t, reg, script, Options{Observer: &obs})
	if r := runIn(t, newEnv(t), a, Input{Model: "scripted", State: firstState(t, reg, "weather?")}, nil); r.err != nil {
		t.Fatal(r.err)
	}
	want := []string{"run started",
		"model call 1 started", "model call 1 ended: {InputTokens:100 OutputTokens:20} <nil>",
		"model call 2 started", "model call 2 ended: {InputTokens:200 OutputTokens:20} <nil>",
		"run ended: <nil>"}
	if diff := cmp.Diff(want, obs.list()); diff != "" {
		t.Errorf("observed (-want +got):\n%s", diff)
	}
}
