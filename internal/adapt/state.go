package adapt

import (
	"fmt"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/trust"
)

// admit checks the State before anything of the run runs, as data from
// outside: a State a runner would not have written, or decisions the host
// did not make in this process, end the run with agent.ErrInvalidState
// before any model or tool call. With a key (agent.Options.StateKey) the
// State must carry a valid seal, and the run seals the State it returns
// (seal, which Do defers once the State is admitted).
func (r *Run) admitState() error {
	st := r.State
	if st == nil {
		return fmt.Errorf("%w: no state", agent.ErrInvalidState)
	}
	if p := r.Model.Info().Provider; st.Provider != "" && p != "" && st.Provider != p {
		return fmt.Errorf("%w: a state of provider %q cannot resume on %q", agent.ErrInvalidState, st.Provider, p)
	}
	var turn []toolreg.ToolCall
	tr, read := r.Model.(agent.TurnReader)
	if read && len(st.Turn) > 0 {
		var err error
		if turn, err = tr.TurnCalls(); err != nil {
			return fmt.Errorf("%w: the paused turn: %w", agent.ErrInvalidState, err)
		}
	}
	return trust.Admit(st, turn, read, r.Options.StateKey)
}

// seal seals the State the run returns with the options' key; without
// one, it drops the seal the State came with, which no longer matches.
func (r *Run) seal(err *error) {
	key := r.Options.StateKey
	if len(key) == 0 {
		r.State.Seal = ""
		return
	}
	if serr := trust.Seal(r.State, key); serr != nil && *err == nil {
		*err = serr
	}
}
