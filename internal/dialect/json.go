package dialect

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"
)

// kind is the JSON type of a value.
type kind uint8

const (
	jNull kind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

// value is a decoded JSON value that keeps the order of object members and
// the literal text of numbers, so that a lowered schema lists properties in
// the order the canonical schema does and writes 9223372036854775807 back
// exactly. Lowering builds new values; it never changes one it was given.
type value struct {
	kind kind
	b    bool     // jBool
	s    string   // jString: the text; jNumber: the literal
	arr  []*value // jArray
	obj  []member // jObject, in document order
}

type member struct {
	key string
	val *value
}

func str(s string) *value { return &value{kind: jString, s: s} }

func boolean(b bool) *value { return &value{kind: jBool, b: b} }

func object(ms ...member) *value { return &value{kind: jObject, obj: ms} }

func array(vs ...*value) *value { return &value{kind: jArray, arr: vs} }

// get returns the member key of an object, or nil.
func (v *value) get(key string) *value {
	if v == nil || v.kind != jObject {
		return nil
	}
	for _, m := range v.obj {
		if m.key == key {
			return m.val
		}
	}
	return nil
}

// set replaces the member key in place, or appends it.
func (v *value) set(key string, val *value) {
	for i, m := range v.obj {
		if m.key == key {
			v.obj[i].val = val
			return
		}
	}
	v.obj = append(v.obj, member{key, val})
}

// del removes the member key, if present.
func (v *value) del(key string) {
	for i, m := range v.obj {
		if m.key == key {
			v.obj = append(v.obj[:i:i], v.obj[i+1:]...)
			return
		}
	}
}

// isString reports whether v is a JSON string.
func (v *value) isString() bool { return v != nil && v.kind == jString }

// equal reports whether a and b are the same JSON value, numbers compared
// by their literal text.
func equal(a, b *value) bool {
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case jNull:
		return true
	case jBool:
		return a.b == b.b
	case jNumber, jString:
		return a.s == b.s
	case jArray:
		if len(a.arr) != len(b.arr) {
			return false
		}
		for i := range a.arr {
			if !equal(a.arr[i], b.arr[i]) {
				return false
			}
		}
		return true
	}
	if len(a.obj) != len(b.obj) {
		return false
	}
	for i := range a.obj {
		if a.obj[i].key != b.obj[i].key || !equal(a.obj[i].val, b.obj[i].val) {
			return false
		}
	}
	return true
}

// maxDepth bounds the nesting of a schema document: no provider accepts
// anything close, and it keeps the recursive parser off deep stacks.
const maxDepth = 512

var errTooDeep = errors.New("the schema nests more than 512 levels deep")

// parse decodes one JSON document. A duplicate key keeps its first
// position and its last value, as encoding/json would decode it.
func parse(data []byte) (*value, error) {
	if !json.Valid(data) {
		return nil, errors.New("the schema is not valid JSON")
	}
	p := parser{data: data}
	p.space()
	return p.value(0)
}

type parser struct {
	data []byte
	pos  int
}

func (p *parser) space() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// value parses the value at p.pos; the document is known to be valid JSON.
func (p *parser) value(depth int) (*value, error) {
	if depth > maxDepth {
		return nil, errTooDeep
	}
	switch c := p.data[p.pos]; c {
	case '{':
		p.pos++
		v := &value{kind: jObject}
		var index map[string]int // key → position, once the object is large
		for {
			p.space()
			if p.data[p.pos] == '}' {
				p.pos++
				return v, nil
			}
			if p.data[p.pos] == ',' {
				p.pos++
				p.space()
			}
			key, err := p.string()
			if err != nil {
				return nil, err
			}
			p.space()
			p.pos++ // ':'
			p.space()
			val, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			if index == nil && len(v.obj) >= 16 {
				index = make(map[string]int, 2*len(v.obj))
				for i, m := range v.obj {
					index[m.key] = i
				}
			}
			if index == nil {
				v.set(key, val)
			} else if i, dup := index[key]; dup {
				v.obj[i].val = val
			} else {
				index[key] = len(v.obj)
				v.obj = append(v.obj, member{key, val})
			}
		}
	case '[':
		p.pos++
		v := &value{kind: jArray}
		for {
			p.space()
			if p.data[p.pos] == ']' {
				p.pos++
				return v, nil
			}
			if p.data[p.pos] == ',' {
				p.pos++
				p.space()
			}
			el, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			v.arr = append(v.arr, el)
		}
	case '"':
		s, err := p.string()
		if err != nil {
			return nil, err
		}
		return str(s), nil
	case 't':
		p.pos += 4
		return boolean(true), nil
	case 'f':
		p.pos += 5
		return boolean(false), nil
	case 'n':
		p.pos += 4
		return &value{kind: jNull}, nil
	default:
		start := p.pos
		for p.pos < len(p.data) {
			c := p.data[p.pos]
			if c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
				p.pos++
				continue
			}
			break
		}
		return &value{kind: jNumber, s: string(p.data[start:p.pos])}, nil
	}
}

// string parses the string literal at p.pos.
func (p *parser) string() (string, error) {
	start := p.pos
	p.pos++
	plain := true
	for {
		c := p.data[p.pos]
		if c == '"' {
			break
		}
		if c == '\\' {
			plain = false
			p.pos++
		} else if c >= utf8.RuneSelf {
			plain = false
		}
		p.pos++
	}
	p.pos++
	raw := p.data[start:p.pos]
	if plain {
		return string(raw[1 : len(raw)-1]), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", err
	}
	return s, nil
}

// encode writes v as compact JSON.
func encode(v *value) []byte {
	return v.appendJSON(nil)
}

func (v *value) appendJSON(b []byte) []byte {
	switch v.kind {
	case jNull:
		return append(b, "null"...)
	case jBool:
		return strconv.AppendBool(b, v.b)
	case jNumber:
		return append(b, v.s...)
	case jString:
		return appendString(b, v.s)
	case jArray:
		b = append(b, '[')
		for i, el := range v.arr {
			if i > 0 {
				b = append(b, ',')
			}
			b = el.appendJSON(b)
		}
		return append(b, ']')
	}
	b = append(b, '{')
	for i, m := range v.obj {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, m.key)
		b = append(b, ':')
		b = m.val.appendJSON(b)
	}
	return append(b, '}')
}

// appendString writes s as a JSON string. Unlike encoding/json it leaves
// <, > and & alone: the schema is read by a model, not embedded in HTML.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == 0x7f:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
