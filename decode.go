package toolreg

import (
	"bytes"
	"encoding"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// parseArguments reads a call's arguments into a JSON value (numbers kept
// exact as json.Number) for the validator. Empty, blank and null arguments
// mean {}.
func parseArguments(args []byte) (any, error) {
	trimmed := trimJSONSpace(args)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, syntaxProblem(err, trimmed)
	}
	if dec.InputOffset() != int64(len(trimmed)) {
		return nil, fmt.Errorf("unexpected data after the JSON value at offset %d", dec.InputOffset())
	}
	return v, nil
}

// trimJSONSpace trims the whitespace JSON allows, and no other.
func trimJSONSpace(b []byte) []byte { return bytes.Trim(b, " \t\r\n") }

// Limits on JSON numbers, checked before validation: no Go number type
// holds a value beyond float64's range, and exact arithmetic on a literal
// with a huge exponent or thousands of digits would let one call burn
// seconds of CPU in the validator.
const (
	maxNumberLen      = 400
	maxNumberExponent = 400
)

// checkNumbers refuses, before validation, the numbers beyond the limits
// where a Go number or an any will hold them (a json.Number or
// json.RawMessage keeps any literal), naming where they are.
func checkNumbers(n *node, x any, path string) error {
	for n != nil && n.kind == kPtr {
		n = n.elem
	}
	if n == nil || x == nil {
		return nil
	}
	switch n.kind {
	case kInt, kUint, kFloat:
		if num, ok := x.(json.Number); ok {
			return checkNumber(num, path)
		}
	case kAny:
		return checkAllNumbers(x, path)
	case kStruct:
		obj, _ := x.(map[string]any)
		for i := range n.fields {
			f := &n.fields[i]
			if v, ok := obj[f.name]; ok {
				if err := checkNumbers(f.plan, v, joinInstancePath(path, f.name)); err != nil {
					return err
				}
			}
		}
	case kSlice, kArray:
		arr, _ := x.([]any)
		for i, v := range arr {
			if err := checkNumbers(n.elem, v, path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	case kMap:
		obj, _ := x.(map[string]any)
		for k, v := range obj {
			if err := checkNumbers(n.elem, v, joinInstancePath(path, k)); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkAllNumbers(x any, path string) error {
	switch t := x.(type) {
	case json.Number:
		return checkNumber(t, path)
	case map[string]any:
		for k, v := range t {
			if err := checkAllNumbers(v, joinInstancePath(path, k)); err != nil {
				return err
			}
		}
	case []any:
		for i, v := range t {
			if err := checkAllNumbers(v, path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkNumber(num json.Number, path string) error {
	s := string(num)
	bad := func(why string) error {
		return &decodeError{path: path, msg: snippet(num) + " " + why}
	}
	if len(s) > maxNumberLen {
		return bad(fmt.Sprintf("has more than %d characters; send a shorter number", maxNumberLen))
	}
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		if e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+")); err != nil || e > maxNumberExponent || e < -maxNumberExponent {
			return bad(fmt.Sprintf("has an exponent beyond ±%d", maxNumberExponent))
		}
	}
	if _, err := strconv.ParseFloat(s, 64); err != nil {
		return bad("is beyond the range of a 64-bit float (±1.8e308)")
	}
	return nil
}

// decodeValidated stores validated arguments into v. encoding/json reads
// the original bytes, so every type decodes exactly as it would anywhere
// else (a json.RawMessage keeps its bytes); then the defaults of the
// members left out are filled in. Only where encoding/json refuses what the
// schema allows (an integer written 5.0 or 1e2) does the plan-driven
// decoder convert the parsed value instead.
func decodeValidated(plan *node, args []byte, tree any, v reflect.Value) error {
	trimmed := trimJSONSpace(args)
	if len(trimmed) > 0 && string(trimmed) != "null" {
		if err := json.Unmarshal(trimmed, v.Addr().Interface()); err == nil {
			return applyDefaults(plan, v, tree)
		}
		v.SetZero()
		if ints, ok := integerForms(plan, trimmed); ok {
			if err := json.Unmarshal(ints, v.Addr().Interface()); err == nil {
				return applyDefaults(plan, v, tree)
			}
			v.SetZero()
		}
	}
	return decode(plan, v, tree, "")
}

// integerForms rewrites the numbers at integer positions that are written
// as 5.0 or 1e2 into 5 and 100 and leaves every other byte as it is, so that
// encoding/json can decode what the schema accepted, json.RawMessage bytes
// included. ok is false when there was nothing to rewrite.
func integerForms(plan *node, args []byte) (out []byte, ok bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(args), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	type splice struct {
		start, end int64
		with       string
	}
	var splices []splice
	var walk func(n *node) error
	walk = func(n *node) error {
		for n != nil && n.kind == kPtr {
			n = n.elem
		}
		kind := dec.PeekKind()
		switch {
		case n == nil || kind == 'n':
		case (n.kind == kStruct || n.kind == kMap) && kind == '{':
			if _, err := dec.ReadToken(); err != nil {
				return err
			}
			for dec.PeekKind() != '}' {
				tok, err := dec.ReadToken()
				if err != nil {
					return err
				}
				child := n.elem
				if n.kind == kStruct {
					child = nil
					if f := fieldOf(n, tok.String()); f != nil {
						child = f.plan
					}
				}
				if err := walk(child); err != nil {
					return err
				}
			}
			_, err := dec.ReadToken()
			return err
		case (n.kind == kSlice || n.kind == kArray) && kind == '[':
			if _, err := dec.ReadToken(); err != nil {
				return err
			}
			for dec.PeekKind() != ']' {
				if err := walk(n.elem); err != nil {
					return err
				}
			}
			_, err := dec.ReadToken()
			return err
		case (n.kind == kInt || n.kind == kUint) && kind == '0':
			raw, err := dec.ReadValue()
			if err != nil {
				return err
			}
			if bytes.ContainsAny(raw, ".eE") {
				if r, ok := wholeNumber(json.Number(raw)); ok {
					end := dec.InputOffset()
					splices = append(splices, splice{end - int64(len(raw)), end, r.Num().String()})
				}
			}
			return nil
		}
		return dec.SkipValue()
	}
	if err := walk(plan); err != nil || len(splices) == 0 {
		return nil, false
	}
	var b bytes.Buffer
	last := int64(0)
	for _, sp := range splices {
		b.Write(args[last:sp.start])
		b.WriteString(sp.with)
		last = sp.end
	}
	b.Write(args[last:])
	return b.Bytes(), true
}

// applyDefaults fills in the defaults of the members x leaves out, at any
// depth, in a value already decoded from x.
func applyDefaults(n *node, v reflect.Value, x any) error {
	if !n.hasDefDeep || x == nil {
		return nil
	}
	switch n.kind {
	case kPtr:
		if v.IsNil() {
			return nil
		}
		return applyDefaults(n.elem, v.Elem(), x)
	case kStruct:
		obj, _ := x.(map[string]any)
		for i := range n.fields {
			f := &n.fields[i]
			val, present := obj[f.name]
			switch {
			case !present && f.def != nil:
				if err := decode(f.plan, fieldAt(v, f.index), f.def, f.name); err != nil {
					return err
				}
			case present:
				if err := applyDefaults(f.plan, fieldAt(v, f.index), val); err != nil {
					return err
				}
			}
		}
	case kSlice, kArray:
		arr, _ := x.([]any)
		for i := 0; i < len(arr) && i < v.Len(); i++ {
			if err := applyDefaults(n.elem, v.Index(i), arr[i]); err != nil {
				return err
			}
		}
	case kMap:
		obj, _ := x.(map[string]any)
		for k, val := range obj {
			key := reflect.ValueOf(k).Convert(n.typ.Key())
			cur := v.MapIndex(key)
			if !cur.IsValid() {
				continue
			}
			ev := reflect.New(n.typ.Elem()).Elem()
			ev.Set(cur)
			if err := applyDefaults(n.elem, ev, val); err != nil {
				return err
			}
			v.SetMapIndex(key, ev)
		}
	}
	return nil
}

func syntaxProblem(err error, data []byte) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("not valid JSON: %s (at offset %d)", se.Error(), se.Offset)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("not valid JSON: the input ends early (%d bytes); send one complete JSON object", len(data))
	}
	return fmt.Errorf("not valid JSON: %s", err)
}

// decodeError locates a value the decoder could not store after the
// validator accepted it (a number too large for float64, say).
type decodeError struct {
	path string
	msg  string
}

func (e *decodeError) Error() string { return e.path + ": " + e.msg }

// decode stores the validated JSON value x into v, which is addressable and
// of n's type, the way encoding/json would, and fills in defaults for
// members x leaves out. It reflects over values only: every type question
// was answered when the plan was built.
func decode(n *node, v reflect.Value, x any, path string) error {
	if x == nil {
		switch n.kind {
		case kPtr, kSlice, kMap, kAny, kBytes, kText:
			v.SetZero()
		case kRaw:
			v.SetBytes([]byte("null"))
		case kHook:
			return hookDecode(v, []byte("null"), path)
		}
		return nil // encoding/json leaves other kinds alone on null
	}
	bad := func(format string, a ...any) error {
		return &decodeError{path: path, msg: fmt.Sprintf(format, a...)}
	}
	switch n.kind {
	case kString:
		s, ok := x.(string)
		if !ok {
			return bad("expected a string")
		}
		v.SetString(s)
	case kBool:
		b, ok := x.(bool)
		if !ok {
			return bad("expected a boolean")
		}
		v.SetBool(b)
	case kInt:
		num, ok := x.(json.Number)
		if !ok {
			return bad("expected an integer")
		}
		i, err := strconv.ParseInt(string(num), 10, n.typ.Bits())
		if err != nil {
			r, ok := wholeNumber(num)
			if !ok || !r.Num().IsInt64() {
				return bad("%s is not an integer in the range of %s", num, n.typ)
			}
			i = r.Num().Int64()
			if v.OverflowInt(i) {
				return bad("%s is out of the range of %s", num, n.typ)
			}
		}
		v.SetInt(i)
	case kUint:
		num, ok := x.(json.Number)
		if !ok {
			return bad("expected an integer")
		}
		u, err := strconv.ParseUint(string(num), 10, n.typ.Bits())
		if err != nil {
			r, ok := wholeNumber(num)
			if !ok || !r.Num().IsUint64() {
				return bad("%s is not an integer in the range of %s", num, n.typ)
			}
			u = r.Num().Uint64()
			if v.OverflowUint(u) {
				return bad("%s is out of the range of %s", num, n.typ)
			}
		}
		v.SetUint(u)
	case kFloat:
		num, ok := x.(json.Number)
		if !ok {
			return bad("expected a number")
		}
		f, err := strconv.ParseFloat(string(num), n.typ.Bits())
		if err != nil {
			return bad("%s is out of the range of %s", num, n.typ)
		}
		v.SetFloat(f)
	case kStruct:
		obj, ok := x.(map[string]any)
		if !ok {
			return bad("expected an object")
		}
		matched := 0
		for i := range n.fields {
			f := &n.fields[i]
			val, present := obj[f.name]
			if !present {
				if f.def == nil {
					continue
				}
				val = f.def
			} else {
				matched++
			}
			if err := decode(f.plan, fieldAt(v, f.index), val, joinPath(path, f.name)); err != nil {
				return err
			}
		}
		if matched != len(obj) {
			return bad("unknown field")
		}
	case kPtr:
		if v.IsNil() {
			v.Set(reflect.New(n.typ.Elem()))
		}
		return decode(n.elem, v.Elem(), x, path)
	case kSlice:
		arr, ok := x.([]any)
		if !ok {
			return bad("expected an array")
		}
		s := reflect.MakeSlice(n.typ, len(arr), len(arr))
		for i, item := range arr {
			if err := decode(n.elem, s.Index(i), item, path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
		v.Set(s)
	case kArray:
		arr, ok := x.([]any)
		if !ok || len(arr) != v.Len() {
			return bad("expected an array of %d items", v.Len())
		}
		for i, item := range arr {
			if err := decode(n.elem, v.Index(i), item, path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	case kMap:
		obj, ok := x.(map[string]any)
		if !ok {
			return bad("expected an object")
		}
		if v.IsNil() {
			v.Set(reflect.MakeMapWithSize(n.typ, len(obj)))
		}
		keyType := n.typ.Key()
		for k, item := range obj {
			ev := reflect.New(n.typ.Elem()).Elem()
			if err := decode(n.elem, ev, item, joinPath(path, k)); err != nil {
				return err
			}
			v.SetMapIndex(reflect.ValueOf(k).Convert(keyType), ev)
		}
	case kAny:
		plain, err := plainValue(x)
		if err != nil {
			return bad("%v", err)
		}
		v.Set(reflect.ValueOf(plain))
	case kBytes:
		s, ok := x.(string)
		if !ok {
			return bad("expected a base64 string")
		}
		b := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
		m, err := base64.StdEncoding.Decode(b, []byte(s))
		if err != nil {
			return bad("not valid base64: %v", err)
		}
		v.SetBytes(b[:m])
	case kNumber:
		num, ok := x.(json.Number)
		if !ok {
			return bad("expected a number")
		}
		v.SetString(string(num))
	case kRaw:
		b, err := encodeValue(x)
		if err != nil {
			return bad("%v", err)
		}
		v.SetBytes(b)
	case kTime:
		s, ok := x.(string)
		if !ok {
			return bad("expected an RFC 3339 date-time string")
		}
		if err := v.Addr().Interface().(*time.Time).UnmarshalText([]byte(s)); err != nil {
			return bad("not an RFC 3339 date-time: %v", err)
		}
	case kText:
		s, ok := x.(string)
		if !ok {
			return bad("expected a string")
		}
		if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
			return bad("%v", err)
		}
	case kHook:
		b, err := encodeValue(x)
		if err != nil {
			return bad("%v", err)
		}
		return hookDecode(v, b, path)
	}
	return nil
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

func hookDecode(v reflect.Value, b []byte, path string) error {
	if err := json.Unmarshal(b, v.Addr().Interface()); err != nil {
		return &decodeError{path: path, msg: err.Error()}
	}
	return nil
}

// wholeNumber reads an integral number written as a float (5.0, 1e2), which
// JSON Schema's "integer" accepts.
func wholeNumber(num json.Number) (*big.Rat, bool) {
	r, ok := new(big.Rat).SetString(string(num))
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
