package args

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	vkind "github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	rs "github.com/toolreg/toolreg/internal/reflectschema"
)

// compileSchema compiles a canonical schema as draft 2020-12 with formats
// asserted (date-time, ipv4, ...), as a closed document (NewCompiler).
func compileSchema(schema json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, err
	}
	const url = "mem:///arguments.schema.json"
	c := NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(url)
	if le := (*jsonschema.LoadURLError)(nil); errors.As(err, &le) && errors.Is(le.Err, ErrExternalReference) {
		// The library's error does not unwrap to the loader's.
		return nil, le.Err
	}
	return s, err
}

var printer = message.NewPrinter(language.English)

// problems turns a validation error into one Problem per offending value,
// worded for the model: where, what was expected, what was given, and what
// is allowed.
func problems(err error, instance any, shape *rs.Shape, schema *jsonschema.Schema) []Problem {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Problem{{Message: err.Error()}}
	}
	var out []Problem
	seen := map[Problem]bool{}
	var visit func(e *jsonschema.ValidationError)
	visit = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				// The null branch of a nullable field says nothing useful.
				if t, ok := c.ErrorKind.(*vkind.Type); ok && len(t.Want) == 1 && t.Want[0] == "null" && len(e.Causes) > 1 {
					continue
				}
				visit(c)
			}
			return
		}
		for _, p := range describeProblem(e, instance, shape, schema) {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	visit(ve)
	sortProblems(out)
	return out
}

// sortProblems orders problems by where they are, as the model reads the
// arguments.
func sortProblems(ps []Problem) {
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Path < ps[j].Path })
}

func describeProblem(e *jsonschema.ValidationError, instance any, shape *rs.Shape, schema *jsonschema.Schema) []Problem {
	loc := e.InstanceLocation
	at := shapeAt(shape, loc)
	p := instancePath(instance, loc)
	value := valueAt(instance, loc)
	one := func(msg string) []Problem { return []Problem{{Path: p, Message: msg}} }
	switch k := e.ErrorKind.(type) {
	case *vkind.Required:
		var out []Problem
		for _, name := range k.Missing {
			out = append(out, Problem{Path: joinPath(p, name), Message: msgRequired(at.Field(name))})
		}
		return out
	case *vkind.AdditionalProperties:
		var out []Problem
		for _, name := range k.Properties {
			msg := "unknown field"
			if at != nil { // a schema without a Go type behind it lists no fields here
				msg = msgUnknown(name, at.FieldNames())
			}
			out = append(out, Problem{Path: joinPath(p, name), Message: msg})
		}
		return out
	case *vkind.Type:
		msg := msgType(k.Want, snippet(value))
		if value == nil { // null where the field may be left out: say so
			if f := optionalField(shape, loc); f != nil {
				msg = msgOptionalNull(msg, f)
			} else if shape == nil && optionalProperty(schema, loc) {
				msg = msgOptionalNullOf(msg, k.Want)
			}
		}
		return one(msg)
	case *vkind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = snippet(w)
		}
		return one(msgEnum(snippet(value), want))
	case *vkind.Const:
		return one(msgConst(snippet(value), snippet(k.Want)))
	case *vkind.Minimum:
		return one(msgMinimum(snippet(value), ratString(k.Want)))
	case *vkind.Maximum:
		return one(msgMaximum(snippet(value), ratString(k.Want)))
	case *vkind.ExclusiveMinimum:
		return one(msgExclusiveMinimum(snippet(value), ratString(k.Want)))
	case *vkind.ExclusiveMaximum:
		return one(msgExclusiveMaximum(snippet(value), ratString(k.Want)))
	case *vkind.MultipleOf:
		return one(msgMultipleOf(snippet(value), ratString(k.Want)))
	case *vkind.MinLength:
		return one(msgMinLength(snippet(value), k.Got, k.Want))
	case *vkind.MaxLength:
		return one(msgMaxLength(k.Got, k.Want))
	case *vkind.MinItems:
		return one(msgMinItems(k.Got, k.Want))
	case *vkind.MaxItems:
		return one(msgMaxItems(k.Got, k.Want))
	case *vkind.UniqueItems:
		return one(msgUniqueItems(k.Duplicates[0], k.Duplicates[1]))
	case *vkind.Pattern:
		return one(msgPattern(at, snippet(value), k.Want))
	case *vkind.Format:
		return one(msgFormat(snippet(value), k.Want))
	}
	return one(e.ErrorKind.LocalizedString(printer))
}

