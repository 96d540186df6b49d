package specs

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ErrUnknownSchema is in the error of an extraction whose root, or a
// schema one of its references names, is not in the source document.
var ErrUnknownSchema = errors.New("schema not in the source document")

// Source records where an extracted document came from, so the file
// says which published revision the bodies were checked against.
type Source struct {
	Repo     string `json:"repo"`
	Path     string `json:"path"`
	Commit   string `json:"commit,omitempty"`
	Version  string `json:"version,omitempty"`
	Revision string `json:"revision,omitempty"`
}

// Schemas is an extracted document: a JSON Schema (draft 2020-12) whose
// $defs hold the request schemas named in Roots and every schema they
// refer to, however deeply.
type Schemas struct {
	Schema  string         `json:"$schema"`
	Comment string         `json:"$comment"`
	Source  Source         `json:"x-source"`
	Roots   []string       `json:"x-roots"`
	Defs    map[string]any `json:"$defs"`
}

const draft = "https://json-schema.org/draft/2020-12/schema"

// FromOpenAPI extracts roots and everything they refer to from an
// OpenAPI 3.0 or 3.1 document (components/schemas) and converts them into
// JSON Schema the validator compiles. The conversion:
//
//   - rewrites "#/components/schemas/X" references to "#/$defs/X";
//   - turns "nullable": true (OpenAPI 3.0, still used in 3.1 documents)
//     into a type list with "null", or an anyOf with {"type":"null"} when
//     the schema has no type, and adds null to an enum;
//   - turns a boolean exclusiveMinimum/exclusiveMaximum (3.0) into the
//     number form;
//   - drops "discriminator" and turns every oneOf into anyOf: the server
//     picks the branch by the discriminator, so two branches that both
//     accept a value (common in these documents) must not fail it;
//   - drops x-* extensions and the keywords that only document
//     (description, title, example(s), default, deprecated, readOnly,
//     writeOnly, externalDocs, xml);
//   - closes objects (see closeObjects).
func FromOpenAPI(doc map[string]any, roots []string, src Source) (*Schemas, error) {
	components, _ := doc["components"].(map[string]any)
	all, _ := components["schemas"].(map[string]any)
	if v, ok := doc["openapi"].(string); ok {
		src.Version = "openapi " + v
	}
	return extract(all, roots, src, "#/components/schemas/", convertOpenAPI)
}

// FromDiscovery extracts roots and everything they refer to from a Google
// API discovery document (schemas) and converts them into JSON Schema.
// The conversion:
//
//   - rewrites a reference "X" to "#/$defs/X";
//   - turns type "any" into no type, and an int64/uint64 string (proto
//     JSON writes 64-bit integers as strings and reads either) into
//     string or integer;
//   - keeps type, enum, properties, items and additionalProperties, and
//     drops the rest (id, description, enumDescriptions, readOnly, ...),
//     which only documents;
//   - allows null for every value: proto JSON reads null as the field's
//     default;
//   - closes objects (see closeObjects): Google's servers refuse a field the
//     message does not define ("Invalid JSON payload received. Unknown
//     name").
func FromDiscovery(doc map[string]any, roots []string, src Source) (*Schemas, error) {
	all, _ := doc["schemas"].(map[string]any)
	if v, ok := doc["revision"].(string); ok {
		src.Revision = v
	}
	if v, ok := doc["version"].(string); ok {
		src.Version = fmt.Sprint(doc["name"], " ", v)
	}
	return extract(all, roots, src, "", convertDiscovery)
}

