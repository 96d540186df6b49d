package toolopenai

import "github.com/toolreg/toolreg/internal/adapt"

// Option configures a Chat or a Responses.
type Option struct{ set func(*adapt.Strictness) }

// WithStrict sends every tool in strict mode (Structured Outputs): the
// model's arguments then always match the schema. A tool whose schema strict
// mode cannot express (an open map, an any field) makes Tools (of Chat and
// of Responses) fail with toolreg.ErrUnsupportedSchema, naming the tool
// and the field, unless WithNonStrictFallback is given.
func WithStrict() Option { return Option{adapt.StrictAll} }

// WithStrictTools sends only the named tools in strict mode.
func WithStrictTools(names ...string) Option { return Option{adapt.StrictTools(names)} }

// WithNonStrictFallback sends a tool that strict mode cannot express
// non-strict instead of failing.
func WithNonStrictFallback() Option { return Option{adapt.StrictFallback} }
