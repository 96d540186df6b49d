package tooltemporal

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/tooltemporal/internal/offline"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

// timed is an Update the host sends once the run has been going for
// after (workflow time, which the test environment skips through while
// the run waits).
type timed struct {
	after     time.Duration
	decisions []Decision
}

// outcome of one run in the test environment.
type run struct {
	res      *Result
	err      error
	rejected []string // the Updates refused, by their error
	elapsed  time.Duration
}

func runIn(t *testing.T, env *testsuite.TestWorkflowEnvironment, a *Agent, in Input, updates []timed) run {
	t.Helper()
	a.Register(env)
	var r run
	for i, u := range updates {
		env.RegisterDelayedCallback(func() {
			env.UpdateWorkflow(UpdateDecide, string(rune('a'+i)), &testsuite.TestUpdateCallback{
				OnReject: func(err error) { r.rejected = append(r.rejected, err.Error()) },
			}, u.decisions)
		}, u.after)
	}
	start := env.Now()
	env.ExecuteWorkflow(a.Name(), in)
	if !env.IsWorkflowCompleted() {
		t.Fatal("the workflow did not complete")
	}
	r.elapsed = env.Now().Sub(start)
	if err := env.GetWorkflowError(); err != nil {
		r.res, r.err = Failure(err)
		return r
	}
	var res Result
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	r.res = &res
	return r
}

