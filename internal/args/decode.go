package args

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"strconv"
	"time"

	rs "github.com/toolreg/toolreg/internal/reflectschema"
)

// decodeTree stores the validated tree into dst, which is settable and of
// the Args type, the way encoding/json would store the same JSON, and fills
// in the defaults of the members the tree leaves out. It is the reference
// path's only decoder: the function receives exactly what the validator
// judged. It reflects over values only: every type question was answered
// when the shape was built.
func decodeTree(shape *rs.Shape, dst reflect.Value, tree any, raws map[string][]byte) *Problem {
	d := &treeDecoder{raws: raws}
	if err := d.decode(shape, dst, tree); err != nil {
		return err
	}
	return nil
}

type treeDecoder struct {
	raws map[string][]byte
	path path
}

// bad locates a value the decoder could not store after the validator
// accepted it (a time.Time the schema's pattern let through, say).
func (d *treeDecoder) bad(format string, a ...any) *Problem {
	return &Problem{Path: d.path.String(), Message: fmt.Sprintf(format, a...)}
}

func (d *treeDecoder) raw(x any) ([]byte, error) {
	if b, ok := d.raws[rawKey(d.path)]; ok {
		return b, nil
	}
	return encodeValue(x) // a default: the schema's own JSON
}

func (d *treeDecoder) decode(s *rs.Shape, v reflect.Value, x any) *Problem {
	if x == nil {
		switch s.Kind {
		case rs.Pointer, rs.Slice, rs.Map, rs.Any, rs.Bytes, rs.Text:
			v.SetZero()
		case rs.Raw:
			v.SetBytes([]byte("null"))
		case rs.Hook:
			return d.hook(v, []byte("null"))
		}
		return nil // encoding/json leaves other kinds alone on null
	}
	switch s.Kind {
	case rs.String:
		str, ok := x.(string)
		if !ok {
			return d.bad("expected a string")
		}
		v.SetString(str)
	case rs.Bool:
		b, ok := x.(bool)
		if !ok {
			return d.bad("expected a boolean")
		}
		v.SetBool(b)
	case rs.Int:
		num, ok := x.(json.Number)
		if !ok {
			return d.bad("expected an integer")
		}
		i, err := strconv.ParseInt(string(num), 10, s.Type.Bits())
		if err != nil {
			r, ok := wholeNumber(string(num))
			if !ok || !r.Num().IsInt64() || v.OverflowInt(r.Num().Int64()) {
				return d.bad("%s is not an integer in the range of %s", num, s.Type)
			}
			i = r.Num().Int64()
		}
		v.SetInt(i)
	case rs.Uint:
		num, ok := x.(json.Number)
		if !ok {
			return d.bad("expected an integer")
		}
		u, err := strconv.ParseUint(string(num), 10, s.Type.Bits())
		if err != nil {
			r, ok := wholeNumber(string(num))
			if !ok || !r.Num().IsUint64() || v.OverflowUint(r.Num().Uint64()) {
				return d.bad("%s is not an integer in the range of %s", num, s.Type)
			}
			u = r.Num().Uint64()
		}
		v.SetUint(u)
	case rs.Float:
		num, ok := x.(json.Number)
		if !ok {
			return d.bad("expected a number")
		}
		f, err := strconv.ParseFloat(string(num), s.Type.Bits())
		if err != nil {
			return d.bad("%s is out of the range of %s", num, s.Type)
		}
		v.SetFloat(f)
	case rs.Struct:
		return d.object(s, v, x)
	case rs.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(s.Type.Elem()))
		}
		return d.decode(s.Elem, v.Elem(), x)
	case rs.Slice, rs.Array:
		arr, ok := x.([]any)
		if !ok || s.Kind == rs.Array && len(arr) != v.Len() {
			return d.bad("expected an array of %d items", v.Len())
		}
		if s.Kind == rs.Slice {
			v.Set(reflect.MakeSlice(s.Type, len(arr), len(arr)))
		}
		for i, item := range arr {
			d.path = append(d.path, index(i))
			err := d.decode(s.Elem, v.Index(i), item)
			d.path = d.path[:len(d.path)-1]
			if err != nil {
				return err
			}
		}
	case rs.Map:
		obj, ok := x.(map[string]any)
		if !ok {
			return d.bad("expected an object")
		}
		if v.IsNil() {
			v.Set(reflect.MakeMapWithSize(s.Type, len(obj)))
		}
		keyType := s.Type.Key()
		for k, item := range obj {
			ev := reflect.New(s.Type.Elem()).Elem()
			d.path = append(d.path, key(k))
			err := d.decode(s.Elem, ev, item)
			d.path = d.path[:len(d.path)-1]
			if err != nil {
				return err
			}
			v.SetMapIndex(reflect.ValueOf(k).Convert(keyType), ev)
		}
	case rs.Any:
		plain, err := plainValue(x)
		if err != nil {
			return d.bad("%v", err)
		}
		v.Set(reflect.ValueOf(plain))
	case rs.Bytes:
		str, ok := x.(string)
		if !ok {
			return d.bad("expected a base64 string")
		}
		b, err := base64.StdEncoding.DecodeString(str)
		if err != nil {
			return d.bad("not valid base64: %v", err)
		}
		v.SetBytes(b)
	case rs.Number:
		num, ok := x.(json.Number)
		if !ok {
			return d.bad("expected a number")
		}
		v.SetString(string(num))
	case rs.Raw:
		b, err := d.raw(x)
		if err != nil {
			return d.bad("%v", err)
		}
		v.SetBytes(b)
	case rs.Time:
		str, ok := x.(string)
		if !ok {
			return d.bad("expected an RFC 3339 date-time string")
		}
		if err := v.Addr().Interface().(*time.Time).UnmarshalText([]byte(str)); err != nil {
			return d.bad("not an RFC 3339 date-time: %v", err)
		}
	case rs.Text:
		str, ok := x.(string)
		if !ok {
			return d.bad("expected a string")
		}
		if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(str)); err != nil {
			return d.bad("%v", err)
		}
	case rs.Hook:
		b, err := d.raw(x)
		if err != nil {
			return d.bad("%v", err)
		}
		return d.hook(v, b)
	}
	return nil
}

