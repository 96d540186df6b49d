package toolreg

import (
	"context"

	"github.com/toolreg/toolreg/internal/slot"
)

// Concurrency groups. Some tools must not run beside each other: they share
// one database connection, or an API that allows so many requests at once.
// A tool declared WithSequential runs one call at a time; tools declared
// WithGroup(name) share the group's bound, one call at a time unless the
// registry sets another (WithGroupLimit). The registry's dispatch holds the
// rule for every call, whoever makes it: Registry.Call, CallAll, a runner's
// turns and the calls it starts while the model still writes, the MCP
// server. A view of a registry (Select) shares its groups.
//
// A call waits for its group after its arguments are checked, as long as
// its context allows: a cancelled or timed-out wait is the call's
// cancellation or timeout Output, and the time waited counts toward the
// call's timeouts (WithTimeout, WithDefaultTimeout). While it waits, the
// call gives back the slot it holds of its caller's bound (CallAll's
// WithMaxConcurrency, a runner's early starts), so that the other calls of
// the turn go on, and takes one again before it runs.
//
// A call holds its group's slot until its function returns, not until its
// caller gets an answer: a call abandoned at its deadline (a function that
// ignores its context; see WithTimeout and WithIsolatedCalls) still holds
// it, since what the group guards (the connection, the quota) is still in
// use. A function that panics gives its slot back as it fails.

// WithSequential runs at most one call of the tool at a time in a registry;
// other calls of it wait their turn. Use it for a tool that holds state no
// two calls may share (a session, a file it rewrites). It may be combined
// with WithGroup.
func WithSequential() Option {
	return Option{func(o *toolOptions) { o.sequential = true }}
}

// WithGroup puts the tool in the named concurrency group: the calls of all
// the tools of a group share one bound, one call at a time unless the
// registry sets another with WithGroupLimit. Use it for tools that share
// something of which there is only so much: a database connection, a
// rate-limited API. An empty name is a declaration error.
func WithGroup(name string) Option {
	return Option{func(o *toolOptions) { o.group, o.grouped = name, true }}
}

// WithGroupLimit lets n calls of the named group (WithGroup) run at once in
// the registry; n < 1 means 1. A group the registry sets no limit for runs
// one call at a time: a group exists because its tools must not run beside
// each other, and the safe bound is the one that keeps them apart.
func WithGroupLimit(name string, n int) RegistryOption {
	return RegistryOption{func(r *Registry) {
		if r.groupLimits == nil {
			r.groupLimits = map[string]int{}
		}
		r.groupLimits[name] = max(n, 1)
	}}
}

// Group is the tool's concurrency group (WithGroup), "" for none. A
// hand-written AnyTool joins a group with a method of the same signature.
func (t *Tool[A, R]) Group() string { return t.opts.group }

// Sequential reports whether the tool runs one call at a time
// (WithSequential). A hand-written AnyTool asks for the same with a method
// of the same signature returning true.
func (t *Tool[A, R]) Sequential() bool { return t.opts.sequential }

// grouping is what bounds the calls of one tool: its own bound of one call
// (sequential) and its group's.
type grouping struct {
	group      string
	sequential bool
}

func (g grouping) any() bool { return g.sequential || g.group != "" }

// groupingOf reads a hand-written tool's grouping from its optional
// methods.
func groupingOf(t AnyTool) grouping {
	var g grouping
	if gt, ok := t.(interface{ Group() string }); ok {
		g.group = gt.Group()
	}
	if st, ok := t.(interface{ Sequential() bool }); ok {
		g.sequential = st.Sequential()
	}
	return g
}

// groupKey names a semaphore of the registry: a group's, or one tool's own
// (WithSequential), apart whatever the names.
type groupKey struct {
	name string
	tool bool
}

// sema is the registry's semaphore of key, made on first use.
func (r *Registry) sema(key groupKey) *slot.Sema {
	if s, ok := r.groups.Load(key); ok {
		return s.(*slot.Sema)
	}
	limit := 1
	if n, ok := r.groupLimits[key.name]; ok && !key.tool {
		limit = n
	}
	s, _ := r.groups.LoadOrStore(key, &slot.Sema{Limit: int32(limit)})
	return s.(*slot.Sema)
}

// held are the group slots a call holds, to give back when its function
// returns.
type held struct{ own, group *slot.Sema }

func (h held) leave() {
	if h.group != nil {
		h.group.Release()
	}
	if h.own != nil {
		h.own.Release()
	}
}

// enter takes the slots of the tool's groups for one call: at once when
// they are free; otherwise the call gives back its caller's slots
// (slot.Holder: its turn's, which gives back its caller's), waits as long as ctx allows and takes its caller's slots
// again. A wait that ctx ends is the call's Output, with no slot held.
func (r *Registry) enter(ctx context.Context, tool string, g grouping) (held, Output, bool) {
	var h held
	if g.sequential {
		h.own = r.sema(groupKey{name: tool, tool: true})
	}
	if g.group != "" {
		h.group = r.sema(groupKey{name: g.group})
	}
	if h.own == nil || h.own.TryAcquire() {
		if h.group == nil || h.group.TryAcquire() {
			return h, Output{}, true
		}
		if h.own != nil {
			h.own.Release()
		}
	}
	holder := slot.HolderOf(ctx) // the bound of the call's turn, or of its caller
	if holder != nil {
		holder.Release()
	}
	err := acquire(ctx, h.own)
	if err == nil {
		if err = acquire(ctx, h.group); err != nil && h.own != nil {
			h.own.Release()
		}
	}
	if holder != nil {
		holder.Reclaim(ctx)
	}
	if err == nil {
		if err = ctx.Err(); err != nil { // ended while the caller's slots were taken again
			h.leave()
		}
	}
	if err != nil {
		return held{}, contextOutput(tool, err, r.timeoutOf(r.snap.Load(), tool)), false
	}
	return h, Output{}, true
}

func acquire(ctx context.Context, s *slot.Sema) error {
	if s == nil {
		return nil
	}
	return s.Acquire(ctx)
}

// grouped runs one call of a tool in a group: run, once the call holds its
// group slots, on the caller's goroutine or bounded as dispatch bounds
// calls; the slots are given back when run returns, however late.
func (r *Registry) grouped(ctx context.Context, tool string, g grouping, run func(context.Context) Output) Output {
	h, out, ok := r.enter(ctx, tool, g)
	if !ok {
		return out
	}
	if ctx.Done() != nil {
		if timeout := r.timeoutOf(r.snap.Load(), tool); r.bounds(timeout) {
			return bound(ctx, tool, timeout, &r.abandoned, func(ctx context.Context) Output {
				defer h.leave()
				return run(ctx)
			})
		}
	}
	defer h.leave()
	return run(ctx)
}
