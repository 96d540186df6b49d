package args

import (
	"math"
	"reflect"
	"strconv"

	rs "github.com/toolreg/toolreg/internal/reflectschema"
)

// The byte scanner's numbers: it reads the literal itself and decodes the
// values plainly within the schema, and leaves to the token reader what
// needs exact arithmetic.

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
// most 18 digits, which int64 holds whatever they are. It reads the
// literal and its value in one loop: most numbers in arguments are such.
func (s *byteScanner) plainInt() (int64, bool) {
	b, i := s.b, s.i
	neg := i < len(b) && b[i] == '-'
	if neg {
		i++
	}
	start := i
	var n int64
	for i < len(b) && i-start < 18 && b[i]-'0' <= 9 {
		n = n*10 + int64(b[i]-'0')
		i++
	}
	if i == start || b[start] == '0' && i-start > 1 {
		return 0, false // no digits, or a leading zero
	}
	if i < len(b) && (b[i]-'0' <= 9 || b[i] == '.' || b[i]|0x20 == 'e') {
		return 0, false // a 19th digit, a fraction, an exponent
	}
	s.i = i
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
