package anthropic

import "github.com/toolreg/toolreg/internal/adapt"

// Option configures an Adapter.
type Option struct{ set func(*adapt.Strictness) }

// WithStrict sends every tool with "strict": true: the model's input then
// always matches the schema. A tool whose schema strict mode cannot express
// (a recursive type, an open map, an any field) makes Tools fail with
// toolreg.ErrUnsupportedSchema, naming the tool and the field, unless
// WithNonStrictFallback is given. Strict mode has per-request limits
// (MaxStrictTools and the others) that Tools checks; use WithStrictTools
// when a registry is larger than they allow.
func WithStrict() Option { return Option{adapt.StrictAll} }

// WithStrictTools sends only the named tools in strict mode.
func WithStrictTools(names ...string) Option { return Option{adapt.StrictTools(names)} }

// WithNonStrictFallback sends a tool that strict mode cannot express
// non-strict instead of failing. It does not relax the per-request limits.
func WithNonStrictFallback() Option { return Option{adapt.StrictFallback} }
