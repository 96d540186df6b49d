// Package jsonvalue is the module's one in-memory JSON document: a decoded
// value that keeps the order of object members and the literal text of
// numbers. Use it where JSON is read to be rewritten or inspected in the
// order a model reads it (schema lowering, schema lint), and where a number
// such as 18446744073709551615 must be written back exactly; decode into Go
// types with encoding/json everywhere else.
//
// Reading and writing are jsontext's; this package only holds the tree.
package jsonvalue

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/go-json-experiment/json/jsontext"
)

// Kind is the JSON type of a Value.
type Kind uint8

// The JSON types.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

// Value is one JSON value. Only the fields of its Kind are set. Code that
// builds a new document from an old one makes new Values and shares the
// unchanged ones: treat a Value you were given as read-only.
type Value struct {
	Kind    Kind
	Bool    bool     // Bool
	Text    string   // String: the text; Number: the literal as written
	Items   []*Value // Array
	Members []Member // Object, in document order, names unique
}

// Member is one member of an object.
type Member struct {
	Key string
	Val *Value
}

// NewString returns a JSON string.
func NewString(s string) *Value { return &Value{Kind: String, Text: s} }

// NewBool returns true or false.
func NewBool(b bool) *Value { return &Value{Kind: Bool, Bool: b} }

// NewObject returns an object of the given members.
func NewObject(ms ...Member) *Value { return &Value{Kind: Object, Members: ms} }

// NewArray returns an array of the given elements.
func NewArray(vs ...*Value) *Value { return &Value{Kind: Array, Items: vs} }

// Get returns the member key of an object, or nil when v is nil, not an
// object, or has no such member.
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind != Object {
		return nil
	}
	for _, m := range v.Members {
		if m.Key == key {
			return m.Val
		}
	}
	return nil
}

// Set replaces the member key of an object in place, or appends it.
func (v *Value) Set(key string, val *Value) {
	for i, m := range v.Members {
		if m.Key == key {
			v.Members[i].Val = val
			return
		}
	}
	v.Members = append(v.Members, Member{key, val})
}

// Delete removes the member key of an object, if present. It does not
// write into the backing array of Members, which v may share.
func (v *Value) Delete(key string) {
	for i, m := range v.Members {
		if m.Key == key {
			v.Members = append(v.Members[:i:i], v.Members[i+1:]...)
			return
		}
	}
}

// IsString reports whether v is a JSON string.
func (v *Value) IsString() bool { return v != nil && v.Kind == String }

// Equal reports whether a and b are the same JSON value: objects whatever
// the order of their members, numbers by their literal text (1 and 1.0
// differ).
func Equal(a, b *Value) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case Null:
		return true
	case Bool:
		return a.Bool == b.Bool
	case Number, String:
		return a.Text == b.Text
	case Array:
		if len(a.Items) != len(b.Items) {
			return false
		}
		for i := range a.Items {
			if !Equal(a.Items[i], b.Items[i]) {
				return false
			}
		}
		return true
	}
	if len(a.Members) != len(b.Members) {
		return false
	}
	for i, m := range a.Members {
		w := b.Members[i].Val // the same order is the common case
		if b.Members[i].Key != m.Key {
			if w = b.Get(m.Key); w == nil {
				return false
			}
		}
		if !Equal(m.Val, w) {
			return false
		}
	}
	return true
}

// MaxDepth bounds the nesting of a document Parse accepts: no schema comes
// close, and it keeps the recursive reader off deep stacks.
const MaxDepth = 512

// ErrTooDeep is returned by Parse for a document nested more than MaxDepth
// levels deep.
var ErrTooDeep = fmt.Errorf("the JSON nests more than %d levels deep", MaxDepth)

// Parse decodes one JSON document. A name repeated in an object keeps its
// first position and its last value, as encoding/json would decode it;
// invalid UTF-8 in a string becomes U+FFFD.
func Parse(data []byte) (*Value, error) {
	dec := jsontext.NewDecoder(bytes.NewBuffer(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	v, err := read(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return nil, errors.New("data after the JSON value")
	}
	return v, nil
}

func read(dec *jsontext.Decoder, depth int) (*Value, error) {
	if depth > MaxDepth {
		return nil, ErrTooDeep
	}
	tok, err := dec.ReadToken()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	switch tok.Kind() {
	case 'n':
		return &Value{Kind: Null}, nil
	case 't', 'f':
		return NewBool(tok.Bool()), nil
	case '"':
		return NewString(tok.String()), nil
	case '0':
		return &Value{Kind: Number, Text: tok.String()}, nil
	case '[':
		v := &Value{Kind: Array}
		for dec.PeekKind() != ']' {
			el, err := read(dec, depth+1)
			if err != nil {
				return nil, err
			}
			v.Items = append(v.Items, el)
		}
		_, err := dec.ReadToken()
		return v, err
	case '{':
		v := &Value{Kind: Object}
		var index map[string]int // name → position, once the object is large
		for dec.PeekKind() != '}' {
			name, err := dec.ReadToken()
			if err != nil {
				return nil, err
			}
			key := name.String()
			val, err := read(dec, depth+1)
			if err != nil {
				return nil, err
			}
			if index == nil && len(v.Members) >= 16 {
				index = make(map[string]int, 2*len(v.Members))
				for i, m := range v.Members {
					index[m.Key] = i
				}
			}
			switch i, dup := index[key]; {
			case index == nil:
				v.Set(key, val)
			case dup:
				v.Members[i].Val = val
			default:
				index[key] = len(v.Members)
				v.Members = append(v.Members, Member{key, val})
			}
		}
		_, err := dec.ReadToken()
		return v, err
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}

// Encode writes v as compact JSON. Strings are escaped as little as JSON
// allows, less U+2028 and U+2029: a schema is read by a model, not embedded
// in HTML, but may pass through JavaScript.
func (v *Value) Encode() []byte {
	var buf bytes.Buffer
	enc := jsontext.NewEncoder(&buf, jsontext.EscapeForJS(true), jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))
	if err := v.write(enc); err != nil {
		// Only a Number whose Text is not a JSON number gets here: a Value
		// Parse never returns, and a bug in the code that built it.
		panic("jsonvalue: " + err.Error())
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func (v *Value) write(enc *jsontext.Encoder) error {
	switch v.Kind {
	case Null:
		return enc.WriteToken(jsontext.Null)
	case Bool:
		return enc.WriteToken(jsontext.Bool(v.Bool))
	case Number:
		return enc.WriteValue(jsontext.Value(v.Text))
	case String:
		return enc.WriteToken(jsontext.String(v.Text))
	case Array:
		if err := enc.WriteToken(jsontext.BeginArray); err != nil {
			return err
		}
		for _, el := range v.Items {
			if err := el.write(enc); err != nil {
				return err
			}
		}
		return enc.WriteToken(jsontext.EndArray)
	}
	if err := enc.WriteToken(jsontext.BeginObject); err != nil {
		return err
	}
	for _, m := range v.Members {
		if err := enc.WriteToken(jsontext.String(m.Key)); err != nil {
			return err
		}
		if err := m.Val.write(enc); err != nil {
			return err
		}
	}
	return enc.WriteToken(jsontext.EndObject)
}
