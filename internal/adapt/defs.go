package adapt

import (
	"errors"
	"slices"
	"sync"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/internal/nameset"
)

// Defs holds the tools of a registry as one provider takes them: each
// tool's definition E, built once on first use, or the error that says why
// the provider cannot take it. Tools added to the registry later are
// built when first asked for. It is safe for concurrent use.
//
// Definitions are keyed by name, which a registry never reuses for another
// tool: an AnyTool need not be comparable (a struct holding its schema as
// json.RawMessage is not).
type Defs[E any] struct {
	reg   *toolreg.Registry
	build func(toolreg.AnyTool) (E, error)

	mu sync.Mutex
	m  map[string]*def[E] // pointers: a large E is copied once, out of Get
}

type def[E any] struct {
	e   E
	err error
}

// NewDefs returns the definitions of reg's tools, each made by build.
func NewDefs[E any](reg *toolreg.Registry, build func(toolreg.AnyTool) (E, error)) *Defs[E] {
	return &Defs[E]{reg: reg, build: build, m: map[string]*def[E]{}}
}

// Get returns t's definition, building it on first use.
func (d *Defs[E]) Get(t toolreg.AnyTool) (E, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	x := d.get(t)
	return x.e, x.err
}

// get returns t's definition, building it on first use; d.mu is held.
func (d *Defs[E]) get(t toolreg.AnyTool) *def[E] {
	x := d.m[t.Name()]
	if x == nil {
		x = &def[E]{}
		x.e, x.err = d.build(t)
		d.m[t.Name()] = x
	}
	return x
}

// Lookup returns the definition of the registry's tool of that name; false
// when the registry holds none, or the provider cannot take it.
func (d *Defs[E]) Lookup(name string) (E, bool) {
	t, ok := d.reg.Lookup(name)
	if !ok {
		var zero E
		return zero, false
	}
	e, err := d.Get(t)
	return e, err == nil
}

// All returns the registry's tools and their definitions, in registration
// order. The error joins those of every tool the provider cannot take.
// It takes the lock once for all: a request's definitions are asked for
// on every model call.
func (d *Defs[E]) All() ([]toolreg.AnyTool, []E, error) {
	tools := d.reg.Tools()
	es, err := d.Of(tools)
	return tools, es, err
}

// Named reports whether a name is one of names (a step's tools): through a
// set for a long list, so that picking a step's tools out of a large
// registry on every model call stays linear in the registry's size.
func Named(names []string) func(string) bool { return nameset.Of(names) }

// Of returns the definitions of tools, in their order: a step's declared
// tools (agent.Step.Declared), which may hold the loop's own beside the
// registry's. The error joins those of every tool the provider cannot
// take.
func (d *Defs[E]) Of(tools []toolreg.AnyTool) ([]E, error) {
	es := make([]E, len(tools))
	var errs []error
	d.mu.Lock()
	for i, t := range tools {
		x := d.get(t)
		if es[i] = x.e; x.err != nil {
			errs = append(errs, x.err)
		}
	}
	d.mu.Unlock()
	return es, errors.Join(errs...)
}

// StepTools keeps the definitions a run's model call last sent, with the
// names of the tools they declare: a step that declares the same tools as
// the last sends the same definitions, built once (definitions are cached
// by name, and a registry never gives a name to another tool). The zero
// value is ready; it is one run's, not safe for concurrent use.
type StepTools[T any] struct {
	names []string
	tools []T
	built bool
}

// For returns the definitions of tools: the last ones when the tools are
// the last step's, else build's.
func (c *StepTools[T]) For(tools []toolreg.AnyTool, build func([]toolreg.AnyTool) ([]T, error)) ([]T, error) {
	if c.built && slices.EqualFunc(tools, c.names, func(t toolreg.AnyTool, n string) bool { return t.Name() == n }) {
		return c.tools, nil
	}
	defs, err := build(tools)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name()
	}
	c.names, c.tools, c.built = names, defs, true
	return defs, nil
}
