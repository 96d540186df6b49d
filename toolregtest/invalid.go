package toolregtest

import (
	"encoding/json"
	"math/big"
	"strings"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/internal/jsonvalue"
)

// InvalidKind is the one fault of an Invalid: what a model gets wrong.
type InvalidKind string

// The faults InvalidArguments makes.
const (
	MissingField InvalidKind = "missing required field"
	WrongType    InvalidKind = "wrong type"
	OutOfBounds  InvalidKind = "out of bounds"
)

// Invalid is arguments a model might send by mistake: valid ones with one
// fault of Kind at Field (a top-level field, as toolreg names it in the
// message the model reads).
type Invalid struct {
	Kind  InvalidKind
	Field string
	Args  json.RawMessage
}

// InvalidArguments returns arguments for tool with one fault each: a
// required field left out, a field of the wrong type, a field out of its
// bounds (a number past its minimum or maximum, a string or array past its
// length, a value outside its enum). Each is made from ArgumentsSeed(tool,
// seed) and each is refused by the tool's own validator; a fault the
// schema leaves no room for (no required field, no bound) is not among
// them, so the result may be empty.
//
// Use it to see what a model reads when it gets a call wrong, and that the
// message names the field to fix (AssertRejected(t, tool, string(x.Args),
// x.Field)); fakemodel.WithInvalidCalls sends them through a whole run.
func InvalidArguments(tool toolreg.AnyTool, seed uint64) ([]Invalid, error) {
	valid, err := ArgumentsSeed(tool, seed)
	if err != nil {
		return nil, err
	}
	g, err := newGenerator(tool.InputSchema(), seed)
	if err != nil {
		return nil, err
	}
	doc, err := jsonvalue.Parse(valid)
	if err != nil || doc.Kind != jsonvalue.Object {
		return nil, err
	}
	root := g.deref(g.root)
	var out []Invalid
	refused := func(kind InvalidKind, field string, v *jsonvalue.Value) bool {
		b := json.RawMessage(v.Encode())
		if checkArguments(tool, g.validator, b) == nil {
			return false
		}
		out = append(out, Invalid{Kind: kind, Field: field, Args: b})
		return true
	}
	for _, r := range arrayAt(root, "required") {
		if r.IsString() && doc.Get(r.Text) != nil && refused(MissingField, r.Text, without(doc, r.Text)) {
			break
		}
	}
	for _, m := range doc.Members {
		if w := wrongType(m.Val); refused(WrongType, m.Key, replaced(doc, m.Key, w)) {
			break
		}
	}
bounds:
	for _, m := range doc.Members {
		s := g.deref(root.Get("properties").Get(m.Key))
		for _, w := range outOfBounds(s, m.Val) {
			if refused(OutOfBounds, m.Key, replaced(doc, m.Key, w)) {
				break bounds
			}
		}
	}
	return out, nil
}

// replaced is a copy of the object doc with key's value v.
func replaced(doc *jsonvalue.Value, key string, v *jsonvalue.Value) *jsonvalue.Value {
	out := jsonvalue.NewObject(append([]jsonvalue.Member(nil), doc.Members...)...)
	out.Set(key, v)
	return out
}

// wrongType is a value of another JSON type than v.
func wrongType(v *jsonvalue.Value) *jsonvalue.Value {
	switch v.Kind {
	case jsonvalue.String:
		return &jsonvalue.Value{Kind: jsonvalue.Number, Text: "12345"}
	case jsonvalue.Number:
		return jsonvalue.NewString("not a number")
	case jsonvalue.Bool:
		return jsonvalue.NewString("yes")
	case jsonvalue.Null:
		return &jsonvalue.Value{Kind: jsonvalue.Number, Text: "0"}
	}
	return jsonvalue.NewString("text")
}

// outOfBounds are values just past the bounds of s, v being a value within
// them.
func outOfBounds(s, v *jsonvalue.Value) []*jsonvalue.Value {
	if s == nil || s.Kind != jsonvalue.Object {
		return nil
	}
	var out []*jsonvalue.Value
	if e := arrayAt(s, "enum"); len(e) > 0 && v.Kind == jsonvalue.String {
		out = append(out, jsonvalue.NewString(v.Text+"_not_listed"))
	}
	one := big.NewRat(1, 1)
	if hi, _ := bound(s, "maximum", "exclusiveMaximum", true); hi != nil {
		out = append(out, numberValue(new(big.Rat).Add(hi, one)))
	}
	if lo, _ := bound(s, "minimum", "exclusiveMinimum", false); lo != nil {
		out = append(out, numberValue(new(big.Rat).Sub(lo, one)))
	}
	if maxL := intAt(s, "maxLength", -1); maxL >= 0 && maxL < 1<<16 {
		out = append(out, jsonvalue.NewString(strings.Repeat("x", maxL+1)))
	}
	if minL := intAt(s, "minLength", 0); minL > 0 {
		out = append(out, jsonvalue.NewString(strings.Repeat("x", minL-1)))
	}
	if maxI := intAt(s, "maxItems", -1); maxI >= 0 && maxI < 1<<16 && v.Kind == jsonvalue.Array && len(v.Items) > 0 {
		items := make([]*jsonvalue.Value, maxI+1)
		for i := range items {
			items[i] = v.Items[i%len(v.Items)]
		}
		out = append(out, jsonvalue.NewArray(items...))
	}
	if intAt(s, "minItems", 0) > 0 {
		out = append(out, jsonvalue.NewArray())
	}
	return out
}