func ratString(r interface{ FloatString(int) string }) string {
	s := r.FloatString(6)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(s, "0")
	}
	return strings.TrimSuffix(s, ".")
}

// instancePath writes a location inside the arguments as the model would
// write it: stops[2].name; map keys that are not identifiers are quoted.
func instancePath(instance any, loc []string) string {
	var p path
	cur := instance
	for _, tok := range loc {
		switch c := cur.(type) {
		case []any:
			i, _ := strconv.Atoi(tok)
			p = append(p, index(i))
			if i < len(c) {
				cur = c[i]
			}
			continue
		case map[string]any:
			cur = c[tok]
		}
		p = append(p, key(tok))
	}
	return p.String()
}

func valueAt(instance any, loc []string) any {
	cur := instance
	for _, tok := range loc {
		switch c := cur.(type) {
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i >= len(c) {
				return nil
			}
			cur = c[i]
		case map[string]any:
			cur = c[tok]
		default:
			return nil
		}
	}
	return cur
}

// shapeAt finds the shape of the value at loc, nil where there is none
// (inside an any or a hook type).
func shapeAt(s *rs.Shape, loc []string) *rs.Shape {
	for _, tok := range loc {
		s = deref(s)
		if s == nil {
			return nil
		}
		switch s.Kind {
		case rs.Struct:
			f := s.Field(tok)
			if f == nil {
				return nil
			}
			s = f.Shape
		case rs.Slice, rs.Array, rs.Map:
			s = s.Elem
		default:
			return nil
		}
	}
	return deref(s)
}

// deref skips pointers: JSON does not see them.
func deref(s *rs.Shape) *rs.Shape {
	for s != nil && s.Kind == rs.Pointer {
		s = s.Elem
	}
	return s
}

// optionalProperty reports whether the value at loc is a property its
// object's schema declares and does not require, for a schema without a Go
// type behind it. It follows properties, items and $ref; anything else
// (allOf, anyOf, if/then) it leaves undecided, and says false.
func optionalProperty(schema *jsonschema.Schema, loc []string) bool {
	if schema == nil || len(loc) == 0 {
		return false
	}
	s := schema
	for _, seg := range loc[:len(loc)-1] {
		if s = child(s, seg); s == nil {
			return false
		}
	}
	s = refTarget(s)
	name := loc[len(loc)-1]
	_, declared := s.Properties[name]
	return declared && !slices.Contains(s.Required, name)
}

// child is the subschema of s for the member or item seg, nil if there is
// no single one.
func child(s *jsonschema.Schema, seg string) *jsonschema.Schema {
	s = refTarget(s)
	if p, ok := s.Properties[seg]; ok {
		return p
	}
	i, err := strconv.Atoi(seg)
	if err != nil || i < 0 {
		return nil
	}
	if i < len(s.PrefixItems) {
		return s.PrefixItems[i]
	}
	if s.Items2020 != nil {
		return s.Items2020
	}
	if items, ok := s.Items.(*jsonschema.Schema); ok {
		return items
	}
	return nil
}

// refTarget follows s's $ref while s is nothing but a reference.
func refTarget(s *jsonschema.Schema) *jsonschema.Schema {
	for i := 0; s.Ref != nil && len(s.Properties) == 0 && i < 64; i++ {
		s = s.Ref
	}
	return s
}

// optionalField is the struct field at loc when it is not required, nil
// otherwise.
func optionalField(shape *rs.Shape, loc []string) *rs.Field {
	if len(loc) == 0 {
		return nil
	}
	parent := shapeAt(shape, loc[:len(loc)-1])
	if parent == nil || parent.Kind != rs.Struct {
		return nil
	}
	if f := parent.Field(loc[len(loc)-1]); f != nil && !f.Required {
		return f
	}
	return nil
}
