package toolreg

import (
	"context"
	"encoding/json"
)

// CallInfo describes the call a tool runs in: what the model cannot put in
// the arguments and the tool may need (a call id as an idempotency key, the
// step of the run for logs, the host's answer to an Interrupt).
//
// Values of the host that the model must not be able to set (the user, a
// database handle) do not belong in the arguments either: put them in the
// context given to the runner or to Registry.Call, and read them in the
// tool with ctx.Value as usual.
type CallInfo struct {
	// ID identifies the call: the provider's call id or, in a run, when
	// the provider gave none (Gemini), one the run made up. In a run it is
	// never empty, unique in the run and the same when the call runs again
	// after a pause (an answered Interrupt): key side effects on it.
	// Outside a run it is the ToolCall's ID, "" when the caller gave none.
	ID       string
	Tool     string // the tool's name
	Step     int    // the model call of the run that asked for it, from 1; 0 outside a run
	Attempt  int    // 1, or one more for each failed call of the tool just before (invalid arguments, Retry); 0 outside a run
	Provider string // the runner's provider ("openai.chat", "openai.responses", "anthropic", "gemini", ...); "" outside a run
	RunID    string // the run's id (agent.State.RunID), the same across pauses; "" outside a run
	// Answer is the host's answer to the Interrupt this call made before
	// the run was paused, as JSON; nil on a first call.
	Answer json.RawMessage
}

// Info returns the CallInfo of the call ctx belongs to: inside a tool
// called through a Registry, its ID and Tool at least; the zero CallInfo
// elsewhere.
func Info(ctx context.Context) CallInfo {
	if c := callContextOf(ctx); c != nil {
		return c.info()
	}
	return CallInfo{}
}

// WithCallInfo returns a context whose calls through a Registry carry the
// CallInfo info returns for each (the registry sets ID and Tool itself).
// info is called when a tool asks for its Info, each time it asks, and
// not for calls that never do: it must be a plain function of the call,
// safe to call from the tool's goroutine, even after the call's caller has
// returned (a tool may ask late), so it should read copies, not state the
// host goes on changing.
// The runners of the adapters use it to tell tools the step, the provider,
// the attempt and the host's answers; a hand-written loop may too.
func WithCallInfo(ctx context.Context, info func(ToolCall) CallInfo) context.Context {
	return context.WithValue(ctx, callInfoKey{}, info)
}

type callInfoKey struct{}

// callInfoFor is the CallInfo of call under ctx.
func callInfoFor(ctx context.Context, call ToolCall) CallInfo {
	var info CallInfo
	if fn, ok := ctx.Value(callInfoKey{}).(func(ToolCall) CallInfo); ok {
		info = fn(call)
	}
	if call.ID != "" || info.ID == "" {
		info.ID = call.ID
	}
	info.Tool = call.Name
	return info
}