// extract walks from roots through every reference (refPrefix + name),
// converts each schema reached and closes the objects.
func extract(all map[string]any, roots []string, src Source, refPrefix string, convert func(s any) any) (*Schemas, error) {
	defs := map[string]any{}
	queue := append([]string(nil), roots...)
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if _, done := defs[name]; done {
			continue
		}
		s, ok := all[name]
		if !ok {
			return nil, fmt.Errorf("%w: %q", ErrUnknownSchema, name)
		}
		defs[name] = convert(rewriteRefs(s, name, refPrefix, func(ref string) { queue = append(queue, ref) }))
	}
	closeObjects(defs)
	out := &Schemas{
		Schema: draft,
		Comment: "Extracted by internal/specs/cmd/extract from the published document named in x-source: " +
			"the request schemas in x-roots and every schema they refer to, converted to JSON Schema 2020-12 " +
			"and closed against unknown properties. Do not edit; regenerate.",
		Source: src,
		Roots:  append([]string(nil), roots...),
		Defs:   defs,
	}
	sort.Strings(out.Roots)
	return out, nil
}

// rewriteRefs copies s, the schema named self, with every $ref that
// starts with prefix rewritten to "#/$defs/name", and reports each name.
// A draft 2019-09 recursive reference ("$recursiveRef": "#" under
// "$recursiveAnchor": true, which OpenAI's document uses for nested
// filters) becomes a plain reference to self: the document is one
// resource, so the recursion has nowhere else to go.
func rewriteRefs(s any, self, prefix string, found func(string)) any {
	switch v := s.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			switch {
			case k == "$recursiveAnchor":
				continue
			case k == "$recursiveRef" && x == "#":
				out["$ref"] = "#/$defs/" + self
				continue
			}
			if ref, ok := x.(string); k == "$ref" && ok && strings.HasPrefix(ref, prefix) {
				name := strings.TrimPrefix(ref, prefix)
				found(name)
				out[k] = "#/$defs/" + name
				continue
			}
			out[k] = rewriteRefs(x, self, prefix, found)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = rewriteRefs(x, self, prefix, found)
		}
		return out
	}
	return s
}

// Keywords whose value is a schema, a list of schemas or a map of them:
// the walkers go into these and nowhere else, so a property named
// "description" or "title" is kept while the keyword is dropped.
var (
	schemaKeys  = []string{"items", "additionalProperties", "unevaluatedProperties", "not", "contains", "propertyNames", "if", "then", "else", "unevaluatedItems", "additionalItems"}
	schemaLists = []string{"anyOf", "oneOf", "allOf", "prefixItems"}
	schemaMaps  = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)

// eachSub calls f on every subschema of s and stores what it returns.
func eachSub(s map[string]any, f func(any) any) {
	for _, k := range schemaKeys {
		if x, ok := s[k].(map[string]any); ok {
			s[k] = f(x)
		}
	}
	for _, k := range schemaLists {
		if xs, ok := s[k].([]any); ok {
			for i := range xs {
				xs[i] = f(xs[i])
			}
		}
	}
	for _, k := range schemaMaps {
		if m, ok := s[k].(map[string]any); ok {
			for name := range m {
				m[name] = f(m[name])
			}
		}
	}
}

var docOnly = map[string]bool{
	"description": true, "title": true, "example": true, "examples": true, "default": true,
	"deprecated": true, "readOnly": true, "writeOnly": true, "externalDocs": true, "xml": true,
	"discriminator": true,
}

func convertOpenAPI(x any) any {
	s, ok := x.(map[string]any)
	if !ok {
		return x
	}
	for k := range s {
		if docOnly[k] || strings.HasPrefix(k, "x-") {
			delete(s, k)
		}
	}
	if one, ok := s["oneOf"]; ok {
		delete(s, "oneOf")
		if other, ok := s["anyOf"]; ok {
			// Both present: keep both meanings by moving one into allOf.
			s["allOf"] = append(asList(s["allOf"]), map[string]any{"anyOf": one})
			s["anyOf"] = other
		} else {
			s["anyOf"] = one
		}
	}
	for _, k := range []string{"exclusiveMinimum", "exclusiveMaximum"} {
		if b, ok := s[k].(bool); ok {
			bound := strings.ToLower(strings.TrimPrefix(k, "exclusive"))
			delete(s, k)
			if b {
				s[k] = s[bound]
				delete(s, bound)
			}
		}
	}
	if p, ok := s["properties"].(map[string]any); ok && len(p) == 0 && s["additionalProperties"] == nil {
		// The document writes a free-form object (a function's
		// parameters, a JSON Schema) as an object with no properties,
		// which in OpenAPI allows any property: keep it open.
		delete(s, "properties")
		delete(s, "required")
	}
	eachSub(s, convertOpenAPI)
	if n, ok := s["nullable"].(bool); ok {
		delete(s, "nullable")
		if n {
			return allowNull(s)
		}
	}
	return s
}

