package args

import (
	"reflect"
	"unsafe"

	rs "github.com/toolreg/toolreg/internal/reflectschema"
)

// slot is where the byte scanner stores a struct field that is a plain
// scalar held in place (a string, a bool, a number, not behind a pointer
// nor an embedded struct pointer): at an offset from the struct's address,
// as a Go value of kind and size, without going through reflect for each
// value. kind 0 (reflect.Invalid) is a field stored through reflect.
type slot struct {
	offset uintptr
	size   uintptr
	kind   reflect.Kind
}

// slots computes the slots of a struct's fields, from their Go types
// alone: whether the schema lets the scanner store one directly is known
// only once the plan is whole (a recursive definition), so settle clears
// then the slots that do not fit their plans.
func slots(shape *rs.Shape) []slot {
	ss := make([]slot, len(shape.Fields))
	for i, sf := range shape.Fields {
		if len(sf.Index) == 1 {
			ss[i] = slotOf(sf.Type, shape.Type.Field(sf.Index[0]).Offset)
		}
	}
	return ss
}

// slotOf is the slot of a value of type t at offset, or no slot.
func slotOf(t reflect.Type, offset uintptr) slot {
	switch k := t.Kind(); k {
	case reflect.String, reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return slot{offset: offset, size: t.Size(), kind: k}
	}
	return slot{}
}

// fits reports whether the slot stores the values of plan f: a plain
// scalar of the slot's kind, not a json.Number, a TextUnmarshaler, a
// nullable value or a position the fast path leaves, which are stored
// through reflect.
func (sl slot) fits(f *fnode) bool {
	if f.slow || f.nullOf != nil {
		return false
	}
	switch sl.kind {
	case reflect.String:
		return f.shape.Kind == rs.String
	case reflect.Bool:
		return f.shape.Kind == rs.Bool
	case reflect.Float32, reflect.Float64:
		return f.shape.Kind == rs.Float
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return f.shape.Kind == rs.Int
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return f.shape.Kind == rs.Uint
	}
	return false
}

// scalar reads the value of a field at p, in a slot that fits its plan f.
func (s *byteScanner) scalar(f *fnode, sl slot, p unsafe.Pointer) bool {
	switch sl.kind {
	case reflect.String:
		if s.next() != '"' {
			return false
		}
		str, _, ok := s.checkedString(f)
		*(*string)(p) = str
		return ok
	case reflect.Bool:
		switch c := s.next(); {
		case c == 't' && s.literal("true"):
			*(*bool)(p) = true
			return true
		case c == 'f' && s.literal("false"):
			*(*bool)(p) = false
			return true
		}
		return false
	case reflect.Float32, reflect.Float64:
		if !s.startsNumber() {
			return false
		}
		if sl.kind == reflect.Float32 {
			x, ok := s.floatValue(f, 32)
			*(*float32)(p) = float32(x)
			return ok
		}
		x, ok := s.floatValue(f, 64)
		*(*float64)(p) = x
		return ok
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if !s.startsNumber() {
			return false
		}
		i, ok := s.intValue(f) // within the type's range: f.ilo, f.ihi
		switch sl.kind {
		case reflect.Int8:
			*(*int8)(p) = int8(i)
		case reflect.Int16:
			*(*int16)(p) = int16(i)
		case reflect.Int32:
			*(*int32)(p) = int32(i)
		case reflect.Int64:
			*(*int64)(p) = i
		default:
			*(*int)(p) = int(i)
		}
		return ok
	}
	if !s.startsNumber() {
		return false
	}
	u, ok := s.uintValue(f)
	switch sl.kind {
	case reflect.Uint8:
		*(*uint8)(p) = uint8(u)
	case reflect.Uint16:
		*(*uint16)(p) = uint16(u)
	case reflect.Uint32:
		*(*uint32)(p) = uint32(u)
	case reflect.Uint64:
		*(*uint64)(p) = u
	case reflect.Uintptr:
		*(*uintptr)(p) = uintptr(u)
	default:
		*(*uint)(p) = uint(u)
	}
	return ok
}

// startsNumber reports whether a number literal starts where the scanner
// is.
func (s *byteScanner) startsNumber() bool {
	c := s.next()
	return c == '-' || c >= '0' && c <= '9'
}
