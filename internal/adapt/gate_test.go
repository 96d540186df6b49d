package adapt

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
)

// liar is a model whose Ask is a function of the test: it streams what it
// likes, lies as it likes.
type liar struct {
	script
	ask func(ctx context.Context, s *agent.Step, emit func(agent.Event), ready func(int, toolreg.ToolCall)) (agent.Reply, error)
}

func (l *liar) Ask(ctx context.Context, s *agent.Step, emit func(agent.Event), ready func(int, toolreg.ToolCall)) (agent.Reply, error) {
	if l.ask == nil || s.Number > 1 {
		return l.script.Ask(ctx, s, emit, ready)
	}
	return l.ask(ctx, s, emit, ready)
}

func toolNames(infos []toolreg.CallInfo) []string {
	var out []string
	for _, in := range infos {
		out = append(out, in.Tool)
	}
	return out
}

// TestACallOfAToolTheStepDoesNotOfferDoesNotRun: hidden by the step, ruled
// out by the tool choice, streamed early or not, the call is refused with
// a result the model reads, and counts as a failed call.
func TestACallOfAToolTheStepDoesNotOfferDoesNotRun(t *testing.T) {
	cases := []struct {
		name    string
		prepare func(*agent.Step) error
		call    toolreg.ToolCall
		reads   string
	}{
		{"hidden", func(s *agent.Step) error { return s.Hide("weather") }, call("1", "weather", `{"city":"Oslo"}`),
			`tool "weather" is not available at this point; the tools you may call now: book, pick, lookup, halt`},
		{"not in Only", func(s *agent.Step) error { return s.Only("lookup") }, call("1", "weather", `{"city":"Oslo"}`),
			`tool "weather" is not available at this point; the tools you may call now: lookup`},
		{"choice none", func(s *agent.Step) error { s.Choice = agent.None; return nil }, call("1", "weather", `{"city":"Oslo"}`),
			`tool "weather" is not available at this point; call no tool now, answer with text`},
		{"another tool forced", func(s *agent.Step) error { s.Choice = agent.Force("lookup"); return nil }, call("1", "weather", `{"city":"Oslo"}`),
			`tool "weather" is not available at this point; the tools you may call now: lookup`},
		{"hidden and needing approval", func(s *agent.Step) error { return s.Hide("book") }, call("1", "book", `{"city":"Oslo"}`),
			`tool "book" is not available at this point; the tools you may call now: weather, pick, lookup, halt`},
	}
	for _, c := range cases {
		for _, streaming := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/streaming=%v", c.name, streaming), func(t *testing.T) {
				var infos []toolreg.CallInfo
				reg := testRegistry(&infos)
				var logged []error // what a middleware records
				reg.Use(func(next toolreg.Handler) toolreg.Handler {
					return toolreg.HandlerFunc(func(ctx context.Context, call toolreg.ToolCall) toolreg.Output {
						out := next.HandleCall(ctx, call)
						logged = append(logged, out.Err)
						return out
					})
				})
				p := &script{streaming: streaming, replies: [][]toolreg.ToolCall{{c.call}, {}}}
				var results []toolreg.Output
				r := newRun(reg, p, agent.Options{
					PrepareStep: func(_ context.Context, s *agent.Step) error {
						if s.Number == 1 {
							return c.prepare(s)
						}
						return nil
					},
					OnEvent: func(e agent.Event) {
						if e.Kind == agent.CallResult {
							results = append(results, e.Output)
						}
					},
				})
				if err := r.Do(context.Background()); err != nil {
					t.Fatal(err)
				}
				if len(infos) != 0 {
					t.Errorf("the call ran: %+v", infos)
				}
				if len(results) != 1 || !errors.Is(results[0].Err, agent.ErrNotOffered) || !results[0].IsError {
					t.Fatalf("results %+v", results)
				}
				if diff := cmp.Diff(c.reads, results[0].Text); diff != "" {
					t.Errorf("the model reads (-want +got):\n%s", diff)
				}
				if len(logged) != 1 || !errors.Is(logged[0], agent.ErrNotOffered) {
					t.Errorf("the middleware saw %v, not the refusal", logged)
				}
				if r.State.RunRetries != 1 {
					t.Errorf("run retries %d, want 1", r.State.RunRetries)
				}
			})
		}
	}
}

