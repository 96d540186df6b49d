package dialect

// Rule walkers: one per provider, each checking a lowered schema against
// that provider's rules as its documentation states them, independently of
// how the lowering got there. Every golden output and every fuzzed success
// runs through them.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/toolreg/toolreg/internal/jsonvalue"
)

// violations collects rule breaks with their paths.
type violations []string

func (v *violations) add(path, format string, args ...any) {
	*v = append(*v, fmt.Sprintf("%s: %s", orRoot(path), fmt.Sprintf(format, args...)))
}

func orRoot(path string) string {
	if path == "" {
		return "(root)"
	}
	return path
}

// node is one subschema of a decoded schema, with its path.
type node struct {
	path string
	s    map[string]any // nil for a boolean schema
	b    any            // the raw value
}

// subschemas lists every subschema of a decoded draft 2020-12 schema,
// $defs included, root first.
func subschemas(root any) []node {
	var out []node
	var walk func(v any, path string)
	walk = func(v any, path string) {
		m, _ := v.(map[string]any)
		out = append(out, node{path, m, v})
		if m == nil {
			return
		}
		for k, c := range m {
			switch k {
			case "properties", "$defs", "patternProperties", "dependentSchemas":
				if cm, ok := c.(map[string]any); ok {
					for name, s := range cm {
						p := joinPath(path, name)
						if k != "properties" {
							p = joinPath(path, k+"."+name)
						}
						walk(s, p)
					}
				}
			case "items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames":
				walk(c, path+"/"+k)
			case "anyOf", "oneOf", "allOf", "prefixItems":
				if ca, ok := c.([]any); ok {
					for i, s := range ca {
						walk(s, fmt.Sprintf("%s/%s[%d]", path, k, i))
					}
				}
			}
		}
	}
	walk(root, "")
	return out
}

func decodeJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

func keysOf(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// types returns the type names of a schema's type keyword.
func types(s map[string]any) []string {
	switch t := s["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if es, ok := e.(string); ok {
				out = append(out, es)
			}
		}
		return out
	}
	return nil
}

func checkRootObject(v *violations, root any) map[string]any {
	m, ok := root.(map[string]any)
	if !ok {
		v.add("", "the root is not an object")
		return nil
	}
	if m["type"] != "object" {
		v.add("", "the root type is %v, not object", m["type"])
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf", "$ref"} {
		if _, ok := m[k]; ok {
			v.add("", "%s at the root", k)
		}
	}
	return m
}

// closedObject checks an object schema: closed, and (when all) every
// property required.
func closedObject(v *violations, n node, all bool) {
	if !slices.Contains(types(n.s), "object") {
		return
	}
	if n.s["additionalProperties"] != false {
		v.add(n.path, "object without additionalProperties:false")
	}
	props, ok := n.s["properties"].(map[string]any)
	if !ok {
		v.add(n.path, "object without properties")
	}
	if !all {
		return
	}
	var req []string
	if r, ok := n.s["required"].([]any); ok {
		for _, e := range r {
			req = append(req, fmt.Sprint(e))
		}
	}
	slices.Sort(req)
	if want := keysOf(props); !slices.Equal(req, want) && !(len(req) == 0 && len(want) == 0) {
		v.add(n.path, "required %v, want every property %v", req, want)
	}
}

func allowedKeys(v *violations, n node, allowed map[string]bool) {
	for k := range n.s {
		if !allowed[k] && !(n.path == "" && k == "$defs") {
			v.add(n.path, "keyword %q is not supported", k)
		}
	}
}

var (
	openAIFormats    = set("date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid")
	anthropicFormats = set("date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid")
)