func mustAnswer(t *testing.T, key string, answer any) Decision {
	d, err := Answer(key, answer)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestRuns runs the workflow with its real activities against a scripted
// Chat Completions model, through the OpenAI adapter.
func TestRuns(t *testing.T) {
	const prompt = "user: plan a trip"
	fast := Options{Tool: ToolOptions{Retry: fastRetry}}
	day := 24 * time.Hour
	tests := []struct {
		name       string
		replies    []offline.Reply
		updates    []timed
		maxSteps   int
		maxRetries int
		want       []string
		wantRan    []ran // sorted by ID, then activity attempt
		wantErr    error
		wantWait   time.Duration // the run waited at least this long
		wantReject string        // a refused Update's error holds this
	}{{
		name:    "a turn's calls run at once, their results go back in call order",
		replies: []offline.Reply{reply(call("w1", "weather", "Oslo"), call("w2", "weather", "Rome")), say("Both sunny.")},
		want: []string{prompt, `assistant calls weather {"city":"Oslo"}, weather {"city":"Rome"}`,
			"tool w1: sunny in Oslo", "tool w2: sunny in Rome", "assistant: Both sunny."},
		wantRan: []ran{{Tool: "weather", ID: "w1", Step: 1, Attempt: 1, Activity: 1}, {Tool: "weather", ID: "w2", Step: 1, Attempt: 1, Activity: 1}},
	}, {
		name:     "an approval a day later resumes the run; the call id reaches the tool",
		replies:  []offline.Reply{reply(call("w", "weather", "Oslo"), call("b", "book", "Oslo")), say("Booked.")},
		updates:  []timed{{day, []Decision{Approve("b")}}},
		want:     []string{prompt, `assistant calls weather {"city":"Oslo"}, book {"city":"Oslo"}`, "tool w: sunny in Oslo", "tool b: booked Oslo (key b)", "assistant: Booked."},
		wantRan:  []ran{{Tool: "book", ID: "b", Step: 1, Attempt: 1, Activity: 1}, {Tool: "weather", ID: "w", Step: 1, Attempt: 1, Activity: 1}},
		wantWait: day,
	}, {
		name:     "approved with other arguments",
		replies:  []offline.Reply{reply(call("b", "book", "Oslo")), say("Booked.")},
		updates:  []timed{{time.Hour, []Decision{ApproveWith("b", json.RawMessage(`{"city":"Bergen"}`))}}},
		want:     []string{prompt, `assistant calls book {"city":"Oslo"}`, "tool b: booked Bergen (key b)", "assistant: Booked."},
		wantRan:  []ran{{Tool: "book", ID: "b", Step: 1, Attempt: 1, Activity: 1}},
		wantWait: time.Hour,
	}, {
		name:     "a rejection tells the model why, and the call never runs",
		replies:  []offline.Reply{reply(call("b", "book", "Oslo")), say("Not booked.")},
		updates:  []timed{{time.Hour, []Decision{Reject("b", "over budget")}}},
		want:     []string{prompt, `assistant calls book {"city":"Oslo"}`, `tool b: the host did not allow this call of "book": over budget`, "assistant: Not booked."},
		wantWait: time.Hour,
	}, {
		name:    "an interrupt waits for the answer, then the tool runs again with it",
		replies: []offline.Reply{reply(call("p", "pick", "London")), say("The Savoy it is.")},
		updates: []timed{{2 * day, []Decision{mustAnswer(t, "p", "Savoy")}}},
		want:    []string{prompt, `assistant calls pick {"city":"London"}`, `tool p: picked "Savoy"`, "assistant: The Savoy it is."},
		wantRan: []ran{
			{Tool: "pick", ID: "p", Step: 1, Attempt: 1, Activity: 1},
			{Tool: "pick", ID: "p", Step: 1, Attempt: 1, Activity: 1, Answer: `"Savoy"`},
		},
		wantWait: 2 * day,
	}, {
		name:    "a decision for a call that does not wait is refused, and the run waits on",
		replies: []offline.Reply{reply(call("b", "book", "Oslo")), say("Booked.")},
		updates: []timed{
			{time.Hour, []Decision{Approve("nope")}},
			{2 * time.Hour, []Decision{Approve("b"), Reject("b", "twice")}},
			{3 * time.Hour, []Decision{Approve("b")}},
		},
		want:       []string{prompt, `assistant calls book {"city":"Oslo"}`, "tool b: booked Oslo (key b)", "assistant: Booked."},
		wantRan:    []ran{{Tool: "book", ID: "b", Step: 1, Attempt: 1, Activity: 1}},
		wantWait:   3 * time.Hour,
		wantReject: "no such pending call",
	}, {
		name:    "a tool's plain error is retried by Temporal until it works",
		replies: []offline.Reply{reply(call("f", "flaky", "Oslo")), say("Read.")},
		want:    []string{prompt, `assistant calls flaky {"city":"Oslo"}`, "tool f: read Oslo", "assistant: Read."},
		wantRan: []ran{
			{Tool: "flaky", ID: "f", Step: 1, Attempt: 1, Activity: 1},
			{Tool: "flaky", ID: "f", Step: 1, Attempt: 1, Activity: 2},
			{Tool: "flaky", ID: "f", Step: 1, Attempt: 1, Activity: 3},
		},
	}, {
		name:    "when the retry policy gives up, the model reads the failure",
		replies: []offline.Reply{reply(call("x", "broken", "Oslo")), say("It is down.")},
		want:    []string{prompt, `assistant calls broken {"city":"Oslo"}`, "tool x: service down", "assistant: It is down."},
		wantRan: []ran{
			{Tool: "broken", ID: "x", Step: 1, Attempt: 1, Activity: 1},
			{Tool: "broken", ID: "x", Step: 1, Attempt: 1, Activity: 2},
			{Tool: "broken", ID: "x", Step: 1, Attempt: 1, Activity: 3},
		},
	}, {
		name:    "a non-retryable application error goes to the model at once",
		replies: []offline.Reply{reply(call("x", "final", "Oslo")), say("No record.")},
		want:    []string{prompt, `assistant calls final {"city":"Oslo"}`, "tool x: no record for Oslo (type: NotFound, retryable: false)", "assistant: No record."},
		wantRan: []ran{{Tool: "final", ID: "x", Step: 1, Attempt: 1, Activity: 1}},
	}, {
		name:    "a Retry result goes to the model, not to Temporal's retry",
		replies: []offline.Reply{reply(call("l1", "lookup", "Atlantis")), reply(call("l2", "lookup", "Atlantis")), say("No such city.")},
		want: []string{prompt, `assistant calls lookup {"city":"Atlantis"}`, "tool l1: no city \"Atlantis\"\nFix this and call the tool again.",
			`assistant calls lookup {"city":"Atlantis"}`, "tool l2: no city \"Atlantis\"\nFix this and call the tool again.", "assistant: No such city."},
		wantRan: []ran{{Tool: "lookup", ID: "l1", Step: 1, Attempt: 1, Activity: 1}, {Tool: "lookup", ID: "l2", Step: 2, Attempt: 2, Activity: 1}},
	}, {
		name:    "invalid arguments go to the model and are not retried",
		replies: []offline.Reply{reply(offline.Call{ID: "w", Name: "weather", Arguments: `{"town":"Oslo"}`}), say("Sorry.")},
		want: []string{prompt, `assistant calls weather {"town":"Oslo"}`,
			"tool w: invalid arguments for tool \"weather\":\n- city: required field is missing; expected a string\n- town: unknown field; allowed fields: city\nFix the arguments and call the tool again.",
			"assistant: Sorry."},
	}, {
		name:    "a tool that stops the run ends it after its turn, results in the transcript",
		replies: []offline.Reply{reply(call("h", "halt", "x"), call("w", "weather", "Oslo")), say("unreachable")},
		want:    []string{prompt, `assistant calls halt {"city":"x"}, weather {"city":"Oslo"}`, "tool h: budget spent", "tool w: sunny in Oslo"},
		wantRan: []ran{{Tool: "halt", ID: "h", Step: 1, Attempt: 1, Activity: 1}, {Tool: "weather", ID: "w", Step: 1, Attempt: 1, Activity: 1}},
		wantErr: toolreg.ErrStopRun,
	}, {
		name:     "the run stops at MaxSteps",
		replies:  []offline.Reply{reply(call("w", "weather", "Oslo")), reply(call("w2", "weather", "Oslo"))},
		maxSteps: 1,
		want:     []string{prompt, `assistant calls weather {"city":"Oslo"}`, "tool w: sunny in Oslo"},
		wantRan:  []ran{{Tool: "weather", ID: "w", Step: 1, Attempt: 1, Activity: 1}},
		wantErr:  toolreg.ErrMaxSteps,
	}, {
		name:       "the run stops when the model gets a tool wrong too often",
		replies:    []offline.Reply{reply(call("l1", "lookup", "Atlantis")), reply(call("l2", "lookup", "Atlantis"))},
		maxRetries: 1,
		want: []string{prompt, `assistant calls lookup {"city":"Atlantis"}`, "tool l1: no city \"Atlantis\"\nFix this and call the tool again.",
			`assistant calls lookup {"city":"Atlantis"}`, "tool l2: no city \"Atlantis\"\nFix this and call the tool again."},
		wantRan: []ran{{Tool: "lookup", ID: "l1", Step: 1, Attempt: 1, Activity: 1}, {Tool: "lookup", ID: "l2", Step: 2, Attempt: 2, Activity: 1}},
		wantErr: toolreg.ErrTooManyRetries,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s seen
			reg := testRegistry(&s)
			a := newAgent(t, reg, &offline.Script{Replies: tt.replies}, fast)
			in := Input{Model: "scripted", State: firstState(t, reg, "plan a trip"), MaxSteps: tt.maxSteps, MaxRetries: tt.maxRetries}
			r := runIn(t, newEnv(t), a, in, tt.updates)
			if !errors.Is(r.err, tt.wantErr) || (tt.wantErr == nil) != (r.err == nil) {
				t.Fatalf("err = %v, want %v", r.err, tt.wantErr)
			}
			if diff := gocmp.Diff(tt.want, transcript(t, r.res.State)); diff != "" {
				t.Errorf("transcript (-want +got):\n%s", diff)
			}
			if diff := gocmp.Diff(tt.wantRan, sortedRan(s.list())); diff != "" {
				t.Errorf("tool calls (-want +got):\n%s", diff)
			}
			if r.elapsed < tt.wantWait || (tt.wantWait == 0 && r.elapsed > time.Minute) {
				t.Errorf("the run took %v of workflow time, want %v", r.elapsed, tt.wantWait)
			}
			if tt.wantReject == "" && len(r.rejected) > 0 || tt.wantReject != "" && (len(r.rejected) == 0 || !strings.Contains(strings.Join(r.rejected, "\n"), tt.wantReject)) {
				t.Errorf("refused updates %q, want one with %q", r.rejected, tt.wantReject)
			}
			if r.res.State.Paused() || r.res.State.Provider != "openai.chat" {
				t.Errorf("state: paused %v, provider %q", r.res.State.Paused(), r.res.State.Provider)
			}
		})
	}
}

