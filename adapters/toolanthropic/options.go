package toolanthropic

import "github.com/toolreg/toolreg/internal/adapt"

// Option configures an Adapter.
type Option struct{ set func(*config) }

type config struct {
	strict       adapt.Strictness
	noExamples   bool
	clientSearch bool
}

// strictness is an option of strict mode.
func strictness(set func(*adapt.Strictness)) Option {
	return Option{func(c *config) { set(&c.strict) }}
}

// WithStrict sends every tool with "strict": true: the model's input then
// always matches the schema. A tool whose schema strict mode cannot express
// (a recursive type, an open map, an any field) makes Tools fail with
// toolreg.ErrUnsupportedSchema, naming the tool and the field, unless
// WithNonStrictFallback is given. Strict mode has per-request limits
// (MaxStrictTools and the others) that Tools checks; use WithStrictTools
// when a registry is larger than they allow.
func WithStrict() Option { return strictness(adapt.StrictAll) }

// WithStrictTools sends only the named tools in strict mode.
func WithStrictTools(names ...string) Option { return strictness(adapt.StrictTools(names)) }

// WithNonStrictFallback sends a tool that strict mode cannot express
// non-strict instead of failing. It does not relax the per-request limits.
func WithNonStrictFallback() Option { return strictness(adapt.StrictFallback) }

// WithoutInputExamples leaves out the tools' example arguments
// (toolreg.WithExamples), which are otherwise sent as each tool's
// input_examples. Use it for an endpoint that refuses the field ("Extra
// inputs are not permitted"): a gateway that has not caught up, or a
// platform where it still needs a beta header.
func WithoutInputExamples() Option { return Option{func(c *config) { c.noExamples = true }} }

// WithClientToolSearch makes a run with deferred tools (toolreg.WithDeferred,
// agent.Options.Defer) search them on the client, with the tool search the
// loop declares and answers (agent.SearchToolName), as on the providers
// without a search of their own, instead of Anthropic's tool search tool:
// for a model or an endpoint without it, or to rank with the host's
// agent.ToolSearcher.
func WithClientToolSearch() Option { return Option{func(c *config) { c.clientSearch = true }} }
