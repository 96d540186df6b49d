package adapt

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/adapt/adapttest"
)

// reader is a script that reads its paused turn from its transcript: the
// calls of its last reply.
type reader struct {
	*script
	last []toolreg.ToolCall
}

func (p *reader) Ask(ctx context.Context, s *agent.Step, emit func(agent.Event), ready func(int, toolreg.ToolCall)) (agent.Reply, error) {
	reply, err := p.script.Ask(ctx, s, emit, ready)
	p.last = reply.Calls
	return reply, err
}

func (p *reader) TurnCalls() ([]toolreg.ToolCall, error) { return p.last, nil }

// pausedRun runs a turn of weather (done) and book (waiting for
// approval), and returns the run, paused.
func pausedRun(t *testing.T, opts agent.Options) (*Run, *reader, *[]toolreg.CallInfo) {
	t.Helper()
	infos := new([]toolreg.CallInfo)
	p := &reader{script: &script{replies: [][]toolreg.ToolCall{{call("1", "weather", `{"city":"Oslo"}`), call("2", "book", `{"city":"Oslo"}`)}, {}}}}
	r := newRun(testRegistry(infos), p, opts)
	if err := r.Do(context.Background()); !errors.Is(err, agent.ErrPaused) {
		t.Fatalf("err = %v, want ErrPaused", err)
	}
	return r, p, infos
}

// TestStoredStateRefused: each edit of a stored State is refused with
// agent.ErrInvalidState, whatever the host decides after loading it,
// before any model or tool call.
func TestStoredStateRefused(t *testing.T) {
	for _, e := range adapttest.StateEdits {
		t.Run(e.Name, func(t *testing.T) {
			r, p, infos := pausedRun(t, agent.Options{})
			st := adapttest.Edit(t, r.State, e.Edit)
			for _, c := range st.Pending() {
				st.Approve(c.Key())
			}
			asked, ran := len(p.offered), len(*infos)
			err := (&Run{Registry: r.Registry, Model: p, State: st}).Do(context.Background())
			if !errors.Is(err, agent.ErrInvalidState) || !strings.Contains(err.Error(), e.Want) {
				t.Errorf("err = %v, want agent.ErrInvalidState naming %s", err, e.Want)
			}
			if len(p.offered) != asked || len(*infos) != ran {
				t.Errorf("%d model calls, %d tool calls after the resume, want none", len(p.offered)-asked, len(*infos)-ran)
			}
		})
	}
}

// TestRefusedStepsBound: a State whose steps were set to -50 would have
// made 53 model calls under MaxSteps 3.
func TestRefusedStepsBound(t *testing.T) {
	r, p, _ := pausedRun(t, agent.Options{MaxSteps: 3})
	st := adapttest.Edit(t, r.State, func(st map[string]any) { st["steps"] = -50 })
	st.Approve("2")
	p.replies = [][]toolreg.ToolCall{}
	for range 60 {
		p.replies = append(p.replies, []toolreg.ToolCall{call("", "weather", `{"city":"Oslo"}`)})
	}
	err := (&Run{Registry: r.Registry, Model: p, State: st, Options: agent.Options{MaxSteps: 3}}).Do(context.Background())
	if !errors.Is(err, agent.ErrInvalidState) || len(p.offered) != 1 {
		t.Errorf("err = %v after %d model calls", err, len(p.offered))
	}
}