func convertDiscovery(x any) any {
	s, ok := x.(map[string]any)
	if !ok {
		return x
	}
	keep := map[string]any{}
	for _, k := range []string{"$ref", "type", "format", "enum", "properties", "items", "additionalProperties"} {
		if v, ok := s[k]; ok {
			keep[k] = v
		}
	}
	switch keep["type"] {
	case "any":
		delete(keep, "type")
	case "string":
		if f := keep["format"]; f == "int64" || f == "uint64" {
			keep["type"] = []any{"string", "integer"}
		}
	}
	delete(keep, "format")
	eachSub(keep, convertDiscovery)
	if _, ok := keep["type"]; !ok {
		return keep // a $ref (null allowed at its target) or any value
	}
	return allowNull(keep)
}

// allowNull returns s widened to accept null.
func allowNull(s map[string]any) map[string]any {
	if e, ok := s["enum"].([]any); ok {
		s["enum"] = append(e, nil)
	}
	switch t := s["type"].(type) {
	case string:
		s["type"] = []any{t, "null"}
		return s
	case []any:
		for _, x := range t {
			if x == "null" {
				return s
			}
		}
		s["type"] = append(t, "null")
		return s
	}
	return map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
}

func asList(x any) []any {
	l, _ := x.([]any)
	return l
}

// closeObjects adds "unevaluatedProperties": false to every object schema
// (one with properties or allOf) that does not say what to do with other
// properties, since the providers refuse a field they do not define,
// where an OpenAPI object without additionalProperties is open. It
// leaves open what is only a part of an object: a member of allOf, and a
// member of anyOf beside the properties of the object it completes; a
// $defs entry referred to in such a place stays open everywhere.
// unevaluatedProperties, unlike additionalProperties, sees the
// properties the parts evaluated, so the whole is closed once.
func closeObjects(defs map[string]any) {
	parts := map[string]bool{}
	var findParts func(x any)
	findParts = func(x any) {
		s, ok := x.(map[string]any)
		if !ok {
			return
		}
		for _, m := range partsOf(s) {
			if ref, ok := m["$ref"].(string); ok {
				parts[strings.TrimPrefix(ref, "#/$defs/")] = true
			}
		}
		eachSub(s, func(x any) any { findParts(x); return x })
	}
	for _, d := range defs {
		findParts(d)
	}
	for name, d := range defs {
		closeNode(d, parts[name])
	}
}

// partsOf returns the members of s that are parts of one object (the
// rule closeNode follows too).
func partsOf(s map[string]any) []map[string]any {
	var out []map[string]any
	add := func(k string) {
		for _, x := range asList(s[k]) {
			if m, ok := x.(map[string]any); ok {
				out = append(out, m)
			}
		}
	}
	add("allOf")
	if _, ok := s["properties"]; ok {
		add("anyOf")
	}
	return out
}

func closeNode(x any, part bool) {
	s, ok := x.(map[string]any)
	if !ok {
		return
	}
	_, props := s["properties"]
	_, all := s["allOf"]
	_, add := s["additionalProperties"]
	_, uneval := s["unevaluatedProperties"]
	if !part && (props || all) && !add && !uneval {
		s["unevaluatedProperties"] = false
	}
	for _, k := range schemaKeys {
		closeNode(s[k], false)
	}
	for _, k := range schemaLists {
		for _, m := range asList(s[k]) {
			closeNode(m, k == "allOf" || (k == "anyOf" && props))
		}
	}
	for _, k := range schemaMaps {
		if m, ok := s[k].(map[string]any); ok {
			for _, y := range m {
				closeNode(y, false)
			}
		}
	}
}
