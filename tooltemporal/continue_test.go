package tooltemporal

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/tooltemporal/internal/offline"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

// segment is one workflow run of a chain that continues as new.
type segment struct {
	activities int    // activities started
	next       *Input // the next run's input; nil when the run ended
	run
}

// runSegment runs one workflow run in a fresh test environment (the test
// environment does not follow a continue-as-new), set up by setup.
func runSegment(t *testing.T, a *Agent, in Input, setup func(*testsuite.TestWorkflowEnvironment), updates []timed) segment {
	t.Helper()
	env := newEnv(t)
	var seg segment
	env.SetOnActivityStartedListener(func(*activity.Info, context.Context, converter.EncodedValues) { seg.activities++ })
	if setup != nil {
		setup(env)
	}
	seg.run = runIn(t, env, a, in, updates)
	var cae *workflow.ContinueAsNewError
	if errors.As(seg.err, &cae) {
		if got := cae.WorkflowType.Name; got != a.Name() {
			t.Fatalf("continues as %q, want %q", got, a.Name())
		}
		var next Input
		if err := converter.GetDefaultDataConverter().FromPayloads(cae.Input, &next); err != nil {
			t.Fatal(err)
		}
		seg.next, seg.err = &next, nil
	}
	return seg
}

// TestALongRunContinuesAsNew: a run of 500 steps completes as a chain of
// workflow runs of at most ContinueAfterSteps steps each, every call run
// once, the transcript, counters and usage carried from run to run.
func TestALongRunContinuesAsNew(t *testing.T) {
	steps, every := 500, 50
	if testing.Short() || raceEnabled {
		// Each step sends the whole transcript: the run's cost grows
		// with the square of its steps.
		steps, every = 100, 10
	}
	var s seen
	reg := testRegistry(&s)
	script := &offline.Script{}
	for i := 1; i < steps; i++ {
		script.Replies = append(script.Replies, reply(call(fmt.Sprintf("c%d", i), "weather", "Oslo")))
	}
	script.Replies = append(script.Replies, say("Done."))
	a := newAgent(t, reg, script, Options{ContinueAfterSteps: every})
	in := Input{Model: "scripted", State: firstState(t, reg, "weather, again and again"), MaxSteps: steps}
	var runs []segment
	for {
		seg := runSegment(t, a, in, nil, nil)
		if seg.err != nil {
			t.Fatalf("run %d: %v", len(runs), seg.err)
		}
		runs = append(runs, seg)
		if seg.next == nil {
			break
		}
		if len(runs) > steps {
			t.Fatal("the chain does not end")
		}
		if got := seg.next.State.Steps; got != len(runs)*every {
			t.Fatalf("run %d hands over at step %d, want %d", len(runs), got, len(runs)*every)
		}
		in = *seg.next
	}
	if len(runs) != steps/every {
		t.Errorf("%d workflow runs, want %d", len(runs), steps/every)
	}
	for i, seg := range runs {
		// A step is a model call and a tool call; a run's last step saves
		// the turn's results (one more model-call activity).
		if seg.activities > 2*every+1 {
			t.Errorf("run %d started %d activities, want at most %d", i, seg.activities, 2*every+1)
		}
	}
	res := runs[len(runs)-1].res
	if res.State.Steps != steps {
		t.Errorf("steps = %d, want %d", res.State.Steps, steps)
	}
	tr := transcript(t, res.State)
	if len(tr) != 1+2*(steps-1)+1 || tr[len(tr)-1] != "assistant: Done." {
		t.Errorf("transcript of %d messages, ending %q", len(tr), tr[len(tr)-1])
	}
	ids := map[string]int{}
	for _, c := range s.list() {
		ids[c.ID]++
	}
	if len(ids) != steps-1 || len(s.list()) != steps-1 {
		t.Errorf("%d calls ran, %d distinct, want %d once each", len(s.list()), len(ids), steps-1)
	}
	// offline reports 100·n input tokens and 20 output tokens for its n-th
	// reply (n from 0).
	want := agent.Usage{InputTokens: int64(100 * steps * (steps + 1) / 2), OutputTokens: int64(20 * steps)}
	if diff := cmp.Diff(want, res.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
}

// TestContinueAsNewBounds: each bound of the Options, and the server's
// suggestion, makes the run continue as new after its first step; with
// the bounds off, the same history runs on.
func TestContinueAsNewBounds(t *testing.T) {
	tests := []struct {
		name  string
		opts  Options
		setup func(*testsuite.TestWorkflowEnvironment)
		cont  bool
	}{
		{"events", Options{}, func(env *testsuite.TestWorkflowEnvironment) { env.SetCurrentHistoryLength(DefaultContinueAfterEvents) }, true},
		{"bytes", Options{}, func(env *testsuite.TestWorkflowEnvironment) { env.SetCurrentHistorySize(DefaultContinueAfterBytes) }, true},
		{"suggested", Options{ContinueAfterSteps: -1, ContinueAfterEvents: -1, ContinueAfterBytes: -1}, func(env *testsuite.TestWorkflowEnvironment) { env.SetContinueAsNewSuggested(true) }, true},
		{"set events", Options{ContinueAfterEvents: 50}, func(env *testsuite.TestWorkflowEnvironment) { env.SetCurrentHistoryLength(50) }, true},
		{"below", Options{}, func(env *testsuite.TestWorkflowEnvironment) {
			env.SetCurrentHistoryLength(DefaultContinueAfterEvents - 1)
		}, false},
		{"off", Options{ContinueAfterEvents: -1, ContinueAfterBytes: -1}, func(env *testsuite.TestWorkflowEnvironment) {
			env.SetCurrentHistoryLength(1 << 20)
			env.SetCurrentHistorySize(1 << 30)
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s seen
			reg := testRegistry(&s)
			script := &offline.Script{Replies: []offline.Reply{reply(call("w", "weather", "Oslo")), say("Sunny.")}}
			a := newAgent(t, reg, script, tt.opts)
			seg := runSegment(t, a, Input{Model: "scripted", State: firstState(t, reg, "weather?")}, tt.setup, nil)
			if seg.err != nil {
				t.Fatal(seg.err)
			}
			if got := seg.next != nil; got != tt.cont {
				t.Fatalf("continued as new: %v, want %v", got, tt.cont)
			}
			if !tt.cont {
				return
			}
			// The State handed over holds the first turn's results, and
			// the step not asked is the next run's.
			if seg.next.State.Steps != 1 || len(transcript(t, seg.next.State)) != 3 {
				t.Errorf("handed over step %d, transcript %q", seg.next.State.Steps, transcript(t, seg.next.State))
			}
			// Step done, call ready, call result: the next run numbers on.
			if seg.next.Events != 3 {
				t.Errorf("handed over %d events, want 3", seg.next.Events)
			}
			last := runSegment(t, a, *seg.next, nil, nil)
			if last.err != nil || last.next != nil {
				t.Fatalf("the next run: %v, continued %v", last.err, last.next != nil)
			}
			if got := transcript(t, last.res.State); got[len(got)-1] != "assistant: Sunny." || last.res.State.Steps != 2 {
				t.Errorf("the next run ended at step %d with %q", last.res.State.Steps, got)
			}
		})
	}
}

// TestAPausedRunContinuesAsNew: a run that pauses for approval past its
// bound continues as new while it waits; the next run is decided, and the
// call runs once. The State handed over is data like any Input's: a
// decision slipped into it, or (sealed) any change, fails the next run
// with agent.ErrInvalidState before anything runs.
func TestAPausedRunContinuesAsNew(t *testing.T) {
	for _, key := range [][]byte{nil, []byte("a key of the workers")} {
		for _, tamper := range []bool{false, true} {
			t.Run(fmt.Sprintf("sealed=%v,tampered=%v", key != nil, tamper), func(t *testing.T) {
				var s seen
				reg := testRegistry(&s)
				script := &offline.Script{Replies: []offline.Reply{reply(call("w", "weather", "Oslo")), reply(call("b", "book", "Oslo")), say("Booked.")}}
				a := newAgent(t, reg, script, Options{ContinueAfterSteps: 2, StateKey: key})
				seg := runSegment(t, a, Input{Model: "scripted", State: firstState(t, reg, "book Oslo")}, nil, nil)
				if seg.err != nil || seg.next == nil {
					t.Fatalf("err %v, continued %v", seg.err, seg.next != nil)
				}
				if p := seg.next.State.Pending(); len(p) != 1 || p[0].ID != "b" {
					t.Fatalf("pending in the State handed over: %+v", p)
				}
				next := *seg.next
				if tamper {
					next.State.Turn = append([]agent.Call(nil), next.State.Turn...)
					next.State.Turn[0].Status = agent.StatusApproved
				}
				last := runSegment(t, a, next, nil, []timed{{time.Hour, []Decision{Approve("b")}}})
				ran := len(s.list())
				if tamper {
					if !errors.Is(last.err, agent.ErrInvalidState) || ran != 1 {
						t.Fatalf("err = %v, %d calls ran; want agent.ErrInvalidState, only the first run's call", last.err, ran)
					}
					return
				}
				if last.err != nil || last.next != nil || len(last.rejected) > 0 {
					t.Fatalf("the next run: %v, continued %v, rejected %q", last.err, last.next != nil, last.rejected)
				}
				want := []string{"user: book Oslo", `assistant calls weather {"city":"Oslo"}`, "tool w: sunny in Oslo",
					`assistant calls book {"city":"Oslo"}`, "tool b: booked Oslo (key b)", "assistant: Booked."}
				if diff := cmp.Diff(want, transcript(t, last.res.State)); diff != "" {
					t.Errorf("transcript (-want +got):\n%s", diff)
				}
				if ran != 2 {
					t.Errorf("%d calls ran, want 2", ran)
				}
			})
		}
	}
}

// TestRunInAnotherWorkflowDoesNotContinue: an agent run inside a workflow
// of the host's never continues as new: the workflow, and its input, are
// the host's.
func TestRunInAnotherWorkflowDoesNotContinue(t *testing.T) {
	var s seen
	reg := testRegistry(&s)
	script := &offline.Script{Replies: []offline.Reply{reply(call("w", "weather", "Oslo")), reply(call("w2", "weather", "Rome")), say("Sunny.")}}
	a := newAgent(t, reg, script, Options{ContinueAfterSteps: 1})
	env := newEnv(t)
	a.RegisterActivities(env)
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context, in Input) (*Result, error) { return a.Run(ctx, in) }, workflow.RegisterOptions{Name: "host"})
	env.ExecuteWorkflow("host", Input{Model: "scripted", State: firstState(t, reg, "weather?")})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var res Result
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if res.State.Steps != 3 {
		t.Errorf("steps = %d, want 3 in one workflow run", res.State.Steps)
	}
}
