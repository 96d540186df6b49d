package dialect

import (
	"encoding/json"

	"github.com/toolreg/toolreg/internal/jsonvalue"
)

// Anthropic lowers a canonical schema for the input_schema of an Anthropic
// tool without strict mode. That API takes any draft 2020-12 schema under a
// root of type object, so the schema is the one Compact makes.
//
// It refuses a root that is not type object or that has anyOf, oneOf or
// allOf ("input_schema does not support oneOf, allOf, or anyOf at the top
// level", observed).
func Anthropic(schema json.RawMessage) (json.RawMessage, error) {
	root, err := parseSchema(schema)
	if err != nil {
		return nil, err
	}
	if err := checkRoot(root, "Anthropic"); err != nil {
		return nil, err
	}
	return compact(root).Encode(), nil
}

// anthropicStrict is the strict tool use subset (Anthropic's
// structured-outputs docs and both SDKs' transforms; anthropicStrictRules
// in rules_test.go restates it).
var anthropicStrict = &rules{
	name: "Anthropic strict mode",
	keywords: keywords(
		concat(structural, []string{"pattern", "format", "minItems"}),
		[]string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
			"minLength", "maxLength", "maxItems", "uniqueItems", "minProperties", "maxProperties",
			"contentEncoding", "contentMediaType", "dependentRequired", "default"},
		concat(applicators, []string{"prefixItems"}),
	),
	formats: map[string]bool{"date-time": true, "time": true, "date": true, "duration": true, "email": true,
		"hostname": true, "uri": true, "ipv4": true, "ipv6": true, "uuid": true},
	pattern:  simplePattern,
	minItems: 1,
	enum:     func(v *value) bool { return v.Kind != jsonvalue.Object && v.Kind != jsonvalue.Array },
	enumWhat: "primitive values",
	inline:   true,
	closed:   true,
	toAnyOf:  true,
	typeDown: true,
}

// AnthropicStrict lowers a canonical schema for an Anthropic tool with
// "strict": true.
//
// Every object is closed; optional properties stay optional (strict mode
// allows them, unlike OpenAI's). oneOf becomes anyOf and every $ref is
// inlined. What strict mode does not enforce is moved into the description
// as the SDKs do ("...\n\n{minimum: 1, maximum: 7}"): numeric bounds,
// minLength/maxLength, maxItems, minItems above 1, default, formats outside
// the supported ten, and patterns using regex features the docs exclude.
//
// It refuses, with an *Error naming the property: recursive types, maps and
// free-form objects, "any" values, non-primitive enum values, allOf of
// several schemas, not, if/then/else, patternProperties, prefixItems, and
// a schema that alone passes the per-request limits of 24 optional
// properties or 16 properties using anyOf or type arrays.
func AnthropicStrict(schema json.RawMessage) (json.RawMessage, error) {
	out, err := lower(schema, anthropicStrict)
	if err != nil {
		return nil, err
	}
	if err := checkAnthropicLimits(out); err != nil {
		return nil, err
	}
	return out.Encode(), nil
}

// Anthropic's per-request limits on strict schemas. One schema alone over
// them can never be sent; the adapter checks the sum across tools.
const (
	anthropicMaxOptional = 24
	anthropicMaxUnions   = 16
)

// checkAnthropicLimits refuses a strict schema that alone passes a
// per-request limit.
func checkAnthropicLimits(root *value) error {
	optional, unions := anthropicCounts(root)
	switch {
	case optional > anthropicMaxOptional:
		return overLimit(ErrAnthropicOptional, "", "Anthropic strict mode allows at most %d optional properties across a request's strict tools; this schema alone has %d: make some required, or send the tool without strict", anthropicMaxOptional, optional)
	case unions > anthropicMaxUnions:
		return overLimit(ErrAnthropicUnions, "", "Anthropic strict mode allows at most %d properties using anyOf or type arrays across a request's strict tools; this schema alone has %d: send the tool without strict", anthropicMaxUnions, unions)
	}
	return nil
}

// AnthropicStrictCounts counts what a schema lowered by AnthropicStrict
// weighs against the per-request limits of strict tool use: the properties
// missing from their object's required list, and the schemas using anyOf
// or a type array, at any depth. Sum them over a request's strict tools to
// check the request as AnthropicStrict checks one schema alone.
func AnthropicStrictCounts(lowered json.RawMessage) (optional, unions int, err error) {
	root, err := parseSchema(lowered)
	if err != nil {
		return 0, 0, err
	}
	optional, unions = anthropicCounts(root)
	return optional, unions, nil
}

func anthropicCounts(root *value) (optional, unions int) {
	var walk func(s *value, path string) error
	walk = func(s *value, path string) error {
		if s.Kind != jsonvalue.Object {
			return nil
		}
		if p := s.Get("properties"); p != nil {
			req := map[string]bool{}
			if r := s.Get("required"); r != nil {
				for _, n := range r.Items {
					req[n.Text] = true
				}
			}
			for _, m := range p.Members {
				if !req[m.Key] {
					optional++
				}
			}
		}
		if s.Get("anyOf") != nil || s.Get("type") != nil && s.Get("type").Kind == jsonvalue.Array {
			unions++
		}
		return eachSubschema(s, path, walk)
	}
	walk(root, "")
	return optional, unions
}

// simplePattern reports whether a regular expression uses only the
// features Anthropic's strict mode documents: groups, classes, anchors,
// alternation and quantifiers. Backreferences, lookaround, word boundaries
// and other (?...) groups are excluded. The docs leave this open (the
// Go SDK keeps every pattern, the Python SDK moves every pattern into the
// description); keeping the simple ones is our reading.
func simplePattern(p string) bool {
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			if i+1 < len(p) {
				switch c := p[i+1]; {
				case c == 'b' || c == 'B' || c == 'k' || c == 'g' || c >= '1' && c <= '9':
					return false
				}
			}
			i++
		case '(':
			if i+1 < len(p) && p[i+1] == '?' {
				return false
			}
		}
	}
	return true
}