// TestApprovalAfterValidation: a call that needs approval and whose
// arguments its tool refuses goes straight back to the model; nobody is
// asked to approve it.
func TestApprovalAfterValidation(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		t.Run(fmt.Sprintf("streaming=%v", streaming), func(t *testing.T) {
			var infos []toolreg.CallInfo
			reg := testRegistry(&infos)
			p := &script{streaming: streaming, replies: [][]toolreg.ToolCall{
				{call("1", "book", `{"town":"Oslo"}`)},
				{call("2", "book", `{"city":"Oslo"}`)},
			}}
			r := newRun(reg, p, agent.Options{})
			if err := r.Do(context.Background()); !errors.Is(err, agent.ErrPaused) {
				t.Fatalf("err = %v", err)
			}
			got := lines(t, r.State)
			if len(got) < 2 || !strings.HasPrefix(got[1], "book -> invalid arguments") {
				t.Errorf("the model did not read the invalid arguments at once: %q", got)
			}
			if r.State.Steps != 2 {
				t.Errorf("steps %d: the valid call should pause the second step", r.State.Steps)
			}
			if pending := r.State.Pending(); len(pending) != 1 || pending[0].ID != "2" {
				t.Errorf("pending %+v", pending)
			}
			if len(infos) != 0 {
				t.Errorf("a call ran: %+v", infos)
			}
		})
	}
}

// TestACallRunsOncePerTurn: a response with the same call id twice breaks
// the rules; a call the State says has run does not run again.
func TestACallRunsOncePerTurn(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		t.Run(fmt.Sprintf("streaming=%v", streaming), func(t *testing.T) {
			var infos []toolreg.CallInfo
			reg := testRegistry(&infos)
			same := call("w", "weather", `{"city":"Oslo"}`)
			p := &script{streaming: streaming, replies: [][]toolreg.ToolCall{{same, same}, {}}}
			var results []toolreg.Output
			r := newRun(reg, p, agent.Options{OnEvent: func(e agent.Event) {
				if e.Kind == agent.CallResult {
					results = append(results, e.Output)
				}
			}})
			// Two calls with one id: the response breaks the rules, and
			// only a call handed over early may have run (it is recorded).
			if err := r.Do(context.Background()); !errors.Is(err, agent.ErrBrokenStream) || !strings.Contains(err.Error(), `calls 0 and 1 have the same id "w"`) {
				t.Fatalf("err = %v", err)
			}
			// A call cancelled as it started is recorded as one that may have run.
			if len(infos) > len(r.State.Unsent) || len(r.State.Unsent) > 1 || len(results) != len(r.State.Unsent) {
				t.Errorf("ran %v, recorded %+v, reported %d", toolNames(infos), r.State.Unsent, len(results))
			}
		})
	}

	// A stored turn whose done call is made approved again, its id still
	// in Ran: it does not run again.
	var infos []toolreg.CallInfo
	reg := testRegistry(&infos)
	p := &script{replies: [][]toolreg.ToolCall{{call("w", "weather", `{"city":"Oslo"}`), call("b", "book", `{"city":"Oslo"}`)}, {}}}
	r := newRun(reg, p, agent.Options{})
	if err := r.Do(context.Background()); !errors.Is(err, agent.ErrPaused) {
		t.Fatal(err)
	}
	st := roundTrip(t, r.State)
	st.Turn[0].Status, st.Turn[0].Result = agent.StatusApproved, nil
	st.Approve("b")
	r = &Run{Registry: reg, Model: p, State: st}
	r.Do(context.Background()) // refused as a whole, or weather's call alone
	if diff := cmp.Diff([]string{"weather"}, slices.DeleteFunc(toolNames(infos), func(n string) bool { return n != "weather" })); diff != "" {
		t.Errorf("weather ran again (-want +got):\n%s", diff)
	}
}

