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
// parametersJsonSchema/responseJsonSchema (geminiJSONRules in
// rules_test.go restates it). That list is written for
// responseJsonSchema; applying it to parametersJsonSchema is our
// inference.
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
// not break a cycle here: the docs name only non-required properties,
// and we read them literally.
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

// geminiSchema is what genai.Schema can hold (the field list of
// google.golang.org/genai v1.79.1 types.go Schema; geminiSchemaRules in
// rules_test.go restates it). The walker
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
// JSON shape. It builds new objects and leaves s alone: each keyword is
// rewritten on its own (genaiNode.keyword), then the object as a whole is
// settled (a nullable anyOf unwrapped, the enum typed, nullable marked).
func toGenai(s *value, path string) (*value, error) {
	n := &genaiNode{path: path}
	out := &value{Kind: jsonvalue.Object, Members: make([]member, 0, len(s.Members)+2)}
	for _, m := range s.Members {
		k, v, err := n.keyword(m.Key, m.Val)
		if err != nil {
			return nil, err
		}
		if v == nil {
			continue
		}
		if out.Get(k) != nil {
			return nil, errorf(path, "Gemini's Schema cannot express %s twice (enum beside const?)", k)
		}
		out.Members = append(out.Members, member{Key: k, Val: v})
	}
	out = unwrapNullable(out)
	n.typeEnum(out)
	n.markNullable(out)
	return out, nil
}

// genaiNode is one schema object being rewritten: what its keywords say
// beyond their own value, which the object as a whole must show.
type genaiNode struct {
	path     string
	nullable bool             // a null type, branch or enum value was dropped
	enumKind []jsonvalue.Kind // the JSON kinds of the enum values, before they became strings
}

// keyword rewrites one keyword of the object; a nil value drops it.
func (n *genaiNode) keyword(k string, v *value) (string, *value, error) {
	switch k {
	case "type":
		t, err := n.typeName(v)
		return k, t, err
	case "anyOf":
		return n.anyOf(v)
	case "enum", "const":
		return n.enum(k, v)
	case "additionalProperties":
		return k, nil, nil // always false here: an OpenAPI Schema object is closed
	case "properties":
		p, err := genaiProperties(v, n.path)
		return k, p, err
	case "items":
		i, err := toGenai(v, n.path+"[]")
		return k, i, err
	case "minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties":
		c, err := genaiCount(k, v, n.path)
		return k, c, err
	case "minimum", "maximum":
		// Every bound a float64 cannot hold is 2^53 or more in
		// magnitude, and omitted before this (see omitted).
		if v.Kind != jsonvalue.Number {
			return k, nil, errorf(n.path, "%s must be a number", k)
		}
	}
	return k, v, nil
}

// typeName is the one upper-case type of a type keyword; a null among
// several types makes the object nullable instead.
func (n *genaiNode) typeName(v *value) (*value, error) {
	var names []string
	if v.IsString() {
		names = []string{v.Text}
	} else {
		for _, t := range v.Items {
			names = append(names, t.Text)
		}
	}
	var rest []string
	for _, name := range names {
		if name == "null" {
			n.nullable = true
		} else if !slices.Contains(rest, name) {
			rest = append(rest, name)
		}
	}
	switch len(rest) {
	case 0:
		return jsonvalue.NewString("NULL"), nil
	case 1:
		return jsonvalue.NewString(strings.ToUpper(rest[0])), nil
	}
	return nil, errorf(n.path, "Gemini's Schema cannot express a value of several types (%s)", strings.Join(rest, ", "))
}

