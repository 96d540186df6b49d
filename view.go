package toolreg

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
)

// Select returns a view of r: a Registry holding the tools of r that keep
// accepts, now and as tools are added to r. Use it to serve a subset of the
// tools to one model or one user (Select(Tagged("read-only"))) without
// declaring them twice. A view shares everything else with r: middleware,
// limits, the bound on abandoned calls. It cannot Add tools or Use
// middleware of its own; a call of a tool outside the view is an unknown
// tool.
//
// keep is called on each tool of r when the view first needs it, under
// the view's lock, and again on each added tool for the view's OnAdd
// listeners: it must be quick, must answer the same for a tool every
// time, and must not use the view it filters (its Tools, Lookup,
// Len, Call or CallAll, or those of a view of it), which would wait for
// the lock keep holds, for ever. Reading r, or another registry, is safe.
func (r *Registry) Select(keep func(AnyTool) bool) *Registry {
	if r.view != nil { // a view of a view filters the same registry twice
		inner, outer := r.view.keep, keep
		return &Registry{view: &view{parent: r.view.parent, keep: func(t AnyTool) bool { return inner(t) && outer(t) }}}
	}
	return &Registry{view: &view{parent: r, keep: keep}}
}

// Tagged keeps the tools that carry one of tags (WithTags), for Select.
func Tagged(tags ...string) func(AnyTool) bool {
	return func(t AnyTool) bool {
		tt, ok := t.(interface{ Tags() []string })
		if !ok {
			return false
		}
		for _, tag := range tt.Tags() {
			if slices.Contains(tags, tag) {
				return true
			}
		}
		return false
	}
}

type view struct {
	parent *Registry
	keep   func(AnyTool) bool
	cache  atomic.Pointer[viewCache]
	mu     sync.Mutex // serialises extending the cache
}

// viewCache is the view's snapshot, made from one snapshot of the parent.
type viewCache struct {
	from, snap *snapshot
}

// snapshot is the registry's current tools: its own, or for a view its
// parent's that it keeps. A view filters only the tools added to its
// parent since it last looked (the parent's snapshots only grow), so that
// a view in use while tools are added one at a time costs what the
// parent's Adds do, not a filtering of every tool per Add.
func (r *Registry) snapshot() *snapshot {
	if r.view == nil {
		return r.snap.Load()
	}
	v := r.view
	if c := v.cache.Load(); c != nil && c.from == v.parent.snap.Load() {
		return c.snap
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	from := v.parent.snap.Load() // the newest: a view may see more than a reader asked for, never less
	c := v.cache.Load()
	if c == nil {
		c = &viewCache{from: &snapshot{}, snap: &snapshot{}}
	}
	if c.from == from {
		return c.snap
	}
	var kept []AnyTool
	var names []string
	for i := len(c.from.tools); i < len(from.tools); i++ {
		if v.keep(from.tools[i]) {
			kept, names = append(kept, from.tools[i]), append(names, from.names[i])
		}
	}
	snap := c.snap
	if len(kept) > 0 {
		snap = snap.with(kept, names)
	}
	v.cache.Store(&viewCache{from: from, snap: snap})
	return snap
}

func (v *view) handle(ctx context.Context, call ToolCall) Output {
	snap := (&Registry{view: v}).snapshot()
	if _, ok := snap.lookup(call.Name); !ok {
		return v.parent.limitResult(ctx, call, nil, unknownToolOutput(call.Name, snap.names))
	}
	return v.parent.handle(ctx, call)
}

func (v *view) onAdd(fn func([]AnyTool)) (remove func()) {
	return v.parent.OnAdd(func(added []AnyTool) {
		var kept []AnyTool
		for _, t := range added {
			if v.keep(t) {
				kept = append(kept, t)
			}
		}
		if len(kept) > 0 {
			fn(kept)
		}
	})
}

// root is the registry that holds the tools: r, or the one r views.
func (r *Registry) root() *Registry {
	if r.view != nil {
		return r.view.parent
	}
	return r
}
