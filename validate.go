package toolreg

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	vkind "github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// compileSchema compiles a canonical schema once, at declaration, as draft
// 2020-12 with formats asserted (date-time, ipv4, ...).
func compileSchema(schema json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, err
	}
	const url = "mem:///arguments.schema.json"
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

var printer = message.NewPrinter(language.English)

// problems turns a validation error into one Problem per offending value,
// worded for the model: where, what was expected, what was given, and what
// is allowed.
func problems(err error, instance any, plan *node) []Problem {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return []Problem{{Message: err.Error()}}
	}
	var out []Problem
	seen := map[Problem]bool{}
	var visit func(e *jsonschema.ValidationError)
	visit = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				// The null branch of a nullable field says nothing useful.
				if t, ok := c.ErrorKind.(*vkind.Type); ok && len(t.Want) == 1 && t.Want[0] == "null" && len(e.Causes) > 1 {
					continue
				}
				visit(c)
			}
			return
		}
		for _, p := range describeProblem(e, instance, plan) {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	visit(ve)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func describeProblem(e *jsonschema.ValidationError, instance any, plan *node) []Problem {
	loc := e.InstanceLocation
	path := instancePath(instance, loc)
	value := valueAt(instance, loc)
	at := planAt(plan, loc)
	one := func(msg string) []Problem { return []Problem{{Path: path, Message: msg}} }
	switch k := e.ErrorKind.(type) {
	case *vkind.Required:
		var out []Problem
		for _, name := range k.Missing {
			msg := "required field is missing"
			if f := fieldOf(at, name); f != nil {
				msg += "; expected " + describeType(f.plan)
			}
			out = append(out, Problem{Path: joinInstancePath(path, name), Message: msg})
		}
		return out
	case *vkind.AdditionalProperties:
		allowed := fieldNames(at)
		var out []Problem
		for _, name := range k.Properties {
			msg := "unknown field"
			if s := closest(name, allowed); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			if len(allowed) > 0 {
				msg += "; allowed fields: " + strings.Join(allowed, ", ")
			} else {
				msg += "; this object takes no fields"
			}
			out = append(out, Problem{Path: joinInstancePath(path, name), Message: msg})
		}
		return out
	case *vkind.Type:
		return one(fmt.Sprintf("expected %s, got %s", strings.Join(k.Want, " or "), snippet(value)))
	case *vkind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = snippet(w)
		}
		return one(fmt.Sprintf("%s is not allowed; allowed values: %s", snippet(value), strings.Join(want, ", ")))
	case *vkind.Const:
		return one(fmt.Sprintf("must be %s, got %s", snippet(k.Want), snippet(value)))
	case *vkind.Minimum:
		return one(fmt.Sprintf("%s is less than the minimum %s", snippet(value), ratString(k.Want)))
	case *vkind.Maximum:
		return one(fmt.Sprintf("%s is greater than the maximum %s", snippet(value), ratString(k.Want)))
	case *vkind.ExclusiveMinimum:
		return one(fmt.Sprintf("%s must be greater than %s", snippet(value), ratString(k.Want)))
	case *vkind.ExclusiveMaximum:
		return one(fmt.Sprintf("%s must be less than %s", snippet(value), ratString(k.Want)))
	case *vkind.MinLength:
		return one(fmt.Sprintf("%s is %d characters long; the minimum is %d", snippet(value), k.Got, k.Want))
	case *vkind.MaxLength:
		return one(fmt.Sprintf("the string is %d characters long; the maximum is %d", k.Got, k.Want))
	case *vkind.MinItems:
		return one(fmt.Sprintf("the array has %d items; the minimum is %d", k.Got, k.Want))
	case *vkind.MaxItems:
		return one(fmt.Sprintf("the array has %d items; the maximum is %d", k.Got, k.Want))
	case *vkind.Pattern:
		if at != nil && at.kind == kTime {
			return one(fmt.Sprintf("%s is not an RFC 3339 date-time; write e.g. \"2025-01-31T15:04:05Z\" (upper-case T and Z, or an offset such as +02:00)", snippet(value)))
		}
		if at != nil && at.kind == kBytes {
			return one(fmt.Sprintf("%s is not padded standard base64", snippet(value)))
		}
		return one(fmt.Sprintf("%s does not match the pattern %s", snippet(value), k.Want))
	case *vkind.Format:
		return one(fmt.Sprintf("%s is not a valid %s", snippet(value), k.Want))
	}
	return one(e.ErrorKind.LocalizedString(printer))
}

