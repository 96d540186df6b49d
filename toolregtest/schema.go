package toolregtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// object is a JSON object that keeps the order of its members: findings
// follow the order in which the model reads the properties.
type object struct {
	keys []string
	vals map[string]any
}

func (o *object) object(key string) *object {
	v, _ := o.vals[key].(*object)
	return v
}

func (o *object) array(key string) []any {
	v, _ := o.vals[key].([]any)
	return v
}

func (o *object) string(key string) string {
	v, _ := o.vals[key].(string)
	return v
}

// parse decodes JSON into *object, []any, string, json.Number, bool and
// nil.
func parse(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := parseValue(dec)
	if err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("data after the JSON value")
	}
	return v, nil
}

func parseValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		o := &object{vals: map[string]any{}}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key := k.(string)
			v, err := parseValue(dec)
			if err != nil {
				return nil, err
			}
			if _, dup := o.vals[key]; !dup {
				o.keys = append(o.keys, key)
			}
			o.vals[key] = v
		}
		_, err := dec.Token()
		return o, err
	case json.Delim('['):
		a := []any{}
		for dec.More() {
			v, err := parseValue(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := dec.Token()
		return a, err
	}
	return tok, nil
}

// parseObject parses a schema whose root must be an object.
func parseObject(b []byte) (*object, error) {
	v, err := parse(b)
	if err != nil {
		return nil, err
	}
	o, ok := v.(*object)
	if !ok {
		return nil, fmt.Errorf("not a JSON object")
	}
	return o, nil
}

// same reports whether two parsed values are equal as JSON, whatever the
// order of object members.
func same(a, b any) bool {
	switch a := a.(type) {
	case *object:
		b, ok := b.(*object)
		if !ok || len(a.vals) != len(b.vals) {
			return false
		}
		for k, v := range a.vals {
			w, ok := b.vals[k]
			if !ok || !same(v, w) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !same(a[i], b[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}

// joinPath appends a property name to a field path: "home" + "zip" is
// "home.zip".
func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// fieldWalker visits every property of a canonical schema, at any depth,
// in schema order. Paths follow the dialect errors: "home.zip" for a
// property, "tags[]" for array items, "labels{}" for map values; anyOf
// branches keep the path of their property. A $ref is followed once, at
// the first path that reaches it, so a recursive type is walked once.
type fieldWalker struct {
	root  *object
	seen  map[string]bool
	visit func(path string, prop any)
}

func walkFields(root *object, visit func(path string, prop any)) {
	w := &fieldWalker{root: root, seen: map[string]bool{"#": true}, visit: visit}
	// A recursive Args type at the root is also one of the root's $defs:
	// its properties are the root's, already walked.
	bare := &object{vals: map[string]any{}}
	for k, v := range root.vals {
		if k != "$defs" {
			bare.vals[k] = v
		}
	}
	if defs := root.object("$defs"); defs != nil {
		for _, name := range defs.keys {
			if same(defs.vals[name], bare) {
				w.seen["#/$defs/"+name] = true
			}
		}
	}
	w.schema("", root)
}

func (w *fieldWalker) schema(path string, s any) {
	o, ok := s.(*object)
	if !ok {
		return
	}
	if ref := o.string("$ref"); ref != "" && !w.seen[ref] {
		w.seen[ref] = true
		w.schema(path, resolve(w.root, ref))
	}
	if props := o.object("properties"); props != nil {
		for _, name := range props.keys {
			p := joinPath(path, name)
			w.visit(p, props.vals[name])
			w.schema(p, props.vals[name])
		}
	}
	w.schema(path+"[]", o.vals["items"])
	w.schema(path+"{}", o.vals["additionalProperties"])
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		for _, b := range o.array(k) {
			w.schema(path, b)
		}
	}
}

// resolve finds a local $ref: "#" or "#/$defs/Name".
func resolve(root *object, ref string) any {
	if ref == "#" {
		return root
	}
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	if !ok {
		return nil
	}
	if defs := root.object("$defs"); defs != nil {
		return defs.vals[name]
	}
	return nil
}

// described reports whether the model reads a description for a property:
// its own, that of a branch (toolreg puts a nullable field's description
// in its non-null branch) or that of the type it refers to.
func described(root *object, s any, seen map[string]bool) bool {
	o, ok := s.(*object)
	if !ok {
		return false
	}
	if strings.TrimSpace(o.string("description")) != "" {
		return true
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		for _, b := range o.array(k) {
			if described(root, b, seen) {
				return true
			}
		}
	}
	if ref := o.string("$ref"); ref != "" && !seen[ref] {
		seen[ref] = true
		return described(root, resolve(root, ref), seen)
	}
	return false
}

// enumValues lists the values a property is limited to (enum or const),
// looking through nullable branches and into array items: the property's
// description is where the model learns what they mean.
func enumValues(s any) []any {
	o, ok := s.(*object)
	if !ok {
		return nil
	}
	if e := o.array("enum"); len(e) > 0 {
		return e
	}
	if c, ok := o.vals["const"]; ok {
		return []any{c}
	}
	var out []any
	for _, k := range []string{"anyOf", "oneOf"} {
		for _, b := range o.array(k) {
			out = append(out, enumValues(b)...)
		}
	}
	if out == nil {
		out = enumValues(o.vals["items"])
	}
	return out
}