// anyOf rewrites the branches, dropping the null ones (the object becomes
// nullable); with no other branch left, the object is of type NULL.
func (n *genaiNode) anyOf(v *value) (string, *value, error) {
	branches := &value{Kind: jsonvalue.Array}
	wrapper := len(v.Items) == 2 && nullSchema(v.Items[1]) // the branch keeps the property's path
	for i, b := range v.Items {
		if nullSchema(b) {
			n.nullable = true
			continue
		}
		bp := n.path + ".anyOf[" + strconv.Itoa(i) + "]"
		if wrapper {
			bp = n.path
		}
		gb, err := toGenai(b, bp)
		if err != nil {
			return "", nil, err
		}
		branches.Items = append(branches.Items, gb)
	}
	if len(branches.Items) == 0 {
		return "type", jsonvalue.NewString("NULL"), nil
	}
	return "anyOf", branches, nil
}

// enum rewrites an enum, or a const as a one-value enum, into strings; a
// null value makes the object nullable instead. An enum of null alone is
// dropped.
func (n *genaiNode) enum(k string, v *value) (string, *value, error) {
	list := v.Items
	if k == "const" {
		list = []*value{v}
	}
	vals := &value{Kind: jsonvalue.Array}
	for _, e := range list {
		switch e.Kind {
		case jsonvalue.Null:
			n.nullable = true
		case jsonvalue.String, jsonvalue.Number:
			vals.Items = append(vals.Items, jsonvalue.NewString(e.Text))
			n.enumKind = append(n.enumKind, e.Kind)
		default:
			return "", nil, errorf(n.path, "Gemini's Schema takes only string enum values (and numbers, written as strings); %s cannot be expressed", e.Encode())
		}
	}
	if len(vals.Items) == 0 {
		return "enum", nil, nil
	}
	return "enum", vals, nil
}

// genaiProperties rewrites each property, refusing the names the Schema
// does not take.
func genaiProperties(v *value, path string) (*value, error) {
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
	return props, nil
}

// genaiCount writes a count keyword (minItems, maxLength, ...) as the JSON
// integer the Schema's int64 field decodes.
func genaiCount(k string, v *value, path string) (*value, error) {
	c, ok := integer(v)
	if !ok || c.Sign() < 0 || !c.IsInt64() {
		return nil, errorf(path, "%s must be an integer from 0 to %d for Gemini's Schema", k, int64(math.MaxInt64))
	}
	return &value{Kind: jsonvalue.Number, Text: c.String()}, nil
}

// unwrapNullable turns {"anyOf":[X,{"type":"null"}],"description":...},
// whose null branch is gone, into X with the description (nullable is
// marked later).
func unwrapNullable(out *value) *value {
	a := out.Get("anyOf")
	if a == nil || len(a.Items) != 1 || !onlyAnnotations(out, "anyOf") {
		return out
	}
	merged := &value{Kind: jsonvalue.Object, Members: append([]member(nil), a.Items[0].Members...)}
	for _, m := range out.Members {
		if m.Key != "anyOf" {
			merged.Set(m.Key, m.Val)
		}
	}
	return merged
}

// typeEnum gives an enum what the Schema asks of one: a type (from the
// values' kinds when the schema named none) and "format": "enum". Under
// type NULL only null is valid, and the enum goes.
func (n *genaiNode) typeEnum(out *value) {
	if t := out.Get("type"); t != nil && t.Text == "NULL" {
		out.Delete("enum") // only null is valid: the enum's other values fail the type
	}
	if out.Get("enum") == nil {
		return
	}
	if out.Get("type") == nil {
		t := "STRING"
		if !slices.Contains(n.enumKind, jsonvalue.String) {
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

// markNullable writes "nullable": true after the type, when null was
// allowed; an object that allowed only null (enum:[null], const:null) gets
// type NULL first.
func (n *genaiNode) markNullable(out *value) {
	if !n.nullable {
		return
	}
	if out.Get("type") == nil && out.Get("anyOf") == nil {
		out.Members = slices.Insert(out.Members, 0, member{Key: "type", Val: jsonvalue.NewString("NULL")})
	}
	i := slices.IndexFunc(out.Members, func(m member) bool { return m.Key == "type" })
	out.Members = slices.Insert(out.Members, i+1, member{Key: "nullable", Val: jsonvalue.NewBool(true)})
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
