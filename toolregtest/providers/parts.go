package providers

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/toolreg/toolreg/internal/jsonvalue"
	"github.com/toolreg/toolreg/toolregtest/internal/tokens"
)

// PartKind says what a Part of a definition is.
type PartKind string

// The parts of a definition that Sizes measures: what a definition is
// made of beyond its structure (type keywords, property names), and what
// can be trimmed.
const (
	// PartDescription: the tool's description (Path ""), or a property's.
	PartDescription PartKind = "description"
	// PartEnum: the values a property is limited to. Every value is paid
	// for on every request; a long list may be better as a free string the
	// tool checks, with a tool to look the values up.
	PartEnum PartKind = "enum"
	// PartNestedType: a type the schema defines once and refers to
	// ($defs, definitions). Its descriptions and enums are parts of their
	// own as well, with paths under it ("$defs.Filter.status").
	PartNestedType PartKind = "nested type"
	// PartExamples: examples (or a single example) of a property's value.
	PartExamples PartKind = "examples"
	// PartDefault: a property's default value.
	PartDefault PartKind = "default"
	// PartResultSchema: the schema of the tool's result, for a tool with a
	// structured result: Gemini is sent it (responseJsonSchema; leave it
	// out with toolgemini.WithoutResponseSchema), and MCP lists it
	// (outputSchema).
	PartResultSchema PartKind = "result schema"
)

// Part is one contributor to the size of a definition, in one dialect.
type Part struct {
	// Path is where the part is: "" for the tool itself, "city",
	// "stops[].name" (array items), "labels{}" (map values),
	// "$defs.Filter" (a nested type).
	Path string
	Kind PartKind
	// Values is the number of values of an enum or of examples.
	Values int
	// Size is that of the part's JSON value (a description's quoted text,
	// an enum's array), as the dialect writes it.
	Size Size
}

// String reads "description" for the tool's description, "city
// description", "status enum of 300 values", "$defs.Filter nested type".
func (p Part) String() string {
	s := string(p.Kind)
	if p.Path != "" {
		s = p.Path + " " + s
	}
	if p.Kind == PartEnum || p.Kind == PartExamples {
		s += fmt.Sprintf(" of %d values", p.Values)
	}
	return s
}

// parts lists the contributors to a definition, the largest first (by
// tokens, then bytes), in document order among equals. It reads any
// dialect: the keywords it looks for are JSON Schema's, which every
// dialect keeps, and wrappers (a "function" object, "parameters",
// "input_schema") are walked through.
func parts(def json.RawMessage) []Part {
	v, err := jsonvalue.Parse(def)
	if err != nil {
		return nil
	}
	var out []Part
	add := func(path string, kind PartKind, val *jsonvalue.Value) {
		p := Part{Path: path, Kind: kind, Size: measure(val.Encode())}
		if val.Kind == jsonvalue.Array {
			p.Values = len(val.Items)
		} else if kind == PartExamples {
			p.Values = 1
		}
		out = append(out, p)
	}
	var walk func(v *jsonvalue.Value, path string)
	walk = func(v *jsonvalue.Value, path string) {
		switch v.Kind {
		case jsonvalue.Array:
			for _, it := range v.Items {
				walk(it, path)
			}
		case jsonvalue.Object:
			for _, m := range v.Members {
				switch {
				case m.Key == "description" && m.Val.IsString():
					add(path, PartDescription, m.Val)
				case m.Key == "enum" && m.Val.Kind == jsonvalue.Array:
					add(path, PartEnum, m.Val)
				case m.Key == "examples" || m.Key == "example":
					add(path, PartExamples, m.Val)
				case m.Key == "default":
					add(path, PartDefault, m.Val)
				case (m.Key == "responseJsonSchema" || m.Key == "outputSchema") && path == "":
					add(path, PartResultSchema, m.Val)
				case m.Key == "const":
					// a value, not a schema: nothing in it is a keyword
				case (m.Key == "$defs" || m.Key == "definitions") && m.Val.Kind == jsonvalue.Object:
					for _, d := range m.Val.Members {
						p := "$defs." + d.Key
						add(p, PartNestedType, d.Val)
						walk(d.Val, p)
					}
				case m.Key == "properties" && m.Val.Kind == jsonvalue.Object:
					for _, prop := range m.Val.Members {
						walk(prop.Val, joinPath(path, prop.Key))
					}
				case m.Key == "items":
					walk(m.Val, path+"[]")
				case m.Key == "additionalProperties":
					walk(m.Val, path+"{}")
				default:
					walk(m.Val, path)
				}
			}
		}
	}
	walk(v, "")
	slices.SortStableFunc(out, func(a, b Part) int {
		return cmp.Or(cmp.Compare(b.Size.Tokens, a.Size.Tokens), cmp.Compare(b.Size.Bytes, a.Size.Bytes))
	})
	return out
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// measure is the size of some JSON as a request carries it.
func measure(b []byte) Size {
	return Size{Bytes: len(b), Tokens: tokens.Count(string(b))}
}
