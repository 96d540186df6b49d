package dialect

import (
	"encoding/json"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/toolreg/toolreg/internal/jsonvalue"
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
	enum:     func(v *value) bool { return v.Kind == jsonvalue.String || v.Kind == jsonvalue.Number },
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
// kept. pattern, minLength, maxLength, exclusive bounds, multipleOf and
// default are not in Gemini's list and move into the description; $schema
// and $comment are dropped.
//
// Objects get no propertyOrdering, though the API would otherwise list
// their properties in alphabetical order: it would repeat every property
// name on every request, and the order changes neither the arguments
// (functionCall.args is an unordered Struct) nor how they are checked.
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
	return out.Encode(), nil
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
		if s.Kind != jsonvalue.Object {
			return
		}
		if ref := s.Get("$ref"); ref.IsString() {
			if name, _, err := d.resolve(ref.Text, path); err == nil && !soft {
				edges[from] = append(edges[from], edge{name, path})
			}
			return
		}
		rest := &value{Kind: jsonvalue.Object}
		for _, m := range s.Members {
			if m.Key != "properties" {
				rest.Members = append(rest.Members, m)
				continue
			}
			required := s.Get("required")
			for _, p := range m.Val.Members {
				optional := required == nil || !slices.ContainsFunc(required.Items, func(r *value) bool { return r.Text == p.Key })
				visit(from, p.Val, joinPath(path, p.Key), soft || optional)
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
	enum:     func(v *value) bool { return v.Kind != jsonvalue.Object && v.Kind != jsonvalue.Array },
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
// one-value enum; minItems, maxLength and the other int64 fields are JSON
// integers, as genai.Schema decodes them. exclusive bounds, multipleOf and
// uniqueItems move into the description. Objects get no propertyOrdering,
// as in GeminiJSONSchema.
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
	return g.Encode(), nil
}

// toGenai rewrites a schema lowered under geminiSchema into genai.Schema's
// JSON shape. It builds new objects and leaves s alone.
func toGenai(s *value, path string) (*value, error) {
	out := &value{Kind: jsonvalue.Object, Members: make([]member, 0, len(s.Members)+2)}
	nullable := false
	var enumTypes []jsonvalue.Kind // the JSON kinds of the enum values, before they became strings
	for _, m := range s.Members {
		k, v := m.Key, m.Val
		switch k {
		case "type":
			var names []string
			if v.IsString() {
				names = []string{v.Text}
			} else {
				for _, t := range v.Items {
					names = append(names, t.Text)
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
				v = jsonvalue.NewString("NULL")
			case 1:
				v = jsonvalue.NewString(strings.ToUpper(rest[0]))
			default:
				return nil, errorf(path, "Gemini's Schema cannot express a value of several types (%s)", strings.Join(rest, ", "))
			}
		case "anyOf":
			branches := &value{Kind: jsonvalue.Array}
			wrapper := len(v.Items) == 2 && nullSchema(v.Items[1]) // the branch keeps the property's path
			for i, b := range v.Items {
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
				branches.Items = append(branches.Items, gb)
			}
			if len(branches.Items) == 0 {
				k, v = "type", jsonvalue.NewString("NULL")
			} else {
				v = branches
			}
		case "enum", "const":
			list := v.Items
			if k == "const" {
				k, list = "enum", []*value{v}
			}
			vals := &value{Kind: jsonvalue.Array}
			for _, e := range list {
				switch e.Kind {
				case jsonvalue.Null:
					nullable = true
				case jsonvalue.String, jsonvalue.Number:
					vals.Items = append(vals.Items, jsonvalue.NewString(e.Text))
					enumTypes = append(enumTypes, e.Kind)
				default:
					return nil, errorf(path, "Gemini's Schema takes only string enum values (and numbers, written as strings); %s cannot be expressed", e.Encode())
				}
			}
			if len(vals.Items) == 0 {
				continue
			}
			v = vals
		case "additionalProperties":
			continue // always false here: an OpenAPI Schema object is closed
		case "properties":
			props := &value{Kind: jsonvalue.Object, Members: make([]member, 0, len(v.Members))}
			for _, p := range v.Members {
				pp := joinPath(path, p.Key)
				if !geminiParamName(p.Key) {
					return nil, errorf(pp, "Gemini's Schema takes property names of letters, digits and underscores, not starting with a digit, at most 64 characters: rename the field with a json tag, or use GeminiJSONSchema")
				}
				gp, err := toGenai(p.Val, pp)
				if err != nil {
					return nil, err
				}
				props.Members = append(props.Members, member{Key: p.Key, Val: gp})
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
			v = &value{Kind: jsonvalue.Number, Text: n.String()}
		case "minimum", "maximum":
			// Every bound a float64 cannot hold is 2^53 or more in
			// magnitude, and omitted before this (see omitted).
			if v.Kind != jsonvalue.Number {
				return nil, errorf(path, "%s must be a number", k)
			}
		}
		if out.Get(k) != nil {
			return nil, errorf(path, "Gemini's Schema cannot express %s twice (enum beside const?)", k)
		}
		out.Members = append(out.Members, member{Key: k, Val: v})
	}

	// {"anyOf":[X,{"type":"null"}],"description":...} → X, nullable, description.
	if a := out.Get("anyOf"); a != nil && len(a.Items) == 1 && onlyAnnotations(out, "anyOf") {
		merged := &value{Kind: jsonvalue.Object, Members: append([]member(nil), a.Items[0].Members...)}
		for _, m := range out.Members {
			if m.Key != "anyOf" {
				merged.Set(m.Key, m.Val)
			}
		}
		out = merged
	}
	if t := out.Get("type"); t != nil && t.Text == "NULL" {
		out.Delete("enum") // only null is valid: the enum's other values fail the type
	}
	if out.Get("enum") != nil {
		if out.Get("type") == nil {
			t := "STRING"
			if !slices.Contains(enumTypes, jsonvalue.String) {
				t = "NUMBER"
				if allIntegers(out.Get("enum")) {
					t = "INTEGER"
				}
			}
			out.Members = slices.Insert(out.Members, 0, member{Key: "type", Val: jsonvalue.NewString(t)})
		}
		if out.Get("format") == nil {
			i := slices.IndexFunc(out.Members, func(m member) bool { return m.Key == "enum" })
			out.Members = slices.Insert(out.Members, i, member{Key: "format", Val: jsonvalue.NewString("enum")})
		}
	}
	if nullable && out.Get("type") == nil && out.Get("anyOf") == nil {
		out.Members = slices.Insert(out.Members, 0, member{Key: "type", Val: jsonvalue.NewString("NULL")}) // enum:[null] or const:null
	}
	if nullable {
		i := slices.IndexFunc(out.Members, func(m member) bool { return m.Key == "type" })
		out.Members = slices.Insert(out.Members, i+1, member{Key: "nullable", Val: jsonvalue.NewBool(true)})
	}
	return out, nil
}

// nullSchema reports whether s is {"type":"null"}, give or take
// annotations: the null branch of a nullable anyOf.
func nullSchema(s *value) bool {
	t := s.Get("type")
	return t.IsString() && t.Text == "null" && onlyAnnotations(s, "type")
}

// onlyAnnotations reports whether s has no keyword but except and
// annotations.
func onlyAnnotations(s *value, except string) bool {
	for _, m := range s.Members {
		if m.Key != except && !slices.Contains(annotations, m.Key) {
			return false
		}
	}
	return true
}

func allIntegers(enum *value) bool {
	for _, e := range enum.Items {
		if r, ok := new(big.Rat).SetString(e.Text); !ok || !r.IsInt() {
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
