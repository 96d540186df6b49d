package adapt

import (
	"errors"
	"sync"

	"github.com/toolreg/toolreg"
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
	m  map[string]def[E]
}

type def[E any] struct {
	e   E
	err error
}

// NewDefs returns the definitions of reg's tools, each made by build.
func NewDefs[E any](reg *toolreg.Registry, build func(toolreg.AnyTool) (E, error)) *Defs[E] {
	return &Defs[E]{reg: reg, build: build, m: map[string]def[E]{}}
}

// Get returns t's definition, building it on first use.
func (d *Defs[E]) Get(t toolreg.AnyTool) (E, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	x, ok := d.m[t.Name()]
	if !ok {
		x.e, x.err = d.build(t)
		d.m[t.Name()] = x
	}
	return x.e, x.err
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
func (d *Defs[E]) All() ([]toolreg.AnyTool, []E, error) {
	tools := d.reg.Tools()
	es := make([]E, len(tools))
	var errs []error
	for i, t := range tools {
		var err error
		if es[i], err = d.Get(t); err != nil {
			errs = append(errs, err)
		}
	}
	return tools, es, errors.Join(errs...)
}
