package args

import (
	"encoding/binary"
	"reflect"
	"unicode/utf8"
	"unsafe"

	rs "github.com/toolreg/toolreg/internal/reflectschema"
)

// The byte scanner is the fast path's first reader: it walks the bytes of
// the arguments itself, with no tokenizer between it and the Args value,
// and only ever accepts. Most calls are valid, and for them reading tokens
// through jsontext, then measuring the bytes again with scan, costs more
// than checking and decoding them. Whatever it is unsure of, or finds
// wrong, a problem to word, a limit to report, a kind it does not read (an
// any, a json.RawMessage), it leaves to the token reader (fast.go) and the
// reference path, as if it had not run: so every problem a model reads is
// still worded by those two paths, and the tests hold the byte scanner to
// their verdict and value.

// byteScanner is the state of one call: the bytes, where it is, and what
// the limits have counted so far.
type byteScanner struct {
	b      []byte
	i      int
	depth  int // containers open
	values int // array items and object members read
	limits Limits
	budget int    // bytes itemsLeft may still read: one pass, however deep
	arena  []byte // where the texts of short strings are copied, see keep
	used   int    // the bytes of arena that strings hold
	kept   int    // strings copied one by one
}

// accept checks and decodes args into v, reporting whether it did. On
// false v may hold part of the arguments: the caller zeroes it before
// another reader fills it.
func (f *fnode) accept(args []byte, l Limits, v reflect.Value) bool {
	s := byteScanner{b: args, limits: l, budget: len(args)}
	if !s.value(f, v) {
		return false
	}
	s.space()
	return s.i == len(s.b)
}

// space skips the white space JSON allows.
func (s *byteScanner) space() {
	for s.i < len(s.b) && s.b[s.i] <= ' ' && isSpace(s.b[s.i]) {
		s.i++
	}
}

// next skips white space and returns the byte there, 0 at the end.
func (s *byteScanner) next() byte {
	s.space()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// literal reads the word lit (null, true, false) where it stands.
func (s *byteScanner) literal(lit string) bool {
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return false
	}
	s.i += len(lit)
	return true
}

// open enters an object or an array within the depth limit.
func (s *byteScanner) open() bool {
	if s.depth >= s.limits.MaxDepth {
		return false
	}
	s.depth++
	s.i++
	return true
}

// count counts one array item or object member within the values limit.
func (s *byteScanner) count() bool {
	s.values++
	return s.values <= s.limits.MaxValues
}

// more reads what follows a member or an item: a comma (true, there is
// another) or the closing bracket (false, done); ok is false on anything
// else.
func (s *byteScanner) more(closing byte) (more, ok bool) {
	switch s.next() {
	case ',':
		s.i++
		return true, true
	case closing:
		s.i++
		s.depth--
		return false, true
	}
	return false, false
}

func (s *byteScanner) value(f *fnode, v reflect.Value) bool {
	c := s.next()
	if f.nullOf != nil {
		if c != 'n' {
			return s.value(f.nullOf, v)
		}
		if !s.literal("null") {
			return false
		}
		switch v.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
			v.SetZero()
		}
		return true
	}
	if f.slow || c == 'n' {
		return false // a null the schema refuses, or a position the fast path leaves
	}
	for v.Kind() == reflect.Pointer && f.shape.Type != v.Type() {
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		v = v.Elem()
	}
	switch f.shape.Kind {
	case rs.Struct:
		return c == '{' && s.object(f, v, nil)
	case rs.Map:
		return c == '{' && s.dict(f, v)
	case rs.Slice, rs.Array:
		return c == '[' && s.array(f, v)
	case rs.Bool:
		switch {
		case c == 't' && s.literal("true"):
			v.SetBool(true)
			return true
		case c == 'f' && s.literal("false"):
			v.SetBool(false)
			return true
		}
		return false
	case rs.Int, rs.Uint, rs.Float, rs.Number:
		return s.startsNumber() && s.number(f, v)
	case rs.String, rs.Time, rs.Bytes:
		return c == '"' && s.stringValue(f, v)
	}
	return false // an any, a json.RawMessage: the token reader keeps them
}

