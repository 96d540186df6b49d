package toolopenai

import "github.com/toolreg/toolreg/internal/adapt"

// Option configures a Chat or a Responses.
type Option struct{ set func(*config) }

type config struct {
	strict       adapt.Strictness
	clientSearch bool
	namespaces   NamespaceRule
}

// strictness is an Option that changes the strict mode.
func strictness(f func(*adapt.Strictness)) Option {
	return Option{func(c *config) { f(&c.strict) }}
}

// WithStrict sends every tool in strict mode (Structured Outputs): the
// model's arguments then always match the schema. A tool whose schema strict
// mode cannot express (an open map, an any field) makes Tools (of Chat and
// of Responses) fail with toolreg.ErrUnsupportedSchema, naming the tool
// and the field, unless WithNonStrictFallback is given.
func WithStrict() Option { return strictness(adapt.StrictAll) }

// WithStrictTools sends only the named tools in strict mode.
func WithStrictTools(names ...string) Option { return strictness(adapt.StrictTools(names)) }

// WithNonStrictFallback sends a tool that strict mode cannot express
// non-strict instead of failing.
func WithNonStrictFallback() Option { return strictness(adapt.StrictFallback) }

// WithClientToolSearch makes a Responses run with deferred tools
// (toolreg.WithDeferred, agent.Options.Defer) search them on the client,
// with the tool search the loop declares and answers
// (agent.SearchToolName), instead of the Responses API's tool_search: for
// a model without it, or to rank with the host's agent.ToolSearcher. Chat
// Completions has no search of its own, and always searches on the client.
func WithClientToolSearch() Option { return Option{func(c *config) { c.clientSearch = true }} }
