package dialect

import (
	"encoding/json"
	"fmt"

	"github.com/toolreg/toolreg/internal/jsonvalue"
)

// openAIStrict is the Structured Outputs subset (OpenAI's supported-schemas
// page as of 2025-11-30; openAIStrictRules in rules_test.go restates it).
var openAIStrict = &rules{
	name: "OpenAI strict mode",
	keywords: keywords(
		concat(structural, []string{"pattern", "format", "multipleOf", "maximum", "exclusiveMaximum",
			"minimum", "exclusiveMinimum", "minItems", "maxItems"}),
		// minLength/maxLength appear only in the fine-tuned-model exclusion
		// list, never in the supported list: described, the safe choice. default is rejected ("'default' is not
		// permitted", observed) but tells the model what omitting means.
		[]string{"minLength", "maxLength", "uniqueItems", "minProperties", "maxProperties",
			"contentEncoding", "contentMediaType", "dependentRequired", "default"},
		concat(applicators, []string{"prefixItems"}),
	),
	formats:  map[string]bool{"date-time": true, "time": true, "date": true, "duration": true, "email": true, "hostname": true, "ipv4": true, "ipv6": true, "uuid": true},
	minItems: -1,
	enum:     func(*value) bool { return true },
	closed:   true,
	required: true,
	toAnyOf:  true,
	typeDown: true,
}

// OpenAIStrict lowers a canonical schema for an OpenAI function tool with
// "strict": true (Chat Completions and Responses alike).
//
// Every object is closed and lists every property in required; a property
// that was optional takes null instead (["integer","null"], or an anyOf
// with {"type":"null"}), so use NewNullStripper on the calls. oneOf becomes
// anyOf, a $ref with sibling keywords is inlined, $defs are kept (strict
// mode supports recursion). minLength, maxLength, default, formats outside
// the supported nine and the like are moved into the description.
//
// It refuses, with an *Error naming the property: maps and free-form
// objects, "any" values (true or {}), allOf of several schemas, not,
// if/then/else, patternProperties, prefixItems, and schemas over the
// documented limits (5000 properties, 10 levels of objects, 1000 enum
// values, 120,000 characters of names and enum values).
func OpenAIStrict(schema json.RawMessage) (json.RawMessage, error) {
	out, err := lower(schema, openAIStrict)
	if err != nil {
		return nil, err
	}
	if err := checkOpenAILimits(out); err != nil {
		return nil, err
	}
	return out.Encode(), nil
}

// OpenAI's documented limits on a strict schema.
const (
	openAIMaxProperties = 5000
	openAIMaxDepth      = 10 // nesting levels; the root object counts as the first (our reading)
	openAIMaxEnumValues = 1000
	openAIMaxChars      = 120_000
	openAIBigEnum       = 250    // a string enum with more values than this...
	openAIBigEnumChars  = 15_000 // ...may total at most this many characters
)