// openAIStrictRules: OpenAI's Structured Outputs "Supported schemas".
func openAIStrictRules(out []byte) violations {
	var v violations
	root, err := decodeJSON(out)
	if err != nil {
		return violations{err.Error()}
	}
	rm := checkRootObject(&v, root)
	allowed := set("type", "properties", "required", "additionalProperties", "items", "anyOf", "enum", "const",
		"$ref", "description", "title", "pattern", "format", "multipleOf", "maximum", "exclusiveMaximum",
		"minimum", "exclusiveMinimum", "minItems", "maxItems")
	props, enums := 0, 0
	for _, n := range subschemas(root) {
		if n.s == nil {
			if n.b != false || !strings.HasSuffix(n.path, "/additionalProperties") {
				v.add(n.path, "boolean schema %v", n.b)
			}
			continue
		}
		allowedKeys(&v, n, allowed)
		if ref, ok := n.s["$ref"].(string); ok {
			if len(n.s) != 1 {
				v.add(n.path, "$ref with siblings %v", keysOf(n.s))
			}
			defs, _ := rm["$defs"].(map[string]any)
			if name, ok := strings.CutPrefix(ref, "#/$defs/"); ref != "#" && (!ok || defs[name] == nil) {
				v.add(n.path, "$ref %q does not resolve", ref)
			}
			continue
		}
		if !hasAny(n.s, "type", "anyOf", "enum", "const") {
			v.add(n.path, "schema without type, anyOf, enum or const")
		}
		closedObject(&v, n, true)
		if f, ok := n.s["format"].(string); ok && !openAIFormats[f] {
			v.add(n.path, "format %q is not supported", f)
		}
		if p, ok := n.s["properties"].(map[string]any); ok {
			props += len(p)
		}
		if e, ok := n.s["enum"].([]any); ok {
			enums += len(e)
		}
	}
	if props > 5000 || enums > 1000 {
		v.add("", "over the limits: %d properties, %d enum values", props, enums)
	}
	return v
}

// anthropicRules: Anthropic tool use, non-strict: a 2020-12 schema with a
// plain object root, without the tooling keywords.
func anthropicRules(out []byte) violations {
	v := compactRules(out)
	if root, err := decodeJSON(out); err == nil {
		checkRootObject(&v, root)
	}
	return v
}

// compactRules: what no dialect sends (see omitted): keywords for tooling,
// and bounds of 2^53 or more in magnitude.
func compactRules(out []byte) violations {
	var v violations
	root, err := decodeJSON(out)
	if err != nil {
		return violations{err.Error()}
	}
	for _, n := range subschemas(root) {
		for k, val := range n.s {
			if k == "$schema" || k == "$id" || k == "$comment" || strings.HasPrefix(k, "x-") {
				v.add(n.path, "tooling keyword %q left in", k)
			}
			switch k {
			case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
				if num, ok := val.(json.Number); ok {
					if f, _ := num.Float64(); math.Abs(f) >= 1<<53 {
						v.add(n.path, "%s %s sent", k, num)
					}
				}
			}
		}
	}
	return v
}

// unsupportedRegex matches the regex features Anthropic's strict mode
// excludes: backreferences, lookaround and other (?...) groups, word
// boundaries.
var unsupportedRegex = regexp.MustCompile(`\(\?|(^|[^\\])(\\\\)*\\[bBk1-9]`)