// object reads an object into the struct v, or, when v is the zero Value,
// into the struct at base: a list of structs gives the address of each
// item, and a reflect.Value is made only for a field that is not stored
// in its slot.
func (s *byteScanner) object(f *fnode, v reflect.Value, base unsafe.Pointer) bool {
	if !s.open() {
		return false
	}
	if len(f.fields) > 64 {
		return false // seen is a bit set
	}
	var seen uint64
	next := 0 // the field after the last one read
	if s.next() == '}' {
		s.i++
		s.depth--
	} else {
		for {
			if s.next() != '"' || !s.count() {
				return false
			}
			// Models send the members in the order of the schema, most
			// often: the field after the last one is tried first, as the
			// quoted name it would be written as.
			i, known := next, false
			if next < len(f.quoted) {
				switch q := f.quoted[next]; {
				case q == "":
				case len(q) <= 8 && len(s.b)-s.i >= 8: // most names: one load
					known = binary.LittleEndian.Uint64(s.b[s.i:])&(^uint64(0)>>(64-8*len(q))) == f.qwords[next]
				default:
					known = len(s.b)-s.i >= len(q) && string(s.b[s.i:s.i+len(q)]) == q
				}
			}
			if known {
				s.i += len(f.quoted[i])
			} else {
				name, ok := s.name()
				if !ok {
					return false
				}
				i, known = f.shape.FieldIndex(name)
			}
			next = i + 1
			if !known || seen&(1<<i) != 0 {
				return false // a problem to word: unknown, or twice
			}
			seen |= 1 << i
			if s.next() != ':' {
				return false
			}
			s.i++
			if sl := f.slots[i]; sl.kind != reflect.Invalid {
				if base == nil {
					base = unsafe.Pointer(v.UnsafeAddr()) // Addr would look up the pointer type
				}
				if !s.scalar(f.fields[i], sl, unsafe.Add(base, sl.offset)) {
					return false
				}
			} else if v = structAt(f, v, base); !s.value(f.fields[i], fieldAt(v, f.shape.Fields[i].Index)) {
				return false
			}
			more, ok := s.more('}')
			if !ok {
				return false
			}
			if !more {
				break
			}
		}
	}
	if seen == 1<<len(f.fields)-1 { // every field: 1<<64 is 0
		return true
	}
	for i := range f.fields {
		if seen&(1<<i) != 0 {
			continue
		}
		sf := &f.shape.Fields[i]
		if f.required[i] {
			return false
		}
		if sf.Default != nil {
			if v = structAt(f, v, base); decodeDefault(sf.Shape, fieldAt(v, sf.Index), sf.Default) != nil {
				return false
			}
		}
	}
	return true
}

// structAt is v, or, when it is the zero Value, the struct of plan f at
// base as a settable Value.
func structAt(f *fnode, v reflect.Value, base unsafe.Pointer) reflect.Value {
	if v.IsValid() {
		return v
	}
	return reflect.NewAt(f.shape.Type, base).Elem()
}

