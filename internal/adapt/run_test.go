package adapt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
)

// script is a provider whose model replies from a list: each reply is the
// calls of one turn (none: the model answers). Its transcript is a list of
// lines, so a State's Transcript shows what was said.
type script struct {
	replies   [][]toolreg.ToolCall
	lines     []string
	offered   [][]string
	choices   []agent.ToolChoice
	streaming bool // hand calls to ready as they are "written"
}

func (p *script) Ask(ctx context.Context, s *agent.Step, emit func(agent.Event), ready func(int, toolreg.ToolCall)) (agent.Reply, error) {
	p.offered = append(p.offered, s.Tools())
	p.choices = append(p.choices, s.Choice)
	if len(p.replies) == 0 {
		return agent.Reply{}, errors.New("the script has no more replies")
	}
	calls := p.replies[0]
	p.replies = p.replies[1:]
	if len(calls) == 0 {
		p.lines = append(p.lines, "assistant: done")
		return agent.Reply{}, nil
	}
	for i, c := range calls {
		p.lines = append(p.lines, fmt.Sprintf("assistant calls %s %s", c.Name, c.Arguments))
		if p.streaming {
			ready(i, c)
		}
	}
	usage := agent.Usage{InputTokens: 10, OutputTokens: 5}
	emit(agent.Event{Kind: agent.StepDone, Step: s.Number, Usage: usage})
	return agent.Reply{Calls: calls, Usage: usage}, nil
}

func (p *script) Info() agent.RunInfo { return agent.RunInfo{Provider: "script", Model: "scripted"} }

func (p *script) Answer(calls []toolreg.ToolCall, outs []toolreg.Output) error {
	for i, c := range calls {
		p.lines = append(p.lines, fmt.Sprintf("%s -> %s", c.Name, outs[i].Text))
	}
	return nil
}

func (p *script) Save(s *agent.State) error {
	b, err := json.Marshal(p.lines)
	s.Transcript = b
	return err
}

func call(id, name, args string) toolreg.ToolCall {
	return toolreg.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
}

type cityArgs struct {
	City string `json:"city"`
}

// testRegistry holds a plain tool, one that needs approval, one that asks
// the host, one that asks for a retry, and one that stops the run. infos
// collects the CallInfo each call saw.
func testRegistry(infos *[]toolreg.CallInfo) *toolreg.Registry {
	reg := toolreg.NewRegistry()
	var mu sync.Mutex // a turn's calls run at once
	seen := func(ctx context.Context) {
		mu.Lock()
		defer mu.Unlock()
		*infos = append(*infos, toolreg.Info(ctx))
	}
	reg.MustAdd(
		toolreg.MustNew("weather", "Weather for a city.", func(ctx context.Context, a cityArgs) (string, error) {
			seen(ctx)
			return "sunny in " + a.City, nil
		}, toolreg.WithTags("read")),
		toolreg.MustNew("book", "Books a trip.", func(ctx context.Context, a cityArgs) (string, error) {
			seen(ctx)
			return "booked " + a.City, nil
		}, toolreg.WithApproval(), toolreg.WithTags("write")),
		toolreg.MustNew("pick", "Picks a hotel.", func(ctx context.Context, a cityArgs) (string, error) {
			seen(ctx)
			if ans := toolreg.Info(ctx).Answer; ans != nil {
				return "picked " + string(ans), nil
			}
			return "", toolreg.Interrupt(map[string]any{"choose": []string{"Ritz", "Savoy"}})
		}),
		toolreg.MustNew("lookup", "Looks a city up.", func(ctx context.Context, a cityArgs) (string, error) {
			seen(ctx)
			return "", toolreg.Retry(fmt.Errorf("no city %q", a.City))
		}),
		toolreg.MustNew("halt", "Stops.", func(ctx context.Context, a cityArgs) (string, error) {
			return "", toolreg.StopRun(errors.New("budget spent"))
		}),
	)
	return reg
}

