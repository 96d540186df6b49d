package adapt

import (
	"context"
	"errors"
	"fmt"

	"github.com/toolreg/toolreg"
)

// Loop is the skeleton the adapters' runners share: a bounded number of
// model calls, the context checked before each, every call of a turn run
// through the registry at once, and a stop when a tool returns
// toolreg.StopRun. The adapter supplies the provider's side: asking the
// model, and putting the results into its transcript.
type Loop struct {
	Registry *toolreg.Registry
	MaxSteps int // <= 0: DefaultMaxSteps
	// DefaultMaxSteps is the bound of the adapter whose run this is.
	DefaultMaxSteps int
}

// Turn asks the model once. It returns the tool calls to run; done when
// the run is over (the model answered, or err); no calls and not done when
// the model should simply be asked again (a paused turn).
type Turn func(ctx context.Context, step int) (calls []toolreg.ToolCall, done bool, err error)

// Run runs turns until one is done, answering each turn's calls with
// answer. It returns the number of model calls made. The calls go through
// the registry's middleware, which is where a host observes them.
func (l Loop) Run(ctx context.Context, turn Turn, answer func(calls []toolreg.ToolCall, outs []toolreg.Output)) (steps int, err error) {
	max := l.MaxSteps
	if max <= 0 {
		max = l.DefaultMaxSteps
	}
	for {
		if err := ctx.Err(); err != nil {
			return steps, err
		}
		if steps == max {
			return steps, fmt.Errorf("%w (%d): the model has not finished", toolreg.ErrMaxSteps, max)
		}
		steps++
		calls, done, err := turn(ctx, steps)
		if err != nil || done {
			return steps, err
		}
		if len(calls) == 0 {
			continue
		}
		outs := l.Registry.CallAll(ctx, calls)
		answer(calls, outs)
		var stop []error
		for _, out := range outs {
			if errors.Is(out.Err, toolreg.ErrStopRun) {
				stop = append(stop, out.Err)
			}
		}
		if len(stop) > 0 {
			return steps, errors.Join(stop...)
		}
	}
}
