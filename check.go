package toolreg

import (
	"context"
	"encoding/json"
	"runtime/debug"
)

// Check validates arguments as Invoke would, without calling the function:
// ok is true when Invoke would accept them; otherwise out is the Output the
// model would read (its Err matches ErrInvalidArguments). A runner checks a
// call this way before it asks a person to approve it, so that nobody
// approves a call the tool would refuse. It costs what Invoke's checking
// costs; Invoke checks again when the call runs.
func (t *Tool[A, R]) Check(arguments json.RawMessage) (out Output, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			out, ok = internalOutput(t.name, r, debug.Stack()), false
		}
	}()
	var a A
	return t.decode(arguments, &a)
}

// MaxArgumentBytes is the largest arguments the tool accepts, in bytes
// (WithMaxArgumentBytes, DefaultMaxArgumentBytes unless set). A streaming
// runner stops reading a call's arguments past it.
func (t *Tool[A, R]) MaxArgumentBytes() int { return t.opts.limits.MaxBytes }

// Check validates call as the registry would before running it, without
// running it or its middleware: ok is true when the tool would accept the
// arguments; otherwise out is the Output the model would read (an unknown
// tool's, or invalid arguments'). A tool written by hand (an AnyTool with
// no Check method) checks its arguments only when it runs: Check accepts
// them. The runners check a call that needs approval before they ask the
// host, so that nobody approves a call the tool then refuses.
func (r *Registry) Check(call ToolCall) (out Output, ok bool) {
	snap := r.snapshot()
	t, found := snap.lookup(call.Name)
	if !found {
		return unknownToolOutput(call.Name, snap.names), false
	}
	if c, can := t.(interface {
		Check(json.RawMessage) (Output, bool)
	}); can {
		return c.Check(call.Arguments)
	}
	return Output{}, true
}

// MaxConcurrency is how many calls of one turn the registry runs at once
// (WithMaxConcurrency, DefaultMaxConcurrency unless set). A runner that
// starts calls while the model still writes holds its early starts to it
// too.
func (r *Registry) MaxConcurrency() int { return r.root().concurrency }

// MaxArgumentBytes is the largest arguments the named tool accepts, in
// bytes: its own MaxArgumentBytes method's answer when it has one, else
// DefaultMaxArgumentBytes (also for a name the registry does not hold). A
// streaming runner ends a stream whose call's arguments grow past it,
// rather than read them whole and refuse them after.
func (r *Registry) MaxArgumentBytes(name string) int {
	if t, ok := r.snapshot().lookup(name); ok {
		if m, ok := t.(interface{ MaxArgumentBytes() int }); ok && m.MaxArgumentBytes() > 0 {
			return m.MaxArgumentBytes()
		}
	}
	return DefaultMaxArgumentBytes
}

// Refuse passes call through the registry's middleware as Call does, but
// the call gets out in place of running its tool: what a runner uses for a
// call it refused before the registry (a tool the step does not offer, a
// repeated call), so that logs, spans and metrics record every call the
// model made with the result it read. out should have IsError and an Err.
func (r *Registry) Refuse(ctx context.Context, call ToolCall, out Output) (res Output) {
	defer func() {
		if p := recover(); p != nil {
			res = out // a middleware that panics cannot change the refusal
		}
	}()
	if ctx == nil {
		ctx = context.Background()
	}
	c := r.root().chain.Load()
	if !c.middleware {
		return out
	}
	cc := &callContext{Context: context.WithValue(ctx, refusalKey{}, &out), call: call}
	return c.refuse.HandleCall(cc, call)
}

type refusalKey struct{}

// refused is the innermost Handler of Refuse: the refusal, in place of the
// tool.
func refused(ctx context.Context, _ ToolCall) Output {
	return *ctx.Value(refusalKey{}).(*Output)
}
