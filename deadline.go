package toolreg

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync/atomic"
	"time"
)

// A call runs on its caller's goroutine, and its context reaches the
// function through ctx, as in any Go call: a function that honours it
// returns when the context ends, one that ignores it holds its caller
// until it returns. What the host asks the library to bound is bounded
// whatever the function does: a timeout of the tool (WithTimeout) or of the
// registry (WithDefaultTimeout), and under WithIsolatedCalls any end of
// the caller's context. When one of these ends the call, the caller gets a
// timeout or cancellation Output at once. The function then runs on a
// goroutine of its own and the middleware on the caller's: the innermost
// Handler returns the timeout Output at the deadline, so that what
// middleware logs, traces and counts is what the model reads, when it
// reads it. A middleware is host code like an http.Handler's: one that
// blocks and ignores its context holds its caller, as it would there.
//
// The goroutine running a function that ignores its context cannot be
// stopped: it is abandoned, runs on until the function returns, and its
// Output is dropped. A registry counts the goroutines it abandoned
// (Registry.Abandoned) and refuses new calls while they reach its bound
// (WithMaxAbandoned), so that a tool that hangs cannot pile up goroutines
// without end.
//
// The goroutine is not the default because it costs: a goroutine per
// call, and several times the call's own time (the README's Performance
// section).

// bound runs fn and returns its Output, or a timeout or cancellation
// Output as soon as ctx is done. An abandoned fn is counted in abandoned
// (when not nil) until it returns.
func bound(ctx context.Context, tool string, timeout time.Duration, abandoned *atomic.Int64, fn func(context.Context) Output) Output {
	b := &boundCall{done: make(chan Output, 1)} // buffered: an abandoned fn never blocks
	go func() {
		var out Output
		defer func() {
			if r := recover(); r != nil { // a last guard: fn recovers its own panics
				out = internalOutput(tool, r, debug.Stack())
			}
			b.done <- out
			if !b.state.CompareAndSwap(running, finished) && abandoned != nil {
				abandoned.Add(-1) // it was abandoned, and is over now
			}
		}()
		out = fn(ctx)
	}()
	select {
	case out := <-b.done:
		return out
	case <-ctx.Done():
		if !b.state.CompareAndSwap(running, given) {
			return <-b.done // finished just in time
		}
		if abandoned != nil {
			abandoned.Add(1)
		}
		return contextOutput(tool, ctx.Err(), timeout)
	}
}

type boundCall struct {
	done  chan Output
	state atomic.Int32
}

// The states of a bound call: its function is running, has finished, or
// was abandoned (the caller has been given up on it).
const (
	running int32 = iota
	finished
	given
)

// callContext is the context a registry gives the call it runs: one
// allocation of 80 bytes, what Info reads and what tells the registry
// whether a middleware called the tool. The CallInfo is worked out when
// Info asks, not before: most tools never ask, and the caller's context is
// walked for a WithCallInfo only then.
type callContext struct {
	context.Context
	call ToolCall
	// reached is the registry whose dispatch the call went through to the
	// tool, nil before (a middleware may call it on a goroutine of its
	// own, or not at all: see Registry.handle).
	reached atomic.Pointer[Registry]
}

type callContextKey struct{}

func (c *callContext) Value(key any) any {
	if key == (callContextKey{}) {
		return c
	}
	return c.Context.Value(key)
}

// info is the call's CallInfo, from the WithCallInfo of the caller's
// context.
func (c *callContext) info() CallInfo { return callInfoFor(c.Context, c.call) }

func callContextOf(ctx context.Context) *callContext {
	c, _ := ctx.Value(callContextKey{}).(*callContext)
	return c
}

// ErrOverloaded: a registry refused a call because as many calls as its
// WithMaxAbandoned bound are still running after their deadline.
var ErrOverloaded = errors.New("too many calls still running after their deadline")

func overloadedOutput(tool string, n int64) Output {
	return Output{
		Text:    fmt.Sprintf("tool %q cannot take calls now: earlier calls are still running past their deadline; go on without it or try again later", tool),
		IsError: true,
		Err:     fmt.Errorf("%w: %d abandoned calls of the registry are still running", ErrOverloaded, n),
	}
}

// contextOutput reports a call ended by its context: a timeout (of the
// tool, the registry or the caller) or a cancellation.
func contextOutput(tool string, err error, timeout time.Duration) Output {
	if errors.Is(err, context.DeadlineExceeded) {
		text := fmt.Sprintf("tool %q did not finish before its deadline; try again later, perhaps with a smaller request, or go on without it", tool)
		if timeout > 0 {
			text = fmt.Sprintf("tool %q did not finish within %v; try again later, perhaps with a smaller request, or go on without it", tool, timeout)
		}
		return Output{Text: text, IsError: true, Err: fmt.Errorf("%w: tool %q: %w", ErrTimeout, tool, err)}
	}
	return Output{
		Text:    fmt.Sprintf("the call to tool %q was cancelled", tool),
		IsError: true,
		Err:     fmt.Errorf("tool %q: %w", tool, err),
	}
}
