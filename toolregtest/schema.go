package toolregtest

import (
	"fmt"
	"strings"

	"github.com/toolreg/toolreg/internal/jsonvalue"
)

// parseObject parses a schema whose root must be an object.
func parseObject(b []byte) (*jsonvalue.Value, error) {
	v, err := jsonvalue.Parse(b)
	if err != nil {
		return nil, err
	}
	if v.Kind != jsonvalue.Object {
		return nil, fmt.Errorf("not a JSON object")
	}
	return v, nil
}

// stringAt is the string s holds at key, or "".
func stringAt(s *jsonvalue.Value, key string) string {
	if v := s.Get(key); v.IsString() {
		return v.Text
	}
	return ""
}

// arrayAt is the array s holds at key, or nil.
func arrayAt(s *jsonvalue.Value, key string) []*jsonvalue.Value {
	if v := s.Get(key); v != nil && v.Kind == jsonvalue.Array {
		return v.Items
	}
	return nil
}

// objectAt is the object s holds at key, or nil.
func objectAt(s *jsonvalue.Value, key string) []jsonvalue.Member {
	if v := s.Get(key); v != nil && v.Kind == jsonvalue.Object {
		return v.Members
	}
	return nil
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
	root  *jsonvalue.Value
	seen  map[string]bool
	visit func(path string, prop *jsonvalue.Value)
}

func walkFields(root *jsonvalue.Value, visit func(path string, prop *jsonvalue.Value)) {
	w := &fieldWalker{root: root, seen: map[string]bool{"#": true}, visit: visit}
	// A recursive Args type at the root is also one of the root's $defs:
	// its properties are the root's, already walked.
	bare := &jsonvalue.Value{Kind: jsonvalue.Object}
	for _, m := range root.Members {
		if m.Key != "$defs" {
			bare.Members = append(bare.Members, m)
		}
	}
	for _, d := range objectAt(root, "$defs") {
		if jsonvalue.Equal(d.Val, bare) {
			w.seen["#/$defs/"+d.Key] = true
		}
	}
	w.schema("", root)
}

func (w *fieldWalker) schema(path string, s *jsonvalue.Value) {
	if s == nil || s.Kind != jsonvalue.Object {
		return
	}
	if ref := stringAt(s, "$ref"); ref != "" && !w.seen[ref] {
		w.seen[ref] = true
		w.schema(path, resolve(w.root, ref))
	}
	for _, p := range objectAt(s, "properties") {
		path := joinPath(path, p.Key)
		w.visit(path, p.Val)
		w.schema(path, p.Val)
	}
	w.schema(path+"[]", s.Get("items"))
	w.schema(path+"{}", s.Get("additionalProperties"))
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		for _, b := range arrayAt(s, k) {
			w.schema(path, b)
		}
	}
}

// resolve finds a local $ref: "#" or "#/$defs/Name".
func resolve(root *jsonvalue.Value, ref string) *jsonvalue.Value {
	if ref == "#" {
		return root
	}
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	if !ok {
		return nil
	}
	return root.Get("$defs").Get(name)
}

// described reports whether the model reads a description for a property:
// its own, that of a branch (toolreg puts a nullable field's description
// in its non-null branch) or that of the type it refers to.
func described(root, s *jsonvalue.Value, seen map[string]bool) bool {
	if s == nil || s.Kind != jsonvalue.Object {
		return false
	}
	if strings.TrimSpace(stringAt(s, "description")) != "" {
		return true
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		for _, b := range arrayAt(s, k) {
			if described(root, b, seen) {
				return true
			}
		}
	}
	if ref := stringAt(s, "$ref"); ref != "" && !seen[ref] {
		seen[ref] = true
		return described(root, resolve(root, ref), seen)
	}
	return false
}

// enumValues lists the values a property is limited to (enum or const),
// looking through nullable branches and into array items: the property's
// description is where the model learns what they mean.
func enumValues(s *jsonvalue.Value) []*jsonvalue.Value {
	if s == nil || s.Kind != jsonvalue.Object {
		return nil
	}
	if e := arrayAt(s, "enum"); len(e) > 0 {
		return e
	}
	if c := s.Get("const"); c != nil {
		return []*jsonvalue.Value{c}
	}
	var out []*jsonvalue.Value
	for _, k := range []string{"anyOf", "oneOf"} {
		for _, b := range arrayAt(s, k) {
			out = append(out, enumValues(b)...)
		}
	}
	if out == nil {
		out = enumValues(s.Get("items"))
	}
	return out
}

// ownDescription is the description a property carries itself, or in a
// branch (toolreg puts a nullable field's description in its non-null
// branch); not that of a type it refers to.
func ownDescription(s *jsonvalue.Value) string {
	if s == nil || s.Kind != jsonvalue.Object {
		return ""
	}
	if d := stringAt(s, "description"); d != "" {
		return d
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		for _, b := range arrayAt(s, k) {
			if d := ownDescription(b); d != "" {
				return d
			}
		}
	}
	return ""
}
