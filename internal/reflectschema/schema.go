package reflectschema

import (
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"strings"

	"github.com/invopop/jsonschema"
)

// Patterns that make a string schema accept exactly what the Go decoder
// accepts.
const (
	// RFC3339Pattern is time.Time's strict RFC 3339: upper-case T and Z, no
	// leap second. Day-of-month validity is asserted by format date-time.
	RFC3339Pattern = `^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]+)?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$`
	// Base64Pattern is padded standard base64, as encoding/json decodes []byte.
	Base64Pattern = `^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$`
)

// schemaOf reflects the canonical schema of t, whose shape the analyzer
// built: self-contained, draft 2020-12, $defs only for recursive types.
func schemaOf(t reflect.Type, shape *Shape, output bool) (json.RawMessage, error) {
	names := &namer{names: map[reflect.Type]string{}, short: map[string]string{}}
	r := &jsonschema.Reflector{
		Anonymous: true,
		Namer:     names.name,
		Mapper:    mapType,
	}
	s := r.ReflectFromType(t)
	defs := s.Definitions
	kept := recursiveDefs(defs)
	in := &inliner{defs: defs, kept: kept, done: map[string]*jsonschema.Schema{}}
	root := in.inline(s)
	root.Version, root.ID, root.Definitions = "", "", nil
	keptDefs := jsonschema.Definitions{}
	for name := range kept {
		keptDefs[name] = in.inline(defs[name])
	}
	if name, ok := strings.CutPrefix(root.Ref, "#/$defs/"); ok && keptDefs[name] != nil {
		// A recursive type at the root: the root is its body (every
		// provider wants type: object there), its self-references point
		// into $defs.
		body := *keptDefs[name]
		overlay(&body, root)
		root = &body
	}
	f := &fixer{output: output, defs: keptDefs, seen: map[*jsonschema.Schema]bool{}}
	if err := f.fix(shape, root, ""); err != nil {
		return nil, err
	}
	if output && nilable(t) {
		makeNullable(root)
	}
	if len(keptDefs) > 0 {
		root.Definitions = shortDefNames(root, keptDefs, names.short)
	}
	b, err := json.Marshal(root)
	if err != nil {
		return nil, fmt.Errorf("encoding the schema of %s: %v", t, err)
	}
	return b, nil
}

// namer names $defs by package path and type name, so that two types
// called Config never share a definition, in characters a JSON pointer and
// every provider accept.
type namer struct {
	names map[reflect.Type]string
	short map[string]string // qualified name → sanitized bare type name
}

func (nm *namer) name(t reflect.Type) string {
	if t.Name() == "" {
		return ""
	}
	if n, ok := nm.names[t]; ok {
		return n
	}
	base := sanitizeName(t.PkgPath() + "." + t.Name())
	n := base
	for i := 2; nm.short[n] != ""; i++ {
		n = fmt.Sprintf("%s_%d", base, i)
	}
	nm.names[t], nm.short[n] = n, sanitizeName(t.Name())
	return n
}

func sanitizeName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '.', r == '-':
			return r
		}
		return '_'
	}, s)
}

// mapType gives the schemas of the standard types whose JSON form is not
// their Go kind. It returns a fresh schema each call: field tags mutate it.
func mapType(t reflect.Type) *jsonschema.Schema {
	switch t {
	case timeType:
		return &jsonschema.Schema{Type: "string", Format: "date-time", Pattern: RFC3339Pattern}
	case numberType:
		return &jsonschema.Schema{Type: "number"}
	case ipType:
		return &jsonschema.Schema{Type: "string", AnyOf: []*jsonschema.Schema{{Format: "ipv4"}, {Format: "ipv6"}}}
	case rawMessageType:
		return &jsonschema.Schema{}
	}
	if t.Kind() == reflect.Slice && t.Elem() == reflect.TypeFor[byte]() {
		return &jsonschema.Schema{Type: "string", ContentEncoding: "base64", Pattern: Base64Pattern}
	}
	return nil
}

// recursiveDefs names the definitions that reach themselves through $ref:
// the only ones the canonical schema keeps.
func recursiveDefs(defs jsonschema.Definitions) map[string]bool {
	edges := map[string][]string{}
	for name, d := range defs {
		walkSchema(d, func(s *jsonschema.Schema) {
			if ref, ok := strings.CutPrefix(s.Ref, "#/$defs/"); ok {
				edges[name] = append(edges[name], ref)
			}
		})
	}
	kept := map[string]bool{}
	for name := range defs {
		seen := map[string]bool{}
		stack := append([]string(nil), edges[name]...)
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if n == name {
				kept[name] = true
				break
			}
			if !seen[n] {
				seen[n] = true
				stack = append(stack, edges[n]...)
			}
		}
	}
	return kept
}

// walkSchema calls fn on s and every subschema below it, without following
// $ref.
func walkSchema(s *jsonschema.Schema, fn func(*jsonschema.Schema)) {
	if s == nil {
		return
	}
	fn(s)
	for _, c := range children(s) {
		walkSchema(*c, fn)
	}
}

