// Package adapt holds what the provider adapters share: the strict-mode
// options and their lowering, the per-tool cache of definitions, the
// error of a schema a dialect cannot express, and the agent loop.
package adapt

import "github.com/toolreg/toolreg"

// Unsupported returns an error that reads text and matches
// toolreg.ErrUnsupportedSchema: an adapter wraps it around each tool its
// dialect cannot express, so callers branch on the one sentinel while the
// message still says which dialect refused.
func Unsupported(text string) error { return unsupported(text) }

type unsupported string

func (e unsupported) Error() string { return string(e) }

// Is makes the error match toolreg.ErrUnsupportedSchema.
func (e unsupported) Is(target error) bool { return target == toolreg.ErrUnsupportedSchema }

// Configure returns the configuration opts choose: each option's change
// (change(o), nil for a zero option) applied in order to a zero C. An
// adapter's Option is an opaque struct of its own, so that go doc shows
// no internal type; change reads the func it holds.
func Configure[O, C any](opts []O, change func(O) func(*C)) C {
	var c C
	for _, o := range opts {
		if f := change(o); f != nil {
			f(&c)
		}
	}
	return c
}
