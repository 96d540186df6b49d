// Package adapt holds what the provider adapters share: the choice of
// strict mode and the per-tool cache of lowered definitions.
package adapt

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/internal/dialect"
)

// Strictness is what an adapter's strict-mode options chose.
type Strictness struct {
	All      bool            // every tool strict
	Tools    map[string]bool // these tools strict
	Fallback bool            // a tool strict mode cannot express goes non-strict
}

// Add marks tools as strict.
func (s *Strictness) Add(names ...string) {
	if s.Tools == nil {
		s.Tools = map[string]bool{}
	}
	for _, n := range names {
		s.Tools[n] = true
	}
}

// Strict is the result of lowering one tool for strict mode.
type Strict struct {
	Schema json.RawMessage       // the strict schema; nil when the tool goes non-strict
	Strip  *dialect.NullStripper // the nulls the model sends for optional properties
}

// Lower lowers t with the provider's strict dialect when s wants t strict.
// A schema strict mode cannot express is an error wrapping notStrict, or a
// zero Strict (non-strict) under Fallback.
func (s Strictness) Lower(t toolreg.AnyTool, strict func(json.RawMessage) (json.RawMessage, error), notStrict error) (Strict, error) {
	if !s.All && !s.Tools[t.Name()] {
		return Strict{}, nil
	}
	lowered, err := strict(t.InputSchema())
	switch {
	case err == nil:
	case s.Fallback:
		return Strict{}, nil
	default:
		return Strict{}, fmt.Errorf("%w: tool %q: %w", notStrict, t.Name(), err)
	}
	strip, err := dialect.NewNullStripper(t.InputSchema())
	if err != nil {
		return Strict{}, fmt.Errorf("tool %q: %w", t.Name(), err)
	}
	return Strict{Schema: lowered, Strip: strip}, nil
}

// Cache builds each tool's entry once. It is keyed by name, which a
// registry never reuses for another tool: an AnyTool need not be
// comparable (a struct holding its schema as json.RawMessage is not).
type Cache[E any] struct {
	mu sync.Mutex
	m  map[string]E
}

// Get returns t's entry, building it on first use.
func (c *Cache[E]) Get(t toolreg.AnyTool, build func(toolreg.AnyTool) E) E {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[t.Name()]; ok {
		return e
	}
	if c.m == nil {
		c.m = map[string]E{}
	}
	e := build(t)
	c.m[t.Name()] = e
	return e
}

// Unsupported returns an error that reads text and matches
// toolreg.ErrUnsupportedSchema: an adapter wraps it around each tool its
// dialect cannot express, so callers branch on the one sentinel while the
// message still says which dialect refused.
func Unsupported(text string) error { return unsupported(text) }

type unsupported string

func (e unsupported) Error() string { return string(e) }

// Is makes the error match toolreg.ErrUnsupportedSchema.
func (e unsupported) Is(target error) bool { return target == toolreg.ErrUnsupportedSchema }