// children lists the subschema slots of s, for walking and replacing.
func children(s *jsonschema.Schema) []**jsonschema.Schema {
	var out []**jsonschema.Schema
	add := func(p **jsonschema.Schema) {
		if *p != nil {
			out = append(out, p)
		}
	}
	add(&s.Items)
	add(&s.AdditionalProperties)
	add(&s.Not)
	for i := range s.AllOf {
		add(&s.AllOf[i])
	}
	for i := range s.AnyOf {
		add(&s.AnyOf[i])
	}
	for i := range s.OneOf {
		add(&s.OneOf[i])
	}
	for i := range s.PrefixItems {
		add(&s.PrefixItems[i])
	}
	if s.Properties != nil {
		for p := s.Properties.Oldest(); p != nil; p = p.Next() {
			add(&p.Value)
		}
	}
	return out
}

// inliner replaces every $ref to a non-recursive definition by a copy of
// it, keeping the annotations written beside the $ref.
type inliner struct {
	defs jsonschema.Definitions
	kept map[string]bool
	done map[string]*jsonschema.Schema // inlined bodies, by definition name
}

func (in *inliner) inline(s *jsonschema.Schema) *jsonschema.Schema {
	if s == nil {
		return nil
	}
	if name, ok := strings.CutPrefix(s.Ref, "#/$defs/"); ok && !in.kept[name] {
		body, ok := in.done[name]
		if !ok {
			body = in.inline(in.defs[name])
			in.done[name] = body
		}
		merged := *body
		overlay(&merged, s)
		return &merged
	}
	for _, c := range children(s) {
		*c = in.inline(*c)
	}
	if len(s.OneOf) > 0 && len(s.AnyOf) == 0 {
		s.AnyOf, s.OneOf = s.OneOf, nil // "nullable" means anyOf: both branches never match at once
	}
	return s
}

// overlay copies the annotations a field put beside its $ref onto the
// inlined definition.
func overlay(dst, ref *jsonschema.Schema) {
	if ref.Title != "" {
		dst.Title = ref.Title
	}
	if ref.Description != "" {
		dst.Description = ref.Description
	}
	if ref.Default != nil {
		dst.Default = ref.Default
	}
	if len(ref.Examples) > 0 {
		dst.Examples = ref.Examples
	}
	if ref.Deprecated {
		dst.Deprecated = true
	}
}

// fixer brings the reflected schema in line with the decoder: the required
// rule, the exact ranges of Go's number types, and (for results) null where
// the encoder writes it.
type fixer struct {
	output bool
	defs   jsonschema.Definitions
	seen   map[*jsonschema.Schema]bool
}

func (f *fixer) fix(n *Shape, s *jsonschema.Schema, path string) error {
	if s == nil {
		return nil
	}
	if name, ok := strings.CutPrefix(s.Ref, "#/$defs/"); ok {
		def := f.defs[name]
		if def == nil || f.seen[def] {
			return nil
		}
		f.seen[def] = true
		s = def
	}
	if len(s.AnyOf) == 2 && s.AnyOf[1].Type == "null" && s.Type == "" {
		s = s.AnyOf[0] // a "nullable" field
	}
	switch n.Kind {
	case Pointer:
		return f.fix(n.Elem, s, path)
	case Int, Uint:
		lo, hi := IntRange(n.Type)
		clamp(s, lo, hi)
	case Float:
		if n.Type.Kind() == reflect.Float32 {
			clampExclusive(s, float32Limit)
		} else {
			// The shortest decimal of MaxFloat64, a hair below it: the schema
			// may be stricter than the decoder, never looser.
			clampTo(s, "-1.7976931348623157e308", "1.7976931348623157e308")
		}
	case Slice, Array:
		return f.fix(n.Elem, s.Items, path+"[]")
	case Map:
		return f.fix(n.Elem, s.AdditionalProperties, path+"{}")
	case Struct:
		if s.Properties == nil || s.Properties.Len() != len(n.Fields) {
			return &Error{Path: path, Type: n.Type.String(), Why: "the reflected schema does not list the fields encoding/json decodes", Fix: "report this type to the toolreg maintainers"}
		}
		s.Required = nil
		for _, pf := range n.Fields {
			prop, ok := s.Properties.Get(pf.Name)
			if !ok {
				return &Error{Path: joinPath(path, pf.Name), Type: pf.Type.String(), Why: "the reflected schema has no property for this field", Fix: "report this type to the toolreg maintainers"}
			}
			if pf.Required {
				s.Required = append(s.Required, pf.Name)
			}
			if err := f.fix(pf.Shape, prop, joinPath(path, pf.Name)); err != nil {
				return err
			}
			if f.output && nilable(pf.Type) {
				makeNullable(prop)
			}
		}
	}
	return nil
}

