package toolreg

import (
	"context"
	"slices"
	"sync/atomic"
)

// Select returns a view of r: a Registry holding the tools of r that keep
// accepts, now and as tools are added to r. Use it to serve a subset of the
// tools to one model or one user (Select(Tagged("read-only"))) without
// declaring them twice. A view shares everything else with r: middleware,
// limits, the bound on abandoned calls. It cannot Add tools or Use
// middleware of its own; a call of a tool outside the view is an unknown
// tool.
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
}

// viewCache is the view's snapshot, made from one snapshot of the parent.
type viewCache struct {
	from, snap *snapshot
}

// snapshot is the registry's current tools: its own, or for a view its
// parent's that it keeps, filtered once per change of the parent.
func (r *Registry) snapshot() *snapshot {
	if r.view == nil {
		return r.snap.Load()
	}
	v := r.view
	from := v.parent.snap.Load()
	if c := v.cache.Load(); c != nil && c.from == from {
		return c.snap
	}
	snap := &snapshot{byName: map[string]AnyTool{}}
	for _, t := range from.tools {
		if v.keep(t) {
			snap.tools = append(snap.tools, t)
			snap.byName[t.Name()] = t
		}
	}
	v.cache.Store(&viewCache{from: from, snap: snap})
	return snap
}

func (v *view) handle(ctx context.Context, call ToolCall) Output {
	snap := (&Registry{view: v}).snapshot()
	if _, ok := snap.byName[call.Name]; !ok {
		return unknownToolOutput(call.Name, snap.tools)
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
