package toolreg

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolreg/toolreg/internal/args"
)

// NewDynamic declares a tool whose arguments are known only at run time:
// a JSON Schema (a config file's, a plugin's, another MCP server's) and a
// function of the raw arguments. Use New whenever the arguments are a Go
// type.
//
// The schema is checked here: it must compile as draft 2020-12, with the
// validator every call is checked with, as a closed document (a $ref,
// $schema or $id that reaches outside it is refused: nothing is loaded,
// from files or the network; the drafts' meta-schemas are built in),
// expand to no more than DefaultMaxSchemaNodes subschemas, and make the
// validator apply no more than as many along one path of arguments as
// deep as WithMaxDepth lets them nest (see WithMaxSchemaNodes), and
// describe an object. Calls are
// validated against it before fn runs, with the same messages and limits
// as typed tools, and fn receives the arguments' bytes (empty arguments
// read as {}). They take the validator's path, with no one-pass path
// beside it: a call costs about half a kilobyte per value of its
// arguments, within the tool's WithMaxValues.
//
// Result is string (the text verbatim), a type encoded as JSON, or Output,
// for a function that words its result itself (text, structured JSON,
// IsError: a bridge to another server). WithOutputSchema gives the schema
// of its structured results.
//
// Adapters lower the schema for their dialect like any other; one a strict
// mode cannot express goes non-strict, with the reason reported (the
// OpenAI and Anthropic adapters' NotStrict), never a request the provider
// refuses.
func NewDynamic[Result any](name, description string, schema json.RawMessage, fn func(ctx context.Context, arguments json.RawMessage) (Result, error), opts ...Option) (*Tool[json.RawMessage, Result], error) {
	if err := ValidName(name); err != nil {
		return nil, err
	}
	if strings.TrimSpace(description) == "" {
		return nil, fmt.Errorf("%w: tool %q has an empty description; say when the model should use it", ErrInvalidDeclaration, name)
	}
	if fn == nil {
		return nil, fmt.Errorf("%w: tool %q has a nil function", ErrInvalidDeclaration, name)
	}
	o := toolOptions{limits: args.Limits{MaxBytes: DefaultMaxArgumentBytes, MaxDepth: DefaultMaxDepth, MaxValues: DefaultMaxValues, MaxSchemaNodes: DefaultMaxSchemaNodes}}
	for _, opt := range opts {
		if opt.apply != nil { // the zero Option does nothing
			opt.apply(&o)
		}
	}
	if o.limits.MaxSchemaNodes < 1 {
		return nil, fmt.Errorf("%w: tool %q: WithMaxSchemaNodes(%d): the bound must be at least 1", ErrInvalidDeclaration, name, o.limits.MaxSchemaNodes)
	}
	input := append(json.RawMessage(nil), schema...)
	check, err := args.CompileDynamic(input, o.limits)
	if err != nil {
		return nil, fmt.Errorf("%w: tool %q: %w", ErrInvalidDeclaration, name, err)
	}
	if o.output != nil {
		if _, err := args.CompileSchema(o.output, o.limits.MaxSchemaNodes); err != nil {
			return nil, fmt.Errorf("%w: tool %q: the output schema %w", ErrInvalidDeclaration, name, err)
		}
	}
	t := &Tool[json.RawMessage, Result]{name: name, description: description, fn: fn, opts: o, input: input, check: check, dynamic: true}
	if err := t.result(); err != nil {
		return nil, err
	}
	if o.output != nil && !t.whole {
		return nil, fmt.Errorf("%w: tool %q: WithOutputSchema goes with a Result of type Output; other results have their schema reflected", ErrInvalidDeclaration, name)
	}
	if err := t.checkExamples(); err != nil {
		return nil, err
	}
	if err := t.checkApproveIf(); err != nil {
		return nil, err
	}
	return t, nil
}

// MustNewDynamic is NewDynamic for set-up code: it panics if NewDynamic
// fails.
func MustNewDynamic[Result any](name, description string, schema json.RawMessage, fn func(ctx context.Context, arguments json.RawMessage) (Result, error), opts ...Option) *Tool[json.RawMessage, Result] {
	t, err := NewDynamic(name, description, schema, fn, opts...)
	if err != nil {
		panic("toolreg: " + err.Error())
	}
	return t
}

// WithOutputSchema gives a dynamic tool whose Result is Output the JSON
// Schema of its structured results (Output.Structured), which MCP clients
// receive as outputSchema. It is checked as the input schema is: it must
// compile as draft 2020-12, as a closed document, within the bound of
// WithMaxSchemaNodes.
func WithOutputSchema(schema json.RawMessage) Option {
	return Option{func(o *toolOptions) { o.output = append(json.RawMessage(nil), schema...) }}
}

// DefaultMaxSchemaNodes bounds the expanded size of a schema given to
// NewDynamic or WithOutputSchema unless WithMaxSchemaNodes changes it: the
// subschemas the validator may walk for one value, each $ref counted as
// the size of what it refers to (a reference back into itself, a
// recursive type, counts once: the validator follows it as deep as the
// arguments nest). The largest tool of GitHub's MCP server
// expands to 50; the MCP specification's own schema, every definition at
// once, to 6,018 (2025-11-25) and 16,234 (the draft). A kilobyte whose
// definitions each refer twice to the next expands to millions, which the
// validator would walk on every call; walking 20,000 costs it about 4 MiB
// and 10ms for one value, as much as a call's arguments may cost within
// DefaultMaxValues.
//
// The same number bounds the validator's work along one path of
// arguments: where two branches that apply to one value (allOf, anyOf,
// oneOf, two references) each recurse into the same child, the work
// doubles with each level the arguments nest, and such a schema is
// refused unless WithMaxDepth keeps the arguments shallow enough.
const DefaultMaxSchemaNodes = 20_000

// WithMaxSchemaNodes bounds the expanded size of the schemas NewDynamic
// is given, input and output (DefaultMaxSchemaNodes unless set): a schema
// that expands past n subschemas is refused at declaration, with
// ErrInvalidDeclaration. Use it to admit a schema you trust that is
// larger still, or to hold imported tools (adapters/toolmcp's ToolOptions) to
// less. A typed tool's schema is reflected from its Go types, and the
// option does nothing there.
func WithMaxSchemaNodes(n int) Option {
	return Option{func(o *toolOptions) { o.limits.MaxSchemaNodes = n }}
}