// IntRange is the range of values of integer type t.
func IntRange(t reflect.Type) (lo, hi *big.Rat) {
	bits := uint(t.Bits())
	one := big.NewInt(1)
	if t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uintptr {
		max := new(big.Int).Sub(new(big.Int).Lsh(one, bits), one)
		return new(big.Rat), new(big.Rat).SetInt(max)
	}
	max := new(big.Int).Sub(new(big.Int).Lsh(one, bits-1), one)
	min := new(big.Int).Neg(new(big.Int).Lsh(one, bits-1))
	return new(big.Rat).SetInt(min), new(big.Rat).SetInt(max)
}

// clamp narrows s's minimum and maximum to [lo, hi]: a tag may tighten the
// range of a Go type but never widen it.
func clamp(s *jsonschema.Schema, lo, hi *big.Rat) {
	if r, ok := new(big.Rat).SetString(string(s.Minimum)); !ok || r.Cmp(lo) < 0 {
		s.Minimum = ratNumber(lo)
	}
	if r, ok := new(big.Rat).SetString(string(s.Maximum)); !ok || r.Cmp(hi) > 0 {
		s.Maximum = ratNumber(hi)
	}
}

// float32Limit is where ParseFloat(s, 32) starts to overflow: halfway
// between math.MaxFloat32 and 2^128. A decimal below it in magnitude rounds
// to a finite float32 (3.4028235e38, as json.Marshal writes MaxFloat32,
// included).
var float32Limit = new(big.Rat).SetInt(new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 128), new(big.Int).Lsh(big.NewInt(1), 103)))

// clampExclusive bounds s to the open interval (-limit, limit), keeping a
// tag's bound where it is tighter.
func clampExclusive(s *jsonschema.Schema, limit *big.Rat) {
	neg := new(big.Rat).Neg(limit)
	cmp := func(n json.Number, b *big.Rat) (int, bool) {
		r, ok := new(big.Rat).SetString(string(n))
		if !ok {
			return 0, false
		}
		return r.Cmp(b), true
	}
	// A tag's bound stays when it already excludes the overflow.
	if c, ok := cmp(s.Minimum, neg); !(ok && c > 0) {
		if c, ok := cmp(s.ExclusiveMinimum, neg); !(ok && c >= 0) {
			s.Minimum, s.ExclusiveMinimum = "", ratNumber(neg)
		}
	}
	if c, ok := cmp(s.Maximum, limit); !(ok && c < 0) {
		if c, ok := cmp(s.ExclusiveMaximum, limit); !(ok && c <= 0) {
			s.Maximum, s.ExclusiveMaximum = "", ratNumber(limit)
		}
	}
}

// clampTo is clamp with bounds written as decimals, kept as written.
func clampTo(s *jsonschema.Schema, lo, hi json.Number) {
	l, _ := new(big.Rat).SetString(string(lo))
	h, _ := new(big.Rat).SetString(string(hi))
	clamp(s, l, h)
	if r, _ := new(big.Rat).SetString(string(s.Minimum)); r.Cmp(l) == 0 {
		s.Minimum = lo
	}
	if r, _ := new(big.Rat).SetString(string(s.Maximum)); r.Cmp(h) == 0 {
		s.Maximum = hi
	}
}

func ratNumber(r *big.Rat) json.Number {
	if r.IsInt() {
		return json.Number(r.Num().String())
	}
	f, _ := r.Float64()
	return json.Number(fmt.Sprint(f))
}

// nilable reports whether encoding/json may write null for a value of t.
func nilable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map:
		return t != rawMessageType
	}
	return false
}

func makeNullable(s *jsonschema.Schema) {
	switch {
	case s.Type != "":
		if s.Extras == nil {
			s.Extras = map[string]any{}
		}
		s.Extras["type"] = []string{s.Type, "null"}
		s.Type = ""
	case s.Ref != "":
		ref := *s
		*s = jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Ref: ref.Ref}, {Type: "null"}}, Description: ref.Description, Title: ref.Title}
	}
}

// shortDefNames renames the kept definitions from their package-qualified
// names to their bare type names where that is unambiguous, rewriting every
// $ref under root.
func shortDefNames(root *jsonschema.Schema, defs jsonschema.Definitions, short map[string]string) jsonschema.Definitions {
	count := map[string]int{}
	for name := range defs {
		count[short[name]]++
	}
	rename := func(name string) string {
		if b, ok := short[name]; ok && count[b] == 1 {
			return b
		}
		return name
	}
	seen := map[*jsonschema.Schema]bool{}
	visit := func(s *jsonschema.Schema) {
		walkSchema(s, func(s *jsonschema.Schema) {
			if seen[s] {
				return
			}
			seen[s] = true
			if name, ok := strings.CutPrefix(s.Ref, "#/$defs/"); ok {
				s.Ref = "#/$defs/" + rename(name)
			}
		})
	}
	visit(root)
	out := jsonschema.Definitions{}
	for name, d := range defs {
		visit(d)
		out[rename(name)] = d
	}
	return out
}
