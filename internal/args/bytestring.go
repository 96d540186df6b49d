package args

import (
	"encoding/base64"
	"encoding/binary"
	"math/bits"
	"reflect"
	"time"
	"unicode/utf8"
	"unsafe"

	rs "github.com/toolreg/toolreg/internal/reflectschema"
)

// The byte scanner's strings: it finds their end eight bytes at a time,
// checks them as jsontext does (UTF-8, no control characters, whole
// escapes), checks them against the schema and keeps them as Go strings
// at the cost of as few allocations as it can.

// view is the text of b as a string, without a copy, for a parser that
// does not keep it.
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// arenaChunk is the most bytes of string text that one allocation of
// keep holds: a call of many short strings (tags, rows of a table) costs
// an allocation per chunk, not per string, and a string the function
// keeps keeps no more than a chunk alive.
const arenaChunk = 8 << 10

// arenaAfter is the number of strings copied one by one before keep
// copies into chunks, in arguments shorter than arenaFrom bytes: a short
// call's few strings cost what they hold. Longer arguments hold enough
// strings to fill a chunk from the first one.
const (
	arenaAfter = 8
	arenaFrom  = 512
)

// keep is the text of b as a string to keep: b itself when the scanner
// made it for this string alone (owned), which nothing writes again, else
// a copy, short ones side by side in a chunk that is only ever written
// past its used bytes. The chunk is a byte slice the scanner alone holds,
// not a strings.Builder: a string costs a copy of its bytes, and no store
// of a pointer that the garbage collector must see while it marks. (A
// copy of the arguments' bytes from one string on, which strings would be
// views of, costs no less, and holds the bytes between the strings too.)
func (s *byteScanner) keep(b []byte, owned bool) string {
	switch {
	case owned:
		return view(b)
	case len(b) == 0:
		return ""
	case len(b) > len(s.arena)-s.used:
		if len(b) > arenaChunk/4 || s.kept < arenaAfter && len(s.b) < arenaFrom {
			s.kept++
			return string(b)
		}
		// The text still to read holds every string still to come.
		s.arena, s.used = make([]byte, min(len(s.b)-s.i+len(b), arenaChunk)), 0
	}
	n := s.used
	s.used += copy(s.arena[n:], b)
	return view(s.arena[n:s.used])
}

// str reads a string's text: a view of the bytes, or, when it has
// escapes, a new buffer that no one else holds (owned), which the caller
// may keep as a Go string without copying it; ascii reports text of
// ASCII alone, whose length is its count of characters. It accepts only
// UTF-8 text without control characters, as jsontext does, and leaves an
// escape that is not a whole character (a lone surrogate) to the token
// reader.
func (s *byteScanner) str() (text []byte, owned, ascii, ok bool) {
	b := s.b
	start := s.i + 1
	j, high := plainRun(b, start)
	if j == len(b) || b[j] < ' ' {
		return nil, false, false, false
	}
	if b[j] == '\\' {
		text, ascii, ok = s.escaped(start, j)
		return text, true, ascii, ok
	}
	text = b[start:j] // b[j] is the closing quote
	if high != 0 && !utf8.Valid(text) {
		return nil, false, false, false
	}
	s.i = j + 1
	return text, false, high == 0, true
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
		// sets its high bit in special; bytes beyond ASCII do not. A borrow
		// carries only from a byte that is itself special, so the lowest
		// bit set is the first special byte.
		special := ((x - ones*0x20) | (q - ones) | (bs - ones)) &^ x &^ q &^ bs & highs
		if special != 0 {
			k := bits.TrailingZeros64(special) + 1 - 8 // the first special byte's lowest bit
			return j + k/8, high | x&highs&(1<<k-1)
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
// byte of its text, start, and esc, its first escape; ascii reports text of
// ASCII alone. Its end is found, and its text checked, a run of plain
// bytes at a time: the UTF-8 of the runs that hold bytes beyond ASCII,
// each on its own (an escape writes whole characters, so a character cut
// by one is invalid either way).
func (s *byteScanner) escaped(start, esc int) (text []byte, ascii, ok bool) {
	b := s.b
	end := esc // the closing quote: the text is never longer unescaped
	for end < len(b) && b[end] != '"' {
		if b[end] < ' ' {
			return nil, false, false
		}
		end, _ = plainRun(b, end+2) // over the escape's first two bytes
	}
	if end >= len(b) {
		return nil, false, false
	}
	out := make([]byte, 0, end-start)
	var high uint64
	for j := start; ; {
		k, h := plainRun(b[:end], j)
		if h != 0 && !utf8.Valid(b[j:k]) {
			return nil, false, false
		}
		high |= h
		out = append(out, b[j:k]...)
		j = k
		if j == end {
			s.i = end + 1
			return out, high == 0, true
		}
		if b[j] < ' ' || j+1 >= end {
			return nil, false, false
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
				return nil, false, false
			}
			j += 4
			if r >= 0xD800 && r < 0xDC00 { // a high surrogate: its pair must follow
				if j+1 >= end || b[j] != '\\' || b[j+1] != 'u' {
					return nil, false, false
				}
				lo, ok := hex4(b[:end], j+2)
				if !ok || lo < 0xDC00 || lo >= 0xE000 {
					return nil, false, false
				}
				j += 6
				r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
			} else if r >= 0xDC00 && r < 0xE000 {
				return nil, false, false
			}
			if r >= utf8.RuneSelf {
				high |= 0x80
			}
			out = utf8.AppendRune(out, r)
		default:
			return nil, false, false
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
	text, owned, ascii, ok := s.str()
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
		n := len(str)
		if !ascii {
			n = runeCount(str)
		}
		if f.minLen >= 0 && n < f.minLen || f.maxLen >= 0 && n > f.maxLen {
			return "", nil, false
		}
	}
	if f.pattern != nil && !f.pattern.MatchString(str) {
		return "", nil, false
	}
	return str, text, true
}

// runeCount is the number of characters of str, valid UTF-8 as every
// string str reads is: its bytes less its continuation bytes (10xxxxxx),
// counted eight at a time. utf8.RuneCountInString decodes each character
// of text beyond ASCII, to count an invalid byte as one, which valid
// text has none of.
func runeCount(str string) int {
	const highs = 0x8080808080808080
	b := unsafe.Slice(unsafe.StringData(str), len(str)) // read, never written
	n, j := len(b), 0
	for ; j+8 <= len(b); j += 8 {
		x := binary.LittleEndian.Uint64(b[j:])
		n -= bits.OnesCount64(x & highs &^ (x << 1)) // bit 7 set, bit 6 clear
	}
	for ; j < len(b); j++ {
		if b[j]&0xC0 == 0x80 {
			n--
		}
	}
	return n
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