// plainName reports whether name is made of printable ASCII without a
// quote or a backslash: its bytes in JSON are its own, between quotes.
func plainName(name string) bool {
	for i := range len(name) {
		if c := name[i]; c < ' ' || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// name reads a member name made of printable ASCII without escapes, the
// names of Go fields; any other name is left to the token reader.
func (s *byteScanner) name() ([]byte, bool) {
	start := s.i + 1
	for j := start; j < len(s.b); j++ {
		c := s.b[j]
		if c == '"' {
			s.i = j + 1
			return s.b[start:j], true
		}
		if c < ' ' || c == '\\' || c >= utf8.RuneSelf {
			return nil, false
		}
	}
	return nil, false
}

func (s *byteScanner) dict(f *fnode, v reflect.Value) bool {
	t := v.Type()
	if t.Key().Kind() != reflect.String || !s.open() {
		return false
	}
	if s.next() == '}' {
		s.i++
		s.depth--
		if v.IsNil() {
			v.Set(reflect.MakeMap(t))
		}
		return true
	}
	if v.IsNil() {
		v.Set(reflect.MakeMapWithSize(t, s.itemsLeft()))
	}
	// One key and one value, reused: SetMapIndex copies them.
	k, ev := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
	for {
		if s.next() != '"' || !s.count() {
			return false
		}
		raw, owned, _, ok := s.str()
		if !ok {
			return false
		}
		k.SetString(s.keep(raw, owned))
		if v.MapIndex(k).IsValid() {
			return false // twice
		}
		if s.next() != ':' {
			return false
		}
		s.i++
		ev.SetZero()
		if !s.value(f.elem, ev) {
			return false
		}
		v.SetMapIndex(k, ev)
		more, ok := s.more('}')
		if !ok {
			return false
		}
		if !more {
			return true
		}
	}
}

func (s *byteScanner) array(f *fnode, v reflect.Value) bool {
	if !s.open() {
		return false
	}
	isSlice := v.Kind() == reflect.Slice
	if s.next() == ']' {
		s.i++
		s.depth--
		if isSlice {
			v.Set(reflect.MakeSlice(v.Type(), 0, 0)) // [] is an empty slice, not nil
		}
		return f.minItems <= 0
	}
	var n int
	var ok bool
	switch {
	case !isSlice:
		n, ok = s.arrayItems(f, v)
	default:
		// A slice is made once, at its length: counted first when it is
		// short, else read into a pooled slice and copied, so that a long
		// list is read once, not counted then read.
		if count, whole := s.probe(); whole {
			v.Grow(count)
			n, ok = s.sliceItems(f, v)
		} else {
			n, ok = s.longSlice(f, v)
		}
	}
	return ok && (f.minItems < 0 || n >= f.minItems) && (f.maxItems < 0 || n <= f.maxItems)
}

// arrayItems reads the items of a Go array, false on more than it holds.
func (s *byteScanner) arrayItems(f *fnode, v reflect.Value) (int, bool) {
	for n := 0; ; {
		if !s.count() || n >= v.Len() || !s.value(f.elem, v.Index(n)) {
			return n, false
		}
		n++
		more, ok := s.more(']')
		if !ok || !more {
			return n, ok
		}
	}
}

// sliceItems reads the items of a slice into w, a settable slice of
// length 0, growing it by doubling past its capacity, and leaves w at
// the length read, the item it failed on included. Items of a plain
// scalar type are stored in place.
func (s *byteScanner) sliceItems(f *fnode, w reflect.Value) (int, bool) {
	direct := f.elemSlot.kind != reflect.Invalid
	// Structs held in place, read as value reads them once it has seen
	// there is no pointer nor null to deal with.
	e := f.elem
	structs := e.nullOf == nil && !e.slow && e.shape.Kind == rs.Struct && e.shape.Type == w.Type().Elem()
	size := w.Type().Elem().Size()
	w.SetLen(w.Cap())
	base := w.UnsafePointer()
	for n := 0; ; n++ {
		ok := s.count()
		if ok && n == w.Len() {
			w.Grow(max(n, 8))
			w.SetLen(w.Cap())
			base = w.UnsafePointer()
		}
		switch {
		case !ok:
		case direct:
			ok = s.scalar(f.elem, f.elemSlot, unsafe.Add(base, uintptr(n)*f.elemSlot.size))
		case structs:
			ok = s.next() == '{' && s.object(e, reflect.Value{}, unsafe.Add(base, uintptr(n)*size))
		default:
			ok = s.value(f.elem, w.Index(n))
		}
		more := false
		if ok {
			more, ok = s.more(']')
		}
		if !ok || !more {
			w.SetLen(min(n+1, w.Len()))
			if !ok {
				return n, false
			}
			return n + 1, true
		}
	}
}

// scratch is a slice of one type that the byte scanner reads long lists
// into, pooled by the plan of the slice: after a call it holds zeros.
type scratch struct{ v reflect.Value }

// longSlice reads the items of a slice whose length is not counted into
// a pooled slice, then copies them into v at their number: one
// allocation of the slice, and no pass over the bytes to count them.
func (s *byteScanner) longSlice(f *fnode, v reflect.Value) (int, bool) {
	sc := f.scratch.Get().(*scratch)
	n, ok := s.sliceItems(f, sc.v)
	if ok {
		v.Grow(n) // the items go from the first, as sliceItems writes them
		v.SetLen(n)
		reflect.Copy(v, sc.v)
	}
	// Zeros again: what the items point to belongs to the call, which the
	// pooled slice must not keep alive, and the next call's items must not
	// find a field this one set.
	sc.v.Clear()
	sc.v.SetLen(0)
	f.scratch.Put(sc)
	return n, ok
}

// probeBytes is the most text probe reads to count a slice's items: a
// longer list is read into a pooled slice instead.
const probeBytes = 128

// probe counts the items of the array being read when it closes within
// probeBytes of text and the budget of itemsLeft, which it spends; whole
// is false otherwise.
func (s *byteScanner) probe() (count int, whole bool) {
	b := s.b[s.i:min(len(s.b), s.i+min(probeBytes, s.budget))]
	n, read, whole := countItems(b)
	s.budget -= read
	return min(n, s.limits.MaxValues-s.values+1), whole
}

// itemsLeft counts the items of the array or members of the object
// being read, from where the scanner is to its closing bracket (see
// countItems). It only sizes what the scanner makes, and counts no more
// than the values limit lets through. Arrays nested in long arrays would
// be counted again at each level: once it has read as many bytes as the
// arguments hold, it stops, and the scanner grows what it makes by
// doubling.
func (s *byteScanner) itemsLeft() int {
	n, read, _ := countItems(s.b[s.i:min(len(s.b), s.i+s.budget)])
	s.budget -= read
	return min(n, s.limits.MaxValues-s.values+1)
}

// countItems counts the items of a container in b, which starts after
// its opening bracket: the commas outside strings and nested containers,
// plus one. It trusts the bytes as scan does. read is the bytes it read,
// up to the closing bracket; whole reports whether it found it.
func countItems(b []byte) (n, read int, whole bool) {
	n, depth, j := 1, 0, 0
	for j < len(b) {
		for j < len(b) && structural[b[j]] == 0 {
			j++
		}
		if j == len(b) {
			break
		}
		switch b[j] {
		case '"':
			// To the closing quote, over the escaped ones.
			for j++; j < len(b); j += 2 {
				k, _ := plainRun(b, j)
				if j = k; j >= len(b) || b[j] == '"' {
					break
				}
				if b[j] != '\\' {
					j-- // a control character: no escape to step over
				}
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return n, j, true
			}
			depth--
		case ',':
			if depth == 0 {
				n++
			}
		}
		j++
	}
	return n, min(j, len(b)), false // j steps past the end over an escape cut short
}

// structural marks the bytes itemsLeft looks at outside strings.
var structural = func() (t [256]uint8) {
	for _, c := range `"{}[],` {
		t[c] = 1
	}
	return t
}()