// TestDecisionsOfTheHost: decisions made after loading the State run; the
// same decisions read from the store do not, unless sealed.
func TestDecisionsOfTheHost(t *testing.T) {
	key := []byte("the host's key, 32 bytes or more")
	tests := []struct {
		name string
		// decide decides the paused State st as a host does, and returns
		// the State the run resumes.
		decide func(t *testing.T, st *agent.State) *agent.State
		key    []byte
		want   error
	}{
		{"decided after loading", func(t *testing.T, st *agent.State) *agent.State {
			st = roundTrip(t, st)
			st.Approve("2")
			return st
		}, nil, nil},
		{"decided, then stored", func(t *testing.T, st *agent.State) *agent.State {
			st.Approve("2")
			return roundTrip(t, st)
		}, nil, agent.ErrInvalidState},
		{"sealed, decided after loading", func(t *testing.T, st *agent.State) *agent.State {
			st = roundTrip(t, st)
			st.Approve("2")
			return st
		}, key, nil},
		{"sealed, decided, stored without a new seal", func(t *testing.T, st *agent.State) *agent.State {
			st = roundTrip(t, st)
			st.Approve("2")
			return roundTrip(t, st)
		}, key, agent.ErrInvalidState},
		{"sealed, decided, resealed and stored", func(t *testing.T, st *agent.State) *agent.State {
			st = roundTrip(t, st)
			st.ApproveWith("2", json.RawMessage(`{"city":"Bergen"}`))
			if err := st.Reseal(key); err != nil {
				t.Fatal(err)
			}
			return roundTrip(t, st)
		}, key, nil},
		{"sealed, changed, resealed", func(t *testing.T, st *agent.State) *agent.State {
			st = roundTrip(t, st)
			st.Turn[1].Status = agent.StatusApproved
			if err := st.Reseal(key); !errors.Is(err, agent.ErrInvalidState) {
				t.Errorf("Reseal of a changed State: %v", err)
			}
			return st
		}, key, agent.ErrInvalidState},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, p, infos := pausedRun(t, agent.Options{StateKey: tt.key})
			if (r.State.Seal != "") != (tt.key != nil) {
				t.Fatalf("seal %q with key %q", r.State.Seal, tt.key)
			}
			st := tt.decide(t, r.State)
			err := (&Run{Registry: r.Registry, Model: p, State: st, Options: agent.Options{StateKey: tt.key}}).Do(context.Background())
			if !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			booked := 0
			for _, info := range *infos {
				if info.Tool == "book" {
					booked++
				}
			}
			if want := map[bool]int{true: 1, false: 0}[tt.want == nil]; booked != want {
				t.Errorf("book ran %d times, want %d", booked, want)
			}
			if tt.want == nil && tt.key != nil {
				if err := roundTrip(t, st).Verify(tt.key); err != nil {
					t.Errorf("the State the run returned: %v", err)
				}
			}
		})
	}
}

// TestScrambledStateNeverPanics: random edits of a paused State's JSON
// end in an error or a run, never a panic.
func TestScrambledStateNeverPanics(t *testing.T) {
	for _, key := range [][]byte{nil, []byte("k")} {
		r, _, _ := pausedRun(t, agent.Options{StateKey: key})
		for i, st := range adapttest.Scramble(t, r.State, 2000, 24) {
			b, _ := json.Marshal(st)
			for _, c := range st.Pending() {
				if c.Status == agent.StatusInterrupted {
					st.Answer(c.Key(), "yes")
				} else {
					st.Approve(c.Key())
				}
			}
			infos := new([]toolreg.CallInfo)
			p := &reader{script: &script{replies: [][]toolreg.ToolCall{{}}}, last: []toolreg.ToolCall{call("1", "weather", `{"city":"Oslo"}`), call("2", "book", `{"city":"Oslo"}`)}}
			func() {
				defer func() {
					if v := recover(); v != nil {
						t.Fatalf("state %d panicked: %v\n%s", i, v, b)
					}
				}()
				(&Run{Registry: testRegistry(infos), Model: p, State: st, Options: agent.Options{StateKey: key}}).Do(context.Background())
			}()
		}
	}
}

// TestUnvalidatedStateCannotPanic: a done call without its result, read
// where no validation ran, is a failed call, not a panic.
func TestUnvalidatedStateCannotPanic(t *testing.T) {
	p := &script{}
	r := &Run{Registry: toolreg.NewRegistry(), Model: p, State: &agent.State{Retries: map[string]int{}}}
	err := r.finish(context.Background(), 1, []agent.Call{{ID: "1", Name: "weather", Status: agent.StatusDone}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"weather -> the result of this call was lost"}, p.lines); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	out := (*agent.Result)(nil).Output()
	if !out.IsError || !errors.Is(out.Err, agent.ErrInvalidState) {
		t.Errorf("a nil result's output: %+v", out)
	}
}
