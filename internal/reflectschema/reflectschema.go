// Package reflectschema describes a Go type as JSON once, at declaration:
// its Shape (how encoding/json reads and writes its values) and its
// canonical JSON Schema, reflected with invopop/jsonschema and brought in
// line with the decoder. A type whose schema would not tell the truth is
// refused with an *Error naming the field, its Go type and the fix.
package reflectschema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// Error says why a type cannot be described faithfully: the field path,
// its Go type, what would go wrong, and what to write instead.
type Error struct {
	Path string // JSON path of the field, "" for the type itself
	Type string // the Go type at fault
	Why  string
	Fix  string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Path != "" {
		fmt.Fprintf(&b, "field %s (%s): ", e.Path, e.Type)
	} else {
		fmt.Fprintf(&b, "type %s: ", e.Type)
	}
	b.WriteString(e.Why)
	if e.Fix != "" {
		b.WriteString("; fix: ")
		b.WriteString(e.Fix)
	}
	return b.String()
}

// Args describes the arguments type of a tool: a plain struct, whose
// schema is the root object every provider wants.
func Args(t reflect.Type) (*Shape, json.RawMessage, error) {
	if t.Kind() != reflect.Struct || hasSchemaHook(t) {
		return nil, nil, &Error{Type: t.String(),
			Why: "the arguments must be a plain struct type: every provider wants a JSON object",
			Fix: "wrap the value in a struct field, or use struct{} for a tool without arguments"}
	}
	shape, err := newAnalyzer(false).analyze(t, "")
	if err != nil {
		return nil, nil, err
	}
	schema, err := schemaOf(t, shape, false)
	if err != nil {
		return nil, nil, err
	}
	markDefaults(shape)
	return shape, schema, nil
}

// Result describes the result type of a tool, as encoding/json writes it.
func Result(t reflect.Type) (*Shape, json.RawMessage, error) {
	shape, err := newAnalyzer(true).analyze(t, "")
	if err != nil {
		return nil, nil, err
	}
	schema, err := schemaOf(t, shape, true)
	if err != nil {
		return nil, nil, err
	}
	return shape, schema, nil
}

// HasHook reports whether a shape reaches a type with its own JSONSchema(),
// whose schema was written by hand rather than reflected.
func (s *Shape) HasHook() bool { return hasHook(s, map[*Shape]bool{}) }
