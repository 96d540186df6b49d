package dialect

import (
	"encoding/json"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// geminiJSON is the subset the Gemini API documents for
// parametersJsonSchema/responseJsonSchema (providers.md §3). That list is
// written for responseJsonSchema; applying it to parametersJsonSchema is
// providers.md's inference, followed here.
var geminiJSON = &rules{
	name: "Gemini",
	keywords: keywords(
		concat(structural, []string{"$id", "$anchor", "format", "prefixItems", "minItems", "maxItems",
			"minimum", "maximum", "propertyOrdering"}),
		[]string{"pattern", "minLength", "maxLength", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
			"uniqueItems", "minProperties", "maxProperties", "contentEncoding", "contentMediaType",
			"dependentRequired", "default"},
		applicators,
	),
	minItems: -1,
	enum:     func(v *value) bool { return v.kind == jString || v.kind == jNumber },
	enumWhat: "strings and numbers",
	anyOK:    true,
	toAnyOf:  true,
	refKeys:  true,
	constTo:  true,
}

// GeminiJSONSchema lowers a canonical schema for
// FunctionDeclaration.parametersJsonSchema, the JSON Schema form Gemini
// takes (use GeminiSchema only where the legacy parameters field is
// needed).
//
// $defs and $ref stay (a $ref with sibling keywords is inlined); oneOf
// becomes anyOf and const a one-value enum; maps and "any" values ({}) are
// kept; objects get propertyOrdering. pattern, minLength, maxLength, exclusive bounds, multipleOf and
// default are not in Gemini's list and move into the description; $schema
// and $comment are dropped.
//
// It refuses, with an *Error naming the property: a recursive type whose
// cycle passes through required properties only (Gemini unrolls cycles
// only through non-required properties), enum values other than strings
// and numbers, allOf of several schemas, not, if/then/else and
// patternProperties.
func GeminiJSONSchema(schema json.RawMessage) (json.RawMessage, error) {
	out, err := lower(schema, geminiJSON)
	if err != nil {
		return nil, err
	}
	if err := checkGeminiCycles(out); err != nil {
		return nil, err
	}
	addPropertyOrdering(out)
	return encode(out), nil
}

// addPropertyOrdering gives every object schema with properties its
// propertyOrdering: the SDK sends the schema through a map and the API
// through a protobuf Struct, neither of which keeps key order.
func addPropertyOrdering(v *value) {
	switch v.kind {
	case jObject:
		if p := v.get("properties"); p != nil && p.kind == jObject && len(p.obj) > 1 && v.get("propertyOrdering") == nil {
			order := &value{kind: jArray}
			for _, m := range p.obj {
				order.arr = append(order.arr, str(m.key))
			}
			v.set("propertyOrdering", order)
		}
		for _, m := range v.obj {
			switch m.key {
			case "enum", "const", "default", "examples":
			case "properties", "$defs":
				if m.val.kind == jObject {
					for _, sub := range m.val.obj { // named schemas: not a schema itself
						addPropertyOrdering(sub.val)
					}
				}
			default:
				addPropertyOrdering(m.val)
			}
		}
	case jArray:
		for _, e := range v.arr {
			addPropertyOrdering(e)
		}
	}
}

// checkGeminiCycles refuses a $ref cycle that never passes through an
// optional property: Gemini unrolls cycles to a limited depth and "may use
// them only in non-required properties". Array items and anyOf branches do
// not break a cycle here: providers.md names only non-required properties,
// and we read it literally.
func checkGeminiCycles(root *value) error {
	d := newDoc(root)
	type edge struct{ to, path string }
	edges := map[string][]edge{} // $refs reached from "#" or a definition through required properties only
	var visit func(from string, s *value, path string, soft bool)
	visit = func(from string, s *value, path string, soft bool) {
		if s.kind != jObject {
			return
		}
		if ref := s.get("$ref"); ref.isString() {
			if name, _, err := d.resolve(ref.s, path); err == nil && !soft {
				edges[from] = append(edges[from], edge{name, path})
			}
			return
		}
		rest := &value{kind: jObject}
		for _, m := range s.obj {
			if m.key != "properties" {
				rest.obj = append(rest.obj, m)
				continue
			}
			required := s.get("required")
			for _, p := range m.val.obj {
				optional := required == nil || !slices.ContainsFunc(required.arr, func(r *value) bool { return r.s == p.key })
				visit(from, p.val, joinPath(path, p.key), soft || optional)
			}
		}
		eachSubschema(rest, path, func(c *value, p string) error {
			visit(from, c, p, soft)
			return nil
		})
	}
	nodes := append([]string{"#"}, d.order...)
	for _, n := range nodes {
		if n == "#" {
			visit(n, root, "", false)
		} else {
			visit(n, d.defs[n], "$defs."+n, false)
		}
	}
	const (
		unseen = iota
		active
		done
	)
	state := map[string]int{}
	var dfs func(n string) error
	dfs = func(n string) error {
		state[n] = active
		for _, e := range edges[n] {
			switch state[e.to] {
			case active:
				return errorf(e.path, "Gemini unrolls a recursive $ref only through optional properties, and this one reaches %s again through required properties only: make a property on the way optional (omitempty or a pointer)", defName(e.to))
			case unseen:
				if err := dfs(e.to); err != nil {
					return err
				}
			}
		}
		state[n] = done
		return nil
	}
	for _, n := range nodes {
		if state[n] == unseen {
			if err := dfs(n); err != nil {
				return err
			}
		}
	}
	return nil
}

// geminiSchema is what genai.Schema can hold (providers.md §3; the field
// list of google.golang.org/genai v1.77.0 types.go Schema). The walker
// produces JSON Schema within that subset; toGenai then rewrites it into
// the Schema's own JSON shape.
var geminiSchema = &rules{
	name: "Gemini's Schema",
	keywords: keywords(
		concat(structural, []string{"format", "pattern", "minimum", "maximum", "minItems", "maxItems",
			"minLength", "maxLength", "minProperties", "maxProperties", "default"}),
		[]string{"exclusiveMinimum", "exclusiveMaximum", "multipleOf", "uniqueItems",
			"contentEncoding", "contentMediaType", "dependentRequired"},
		concat(applicators, []string{"prefixItems"}),
	),
	minItems: -1,
	enum:     func(v *value) bool { return v.kind != jObject && v.kind != jArray },
	enumWhat: "primitive values",
	inline:   true,
	closed:   true,
	toAnyOf:  true,
	typeDown: true,
}

// GeminiSchema lowers a canonical schema into the JSON of the legacy
// genai.Schema, for FunctionDeclaration.parameters: an OpenAPI 3.0 subset.
// Prefer GeminiJSONSchema; use this for models or SDK paths that take only
// parameters.
//
// Types are upper case (STRING, INTEGER, NUMBER, BOOLEAN, ARRAY, OBJECT,
// NULL); a null in a type array or an anyOf becomes "nullable": true;
// every $ref is inlined; enums get "format": "enum", and integer and
// number enum values are written as strings, as genai.Schema documents
// ({type:INTEGER, format:enum, enum:["101","201"]}); const becomes a
// one-value enum; objects get propertyOrdering; minItems, maxLength and
// the other int64 fields are JSON integers, as genai.Schema decodes them.
// exclusive bounds, multipleOf and uniqueItems move into the description.
//
// It refuses, with an *Error naming the property: recursive types, maps,
// free-form objects and "any" values, values of several types, boolean
// enums, property names Gemini rejects (letters, digits and underscores,
// not starting with a digit, at most 64), allOf of several schemas, not,
// if/then/else, patternProperties and prefixItems.
func GeminiSchema(schema json.RawMessage) (json.RawMessage, error) {
	out, err := lower(schema, geminiSchema)
	if err != nil {
		return nil, err
	}
	g, err := toGenai(out, "")
	if err != nil {
		return nil, err
	}
	return encode(g), nil
}

// toGenai rewrites a schema lowered under geminiSchema into genai.Schema's
// JSON shape. It builds new objects and leaves s alone.
func toGenai(s *value, path string) (*value, error) {
	out := &value{kind: jObject, obj: make([]member, 0, len(s.obj)+2)}
	nullable := false
	var enumTypes []kind // the JSON kinds of the enum values, before they became strings
	for _, m := range s.obj {
		k, v := m.key, m.val
		switch k {
		case "type":
			var names []string
			if v.isString() {
				names = []string{v.s}
			} else {
				for _, t := range v.arr {
					names = append(names, t.s)
				}
			}
			var rest []string
			for _, n := range names {
				if n == "null" {
					nullable = true
				} else if !slices.Contains(rest, n) {
					rest = append(rest, n)
				}
			}
			switch len(rest) {
			case 0:
				v = str("NULL")
			case 1:
				v = str(strings.ToUpper(rest[0]))
			default:
				return nil, errorf(path, "Gemini's Schema cannot express a value of several types (%s)", strings.Join(rest, ", "))
			}
		case "anyOf":
			branches := &value{kind: jArray}
			wrapper := len(v.arr) == 2 && nullSchema(v.arr[1]) // the branch keeps the property's path
			for i, b := range v.arr {
				if nullSchema(b) {
					nullable = true
					continue
				}
				bp := path + ".anyOf[" + strconv.Itoa(i) + "]"
				if wrapper {
					bp = path
				}
				gb, err := toGenai(b, bp)
				if err != nil {
					return nil, err
				}
				branches.arr = append(branches.arr, gb)
			}
			if len(branches.arr) == 0 {
				k, v = "type", str("NULL")
			} else {
				v = branches
			}
		case "enum", "const":
			list := v.arr
			if k == "const" {
				k, list = "enum", []*value{v}
			}
			vals := &value{kind: jArray}
			for _, e := range list {
				switch e.kind {
				case jNull:
					nullable = true
				case jString, jNumber:
					vals.arr = append(vals.arr, str(e.s))
					enumTypes = append(enumTypes, e.kind)
				default:
					return nil, errorf(path, "Gemini's Schema takes only string enum values (and numbers, written as strings); %s cannot be expressed", encode(e))
				}
			}
			if len(vals.arr) == 0 {
				continue
			}
			v = vals
		case "additionalProperties":
			continue // always false here: an OpenAPI Schema object is closed
		case "properties":
			props := &value{kind: jObject, obj: make([]member, 0, len(v.obj))}
			for _, p := range v.obj {
				pp := joinPath(path, p.key)
				if !geminiParamName(p.key) {
					return nil, errorf(pp, "Gemini's Schema takes property names of letters, digits and underscores, not starting with a digit, at most 64 characters: rename the field with a json tag, or use GeminiJSONSchema")
				}
				gp, err := toGenai(p.val, pp)
				if err != nil {
					return nil, err
				}
				props.obj = append(props.obj, member{p.key, gp})
			}
			v = props
		case "items":
			gi, err := toGenai(v, path+"[]")
			if err != nil {
				return nil, err
			}
			v = gi
		case "minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties":
			n, ok := integer(v)
			if !ok || n.Sign() < 0 || !n.IsInt64() {
				return nil, errorf(path, "%s must be an integer from 0 to %d for Gemini's Schema", k, int64(math.MaxInt64))
			}
			v = &value{kind: jNumber, s: n.String()}
		case "minimum", "maximum":
			if v.kind != jNumber {
				return nil, errorf(path, "%s must be a number", k)
			}
			if _, err := strconv.ParseFloat(v.s, 64); err != nil {
				return nil, errorf(path, "%s %s does not fit the float64 of Gemini's Schema", k, v.s)
			}
		}
		if out.get(k) != nil {
			return nil, errorf(path, "Gemini's Schema cannot express %s twice (enum beside const?)", k)
		}
		out.obj = append(out.obj, member{k, v})
	}

	// {"anyOf":[X,{"type":"null"}],"description":...} → X, nullable, description.
	if a := out.get("anyOf"); a != nil && len(a.arr) == 1 && onlyAnnotations(out, "anyOf") {
		merged := &value{kind: jObject, obj: append([]member(nil), a.arr[0].obj...)}
		for _, m := range out.obj {
			if m.key != "anyOf" {
				merged.set(m.key, m.val)
			}
		}
		out = merged
	}
	if t := out.get("type"); t != nil && t.s == "NULL" {
		out.del("enum") // only null is valid: the enum's other values fail the type
	}
	if out.get("enum") != nil {
		if out.get("type") == nil {
			t := "STRING"
			if !slices.Contains(enumTypes, jString) {
				t = "NUMBER"
				if allIntegers(out.get("enum")) {
					t = "INTEGER"
				}
			}
			out.obj = slices.Insert(out.obj, 0, member{"type", str(t)})
		}
		if out.get("format") == nil {
			i := slices.IndexFunc(out.obj, func(m member) bool { return m.key == "enum" })
			out.obj = slices.Insert(out.obj, i, member{"format", str("enum")})
		}
	}
	if nullable && out.get("type") == nil && out.get("anyOf") == nil {
		out.obj = slices.Insert(out.obj, 0, member{"type", str("NULL")}) // enum:[null] or const:null
	}
	if nullable {
		i := slices.IndexFunc(out.obj, func(m member) bool { return m.key == "type" })
		out.obj = slices.Insert(out.obj, i+1, member{"nullable", boolean(true)})
	}
	if p := out.get("properties"); p != nil && len(p.obj) > 0 {
		order := &value{kind: jArray}
		for _, m := range p.obj {
			order.arr = append(order.arr, str(m.key))
		}
		out.set("propertyOrdering", order)
	}
	return out, nil
}

// nullSchema reports whether s is {"type":"null"}, give or take
// annotations: the null branch of a nullable anyOf.
func nullSchema(s *value) bool {
	t := s.get("type")
	return t.isString() && t.s == "null" && onlyAnnotations(s, "type")
}

// onlyAnnotations reports whether s has no keyword but except and
// annotations.
func onlyAnnotations(s *value, except string) bool {
	for _, m := range s.obj {
		if m.key != except && !slices.Contains(annotations, m.key) {
			return false
		}
	}
	return true
}

func allIntegers(enum *value) bool {
	for _, e := range enum.arr {
		if r, ok := new(big.Rat).SetString(e.s); !ok || !r.IsInt() {
			return false
		}
	}
	return true
}

// geminiParamName is the rule genai documents for parameter names under
// parameters: "must start with a letter or an underscore and must only
// contain chars a-z, A-Z, 0-9, or underscores with a maximum length of 64".
func geminiParamName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
