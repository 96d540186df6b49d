package dialect

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/toolreg/toolreg/internal/jsonvalue"
	"github.com/toolreg/toolreg/internal/reflectschema"
)

// Every model request carries every tool's schema, so each keyword is paid
// for in tokens on every call. The canonical schema holds the full truth,
// including keywords that only restate what its type or format already
// says; the lowered schemas leave those out. That loses nothing: calls are
// validated against the canonical schema, never the lowered one, and a
// model that crosses an omitted bound gets the validator's message, which
// names the bound.

// Compact lowers a canonical schema for a provider that takes draft 2020-12
// as it is: OpenAI without strict mode and MCP. It is the canonical schema
// less what every dialect here leaves out (see omitted) and less the
// keywords meant for tooling rather than models ($schema, $id, $comment,
// x-*).
func Compact(schema json.RawMessage) (json.RawMessage, error) {
	root, err := parseSchema(schema)
	if err != nil {
		return nil, err
	}
	return compact(root).Encode(), nil
}

// compact is Compact on a parsed schema.
func compact(root *value) *value {
	return prune(root, func(s *value, m member) bool { return tooling(m.Key) || omitted(s, m) })
}

// omitted reports whether every dialect leaves the member m of schema s out
// of what the model reads:
//
//   - a numeric bound at the own limit of a Go number type of 32 bits or
//     more: the int32 and uint32 limits, and any bound of 2^53 or more in
//     magnitude (the limits of int, int64, uint, uint64, float32 and
//     float64). No argument a model means to send comes near them; the
//     few that do (a byte count past 2 GiB in an int32) are refused with
//     the limit named. Beyond 2^53 a JSON number no longer names one
//     float64, so many readers of the schema could not even hold the bound
//     exactly. The narrow types' limits (int8 to uint16) stay, and so does
//     every other bound, minimum 0 of an unsigned type included: values a
//     model may well send cross them.
//   - a pattern that only spells out the grammar a keyword beside it
//     already names: the core's RFC 3339 pattern beside format date-time,
//     its base64 pattern beside contentEncoding base64.
func omitted(s *value, m member) bool {
	omit := omissions[m.Key]
	return omit != nil && omit(s, m.Val)
}

// omissions holds, by keyword, when every dialect leaves it out of schema s
// (see omitted).
var omissions = map[string]func(s, v *value) bool{
	"minimum":          typeLimit,
	"maximum":          typeLimit,
	"exclusiveMinimum": typeLimit,
	"exclusiveMaximum": typeLimit,
	"pattern":          namedPattern,
}

// namedPattern reports whether the pattern v of schema s is one of
// namedPatterns, beside the keyword that names it.
func namedPattern(s, v *value) bool {
	for _, np := range namedPatterns {
		if k := s.Get(np.keyword); k.IsString() && k.Text == np.value && v.IsString() && v.Text == np.pattern {
			return true
		}
	}
	return false
}

// namedPatterns are the patterns the core writes beside a keyword that
// names the same grammar.
var namedPatterns = []struct{ keyword, value, pattern string }{
	{"format", "date-time", reflectschema.RFC3339Pattern},
	{"contentEncoding", "base64", reflectschema.Base64Pattern},
}

// typeLimit reports whether the bound v is at the limit of a Go number
// type of 32 bits or more (see omitted). It reads v as a float64: exact for
// the int32 limits and for 2^53, and fast on any literal, 1e1000000
// included.
func typeLimit(_, v *value) bool {
	if v.Kind != jsonvalue.Number {
		return false
	}
	f, err := strconv.ParseFloat(v.Text, 64)
	if err != nil && !math.IsInf(f, 0) {
		return false
	}
	switch f {
	case math.MinInt32, math.MaxInt32, math.MaxUint32:
		return true
	}
	return math.Abs(f) >= 1<<53
}

// tooling reports whether a keyword is addressed to tools rather than
// validators or models.
func tooling(key string) bool {
	return key == "$schema" || key == "$id" || key == "$comment" || strings.HasPrefix(key, "x-")
}

// prune returns s without the members drop reports, in s and every
// subschema; what is left is shared with s, which is not changed.
func prune(s *value, drop func(s *value, m member) bool) *value {
	if s.Kind != jsonvalue.Object {
		return s
	}
	out := &value{Kind: jsonvalue.Object, Members: make([]member, 0, len(s.Members))}
	for _, m := range s.Members {
		if drop(s, m) {
			continue
		}
		k, v := m.Key, m.Val
		switch {
		case schemaMapKeywords[k] && v.Kind == jsonvalue.Object:
			nv := &value{Kind: jsonvalue.Object, Members: make([]member, len(v.Members))}
			for i, p := range v.Members {
				nv.Members[i] = member{Key: p.Key, Val: prune(p.Val, drop)}
			}
			v = nv
		case schemaListKeywords[k] && v.Kind == jsonvalue.Array:
			nv := &value{Kind: jsonvalue.Array, Items: make([]*value, len(v.Items))}
			for i, e := range v.Items {
				nv.Items[i] = prune(e, drop)
			}
			v = nv
		case schemaKeywords[k]:
			v = prune(v, drop)
		}
		out.Members = append(out.Members, member{Key: k, Val: v})
	}
	typeFirst(out)
	return out
}

// typeFirst moves the type keyword of schema s to the front, where JSON
// Schema is usually written and where the model reads the kind before the
// details. It also tokenizes shorter: o200k reads
// {"type":"array","items":{…}} in two tokens fewer than
// {"items":{…},"type":"array"}. Every dialect writes its schemas so.
func typeFirst(s *value) {
	for i, m := range s.Members {
		if m.Key == "type" && i > 0 {
			copy(s.Members[1:i+1], s.Members[:i])
			s.Members[0] = m
			return
		}
	}
}

// The draft 2020-12 keywords whose values hold subschemas.
var (
	schemaKeywords = set("additionalProperties", "items", "contains", "not", "if", "then", "else",
		"propertyNames", "unevaluatedItems", "unevaluatedProperties", "additionalItems")
	schemaListKeywords = set("anyOf", "oneOf", "allOf", "prefixItems")
	schemaMapKeywords  = set("properties", "patternProperties", "$defs", "dependentSchemas")
)

func set(keys ...string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}
