package args

import (
	"encoding/base64"
	"encoding/binary"
	"math"
	"reflect"
	"strconv"
	"time"
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
		return c == '{' && s.object(f, v)
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

func (s *byteScanner) object(f *fnode, v reflect.Value) bool {
	if !s.open() {
		return false
	}
	if len(f.fields) > 64 {
		return false // seen is a bit set
	}
	var seen uint64
	var base unsafe.Pointer // v's address, once a field is stored through it
	next := 0               // the field after the last one read
	if s.next() == '}' {
		s.i++
		s.depth--
	} else {
		for {
			if s.next() != '"' || !s.count() {
				return false
			}
			name, ok := s.name()
			if !ok {
				return false
			}
			// Models send the members in the order of the schema, most
			// often: the field after the last one is tried first.
			i, known := next, next < len(f.fields) && f.shape.Fields[next].Name == string(name)
			if !known {
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
			if sl := f.slots[i]; sl.fits(f.fields[i]) {
				if base == nil {
					base = v.Addr().UnsafePointer()
				}
				if !s.scalar(f.fields[i], sl, unsafe.Add(base, sl.offset)) {
					return false
				}
			} else if !s.value(f.fields[i], fieldAt(v, f.shape.Fields[i].Index)) {
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
	for i := range f.fields {
		if seen&(1<<i) != 0 {
			continue
		}
		sf := &f.shape.Fields[i]
		if f.required[i] {
			return false
		}
		if sf.Default != nil && decodeDefault(sf.Shape, fieldAt(v, sf.Index), sf.Default) != nil {
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
		raw, owned, ok := s.str()
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
	// A slice is made once, at the length counted, and its items of a
	// plain scalar type are stored in place.
	var base unsafe.Pointer
	direct := isSlice && f.elemSlot.fits(f.elem)
	if isSlice {
		v.Grow(s.itemsLeft())
		base = v.UnsafePointer()
	}
	n := 0
	for {
		if !s.count() {
			return false
		}
		ok := false
		switch {
		case isSlice:
			if n == v.Cap() { // counted short: past the budget of itemsLeft
				v.Grow(n)
				base = v.UnsafePointer()
			}
			v.SetLen(n + 1)
			if direct {
				ok = s.scalar(f.elem, f.elemSlot, unsafe.Add(base, uintptr(n)*f.elemSlot.size))
			} else {
				ok = s.value(f.elem, v.Index(n))
			}
		case n < v.Len():
			ok = s.value(f.elem, v.Index(n))
		}
		if !ok {
			return false // a wrong item, or more than the Go array holds
		}
		n++
		more, ok := s.more(']')
		if !ok {
			return false
		}
		if !more {
			break
		}
	}
	return (f.minItems < 0 || n >= f.minItems) && (f.maxItems < 0 || n <= f.maxItems)
}

// itemsLeft counts the items of the array or members of the object
// being read, from where the scanner is to its closing bracket: the
// commas outside strings and nested containers, plus one. It only sizes
// what the scanner makes, so it trusts the bytes as scan does, and counts
// no more than the values limit lets through. Arrays nested in long
// arrays would be counted again at each level: once it has read as many
// bytes as the arguments hold, it stops, and the scanner grows what it
// makes by doubling.
func (s *byteScanner) itemsLeft() int {
	b := s.b[s.i:min(len(s.b), s.i+s.budget)]
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
				s.budget -= j
				return min(n, s.limits.MaxValues-s.values+1)
			}
			depth--
		case ',':
			if depth == 0 {
				n++
			}
		}
		j++
	}
	s.budget -= min(j, len(b)) // j steps past the end over an escape cut short
	return min(n, s.limits.MaxValues-s.values+1)
}

// structural marks the bytes itemsLeft looks at outside strings.
var structural = func() (t [256]uint8) {
	for _, c := range `"{}[],` {
		t[c] = 1
	}
	return t
}()

// number reads a JSON number literal and decodes it where it is plainly
// within the schema: an integer written as one, within the type's range
// and the schema's bounds; a float strictly inside its bounds. What needs
// exact arithmetic (5.0 for an integer, a value on a bound, multipleOf)
// goes to the token reader.
func (s *byteScanner) number(f *fnode, v reflect.Value) bool {
	switch f.shape.Kind {
	case rs.Number:
		start := s.i
		if _, ok := s.numberLiteral(); !ok {
			return false
		}
		v.SetString(string(s.b[start:s.i])) // json.Number keeps any literal
		return true
	case rs.Int:
		i, ok := s.intValue(f)
		if ok {
			v.SetInt(i)
		}
		return ok
	case rs.Uint:
		u, ok := s.uintValue(f)
		if ok {
			v.SetUint(u)
		}
		return ok
	}
	x, ok := s.floatValue(f, v.Type().Bits())
	if ok {
		v.SetFloat(x)
	}
	return ok
}

// intValue reads an integer written as one, within the type's range and
// the schema's bounds.
func (s *byteScanner) intValue(f *fnode) (int64, bool) {
	i, ok := s.plainInt()
	return i, ok && f.multipleOf == nil && i >= f.ilo && i <= f.ihi
}

// uintValue is intValue for an unsigned type.
func (s *byteScanner) uintValue(f *fnode) (uint64, bool) {
	i, ok := s.plainInt()
	return uint64(i), ok && f.multipleOf == nil && i >= 0 && uint64(i) >= f.ulo && uint64(i) <= f.uhi
}

// plainInt reads an integer literal without fraction or exponent, of at
// most 18 digits, which int64 holds whatever they are.
func (s *byteScanner) plainInt() (int64, bool) {
	start := s.i
	plain, ok := s.numberLiteral()
	if !ok || !plain {
		return 0, false
	}
	raw := s.b[start:s.i]
	neg := raw[0] == '-'
	if neg {
		raw = raw[1:]
	}
	if len(raw) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range raw {
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// floatValue reads a number strictly inside the schema's bounds, rounded
// to a float of bits.
func (s *byteScanner) floatValue(f *fnode, bits int) (float64, bool) {
	start := s.i
	if _, ok := s.numberLiteral(); !ok {
		return 0, false
	}
	raw := s.b[start:s.i]
	if numberProblem(raw) != "" || f.multipleOf != nil {
		return 0, false
	}
	x, err := strconv.ParseFloat(view(raw), 64)
	if err != nil {
		return 0, false
	}
	// As decodeNumber: a float strictly inside a rounded bound comes from
	// a decimal strictly inside the exact one.
	for i := range f.bounds {
		b := &f.bounds[i]
		inside := b.kind == minimum || b.kind == exclusiveMinimum
		if inside && x <= b.f || !inside && x >= b.f {
			return 0, false
		}
	}
	if bits == 32 {
		x32, err := strconv.ParseFloat(view(raw), 32)
		if err != nil || math.IsInf(x32, 0) {
			return 0, false
		}
		x = x32
	}
	return x, true
}

// numberLiteral reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? and
// reports whether it was an integer without fraction or exponent.
func (s *byteScanner) numberLiteral() (plain, ok bool) {
	b, i := s.b, s.i
	digits := func() bool {
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > j
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return false, false
	}
	plain = true
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return false, false
		}
		plain = false
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return false, false
		}
		plain = false
	}
	s.i = i
	return plain, true
}

// view is the text of b as a string, without a copy, for a parser that
// does not keep it.
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// arenaChunk is the most bytes of string text that one allocation of
// keep holds: a call of many short strings (tags, rows of a table) costs
// an allocation per chunk, not per string, and a string the function
// keeps keeps no more than a chunk alive.
const arenaChunk = 8 << 10

// arenaAfter is the number of strings copied one by one before keep
// copies into chunks: a short call's few strings cost what they hold.
const arenaAfter = 8

// keep is the text of b as a string to keep: b itself when the scanner
// made it for this string alone (owned), which nothing writes again, else
// a copy, short ones side by side in a chunk that is only ever appended
// to.
func (s *byteScanner) keep(b []byte, owned bool) string {
	switch {
	case owned:
		return view(b)
	case len(b) == 0:
		return ""
	case len(b) > cap(s.arena)-len(s.arena):
		if len(b) > arenaChunk/4 || s.kept < arenaAfter {
			s.kept++
			return string(b)
		}
		// The text still to read holds every string still to come.
		s.arena = make([]byte, 0, min(len(s.b)-s.i+len(b), arenaChunk))
	}
	s.arena = append(s.arena, b...)
	return view(s.arena[len(s.arena)-len(b):])
}

// str reads a string's text: a view of the bytes, or, when it has
// escapes, a new buffer that no one else holds (owned), which the caller
// may keep as a Go string without copying it. It accepts only UTF-8 text
// without control characters, as jsontext does, and leaves an escape that
// is not a whole character (a lone surrogate) to the token reader.
func (s *byteScanner) str() (text []byte, owned, ok bool) {
	b := s.b
	start := s.i + 1
	j, high := plainRun(b, start)
	if j == len(b) || b[j] < ' ' {
		return nil, false, false
	}
	if b[j] == '\\' {
		text, ok = s.escaped(start)
		return text, true, ok
	}
	text = b[start:j] // b[j] is the closing quote
	if high != 0 && !utf8.Valid(text) {
		return nil, false, false
	}
	s.i = j + 1
	return text, false, true
}

// plainRun returns the offset of the first quote, backslash or control
// character in b from j (len(b) when none), and, in its high bits, whether
// bytes beyond ASCII came before. It reads eight bytes at a time: most
// strings are long runs of plain text.
func plainRun(b []byte, j int) (int, uint64) {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	var high uint64
	for ; j+8 <= len(b); j += 8 {
		x := binary.LittleEndian.Uint64(b[j:])
		q, bs := x^(ones*'"'), x^(ones*'\\')
		// A byte below 0x20, or equal to '"' or '\\' (zero after the xor),
		// sets its high bit in special; bytes beyond ASCII do not.
		special := ((x - ones*0x20) | (q - ones) | (bs - ones)) &^ x &^ q &^ bs & highs
		if special != 0 {
			break
		}
		high |= x & highs
	}
	for ; j < len(b); j++ {
		c := b[j]
		if c < ' ' || c == '"' || c == '\\' {
			break
		}
		high |= uint64(c) & 0x80
	}
	return j, high
}

// escaped reads a string with escapes into a new buffer, from the first
// byte of its text.
func (s *byteScanner) escaped(start int) ([]byte, bool) {
	b := s.b
	end := start // the closing quote: the text is never longer unescaped
	for end < len(b) && b[end] != '"' {
		if b[end] == '\\' {
			end++
		}
		end++
	}
	if end >= len(b) {
		return nil, false
	}
	out := make([]byte, 0, end-start)
	for j := start; ; {
		k, _ := plainRun(b[:end], j)
		out = append(out, b[j:k]...)
		j = k
		if j == end {
			if !utf8.Valid(out) {
				return nil, false
			}
			s.i = end + 1
			return out, true
		}
		if b[j] < ' ' || j+1 >= end {
			return nil, false
		}
		j += 2
		switch b[j-1] {
		case '"', '\\', '/':
			out = append(out, b[j-1])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(b[:end], j)
			if !ok {
				return nil, false
			}
			j += 4
			if r >= 0xD800 && r < 0xDC00 { // a high surrogate: its pair must follow
				if j+1 >= end || b[j] != '\\' || b[j+1] != 'u' {
					return nil, false
				}
				lo, ok := hex4(b[:end], j+2)
				if !ok || lo < 0xDC00 || lo >= 0xE000 {
					return nil, false
				}
				j += 6
				r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
			} else if r >= 0xDC00 && r < 0xE000 {
				return nil, false
			}
			out = utf8.AppendRune(out, r)
		default:
			return nil, false
		}
	}
}

// hex4 reads the four hex digits of a \u escape at b[j:].
func hex4(b []byte, j int) (rune, bool) {
	if j+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[j : j+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// stringValue reads a string and decodes it where the schema allows it
// as it is: in the enum (whose own string is stored, so an enum costs no
// allocation), of the format, the length and the pattern.
func (s *byteScanner) stringValue(f *fnode, v reflect.Value) bool {
	str, text, ok := s.checkedString(f)
	if !ok {
		return false
	}
	switch f.shape.Kind {
	case rs.String:
		v.SetString(str)
	case rs.Time:
		return v.Addr().Interface().(*time.Time).UnmarshalText(text) == nil
	case rs.Bytes:
		b, err := base64.StdEncoding.DecodeString(str)
		if err != nil {
			return false
		}
		v.SetBytes(b)
	}
	return true
}

// checkedString reads a string the schema allows, as a Go string and as
// its text.
func (s *byteScanner) checkedString(f *fnode) (str string, text []byte, ok bool) {
	text, owned, ok := s.str()
	if !ok {
		return "", nil, false
	}
	if f.enum != nil {
		i := slicesIndex(f.enum, text)
		if i < 0 {
			return "", nil, false
		}
		str = f.enum[i]
	} else {
		str = s.keep(text, owned)
	}
	if f.format != nil && f.format.Validate(str) != nil {
		return "", nil, false
	}
	if f.minLen >= 0 || f.maxLen >= 0 {
		n := utf8.RuneCountInString(str)
		if f.minLen >= 0 && n < f.minLen || f.maxLen >= 0 && n > f.maxLen {
			return "", nil, false
		}
	}
	if f.pattern != nil && !f.pattern.MatchString(str) {
		return "", nil, false
	}
	return str, text, true
}

// slicesIndex is the index of text among ss, -1 when absent.
func slicesIndex(ss []string, text []byte) int {
	for i, e := range ss {
		if e == string(text) {
			return i
		}
	}
	return -1
}