// anthropicStrictRules: Anthropic's strict tool use subset. A $ref is
// refused outright: the lowering inlines them, and a cycle would be
// recursion, which strict mode refuses.
func anthropicStrictRules(out []byte) violations {
	var v violations
	root, err := decodeJSON(out)
	if err != nil {
		return violations{err.Error()}
	}
	checkRootObject(&v, root)
	allowed := set("type", "properties", "required", "additionalProperties", "items", "anyOf", "enum", "const",
		"description", "title", "pattern", "format", "minItems")
	optional, unions := 0, 0
	for _, n := range subschemas(root) {
		if n.s == nil {
			if n.b != false || !strings.HasSuffix(n.path, "/additionalProperties") {
				v.add(n.path, "boolean schema %v", n.b)
			}
			continue
		}
		if n.path == "" && n.s["$defs"] != nil {
			v.add("", "$defs left in")
		}
		allowedKeys(&v, n, allowed)
		closedObject(&v, n, false)
		if f, ok := n.s["format"].(string); ok && !anthropicFormats[f] {
			v.add(n.path, "format %q is not supported", f)
		}
		if p, ok := n.s["pattern"].(string); ok && unsupportedRegex.MatchString(p) {
			v.add(n.path, "pattern %q uses an unsupported regex feature", p)
		}
		if mi, ok := n.s["minItems"].(json.Number); ok && mi != "0" && mi != "1" {
			v.add(n.path, "minItems %s", mi)
		}
		for _, e := range append(asList(n.s["enum"]), n.s["const"]) {
			switch e.(type) {
			case map[string]any, []any:
				v.add(n.path, "non-primitive enum or const value %v", e)
			}
		}
		if p, ok := n.s["properties"].(map[string]any); ok {
			req := asList(n.s["required"])
			for name := range p {
				if !slices.Contains(req, any(name)) {
					optional++
				}
			}
		}
		if _, ok := n.s["type"].([]any); ok || n.s["anyOf"] != nil {
			unions++
		}
		if !hasAny(n.s, "type", "anyOf", "enum", "const") {
			v.add(n.path, "schema without type, anyOf, enum or const")
		}
	}
	if optional > 24 || unions > 16 {
		v.add("", "over the limits: %d optional properties, %d unions", optional, unions)
	}
	return v
}

func hasAny(m map[string]any, keys ...string) bool {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// geminiJSONRules: Gemini's parametersJsonSchema: the documented
// keyword list, $ref without non-$ siblings, enum of strings and numbers,
// and cycles only through non-required properties.
func geminiJSONRules(out []byte) violations {
	var v violations
	root, err := decodeJSON(out)
	if err != nil {
		return violations{err.Error()}
	}
	rm := checkRootObject(&v, root)
	allowed := set("$id", "$anchor", "$ref", "type", "format", "title", "description", "enum", "items",
		"prefixItems", "minItems", "maxItems", "minimum", "maximum", "anyOf", "oneOf", "properties",
		"additionalProperties", "required", "propertyOrdering")
	for _, n := range subschemas(root) {
		if n.s == nil {
			if n.b != false || !strings.HasSuffix(n.path, "/additionalProperties") {
				v.add(n.path, "boolean schema %v", n.b)
			}
			continue
		}
		allowedKeys(&v, n, allowed)
		if _, ok := n.s["$ref"]; ok {
			for k := range n.s {
				if !strings.HasPrefix(k, "$") {
					v.add(n.path, "$ref with sibling %q", k)
				}
			}
		}
		for _, e := range asList(n.s["enum"]) {
			switch e.(type) {
			case string, json.Number:
			default:
				v.add(n.path, "enum value %v is not a string or number", e)
			}
		}
	}
	// Cycles: a definition must not reach itself through $refs found
	// along required properties only.
	defs, _ := rm["$defs"].(map[string]any)
	hardRefs := func(s any) []string {
		var refs []string
		var walk func(s any)
		walk = func(s any) {
			m, _ := s.(map[string]any)
			if m == nil {
				return
			}
			if ref, ok := m["$ref"].(string); ok {
				refs = append(refs, strings.TrimPrefix(ref, "#/$defs/"))
				return
			}
			req := asList(m["required"])
			if p, ok := m["properties"].(map[string]any); ok {
				for name, c := range p {
					if slices.Contains(req, any(name)) {
						walk(c)
					}
				}
			}
			walk(m["items"])
			walk(m["additionalProperties"])
			for _, b := range append(asList(m["anyOf"]), asList(m["prefixItems"])...) {
				walk(b)
			}
		}
		walk(s)
		return refs
	}
	for name, def := range defs {
		seen := map[string]bool{}
		queue := hardRefs(def)
		for len(queue) > 0 {
			n := queue[0]
			queue = queue[1:]
			if n == name {
				v.add("$defs."+name, "reaches itself through required properties only")
				break
			}
			if !seen[n] {
				seen[n] = true
				queue = append(queue, hardRefs(defs[n])...)
			}
		}
	}
	return v
}

// genaiSchema mirrors the JSON shape of google.golang.org/genai v1.79.1
// Schema (types.go): field names, JSON tags and Go types, so that decoding
// a lowered schema with DisallowUnknownFields is what the SDK would accept.
type genaiSchema struct {
	AnyOf            []*genaiSchema          `json:"anyOf,omitempty"`
	Default          any                     `json:"default,omitempty"`
	Description      string                  `json:"description,omitempty"`
	Enum             []string                `json:"enum,omitempty"`
	Example          any                     `json:"example,omitempty"`
	Format           string                  `json:"format,omitempty"`
	Items            *genaiSchema            `json:"items,omitempty"`
	MaxItems         *int64                  `json:"maxItems,omitempty"`
	MaxLength        *int64                  `json:"maxLength,omitempty"`
	MaxProperties    *int64                  `json:"maxProperties,omitempty"`
	Maximum          *float64                `json:"maximum,omitempty"`
	MinItems         *int64                  `json:"minItems,omitempty"`
	MinLength        *int64                  `json:"minLength,omitempty"`
	MinProperties    *int64                  `json:"minProperties,omitempty"`
	Minimum          *float64                `json:"minimum,omitempty"`
	Nullable         *bool                   `json:"nullable,omitempty"`
	Pattern          string                  `json:"pattern,omitempty"`
	Properties       map[string]*genaiSchema `json:"properties,omitempty"`
	PropertyOrdering []string                `json:"propertyOrdering,omitempty"`
	Required         []string                `json:"required,omitempty"`
	Title            string                  `json:"title,omitempty"`
	Type             string                  `json:"type,omitempty"`
}

var geminiParamNameRule = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)

