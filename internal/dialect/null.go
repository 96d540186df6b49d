package dialect

import "strings"

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
	if defs := root.get("$defs"); defs != nil && defs.kind == jObject {
		for _, m := range defs.obj {
			d.defs[m.key] = m.val
			d.order = append(d.order, m.key)
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
	switch s.kind {
	case jBool:
		return s.b
	case jObject:
	default:
		return true
	}
	if ref := s.get("$ref"); ref.isString() {
		if name, target, err := d.resolve(ref.s, ""); err == nil {
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
	if t := s.get("type"); t != nil && !hasType(s, "null") && (t.isString() || t.kind == jArray) {
		return false
	}
	if e := s.get("enum"); e != nil && e.kind == jArray {
		found := false
		for _, v := range e.arr {
			found = found || v.kind == jNull
		}
		if !found {
			return false
		}
	}
	if c := s.get("const"); c != nil && c.kind != jNull {
		return false
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if bs := s.get(k); bs != nil && bs.kind == jArray {
			found := false
			for _, b := range bs.arr {
				found = found || d.nullOK(b, depth+1)
			}
			if !found {
				return false
			}
		}
	}
	if bs := s.get("allOf"); bs != nil && bs.kind == jArray {
		for _, b := range bs.arr {
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
	null := object(member{"type", str("null")})
	if s.get("enum") == nil && s.get("const") == nil && s.get("anyOf") == nil && s.get("$ref") == nil {
		if t := s.get("type"); t.isString() && primitive[t.s] {
			c := &value{kind: jObject, obj: append([]member(nil), s.obj...)}
			c.set("type", array(str(t.s), str("null")))
			return c
		}
	}
	if any := s.get("anyOf"); any != nil {
		only := true
		for _, m := range s.obj {
			only = only && (m.key == "anyOf" || m.key == "description" || m.key == "title")
		}
		if only {
			c := &value{kind: jObject, obj: append([]member(nil), s.obj...)}
			c.set("anyOf", array(append(append([]*value(nil), any.arr...), null)...))
			return c
		}
	}
	inner := &value{kind: jObject}
	w := object(member{"anyOf", array(inner, null)})
	for _, m := range s.obj {
		if m.key == "description" || m.key == "title" {
			w.obj = append(w.obj, m)
		} else {
			inner.obj = append(inner.obj, m)
		}
	}
	return w
}