// TestUsageAndSteps: the Result counts the run's model calls and tokens.
func TestUsageAndSteps(t *testing.T) {
	var s seen
	reg := testRegistry(&s)
	a := newAgent(t, reg, &offline.Script{Replies: []offline.Reply{reply(call("w", "weather", "Oslo")), say("Sunny.")}}, Options{})
	r := runIn(t, newEnv(t), a, Input{Model: "scripted", State: firstState(t, reg, "weather?")}, nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if diff := gocmp.Diff(agent.Usage{InputTokens: 100 + 200, OutputTokens: 40}, r.res.Usage); diff != "" || r.res.State.Steps != 2 {
		t.Errorf("%d steps; usage (-want +got):\n%s", r.res.State.Steps, diff)
	}
}

// TestRunInsideAWorkflow: a workflow of the user's runs an agent with Run
// and goes on with its result.
func TestRunInsideAWorkflow(t *testing.T) {
	var s seen
	reg := testRegistry(&s)
	a := newAgent(t, reg, &offline.Script{Replies: []offline.Reply{reply(call("w", "weather", "Oslo")), say("Sunny.")}}, Options{})
	env := newEnv(t)
	a.RegisterActivities(env)
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context, in Input) (string, error) {
		res, err := a.Run(ctx, in)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%d steps, %d tokens in", res.State.Steps, res.Usage.InputTokens), nil
	}, workflow.RegisterOptions{Name: "mine"})
	env.ExecuteWorkflow("mine", Input{Model: "scripted", State: firstState(t, reg, "weather?")})
	var got string
	if err := env.GetWorkflowResult(&got); err != nil || got != "2 steps, 300 tokens in" {
		t.Errorf("got %q, %v", got, err)
	}
}