// object decodes a struct: the members present, then the defaults of the
// members left out.
func (d *treeDecoder) object(s *rs.Shape, v reflect.Value, x any) *Problem {
	obj, ok := x.(map[string]any)
	if !ok {
		return d.bad("expected an object")
	}
	matched := 0
	for i := range s.Fields {
		f := &s.Fields[i]
		val, present := obj[f.Name]
		if present {
			matched++
		} else if val = f.Default; val == nil {
			continue
		}
		d.path = append(d.path, key(f.Name))
		var err *Problem
		if present {
			err = d.decode(f.Shape, fieldAt(v, f.Index), val)
		} else {
			// A default is the schema's own JSON, not the model's bytes.
			err = (&treeDecoder{path: d.path}).decode(f.Shape, fieldAt(v, f.Index), val)
		}
		d.path = d.path[:len(d.path)-1]
		if err != nil {
			return err
		}
	}
	if matched != len(obj) {
		return d.bad("unknown field")
	}
	return nil
}

func (d *treeDecoder) hook(v reflect.Value, b []byte) *Problem {
	if err := json.Unmarshal(b, v.Addr().Interface()); err != nil {
		return d.bad("%s", err.Error())
	}
	return nil
}

// decodeDefault stores a field's default, a JSON value from the schema,
// into v.
func decodeDefault(s *rs.Shape, v reflect.Value, def any) *Problem {
	return (&treeDecoder{}).decode(s, v, def)
}

// fieldAt is v.FieldByIndex, allocating embedded struct pointers on the way
// as encoding/json does.
func fieldAt(v reflect.Value, index []int) reflect.Value {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v
}

// wholeNumber reads an integral number written as a float (5.0, 1e2), which
// JSON Schema's "integer" accepts.
func wholeNumber(lit string) (*big.Rat, bool) {
	r, ok := new(big.Rat).SetString(lit)
	if !ok || !r.IsInt() {
		return nil, false
	}
	return r, true
}

// plainValue turns a parsed JSON value into what encoding/json gives an
// interface{}: float64 numbers. It rewrites x in place.
func plainValue(x any) (any, error) {
	switch t := x.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil {
			return nil, fmt.Errorf("%s is out of the range of float64", t)
		}
		return f, nil
	case map[string]any:
		for k, v := range t {
			p, err := plainValue(v)
			if err != nil {
				return nil, err
			}
			t[k] = p
		}
	case []any:
		for i, v := range t {
			p, err := plainValue(v)
			if err != nil {
				return nil, err
			}
			t[i] = p
		}
	}
	return x, nil
}
