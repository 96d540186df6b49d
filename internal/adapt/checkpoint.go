package adapt

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/slot"
	"github.com/toolreg/toolreg/internal/trust"
)

// checkpoint saves the progress of one turn through
// agent.Options.Checkpoint: the State as the model's reply left it, with
// the turn's calls as they stand, done or not run yet.
type checkpoint struct {
	r     *Run
	ctx   context.Context
	calls []agent.Call
	outs  []*toolreg.Output // finish's: nil for a call without a result yet
	step  int
	base  agent.State // the State at the turn's start, its transcript written once
}

// checkpoint saves the turn as finish holds it before its calls run, and
// returns what saves the rest of it; nil without Options.Checkpoint.
func (r *Run) checkpoint(ctx context.Context, step int, calls []agent.Call, outs []*toolreg.Output) (*checkpoint, error) {
	if r.Options.Checkpoint == nil {
		return nil, nil
	}
	// The transcript does not change while the turn's calls run: it is
	// written once, and each save shares it.
	cp := &checkpoint{r: r, ctx: ctx, calls: calls, outs: outs, step: step, base: *r.State}
	if err := r.Model.Save(&cp.base); err != nil {
		return nil, fmt.Errorf("agent: saving the run's state: %w", err)
	}
	return cp, cp.save()
}

// state is the State a resume goes on from: the turn's calls with a
// result are done (or interrupted, asking their question), the others not
// run (StatusAsked), but for a host's decision under a key, which the seal
// keeps. Maps and slices are copies: the hook may keep the State.
func (cp *checkpoint) state() *agent.State {
	r := cp.r
	st := cp.base
	st.Seal = ""
	st.Turn = make([]agent.Call, len(cp.calls))
	st.Ran = slices.Clone(r.State.Ran)
	st.Retries = maps.Clone(r.State.Retries)
	st.Unsent = slices.Clone(r.State.Unsent)
	r.mu.Lock() // a tool search of the turn may be adding to it
	st.Loaded = slices.Clone(r.State.Loaded)
	r.mu.Unlock()
	keep := len(r.Options.StateKey) > 0
	for i := range cp.calls {
		c := &cp.calls[i]
		out := cp.outs[i]
		if out == nil && keep && (c.Status == agent.StatusApproved || c.Status == agent.StatusAnswered) {
			st.Turn[i] = *c
			continue
		}
		asked := trust.Asked(c).(agent.Call)
		switch ie := interrupt(errOf(out)); {
		case out == nil:
			st.Turn[i] = asked
		case ie != nil:
			asked.Status, asked.Question = agent.StatusInterrupted, ie.Question
			st.Turn[i] = asked
		default:
			asked.Status, asked.Result = agent.StatusDone, agent.ResultOf(*out)
			st.Turn[i] = asked
			if id := r.callID(cp.step, *c); !slices.Contains(st.Ran, id) {
				st.Ran = append(st.Ran, id)
			}
		}
	}
	return &st
}

func errOf(out *toolreg.Output) error {
	if out == nil {
		return nil
	}
	return out.Err
}

// save hands the turn as it stands to the hook, sealed with the key when
// set. When the hook fails, the run's State becomes what it was handed,
// so that the run returns the turn as it stands with the error.
func (cp *checkpoint) save() error {
	if cp == nil {
		return nil
	}
	st := cp.state()
	var err error
	if key := cp.r.Options.StateKey; len(key) > 0 {
		err = trust.Seal(st, key)
	}
	if err == nil {
		err = cp.r.Options.Checkpoint(cp.ctx, st)
	}
	if err != nil {
		return cp.fail(fmt.Errorf("agent: saving a checkpoint: %w", err))
	}
	return nil
}

// fail leaves in the run's State the turn as it stands, no older than the
// last checkpoint saved and resumed as one: the run returns it with err.
func (cp *checkpoint) fail(err error) error {
	st := cp.state()
	cp.r.State.Turn, cp.r.State.Ran = st.Turn, st.Ran
	return err
}

// turnSlots bounds the calls of a checkpointed turn that run at once: a
// call waiting for its tool's group gives its slot back meanwhile.
type turnSlots struct{ slot.Sema }

// Reclaim takes a slot again for a call that waited for its group.
func (s *turnSlots) Reclaim(ctx context.Context) {
	if s.Acquire(ctx) != nil {
		s.Force()
	}
}

// run runs calls, the turn's calls at at, in order, each on a goroutine of
// its own and up to the registry's MaxConcurrency at once, and saves the
// turn as each completes, on the run's goroutine, one save at a time. A
// call's slot is given back once its result is saved, so that no more
// calls than the bound have run unsaved. After a save fails no call
// starts; those running finish and are in the State returned.
func (cp *checkpoint) run(calls []toolreg.ToolCall, at []int) error {
	if len(calls) == 1 { // nothing runs beside it: no goroutine to hand it to
		out := cp.r.exec(cp.ctx, cp.step, cp.calls, calls)[0]
		cp.outs[at[0]] = &out
		return cp.save()
	}
	type result struct {
		j   int
		out *toolreg.Output // nil: the call did not start
	}
	results := make(chan result, len(calls))
	starting, stop := context.WithCancel(cp.ctx) // ends the waits for a slot
	defer stop()
	slots := &turnSlots{}
	slots.Limit = int32(cp.r.Registry.MaxConcurrency())
	ctx := slot.WithHolder(cp.ctx, slots)
	go func() {
		for j, c := range calls {
			// A slot free when a save fails is taken without a wait, so
			// the failure is checked after it too: no call starts then.
			if err := slots.Acquire(starting); err != nil || starting.Err() != nil {
				if err == nil {
					slots.Release()
				}
				for ; j < len(calls); j++ {
					if cp.ctx.Err() == nil { // a save failed: the call is not run
						results <- result{j: j}
						continue
					}
					// The run's context ended: the call's result says so,
					// as a turn run at once would.
					out := cp.r.exec(cp.ctx, cp.step, cp.calls, calls[j:j+1])[0]
					slots.Force()
					results <- result{j: j, out: &out}
				}
				return
			}
			go func() {
				out := cp.r.exec(ctx, cp.step, cp.calls, []toolreg.ToolCall{c})[0]
				results <- result{j: j, out: &out}
			}()
		}
	}()
	var err error
	for range calls {
		res := <-results
		if res.out == nil {
			continue
		}
		cp.outs[at[res.j]] = res.out
		if err == nil {
			if err = cp.save(); err != nil {
				stop()
			}
		}
		slots.Release()
	}
	if err != nil {
		return cp.fail(err) // with the calls that finished after the failure
	}
	return nil
}
