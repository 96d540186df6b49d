// Package dialect lowers toolreg's canonical input schema into the schema
// dialect each provider accepts: plain draft 2020-12 (Compact: OpenAI
// without strict mode, MCP), OpenAI strict mode, Anthropic (plain and
// strict), and Gemini's two forms (parametersJsonSchema and the legacy
// genai.Schema). Everything is JSON in and JSON out; the package imports no
// provider SDK.
//
// The canonical schema (see the root package's schema.go) is draft 2020-12
// with root type object, additionalProperties:false on every struct,
// `required` per the project's rule, $defs/$ref only for recursive types,
// anyOf for nullable and `true` for "any value". Each function here takes
// such a schema and returns a new one: the input bytes are never changed,
// properties keep their order, and the output is deterministic.
//
// Every dialect leaves out what only restates the Go type or a format (a
// bound at the limit of int64, a pattern beside format date-time: see
// omitted), since each request pays for it in tokens. Lowering may also
// lose constraints a provider cannot express; they are moved into the
// description, as the providers' own SDKs do, so the model still reads
// them. The call the model makes must therefore be validated against the
// canonical schema, never against the lowered one; for OpenAI strict mode,
// run NullStripper first. What a dialect cannot express at all is an
// *Error naming the property.
//
// The rules come from each provider's documentation and SDKs, as the
// comments on each dialect name them; rules_test.go restates them as one
// checker per provider, independently of the lowering, and every golden
// output and fuzzed success runs through it. Where a rule was observed
// rather than documented, or where this package had to choose, a comment
// says so. The package toolregtest/providers checks a whole registry's
// definitions in every dialect.
package dialect

import (
	"errors"
	"fmt"

	"github.com/toolreg/toolreg/internal/jsonvalue"
)

// A schema document, or a part of one, as lowering reads and writes it.
type (
	value  = jsonvalue.Value
	member = jsonvalue.Member
)

// ErrUnsupported is matched (errors.Is) by every *Error: branch on it to
// fall back, e.g. to a non-strict tool, when a schema cannot be lowered.
var ErrUnsupported = errors.New("schema not supported by the dialect")

// The documented limits that a schema a strict dialect can otherwise
// express may pass. The *Error for a schema over one matches it (errors.Is)
// as well as ErrUnsupported: branch on it to tell a tool too large for a
// provider from one its dialect cannot express, as toolregtest's lint does.
var (
	ErrOpenAIProperties  = errors.New("more object properties than OpenAI strict mode allows")
	ErrOpenAIDepth       = errors.New("objects nested deeper than OpenAI strict mode allows")
	ErrAnthropicOptional = errors.New("more optional properties than Anthropic strict mode allows")
	ErrAnthropicUnions   = errors.New("more properties using anyOf or type arrays than Anthropic strict mode allows")
)

// Error says why a schema cannot be lowered: where, and why. Use Path to
// point the tool's author at the field to change.
type Error struct {
	// Path locates the subschema: "" for the root, "home.zip" for a
	// property, "tags[]" for array items, "labels{}" for map values,
	// "ip.anyOf[1]" for a branch, "$defs.Tree.children" inside a definition.
	Path string
	// Reason says what the dialect cannot express and, where there is one,
	// what to write instead.
	Reason string

	limit error // the limit passed (ErrOpenAIProperties...), or nil
}

// Error reads "schema at home.zip: <reason>", or "schema: <reason>" for
// the root.
func (e *Error) Error() string {
	if e.Path == "" {
		return "schema: " + e.Reason
	}
	return fmt.Sprintf("schema at %s: %s", e.Path, e.Reason)
}

// Unwrap makes an *Error match ErrUnsupported, and the limit it passes.
func (e *Error) Unwrap() []error {
	if e.limit != nil {
		return []error{ErrUnsupported, e.limit}
	}
	return []error{ErrUnsupported}
}

func errorf(path, format string, args ...any) *Error {
	return &Error{Path: path, Reason: fmt.Sprintf(format, args...)}
}

// overLimit is errorf for a schema over one of the limits.
func overLimit(limit error, path, format string, args ...any) *Error {
	e := errorf(path, format, args...)
	e.limit = limit
	return e
}

// joinPath appends a property name to a path, as the root package writes
// field paths.
func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