func newRun(reg *toolreg.Registry, p agent.Model, opts agent.Options) *Run {
	return &Run{Registry: reg, Model: p, Options: opts, State: &agent.State{}}
}

// roundTrip sends a State through JSON, as a host that stores it does.
func roundTrip(t *testing.T, s *agent.State) *agent.State {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back agent.State
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	return &back
}

func lines(t *testing.T, s *agent.State) []string {
	t.Helper()
	var out []string
	if err := json.Unmarshal(s.Transcript, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestApproveThenResume(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		t.Run(fmt.Sprintf("streaming=%v", streaming), func(t *testing.T) {
			var infos []toolreg.CallInfo
			reg := testRegistry(&infos)
			p := &script{streaming: streaming, replies: [][]toolreg.ToolCall{
				{call("1", "weather", `{"city":"Oslo"}`), call("2", "book", `{"city":"Oslo"}`)},
				{},
			}}
			var events []string
			r := newRun(reg, p, agent.Options{OnEvent: func(e agent.Event) { events = append(events, fmt.Sprintf("%d %s %s", e.Step, e.Kind, e.Call.Name)) }})
			if err := r.Do(context.Background()); !errors.Is(err, agent.ErrPaused) {
				t.Fatalf("err = %v", err)
			}
			st := roundTrip(t, r.State)
			pending := st.Pending()
			if len(pending) != 1 || pending[0].Name != "book" || pending[0].Status != agent.StatusApproval {
				t.Fatalf("pending: %+v", pending)
			}
			if len(infos) != 1 || infos[0].Tool != "weather" {
				t.Fatalf("only weather may have run before approval: %+v", infos)
			}
			if err := (&Run{Registry: reg, Model: p, State: st}).Do(context.Background()); !errors.Is(err, agent.ErrUndecided) {
				t.Fatalf("resume without a decision: %v", err)
			}
			if err := st.Approve("2"); err != nil {
				t.Fatal(err)
			}
			r2 := &Run{Registry: reg, Model: p, State: st, Options: r.Options}
			if err := r2.Do(context.Background()); err != nil {
				t.Fatal(err)
			}
			want := []string{
				`assistant calls weather {"city":"Oslo"}`, `assistant calls book {"city":"Oslo"}`,
				"weather -> sunny in Oslo", "book -> booked Oslo", "assistant: done",
			}
			if diff := cmp.Diff(want, lines(t, st)); diff != "" {
				t.Errorf("transcript (-want +got):\n%s", diff)
			}
			if len(infos) != 2 || infos[1].Tool != "book" || infos[1].Step != 1 || infos[1].Provider != "script" || infos[1].ID != "2" {
				t.Errorf("weather ran twice, or book saw %+v", infos)
			}
			if st.Steps != 2 || st.Paused() {
				t.Errorf("state %+v", st)
			}
			// A streaming model hands its calls over as it writes them; a
			// plain one, with its response.
			wantEvents := []string{"1 step done ", "1 call ready weather", "1 call ready book", "1 call result weather", "1 call result book"}
			if streaming {
				wantEvents = []string{"1 call ready weather", "1 call ready book", "1 step done ", "1 call result weather", "1 call result book"}
			}
			if diff := cmp.Diff(wantEvents, events); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRejectTellsTheModel(t *testing.T) {
	var infos []toolreg.CallInfo
	reg := testRegistry(&infos)
	p := &script{replies: [][]toolreg.ToolCall{{call("b", "book", `{"city":"Lima"}`)}, {}}}
	r := newRun(reg, p, agent.Options{})
	if err := r.Do(context.Background()); !errors.Is(err, agent.ErrPaused) {
		t.Fatal(err)
	}
	if err := r.State.Approve("nope"); !errors.Is(err, agent.ErrNoSuchCall) {
		t.Errorf("approve an unknown call: %v", err)
	}
	if err := r.State.Reject("b", "the budget is for Oslo only"); err != nil {
		t.Fatal(err)
	}
	if err := r.Do(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := lines(t, r.State)[1]; got != `book -> the host did not allow this call of "book": the budget is for Oslo only` {
		t.Errorf("the model reads %q", got)
	}
	if len(infos) != 0 {
		t.Errorf("a rejected call ran: %+v", infos)
	}
}

func TestApproveWithOtherArguments(t *testing.T) {
	var infos []toolreg.CallInfo
	reg := testRegistry(&infos)
	p := &script{replies: [][]toolreg.ToolCall{{call("b", "book", `{"city":"Lima"}`)}, {}}}
	r := newRun(reg, p, agent.Options{})
	r.Do(context.Background())
	if err := r.State.ApproveWith("b", json.RawMessage(`{"city":"Cusco"}`)); err != nil {
		t.Fatal(err)
	}
	if err := r.Do(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := lines(t, r.State)[1]; got != "book -> booked Cusco" {
		t.Errorf("the model reads %q", got)
	}
}

func TestInterruptThenAnswer(t *testing.T) {
	var infos []toolreg.CallInfo
	reg := testRegistry(&infos)
	p := &script{replies: [][]toolreg.ToolCall{{call("p", "pick", `{"city":"London"}`), call("w", "weather", `{"city":"London"}`)}, {}}}
	r := newRun(reg, p, agent.Options{})
	if err := r.Do(context.Background()); !errors.Is(err, agent.ErrPaused) {
		t.Fatal(err)
	}
	st := roundTrip(t, r.State)
	pending := st.Pending()
	if len(pending) != 1 || pending[0].Status != agent.StatusInterrupted || string(pending[0].Question) != `{"choose":["Ritz","Savoy"]}` {
		t.Fatalf("pending %+v", pending)
	}
	if err := st.Answer("p", "Savoy"); err != nil {
		t.Fatal(err)
	}
	if err := (&Run{Registry: reg, Model: p, State: st}).Do(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []string{`assistant calls pick {"city":"London"}`, `assistant calls weather {"city":"London"}`, `pick -> picked "Savoy"`, "weather -> sunny in London", "assistant: done"}
	if diff := cmp.Diff(want, lines(t, st)); diff != "" {
		t.Errorf("transcript (-want +got):\n%s", diff)
	}
	if len(infos) != 3 { // pick, weather, pick again: weather did not run twice
		t.Errorf("calls %+v", infos)
	}
}

func TestRetriesAreCountedAndBounded(t *testing.T) {
	var infos []toolreg.CallInfo
	reg := testRegistry(&infos)
	bad := []toolreg.ToolCall{call("l", "lookup", `{"city":"Atlantis"}`)}
	p := &script{replies: [][]toolreg.ToolCall{bad, bad, bad, bad}}
	r := newRun(reg, p, agent.Options{MaxRetries: 2})
	err := r.Do(context.Background())
	if !errors.Is(err, toolreg.ErrTooManyRetries) || !strings.Contains(err.Error(), `tool "lookup" failed 3 times in a row (the bound is 2)`) {
		t.Fatalf("err = %v", err)
	}
	var attempts []int
	for _, in := range infos {
		attempts = append(attempts, in.Attempt)
	}
	if diff := cmp.Diff([]int{1, 2, 3}, attempts); diff != "" {
		t.Errorf("attempts (-want +got):\n%s", diff)
	}
	if got := lines(t, r.State); !strings.HasSuffix(got[len(got)-1], "Fix this and call the tool again.") {
		t.Errorf("the last result is not in the transcript: %q", got)
	}

	// Invalid arguments count too, per run across tools.
	p = &script{replies: [][]toolreg.ToolCall{{call("1", "weather", `{}`)}, {call("2", "lookup", `{"town":1}`)}, {}}}
	r = newRun(reg, p, agent.Options{MaxRunRetries: 1})
	if err := r.Do(context.Background()); !errors.Is(err, toolreg.ErrTooManyRetries) || !strings.Contains(err.Error(), "2 failed calls in the run") {
		t.Errorf("err = %v", err)
	}
}

func TestStopRunEndsThePausedTurnToo(t *testing.T) {
	var infos []toolreg.CallInfo
	reg := testRegistry(&infos)
	p := &script{replies: [][]toolreg.ToolCall{{call("h", "halt", `{"city":"x"}`), call("b", "book", `{"city":"x"}`)}}}
	r := newRun(reg, p, agent.Options{})
	err := r.Do(context.Background())
	if !errors.Is(err, toolreg.ErrStopRun) || r.State.Paused() {
		t.Fatalf("err = %v, paused %v", err, r.State.Paused())
	}
	want := []string{`assistant calls halt {"city":"x"}`, `assistant calls book {"city":"x"}`, "halt -> budget spent", `book -> the call of "book" did not run: the run was stopped`}
	if diff := cmp.Diff(want, lines(t, r.State)); diff != "" {
		t.Errorf("transcript (-want +got):\n%s", diff)
	}
}

func TestPrepareStepChoosesToolsAndIsChecked(t *testing.T) {
	var infos []toolreg.CallInfo
	reg := testRegistry(&infos)
	p := &script{replies: [][]toolreg.ToolCall{{call("1", "weather", `{"city":"Oslo"}`)}, {}}}
	r := newRun(reg, p, agent.Options{PrepareStep: func(ctx context.Context, s *agent.Step) error {
		if s.Number == 1 {
			s.OnlyTagged("read")
			s.Choice = agent.Force("weather")
			return nil
		}
		s.Choice = agent.None
		return s.Hide("halt")
	}})
	if err := r.Do(context.Background()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]string{{"weather"}, {"weather", "book", "pick", "lookup"}}, p.offered); diff != "" {
		t.Errorf("offered (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]agent.ToolChoice{agent.Force("weather"), agent.None}, p.choices); diff != "" {
		t.Errorf("choices (-want +got):\n%s", diff)
	}

	for _, prepare := range []func(*agent.Step) error{
		func(s *agent.Step) error { return s.Only("wether") },
		func(s *agent.Step) error { s.Choice = agent.Force("book"); return s.Only("weather") },
		func(s *agent.Step) error { s.Choice = agent.Required; s.OnlyTagged("none"); return nil },
	} {
		r := newRun(reg, &script{replies: [][]toolreg.ToolCall{{}}}, agent.Options{PrepareStep: func(_ context.Context, s *agent.Step) error { return prepare(s) }})
		if err := r.Do(context.Background()); !errors.Is(err, agent.ErrInvalidStep) {
			t.Errorf("err = %v", err)
		}
	}
}

func TestMaxStepsAcrossAResume(t *testing.T) {
	var infos []toolreg.CallInfo
	reg := testRegistry(&infos)
	w := []toolreg.ToolCall{call("1", "weather", `{"city":"Oslo"}`)}
	p := &script{replies: [][]toolreg.ToolCall{{call("b", "book", `{"city":"x"}`)}, w, w, w}}
	r := newRun(reg, p, agent.Options{MaxSteps: 2})
	if err := r.Do(context.Background()); !errors.Is(err, agent.ErrPaused) {
		t.Fatal(err)
	}
	r.State.Approve("b")
	if err := r.Do(context.Background()); !errors.Is(err, toolreg.ErrMaxSteps) || r.State.Steps != 2 {
		t.Errorf("err = %v after %d steps", err, r.State.Steps)
	}
}

func TestAStateResumesOnItsProviderOnly(t *testing.T) {
	r := &Run{Registry: toolreg.NewRegistry(), Model: other{&script{}}, State: &agent.State{Provider: "script"}}
	if err := r.Do(context.Background()); err == nil || !strings.Contains(err.Error(), `provider "script" cannot resume on "other"`) {
		t.Errorf("err = %v", err)
	}
}

// other is a script that says it is another provider.
type other struct{ *script }

func (other) Info() agent.RunInfo { return agent.RunInfo{Provider: "other"} }

// TestWaitAndExec: a driver that waits for the host in place of pausing,
// and runs calls itself, as a durable workflow does.
func TestWaitAndExec(t *testing.T) {
	var infos []toolreg.CallInfo
	reg := testRegistry(&infos)
	p := &script{replies: [][]toolreg.ToolCall{{call("w", "weather", `{"city":"Oslo"}`), call("b", "book", `{"city":"Oslo"}`)}, {}}}
	var seen []toolreg.CallInfo
	waits := 0
	r := newRun(reg, p, agent.Options{})
	r.Exec = func(ctx context.Context, calls []toolreg.ToolCall, in []toolreg.CallInfo) []toolreg.Output {
		seen = append(seen, in...)
		return r.Registry.CallAll(ctx, calls)
	}
	r.Wait = func(ctx context.Context, st *agent.State) error {
		waits++
		return st.Approve("b")
	}
	if err := r.Do(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []toolreg.CallInfo{
		{ID: "w", Tool: "weather", Step: 1, Attempt: 1, Provider: "script", RunID: r.State.RunID},
		{ID: "b", Tool: "book", Step: 1, Attempt: 1, Provider: "script", RunID: r.State.RunID},
	}
	if diff := cmp.Diff(want, seen); diff != "" || waits != 1 {
		t.Errorf("%d waits; infos (-want +got):\n%s", waits, diff)
	}
	if got := lines(t, r.State); got[2] != "weather -> sunny in Oslo" || got[3] != "book -> booked Oslo" {
		t.Errorf("transcript %q", got)
	}

	// A Wait that decides nothing, or fails, ends the run.
	for _, wait := range []func(context.Context, *agent.State) error{
		func(context.Context, *agent.State) error { return nil },
		func(context.Context, *agent.State) error { return context.Canceled },
	} {
		r := newRun(reg, &script{replies: [][]toolreg.ToolCall{{call("b", "book", `{"city":"x"}`)}}}, agent.Options{})
		r.Wait = wait
		if err := r.Do(context.Background()); !errors.Is(err, agent.ErrUndecided) && !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v", err)
		}
	}
}

// TestLateInfoReadsNoLiveState: a call abandoned at its deadline may ask
// for its Info after its turn, while the host runs the same State again;
// what Info reads is the turn's own copy (the race detector checks it).
func TestLateInfoReadsNoLiveState(t *testing.T) {
	reg := toolreg.NewRegistry(toolreg.WithDefaultTimeout(5 * time.Millisecond))
	done := make(chan struct{})
	var seen string
	reg.MustAdd(toolreg.MustNew("slow", "Slow.", func(ctx context.Context, _ cityArgs) (string, error) {
		defer close(done)
		for end := time.Now().Add(100 * time.Millisecond); time.Now().Before(end); time.Sleep(time.Millisecond) {
			seen = toolreg.Info(ctx).RunID // late: the call was abandoned
		}
		return "late", nil
	}))
	st := &agent.State{}
	p := &script{replies: [][]toolreg.ToolCall{{call("s", "slow", `{"city":"x"}`)}, {}}}
	if err := (&Run{Registry: reg, Model: p, State: st}).Do(context.Background()); err != nil {
		t.Fatal(err)
	}
	first := st.RunID
	for range 5 {
		p.replies = [][]toolreg.ToolCall{{}}
		if err := (&Run{Registry: reg, Model: p, State: st}).Do(context.Background()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	<-done
	if seen != first {
		t.Errorf("a late Info read run id %q, want the turn's %q", seen, first)
	}
}
