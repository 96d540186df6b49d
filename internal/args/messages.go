package args

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	rs "github.com/toolreg/toolreg/internal/reflectschema"
	"github.com/toolreg/toolreg/internal/suggest"
)

// The wording of every problem, shared by both paths so that the model
// reads the same message whichever path found it. Values the model sent
// appear as snippets: compact JSON, cut at snippetMax bytes.

const snippetMax = 60

func msgRequired(f *rs.Field) string {
	msg := "required field is missing"
	if f != nil {
		msg += "; expected " + describeType(f.Shape)
	}
	return msg
}

func msgUnknown(name string, allowed []string) string {
	msg := "unknown field"
	if s := suggest.Closest(name, allowed); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	if len(allowed) > 0 {
		return msg + "; allowed fields: " + strings.Join(allowed, ", ")
	}
	return msg + "; this object takes no fields"
}

// msgOptionalNull is what a model reads after a type error for null sent
// as an optional field that is not nullable: leaving the field out is
// what it meant.
func msgOptionalNull(msg string, f *rs.Field) string {
	return msg + "; the field is optional: leave it out instead of sending null, or send " + describeType(f.Shape)
}

// msgOptionalNullOf is msgOptionalNull for a property without a Go type
// behind it, which the schema's own types describe.
func msgOptionalNullOf(msg string, want []string) string {
	return msg + "; the field is optional: leave it out instead of sending null, or send " + strings.Join(want, " or ")
}

func msgType(want []string, got string) string {
	return fmt.Sprintf("expected %s, got %s", strings.Join(want, " or "), got)
}

func msgEnum(got string, allowed []string) string {
	return fmt.Sprintf("%s is not allowed; allowed values: %s", got, strings.Join(allowed, ", "))
}

func msgConst(got, want string) string {
	return fmt.Sprintf("must be %s, got %s", want, got)
}

func msgMinimum(got, want string) string {
	return fmt.Sprintf("%s is less than the minimum %s", got, want)
}

func msgMaximum(got, want string) string {
	return fmt.Sprintf("%s is greater than the maximum %s", got, want)
}

func msgExclusiveMinimum(got, want string) string {
	return fmt.Sprintf("%s must be greater than %s", got, want)
}

func msgExclusiveMaximum(got, want string) string {
	return fmt.Sprintf("%s must be less than %s", got, want)
}

func msgMultipleOf(got, want string) string {
	return fmt.Sprintf("%s is not a multiple of %s", got, want)
}

func msgMinLength(got string, n, want int) string {
	return fmt.Sprintf("%s is %d characters long; the minimum is %d", got, n, want)
}

func msgMaxLength(n, want int) string {
	return fmt.Sprintf("the string is %d characters long; the maximum is %d", n, want)
}

func msgMinItems(n, want int) string {
	return fmt.Sprintf("the array has %d items; the minimum is %d", n, want)
}

func msgMaxItems(n, want int) string {
	return fmt.Sprintf("the array has %d items; the maximum is %d", n, want)
}

func msgUniqueItems(i, j int) string {
	return fmt.Sprintf("items at %d and %d are equal; the items must be unique", i, j)
}

func msgPattern(at *rs.Shape, got, pattern string) string {
	switch {
	case at != nil && at.Kind == rs.Time:
		return fmt.Sprintf("%s is not an RFC 3339 date-time; write e.g. \"2025-01-31T15:04:05Z\" (upper-case T and Z, or an offset such as +02:00)", got)
	case at != nil && at.Kind == rs.Bytes:
		return fmt.Sprintf("%s is not padded standard base64", got)
	}
	return fmt.Sprintf("%s does not match the pattern %s", got, pattern)
}

func msgFormat(got, format string) string {
	return fmt.Sprintf("%s is not a valid %s", got, format)
}

// describeType names what a value of shape s looks like in JSON.
func describeType(s *rs.Shape) string {
	for s.Kind == rs.Pointer {
		s = s.Elem
	}
	switch s.Kind {
	case rs.String:
		return "a string"
	case rs.Bool:
		return "true or false"
	case rs.Int, rs.Uint:
		return "an integer"
	case rs.Float, rs.Number:
		return "a number"
	case rs.Struct:
		return "an object with fields " + strings.Join(s.FieldNames(), ", ")
	case rs.Slice, rs.Array:
		return "an array"
	case rs.Map:
		return "an object"
	case rs.Time:
		return `an RFC 3339 date-time string such as "2025-01-31T15:04:05Z"`
	case rs.Bytes:
		return "a base64 string"
	}
	return "a JSON value"
}

// snippet shows a parsed value the model sent, shortened so that a huge
// argument does not flood the message.
func snippet(v any) string {
	b, err := encodeValue(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return cut(b)
}

// snippetRaw is snippet for a value still in its bytes. A value that is not
// large is parsed and shown exactly as snippet shows it; a large one only
// compacted up to the cut, so that showing it costs little, unless it holds
// an object or an escape: snippet shows an object's members in sorted order
// and a string's characters re-encoded, and the model's bytes need not be
// in that order or that encoding, so such a value is parsed whatever its
// length (at most once per problem, and the problems are bounded).
func snippetRaw(raw []byte) string {
	if len(raw) <= 4*snippetMax || bytes.IndexAny(raw, "{\\") >= 0 {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) == nil {
			return snippet(v)
		}
	}
	var b bytes.Buffer
	inString := false
	for i := 0; i < len(raw) && b.Len() <= snippetMax; i++ {
		c := raw[i]
		switch {
		case inString:
			if c == '\\' && i+1 < len(raw) {
				b.WriteByte(c)
				i++
				c = raw[i]
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			continue
		}
		b.WriteByte(c)
	}
	return cut(b.Bytes())
}

func cut(b []byte) string {
	if len(b) > snippetMax {
		return string(b[:snippetMax]) + "…"
	}
	return string(b)
}

// encodeValue writes a parsed JSON value back as compact JSON, without
// HTML escaping.
func encodeValue(x any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(x); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// path is the location of a value inside the arguments, kept as steps and
// written as the model would write it (stops[2].name) only for a message.
type path []step

// step is one member name or array index of a path.
type step struct {
	name    string
	index   int
	isIndex bool
}

func key(name string) step { return step{name: name} }

func index(i int) step { return step{index: i, isIndex: true} }

func (p path) String() string {
	var b strings.Builder
	for _, s := range p {
		if s.isIndex {
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteString(".")
		}
		b.WriteString(pathKey(s.name))
	}
	return b.String()
}

// joinPath appends a member name to a written path.
func joinPath(p, name string) string {
	if p == "" {
		return pathKey(name)
	}
	return p + "." + pathKey(name)
}

// pathKey writes a member name in a path: map keys that are not
// identifiers are quoted.
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