// TestCallIDs: a call the provider gave no id gets one made up, unique in
// the run and the same when it runs again after a pause; the run's id is
// the same across the pause.
func TestCallIDs(t *testing.T) {
	var infos []toolreg.CallInfo
	reg := testRegistry(&infos)
	p := &script{replies: [][]toolreg.ToolCall{
		{call("", "pick", `{"city":"Rome"}`), call("", "weather", `{"city":"Rome"}`)},
		{call("", "weather", `{"city":"Rome"}`)},
		{},
	}}
	r := newRun(reg, p, agent.Options{})
	if err := r.Do(context.Background()); !errors.Is(err, agent.ErrPaused) {
		t.Fatal(err)
	}
	st := roundTrip(t, r.State)
	if err := st.Answer(st.Pending()[0].Key(), "Hassler"); err != nil {
		t.Fatal(err)
	}
	if err := (&Run{Registry: reg, Model: p, State: st}).Do(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(infos) != 4 {
		t.Fatalf("calls %+v", infos)
	}
	id := st.RunID
	if id == "" {
		t.Fatal("no run id")
	}
	seen := map[string]string{}
	for _, in := range infos {
		if in.ID == "" || in.RunID != id {
			t.Errorf("call %+v: no id, or another run's", in)
		}
		seen[in.ID] = in.Tool
	}
	// pick, weather (at once), pick again (answered), weather in step 2
	var picks []string
	for _, in := range infos {
		if in.Tool == "pick" {
			picks = append(picks, in.ID)
		}
	}
	if len(picks) != 2 || picks[0] != picks[1] {
		t.Errorf("the answered call ran with another id: %+v", infos)
	}
	if len(seen) != 3 {
		t.Errorf("ids are not unique: %v", seen)
	}
}

// TestAStreamThatBreaksItsRules: a call handed over twice, more arguments
// after a call was complete, a call whose name or arguments change before
// the response is complete, arguments past the tool's limit: the stream
// ends, the run ends with ErrBrokenStream, and every call that ran is in
// State.Unsent, the events and the error, with the arguments it ran with.
func TestAStreamThatBreaksItsRules(t *testing.T) {
	oslo := call("w", "weather", `{"city":"Oslo"}`)
	cases := []struct {
		name  string
		ask   func(ctx context.Context, emit func(agent.Event), ready func(int, toolreg.ToolCall), ran func()) (agent.Reply, error)
		ran   []string // the calls that ran, as name and arguments
		cause string
	}{
		{"handed over twice", func(ctx context.Context, emit func(agent.Event), ready func(int, toolreg.ToolCall), ran func()) (agent.Reply, error) {
			ready(0, oslo)
			ran()
			ready(0, oslo)
			return agent.Reply{Calls: []toolreg.ToolCall{oslo}}, nil
		}, []string{`weather {"city":"Oslo"}`}, "was handed over twice"},
		{"arguments after the end", func(ctx context.Context, emit func(agent.Event), ready func(int, toolreg.ToolCall), ran func()) (agent.Reply, error) {
			emit(agent.Event{Kind: agent.ArgumentsDelta, Call: toolreg.ToolCall{ID: "w", Name: "weather"}, Delta: `{"city":"Oslo"}`})
			ready(0, oslo)
			ran()
			emit(agent.Event{Kind: agent.ArgumentsDelta, Call: toolreg.ToolCall{ID: "w", Name: "weather"}, Delta: `,"x":1}`})
			return agent.Reply{Calls: []toolreg.ToolCall{call("w", "weather", `{"city":"Oslo"},"x":1}`)}}, nil
		}, []string{`weather {"city":"Oslo"}`}, "after they were complete"},
		{"name changed", func(ctx context.Context, emit func(agent.Event), ready func(int, toolreg.ToolCall), ran func()) (agent.Reply, error) {
			ready(0, oslo)
			ran()
			return agent.Reply{Calls: []toolreg.ToolCall{call("w", "book", `{"city":"Oslo"}`)}}, nil
		}, []string{`weather {"city":"Oslo"}`}, "handed over as \"weather\""},
		{"arguments changed", func(ctx context.Context, emit func(agent.Event), ready func(int, toolreg.ToolCall), ran func()) (agent.Reply, error) {
			ready(0, oslo)
			ran()
			return agent.Reply{Calls: []toolreg.ToolCall{call("w", "weather", `{"city":"Paris"}`)}}, nil
		}, []string{`weather {"city":"Oslo"}`}, "arguments other than the response's"},
		{"a call the response does not hold", func(ctx context.Context, emit func(agent.Event), ready func(int, toolreg.ToolCall), ran func()) (agent.Reply, error) {
			ready(0, oslo)
			ran()
			return agent.Reply{}, nil
		}, []string{`weather {"city":"Oslo"}`}, "the response holds 0 calls"},
		{"arguments past the limit", func(ctx context.Context, emit func(agent.Event), ready func(int, toolreg.ToolCall), ran func()) (agent.Reply, error) {
			ready(0, oslo)
			ran()
			for i := 0; ; i++ {
				if ctx.Err() != nil {
					return agent.Reply{}, context.Cause(ctx)
				}
				if i > 1000 {
					return agent.Reply{}, errors.New("the stream was not ended")
				}
				emit(agent.Event{Kind: agent.ArgumentsDelta, Call: toolreg.ToolCall{ID: "big", Name: "small"}, Delta: strings.Repeat("x", 100)})
			}
		}, []string{`weather {"city":"Oslo"}`}, `grew past the tool's limit of 1000 bytes`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var infos []toolreg.CallInfo
			reg := testRegistry(&infos)
			reg.MustAdd(toolreg.MustNew("small", "Takes little.", func(ctx context.Context, a cityArgs) (string, error) { return "", nil }, toolreg.WithMaxArgumentBytes(1000)))
			done := make(chan struct{}, 8)
			reg.Use(func(next toolreg.Handler) toolreg.Handler {
				return toolreg.HandlerFunc(func(ctx context.Context, call toolreg.ToolCall) toolreg.Output {
					defer func() { done <- struct{}{} }()
					return next.HandleCall(ctx, call)
				})
			})
			ran := func() { // the call started early has run
				select {
				case <-done:
				case <-time.After(10 * time.Second):
					t.Error("the call handed over did not run")
				}
			}
			p := &liar{ask: func(ctx context.Context, _ *agent.Step, emit func(agent.Event), ready func(int, toolreg.ToolCall)) (agent.Reply, error) {
				return c.ask(ctx, emit, ready, ran)
			}}
			var results []string
			r := newRun(reg, p, agent.Options{OnEvent: func(e agent.Event) {
				if e.Kind == agent.CallResult {
					results = append(results, fmt.Sprintf("%s %s", e.Call.Name, e.Call.Arguments))
				}
			}})
			err := r.Do(context.Background())
			if !errors.Is(err, agent.ErrBrokenStream) || !strings.Contains(err.Error(), c.cause) {
				t.Fatalf("err = %v, want %q", err, c.cause)
			}
			if !strings.Contains(err.Error(), "State.Unsent") {
				t.Errorf("the error does not name the calls that ran: %v", err)
			}
			var unsent []string
			for _, u := range r.State.Unsent {
				if u.Status != agent.StatusDone || u.Result == nil {
					t.Errorf("unsent %+v", u)
				}
				unsent = append(unsent, fmt.Sprintf("%s %s", u.Name, u.Arguments))
			}
			if diff := cmp.Diff(c.ran, unsent); diff != "" {
				t.Errorf("State.Unsent (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.ran, results); diff != "" {
				t.Errorf("results reported (-want +got):\n%s", diff)
			}
			if len(infos) != len(c.ran) {
				t.Errorf("%d calls ran, want %d", len(infos), len(c.ran))
			}
		})
	}
}

// TestEarlyStartsHoldTheConcurrencyBound: calls handed over while the
// model writes take the registry's slots like any others.
func TestEarlyStartsHoldTheConcurrencyBound(t *testing.T) {
	var running, most, ran atomic.Int64
	reg := toolreg.NewRegistry(toolreg.WithMaxConcurrency(4))
	reg.MustAdd(toolreg.MustNew("slow", "Takes a while.", func(ctx context.Context, a cityArgs) (string, error) {
		n := running.Add(1)
		defer running.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		ran.Add(1)
		time.Sleep(time.Millisecond)
		return "ok", nil
	}))
	var calls []toolreg.ToolCall
	for i := range 64 {
		calls = append(calls, call(fmt.Sprint(i), "slow", `{"city":"x"}`))
	}
	p := &script{streaming: true, replies: [][]toolreg.ToolCall{calls, {}}}
	if err := newRun(reg, p, agent.Options{}).Do(context.Background()); err != nil {
		t.Fatal(err)
	}
	if most.Load() > 4 || ran.Load() != 64 {
		t.Errorf("%d calls ran, at most %d at once; want 64, at most 4", ran.Load(), most.Load())
	}
}

// TestACancelledStepRecordsTheCallsThatRan: the model call fails after a
// call started: the call is in State.Unsent.
func TestACancelledStepRecordsTheCallsThatRan(t *testing.T) {
	var infos []toolreg.CallInfo
	reg := testRegistry(&infos)
	p := &liar{ask: func(ctx context.Context, _ *agent.Step, emit func(agent.Event), ready func(int, toolreg.ToolCall)) (agent.Reply, error) {
		ready(0, call("w", "weather", `{"city":"Oslo"}`))
		return agent.Reply{}, errors.New("connection reset")
	}}
	r := newRun(reg, p, agent.Options{})
	err := r.Do(context.Background())
	if err == nil || !strings.Contains(err.Error(), "connection reset") {
		t.Fatalf("err = %v", err)
	}
	// The call may have been cancelled before it ran; if it ran, it is
	// recorded, and one cancelled as it started is recorded as one that
	// may have run.
	if len(infos) > len(r.State.Unsent) || len(r.State.Unsent) > 1 {
		t.Errorf("%d calls ran, %d recorded", len(infos), len(r.State.Unsent))
	}
}

// TestApprovalIfReadsTheArguments: a typed rule pauses the run for the
// calls it names only, and reads the run's context.
func TestApprovalIfReadsTheArguments(t *testing.T) {
	type key struct{}
	var ran []string
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("pay", "Pays.", func(ctx context.Context, a struct {
		Amount int `json:"amount"`
	}) (string, error) {
		ran = append(ran, fmt.Sprint(a.Amount))
		return "paid", nil
	}, toolreg.WithApprovalIf(func(ctx context.Context, a struct {
		Amount int `json:"amount"`
	}) bool {
		return a.Amount > ctx.Value(key{}).(int)
	})))
	for _, streaming := range []bool{false, true} {
		ran = nil
		p := &script{streaming: streaming, replies: [][]toolreg.ToolCall{{call("1", "pay", `{"amount":5}`)}, {call("2", "pay", `{"amount":500}`)}}}
		r := newRun(reg, p, agent.Options{})
		ctx := context.WithValue(context.Background(), key{}, 100)
		if err := r.Do(ctx); !errors.Is(err, agent.ErrPaused) {
			t.Fatalf("err = %v", err)
		}
		if pending := r.State.Pending(); len(pending) != 1 || pending[0].ID != "2" || r.State.Steps != 2 {
			t.Errorf("streaming=%v: pending %+v after %d steps", streaming, pending, r.State.Steps)
		}
		if diff := cmp.Diff([]string{"5"}, ran); diff != "" {
			t.Errorf("streaming=%v: ran (-want +got):\n%s", streaming, diff)
		}
	}
}