// checkOpenAILimits measures a lowered schema against OpenAI's limits.
func checkOpenAILimits(root *value) error {
	var props, enums, chars int
	var walk func(s *value, path string) error
	walk = func(s *value, path string) error {
		if s.Kind != jsonvalue.Object {
			return nil
		}
		if p := s.Get("properties"); p != nil {
			props += len(p.Members)
			for _, m := range p.Members {
				chars += len(m.Key)
			}
		}
		if e := s.Get("enum"); e != nil {
			enums += len(e.Items)
			n := 0
			for _, v := range e.Items {
				n += valueChars(v)
			}
			chars += n
			if len(e.Items) > openAIBigEnum && n > openAIBigEnumChars {
				return errorf(path, "OpenAI strict mode allows at most %d characters in an enum of more than %d values; this one has %d values and %d characters", openAIBigEnumChars, openAIBigEnum, len(e.Items), n)
			}
		}
		if c := s.Get("const"); c != nil {
			chars += valueChars(c)
		}
		return eachSubschema(s, path, walk)
	}
	if err := walk(root, ""); err != nil {
		return err
	}
	if defs := root.Get("$defs"); defs != nil {
		for _, m := range defs.Members {
			chars += len(m.Key)
			if err := walk(m.Val, "$defs."+m.Key); err != nil {
				return err
			}
		}
	}
	switch {
	case props > openAIMaxProperties:
		return overLimit(ErrOpenAIProperties, "", "OpenAI strict mode allows at most %d object properties in all; this schema has %d: split the tool, or send it without strict", openAIMaxProperties, props)
	case enums > openAIMaxEnumValues:
		return errorf("", "OpenAI strict mode allows at most %d enum values in all; this schema has %d", openAIMaxEnumValues, enums)
	case chars > openAIMaxChars:
		return errorf("", "OpenAI strict mode allows at most %d characters of property names, definition names, enum and const values in all; this schema has %d", openAIMaxChars, chars)
	}
	if depth, path := objectDepth(root); depth > openAIMaxDepth {
		return overLimit(ErrOpenAIDepth, path, "OpenAI strict mode allows at most %d levels of nested objects; this schema has %d: flatten the arguments, or send the tool without strict", openAIMaxDepth, depth)
	}
	return nil
}

// valueChars counts the characters of an enum or const value: the text of
// a string, the JSON of anything else.
func valueChars(v *value) int {
	if v.IsString() {
		return len([]rune(v.Text))
	}
	return len(v.Encode())
}

// objectDepth is the deepest nesting of object schemas under root, and the
// path where it is reached. A $ref counts as its definition's depth, each
// definition measured once (a definition shared by many properties would
// otherwise be walked once per path, exponentially); a $ref back into a
// definition being measured counts as nothing.
func objectDepth(root *value) (int, string) {
	d := newDoc(root)
	type result struct {
		depth int
		path  string // relative to the definition
	}
	memo := map[string]result{}
	active := map[string]bool{"#": true}
	var depth func(s *value, path string) (int, string)
	depth = func(s *value, path string) (int, string) {
		if s.Kind != jsonvalue.Object {
			return 0, path
		}
		if ref := s.Get("$ref"); ref.IsString() {
			name, target, err := d.resolve(ref.Text, path)
			if err != nil || active[name] {
				return 0, path
			}
			r, ok := memo[name]
			if !ok {
				active[name] = true
				r.depth, r.path = depth(target, "")
				delete(active, name)
				memo[name] = r
			}
			if r.path == "" {
				return r.depth, path
			}
			return r.depth, joinPath(path, r.path)
		}
		best, at := 0, path
		eachSubschema(s, path, func(c *value, p string) error {
			if n, np := depth(c, p); n > best {
				best, at = n, np
			}
			return nil
		})
		if isObject(s) {
			best++
		}
		return best, at
	}
	return depth(root, "")
}

// eachSubschema calls fn on each direct subschema of a lowered schema s
// (not $defs), with its path.
func eachSubschema(s *value, path string, fn func(*value, string) error) error {
	for _, m := range s.Members {
		switch m.Key {
		case "properties":
			for _, p := range m.Val.Members {
				if err := fn(p.Val, joinPath(path, p.Key)); err != nil {
					return err
				}
			}
		case "items":
			if err := fn(m.Val, path+"[]"); err != nil {
				return err
			}
		case "additionalProperties":
			if err := fn(m.Val, path+"{}"); err != nil {
				return err
			}
		case "anyOf", "oneOf", "prefixItems":
			// The branches of a nullable wrapper, {"anyOf":[X,{"type":"null"}]},
			// keep the path of the property: X is the property.
			wrapper := m.Key == "anyOf" && len(m.Val.Items) == 2 && nullSchema(m.Val.Items[1])
			for i, b := range m.Val.Items {
				p := fmt.Sprintf("%s[%d]", path, i)
				if wrapper {
					p = path
				} else if m.Key != "prefixItems" {
					p = fmt.Sprintf("%s.%s[%d]", path, m.Key, i)
				}
				if err := fn(b, p); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