// geminiSchemaRules: Gemini's genai.Schema: decodes into the
// Schema's shape (no $ref, $defs, additionalProperties, const, type arrays
// or unknown fields), upper-case types, string enums, a propertyOrdering
// (if any) that lists the properties in order, property names Gemini
// accepts.
func geminiSchemaRules(out []byte) violations {
	var v violations
	d := json.NewDecoder(bytes.NewReader(out))
	d.DisallowUnknownFields()
	var s genaiSchema
	if err := d.Decode(&s); err != nil {
		return violations{"does not decode as genai.Schema: " + err.Error()}
	}
	if s.Type != "OBJECT" {
		v.add("", "root type %q", s.Type)
	}
	ordered, err := jsonvalue.Parse(out) // member order, which genaiSchema's maps lose
	if err != nil {
		return violations{err.Error()}
	}
	var walk func(s *genaiSchema, o *value, path string)
	walk = func(s *genaiSchema, o *value, path string) {
		if s == nil {
			return
		}
		switch s.Type {
		case "STRING", "INTEGER", "NUMBER", "BOOLEAN", "ARRAY", "OBJECT", "NULL":
		case "":
			if len(s.AnyOf) == 0 {
				v.add(path, "no type")
			}
		default:
			v.add(path, "type %q", s.Type)
		}
		if len(s.Enum) > 0 && s.Type != "STRING" && s.Type != "INTEGER" && s.Type != "NUMBER" {
			v.add(path, "enum on type %q", s.Type)
		}
		var names []string
		if p := o.Get("properties"); p != nil {
			for _, m := range p.Members {
				names = append(names, m.Key)
				if !geminiParamNameRule.MatchString(m.Key) {
					v.add(joinPath(path, m.Key), "property name %q", m.Key)
				}
				walk(s.Properties[m.Key], m.Val, joinPath(path, m.Key))
			}
		}
		if s.PropertyOrdering != nil && !slices.Equal(names, s.PropertyOrdering) {
			v.add(path, "propertyOrdering %v, properties %v", s.PropertyOrdering, names)
		}
		for _, r := range s.Required {
			if !slices.Contains(names, r) {
				v.add(path, "required %q is not a property", r)
			}
		}
		walk(s.Items, o.Get("items"), path+"[]")
		for i, b := range s.AnyOf {
			walk(b, o.Get("anyOf").Items[i], fmt.Sprintf("%s.anyOf[%d]", path, i))
		}
	}
	walk(&s, ordered, "")
	return v
}