// TestAnUnknownToolListsWhatTheStepAllows: the model reads the tools it
// may call now, not those the step hides.
func TestAnUnknownToolListsWhatTheStepAllows(t *testing.T) {
	var infos []toolreg.CallInfo
	reg := testRegistry(&infos)
	p := &script{replies: [][]toolreg.ToolCall{{call("1", "wether", `{"city":"Oslo"}`)}, {}}}
	var results []toolreg.Output
	r := newRun(reg, p, agent.Options{
		PrepareStep: func(_ context.Context, s *agent.Step) error { return s.Only("weather", "lookup") },
		OnEvent: func(e agent.Event) {
			if e.Kind == agent.CallResult {
				results = append(results, e.Output)
			}
		},
	})
	if err := r.Do(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(results) != 1 || !errors.Is(results[0].Err, toolreg.ErrUnknownTool) {
		t.Fatalf("results %+v", results)
	}
	if diff := cmp.Diff(`there is no tool named "wether"; available tools: weather, lookup`, results[0].Text); diff != "" {
		t.Errorf("the model reads (-want +got):\n%s", diff)
	}
}

// TestRefusalsInAStepOfManyTools: a step that allows thousands of tools
// names the nearest few of them and how many there are, for an unknown
// tool and for one the step does not offer.
func TestRefusalsInAStepOfManyTools(t *testing.T) {
	reg := toolreg.NewRegistry()
	for i := range 5000 {
		reg.MustAdd(toolreg.MustNew(fmt.Sprintf("tool_%d", i), "A tool.", func(context.Context, struct{}) (string, error) { return "ok", nil }))
	}
	p := &script{replies: [][]toolreg.ToolCall{{call("1", "tool_x17", `{}`), call("2", "tool_17", `{}`)}, {}}}
	var results []string
	r := newRun(reg, p, agent.Options{
		PrepareStep: func(_ context.Context, s *agent.Step) error { return s.Hide("tool_17", "tool_1") },
		OnEvent: func(e agent.Event) {
			if e.Kind == agent.CallResult {
				results = append(results, e.Output.Text)
			}
		},
	})
	if err := r.Do(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`there is no tool named "tool_x17"; there are 4998 tools, the nearest to this name: tool_117, tool_217, tool_317, tool_417, tool_517`,
		`tool "tool_17" is not available at this point; there are 4998 tools you may call now, the nearest to this name: tool_7, tool_10, tool_11, tool_12, tool_13`,
	}
	if diff := cmp.Diff(want, results); diff != "" {
		t.Errorf("the model reads (-want +got):\n%s", diff)
	}
}

// TestWaitRunsTheCallsNoWorkerTook: a call still queued when the model's
// response is over runs on the loop's goroutine when a slot is free, and
// waits for the worker holding the slots when none is; either way it runs
// once, and wait returns its output.
func TestWaitRunsTheCallsNoWorkerTook(t *testing.T) {
	for _, free := range []bool{true, false} {
		t.Run(fmt.Sprintf("slot_free=%v", free), func(t *testing.T) {
			var ran atomic.Int64
			reg := toolreg.NewRegistry(toolreg.WithMaxConcurrency(2))
			reg.MustAdd(toolreg.MustNew("echo", "Echoes.", func(_ context.Context, a cityArgs) (string, error) {
				ran.Add(1)
				return a.City, nil
			}))
			r := newRun(reg, nil, agent.Options{})
			step := agent.NewDeclaredStep(1, reg, reg.Tools())
			r.step = step
			s := r.starter(context.Background(), step)
			// A worker was started for the call but has not run: it holds
			// a slot (both, when none is free) and the call is queued.
			s.slots.TryAcquire()
			if !free {
				s.slots.TryAcquire()
			}
			s.wg.Add(1)
			put(&s.ready, 0, call("c1", "echo", `{"city":"Oslo"}`))
			s.queue = []int{0}
			s.ctx, s.cancel = context.WithCancel(context.Background())
			s.close()
			if !free {
				go func() {
					time.Sleep(10 * time.Millisecond)
					s.slots.Release() // the second slot: the worker below holds the first
					s.work()
				}()
			}
			outs := s.wait()
			if got := outs[0]; got.Text != "Oslo" || got.IsError {
				t.Errorf("output %+v, want Oslo", got)
			}
			if free {
				s.work() // scheduled at last: it finds nothing to run
			}
			if s.wg.Wait(); ran.Load() != 1 {
				t.Errorf("the call ran %d times, want once", ran.Load())
			}
		})
	}
}
