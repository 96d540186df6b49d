package dialect

import (
	"strings"

	"github.com/toolreg/toolreg/internal/jsonvalue"
)

// doc is a parsed canonical schema with its definitions, for resolving
// $refs.
type doc struct {
	root  *value
	defs  map[string]*value
	order []string // definition names in document order

	nullDefs map[string]bool // acceptsNull of each definition, once known
}

func newDoc(root *value) *doc {
	d := &doc{root: root, defs: map[string]*value{}}
	if defs := root.Get("$defs"); defs != nil && defs.Kind == jsonvalue.Object {
		for _, m := range defs.Members {
			d.defs[m.Key] = m.Val
			d.order = append(d.order, m.Key)
		}
	}
	return d
}

// resolve finds the schema a $ref names: "#" or "#/$defs/Name", the only
// references the canonical schema writes. name is "#" or the definition's
// name.
func (d *doc) resolve(ref, path string) (name string, target *value, err error) {
	if ref == "#" {
		return "#", d.root, nil
	}
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	if !ok || name == "" || strings.Contains(name, "/") {
		return "", nil, errorf(path, "the $ref %q is not a local reference of the form #/$defs/Name", ref)
	}
	name = strings.ReplaceAll(strings.ReplaceAll(name, "~1", "/"), "~0", "~")
	target = d.defs[name]
	if target == nil {
		return "", nil, errorf(path, "the $ref %q names no definition in $defs", ref)
	}
	return name, target, nil
}

// acceptsNull reports whether null may be valid under s. It answers true
// when unsure (not, if/then/else, unresolvable or looping refs): both of
// its users then do nothing, which is the safe side: OpenAIStrict leaves
// the property optional-and-not-nullable, NullStripper keeps the null.
func (d *doc) acceptsNull(s *value) bool {
	return d.nullOK(s, 0)
}

func (d *doc) nullOK(s *value, depth int) bool {
	if s == nil || depth > 64 {
		return true
	}
	switch s.Kind {
	case jsonvalue.Bool:
		return s.Bool
	case jsonvalue.Object:
	default:
		return true
	}
	if ref := s.Get("$ref"); ref.IsString() {
		if name, target, err := d.resolve(ref.Text, ""); err == nil {
			// Once per definition: definitions that each name the next
			// twice would otherwise cost 2^n.
			ok, known := d.nullDefs[name]
			if !known {
				if d.nullDefs == nil {
					d.nullDefs = map[string]bool{}
				}
				d.nullDefs[name] = true // while deciding: unsure, so true
				ok = d.nullOK(target, depth+1)
				d.nullDefs[name] = ok
			}
			if !ok {
				return false
			}
		}
	}
	if t := s.Get("type"); t != nil && !hasType(s, "null") && (t.IsString() || t.Kind == jsonvalue.Array) {
		return false
	}
	if e := s.Get("enum"); e != nil && e.Kind == jsonvalue.Array {
		found := false
		for _, v := range e.Items {
			found = found || v.Kind == jsonvalue.Null
		}
		if !found {
			return false
		}
	}
	if c := s.Get("const"); c != nil && c.Kind != jsonvalue.Null {
		return false
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if bs := s.Get(k); bs != nil && bs.Kind == jsonvalue.Array {
			found := false
			for _, b := range bs.Items {
				found = found || d.nullOK(b, depth+1)
			}
			if !found {
				return false
			}
		}
	}
	if bs := s.Get("allOf"); bs != nil && bs.Kind == jsonvalue.Array {
		for _, b := range bs.Items {
			if !d.nullOK(b, depth+1) {
				return false
			}
		}
	}
	return true
}

// primitive types, which OpenAI strict mode makes nullable with a type
// array; objects, arrays, enums and refs get an anyOf with null instead.
var primitive = map[string]bool{"string": true, "number": true, "integer": true, "boolean": true}

// nullable returns s (a lowered schema) widened to accept null, in the two
// forms OpenAI documents: "type":["integer","null"] for a plain primitive,
// {"anyOf":[s,{"type":"null"}]} otherwise, with s's description and title
// on the anyOf. s is not changed.
func nullable(s *value) *value {
	null := jsonvalue.NewObject(member{Key: "type", Val: jsonvalue.NewString("null")})
	if s.Get("enum") == nil && s.Get("const") == nil && s.Get("anyOf") == nil && s.Get("$ref") == nil {
		if t := s.Get("type"); t.IsString() && primitive[t.Text] {
			c := &value{Kind: jsonvalue.Object, Members: append([]member(nil), s.Members...)}
			c.Set("type", jsonvalue.NewArray(jsonvalue.NewString(t.Text), jsonvalue.NewString("null")))
			return c
		}
	}
	if any := s.Get("anyOf"); any != nil {
		only := true
		for _, m := range s.Members {
			only = only && (m.Key == "anyOf" || m.Key == "description" || m.Key == "title")
		}
		if only {
			c := &value{Kind: jsonvalue.Object, Members: append([]member(nil), s.Members...)}
			c.Set("anyOf", jsonvalue.NewArray(append(append([]*value(nil), any.Items...), null)...))
			return c
		}
	}
	inner := &value{Kind: jsonvalue.Object}
	w := jsonvalue.NewObject(member{Key: "anyOf", Val: jsonvalue.NewArray(inner, null)})
	for _, m := range s.Members {
		if m.Key == "description" || m.Key == "title" {
			w.Members = append(w.Members, m)
		} else {
			inner.Members = append(inner.Members, m)
		}
	}
	return w
}
