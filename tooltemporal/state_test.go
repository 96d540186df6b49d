package tooltemporal

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/adapt/adapttest"
	"github.com/toolreg/toolreg/tooltemporal/internal/offline"
)

var stateKey = []byte("the workers' key, 32 bytes long.")

// pausedByRunner is a run the chat runner paused: weather done, book
// waiting for approval; the script answers "Booked." next.
func pausedByRunner(t *testing.T, reg *toolreg.Registry, key []byte) (*offline.Script, *agent.State) {
	t.Helper()
	script := &offline.Script{Replies: []offline.Reply{reply(call("w", "weather", "Oslo"), call("b", "book", "Oslo")), say("Booked.")}}
	chat, stop := script.Client()
	t.Cleanup(stop)
	params := openai.ChatCompletionNewParams{Model: "scripted", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("book Oslo")}}
	run, err := toolopenai.NewChat(reg).Run(context.Background(), &chat, params, nil, agent.Options{StateKey: key})
	if !errors.Is(err, agent.ErrPaused) {
		t.Fatalf("the runner: %v", err)
	}
	return script, run.State
}

// TestStoredStateRefusedInTheWorkflow: an edited Input.State fails the
// run at once, with a non-retryable error matching agent.ErrInvalidState,
// before any model or tool call, and without waiting for a decision. The
// workflow does not read the provider's transcript, and learns the
// provider at the first model call: the edits only those show are left to
// the seal.
func TestStoredStateRefusedInTheWorkflow(t *testing.T) {
	for _, e := range adapttest.StateEdits {
		if e.Transcript || e.Name == "another provider" {
			continue
		}
		t.Run(e.Name, func(t *testing.T) {
			var s seen
			reg := testRegistry(&s)
			script, st := pausedByRunner(t, reg, nil)
			asked, ran := script.Asked.Load(), len(s.list())
			st = adapttest.Edit(t, st, e.Edit)
			a := newAgent(t, reg, script, Options{})
			r := runIn(t, newEnv(t), a, Input{Model: "scripted", State: *st}, []timed{{time.Hour, []Decision{Approve("b")}}})
			if !errors.Is(r.err, agent.ErrInvalidState) || !strings.Contains(r.err.Error(), e.Want) {
				t.Fatalf("err = %v, want agent.ErrInvalidState naming %s", r.err, e.Want)
			}
			if n, m := script.Asked.Load()-asked, len(s.list())-ran; n != 0 || m != 0 || r.elapsed >= time.Hour {
				t.Errorf("%d model calls, %d tool calls, after %v", n, m, r.elapsed)
			}
		})
	}
}

// TestSealedStateInTheWorkflow: with Options.StateKey, a State a runner
// sealed with the same key goes on in the workflow, decided there or
// sealed with its decisions; a new run needs no seal; a changed or
// unsealed State is refused; the Result's State is sealed.
func TestSealedStateInTheWorkflow(t *testing.T) {
	tests := []struct {
		name    string
		state   func(t *testing.T, st *agent.State) *agent.State
		updates []timed
		want    error
	}{
		{"decided by Update", func(t *testing.T, st *agent.State) *agent.State { return st }, []timed{{time.Hour, []Decision{Approve("b")}}}, nil},
		{"decided and resealed", func(t *testing.T, st *agent.State) *agent.State {
			if err := st.Approve("b"); err != nil {
				t.Fatal(err)
			}
			if err := st.Reseal(stateKey); err != nil {
				t.Fatal(err)
			}
			return adapttest.Stored(t, st)
		}, nil, nil},
		{"decided in the store", func(t *testing.T, st *agent.State) *agent.State {
			st.Turn[1].Status = agent.StatusApproved
			return st
		}, nil, agent.ErrInvalidState},
		{"steps set back", func(t *testing.T, st *agent.State) *agent.State {
			st.Steps = 0
			return st
		}, []timed{{time.Hour, []Decision{Approve("b")}}}, agent.ErrInvalidState},
		{"no seal", func(t *testing.T, st *agent.State) *agent.State {
			st.Seal = ""
			return st
		}, []timed{{time.Hour, []Decision{Approve("b")}}}, agent.ErrInvalidState},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s seen
			reg := testRegistry(&s)
			script, st := pausedByRunner(t, reg, stateKey)
			st = tt.state(t, adapttest.Stored(t, st))
			ran := len(s.list())
			a := newAgent(t, reg, script, Options{StateKey: stateKey})
			r := runIn(t, newEnv(t), a, Input{Model: "scripted", State: *st}, tt.updates)
			if !errors.Is(r.err, tt.want) || (r.err == nil) != (tt.want == nil) {
				t.Fatalf("err = %v, want %v", r.err, tt.want)
			}
			if tt.want != nil {
				if n := len(s.list()) - ran; n != 0 {
					t.Errorf("%d tool calls", n)
				}
				return
			}
			if n := len(s.list()) - ran; n != 1 {
				t.Errorf("%d tool calls, want book's", n)
			}
			if err := r.res.State.Verify(stateKey); err != nil {
				t.Errorf("the Result's State: %v", err)
			}
		})
	}
	t.Run("a new run", func(t *testing.T) {
		var s seen
		reg := testRegistry(&s)
		script := &offline.Script{Replies: []offline.Reply{say("hello")}}
		a := newAgent(t, reg, script, Options{StateKey: stateKey})
		r := runIn(t, newEnv(t), a, Input{Model: "scripted", State: firstState(t, reg, "hi")}, nil)
		if r.err != nil {
			t.Fatal(r.err)
		}
		if err := r.res.State.Verify(stateKey); err != nil {
			t.Errorf("the Result's State: %v", err)
		}
	})
}