func ratString(r interface{ FloatString(int) string }) string {
	s := r.FloatString(6)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// snippet shows a value the model sent, shortened so that a huge argument
// does not flood the message.
func snippet(v any) string {
	b, err := encodeValue(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	const max = 60
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}

// instancePath writes a location inside the arguments as the model would
// write it: stops[2].name; map keys that are not identifiers are quoted.
func instancePath(instance any, loc []string) string {
	var b strings.Builder
	cur := instance
	for _, tok := range loc {
		switch c := cur.(type) {
		case []any:
			b.WriteString("[" + tok + "]")
			if i, err := strconv.Atoi(tok); err == nil && i < len(c) {
				cur = c[i]
			}
			continue
		case map[string]any:
			cur = c[tok]
		}
		if b.Len() > 0 {
			b.WriteString(".")
		}
		b.WriteString(pathKey(tok))
	}
	return b.String()
}

func joinInstancePath(path, name string) string {
	if path == "" {
		return pathKey(name)
	}
	return path + "." + pathKey(name)
}

func pathKey(name string) string {
	for i, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && (c >= '0' && c <= '9' || c == '-')) {
			return strconv.Quote(name)
		}
	}
	if name == "" {
		return `""`
	}
	return name
}

func valueAt(instance any, loc []string) any {
	cur := instance
	for _, tok := range loc {
		switch c := cur.(type) {
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i >= len(c) {
				return nil
			}
			cur = c[i]
		case map[string]any:
			cur = c[tok]
		default:
			return nil
		}
	}
	return cur
}

// planAt finds the plan of the value at loc, nil where the plan has none
// (inside an any or a hook type).
func planAt(n *node, loc []string) *node {
	for _, tok := range loc {
		for n != nil && n.kind == kPtr {
			n = n.elem
		}
		if n == nil {
			return nil
		}
		switch n.kind {
		case kStruct:
			f := fieldOf(n, tok)
			if f == nil {
				return nil
			}
			n = f.plan
		case kSlice, kArray, kMap:
			n = n.elem
		default:
			return nil
		}
	}
	for n != nil && n.kind == kPtr {
		n = n.elem
	}
	return n
}

func fieldOf(n *node, name string) *planField {
	if n == nil || n.kind != kStruct {
		return nil
	}
	i, ok := n.byName[name]
	if !ok {
		return nil
	}
	return &n.fields[i]
}

func fieldNames(n *node) []string {
	if n == nil || n.kind != kStruct {
		return nil
	}
	out := make([]string, len(n.fields))
	for i, f := range n.fields {
		out[i] = f.name
	}
	return out
}

// describeType names what a value of plan n looks like in JSON.
func describeType(n *node) string {
	for n.kind == kPtr {
		n = n.elem
	}
	switch n.kind {
	case kString:
		return "a string"
	case kBool:
		return "true or false"
	case kInt, kUint:
		return "an integer"
	case kFloat, kNumber:
		return "a number"
	case kStruct:
		return "an object with fields " + strings.Join(fieldNames(n), ", ")
	case kSlice, kArray:
		return "an array"
	case kMap:
		return "an object"
	case kTime:
		return `an RFC 3339 date-time string such as "2025-01-31T15:04:05Z"`
	case kBytes:
		return "a base64 string"
	}
	return "a JSON value"
}

// closest suggests the allowed name nearest to a misspelt one: the same
// name in other case first, then the nearest close enough to be a typo.
func closest(name string, allowed []string) string {
	best, bestD := "", 3
	for _, a := range allowed {
		if strings.EqualFold(a, name) {
			return a
		}
		// One edit, or more in a long name: "citi" → "city", not "country" → "count".
		if d := editDistance(name, a); d < bestD && (d == 1 || 4*d <= len(name)) {
			best, bestD = a, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
