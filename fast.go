package toolreg

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"math"
	"math/big"
	"reflect"
	"regexp"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// The fast path validates and decodes arguments in one pass over the bytes,
// checking the keywords of the tool's own canonical schema as it goes. It
// only ever accepts: whatever it is unsure of (a keyword it does not check,
// an escaped name, a number on a bound, a duplicate key, invalid UTF-8) makes
// it give up, and the call takes the reference path (parse, validate with
// the compiled JSON Schema, decode), which also words every error. So the
// verdict is always the validator's; the fast path only makes valid calls
// cheap. Tests check that the two paths agree.

// fnode is the fast plan of one schema position: the Go plan and the
// constraints the canonical schema puts there.
type fnode struct {
	plan   *node
	slow   bool   // a keyword or type the fast path does not check
	nullOf *fnode // set on a nullable position: null, or a value checked by nullOf

	// strings
	enum           []string
	minLen, maxLen int // -1: none
	pattern        *regexp.Regexp

	// integers, exact: ilo ≤ v ≤ ihi (or ulo/uhi for unsigned kinds)
	ilo, ihi int64
	ulo, uhi uint64
	// floats: flo < v < fhi decides; v on a bound gives up (see decodeNumber)
	flo, fhi       float64
	floEx, fhiEx   bool // exclusive bounds
	hasFlo, hasFhi bool

	// arrays
	minItems, maxItems int // -1: none
	elem               *fnode

	// objects
	fields   []*fnode // parallel to plan.fields
	required []bool
	nameIdx  map[string]int
}

// fastPlan compiles the fast plan of a tool from its Go plan and its final
// canonical schema, or returns nil when the schema's root is beyond it.
func fastPlan(plan *node, schema json.RawMessage) *fnode {
	var root map[string]any
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	if err := dec.Decode(&root); err != nil {
		return nil
	}
	defs, _ := root["$defs"].(map[string]any)
	c := &fastCompiler{defs: defs, memo: map[string]*fnode{}}
	f := c.compile(plan, root)
	if f.slow {
		return nil
	}
	return f
}

type fastCompiler struct {
	defs map[string]any
	memo map[string]*fnode // recursive definitions, by name
}

// annotations are keywords that never make an instance invalid.
var annotations = map[string]bool{
	"description": true, "title": true, "default": true, "examples": true, "deprecated": true,
	"readOnly": true, "writeOnly": true, "contentEncoding": true, "contentMediaType": true, "$comment": true,
}

func (c *fastCompiler) compile(plan *node, s any) *fnode {
	for plan.kind == kPtr {
		plan = plan.elem
	}
	f := &fnode{plan: plan, minLen: -1, maxLen: -1, minItems: -1, maxItems: -1}
	if s == true {
		if plan.kind == kAny || plan.kind == kRaw {
			return f
		}
		f.slow = true
		return f
	}
	m, ok := s.(map[string]any)
	if !ok {
		f.slow = true
		return f
	}
	if ref, ok := m["$ref"].(string); ok {
		name := ref[len("#/$defs/"):]
		if done, ok := c.memo[name]; ok {
			return done
		}
		c.memo[name] = f
		def, _ := c.defs[name].(map[string]any)
		*f = *c.compile(plan, def)
		return f
	}
	if alts, ok := m["anyOf"].([]any); ok {
		if len(alts) == 2 {
			if n, ok := alts[1].(map[string]any); ok && len(n) == 1 && n["type"] == "null" {
				// A wrapper, not a flagged copy: the inner node may be a
				// recursive definition still being compiled.
				return &fnode{plan: plan, nullOf: c.compile(plan, alts[0])}
			}
		}
		f.slow = true
		return f
	}
	typ, _ := m["type"].(string)
	for k, v := range m {
		if annotations[k] || k == "type" || k == "$defs" {
			continue
		}
		if !c.keyword(f, typ, k, v) {
			f.slow = true
		}
	}
	want := map[kind]string{kString: "string", kBool: "boolean", kInt: "integer", kUint: "integer", kFloat: "number",
		kStruct: "object", kMap: "object", kSlice: "array", kArray: "array", kTime: "string", kBytes: "string"}[plan.kind]
	if want == "" || typ != want {
		f.slow = true
		return f
	}
	switch plan.kind {
	case kInt, kUint:
		c.intBounds(f, m)
	case kFloat:
		c.floatBounds(f, m)
	case kSlice, kArray:
		items, ok := m["items"]
		if !ok {
			f.slow = true
			return f
		}
		f.elem = c.compile(plan.elem, items)
	case kMap:
		ap, ok := m["additionalProperties"]
		if !ok {
			ap = true
		}
		f.elem = c.compile(plan.elem, ap)
	case kStruct:
		props, _ := m["properties"].(map[string]any)
		if m["additionalProperties"] != false || len(props) != len(plan.fields) {
			f.slow = true
			return f
		}
		f.fields = make([]*fnode, len(plan.fields))
		f.required = make([]bool, len(plan.fields))
		f.nameIdx = make(map[string]int, len(plan.fields))
		req, _ := m["required"].([]any)
		for i, pf := range plan.fields {
			ps, ok := props[pf.name]
			if !ok {
				f.slow = true
				return f
			}
			f.fields[i] = c.compile(pf.plan, ps)
			f.nameIdx[pf.name] = i
			for _, r := range req {
				f.required[i] = f.required[i] || r == pf.name
			}
		}
	}
	return f
}

// keyword records one validation keyword; false means the fast path does
// not check it.
func (c *fastCompiler) keyword(f *fnode, typ, k string, v any) bool {
	count := func() int {
		n, err := strconv.Atoi(string(v.(json.Number)))
		if err != nil {
			return -2
		}
		return n
	}
	switch k {
	case "properties", "required", "additionalProperties", "items":
		return true // read with the type
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		return typ == "integer" || typ == "number"
	case "enum":
		if typ != "string" {
			return false
		}
		for _, e := range v.([]any) {
			s, ok := e.(string)
			if !ok {
				return false
			}
			f.enum = append(f.enum, s)
		}
		return true
	case "minLength":
		f.minLen = count()
		return f.minLen >= 0
	case "maxLength":
		f.maxLen = count()
		return f.maxLen >= 0
	case "minItems":
		f.minItems = count()
		return f.minItems >= 0
	case "maxItems":
		f.maxItems = count()
		return f.maxItems >= 0
	case "pattern":
		re, err := regexp.Compile(v.(string))
		f.pattern = re
		return err == nil
	case "format":
		// date-time is checked by parsing with time.Time itself, whose
		// strict RFC 3339 is narrower than the format (and the pattern
		// beside it narrows the rest).
		return v == "date-time" && f.plan.kind == kTime
	}
	return false
}

func (c *fastCompiler) intBounds(f *fnode, m map[string]any) {
	lo, hi := intRange(f.plan.typ)
	tighten := func(k string, lower bool, exclusive bool) {
		n, ok := m[k].(json.Number)
		if !ok {
			return
		}
		r, ok := new(big.Rat).SetString(string(n))
		if !ok {
			f.slow = true
			return
		}
		// The tightest integer bound: ceil for a lower bound, floor for an
		// upper one, one more (less) when exclusive.
		q := new(big.Int)
		if lower {
			q.Neg(new(big.Int).Div(new(big.Int).Neg(r.Num()), r.Denom())) // ceil
			if exclusive && r.IsInt() {
				q.Add(q, big.NewInt(1))
			}
			if b := new(big.Rat).SetInt(q); b.Cmp(lo) > 0 {
				lo = b
			}
		} else {
			q.Div(r.Num(), r.Denom()) // floor (Div rounds toward -inf for positive denominators)
			if exclusive && r.IsInt() {
				q.Sub(q, big.NewInt(1))
			}
			if b := new(big.Rat).SetInt(q); b.Cmp(hi) < 0 {
				hi = b
			}
		}
	}
	tighten("minimum", true, false)
	tighten("exclusiveMinimum", true, true)
	tighten("maximum", false, false)
	tighten("exclusiveMaximum", false, true)
	if f.plan.kind == kInt {
		if !lo.Num().IsInt64() || !hi.Num().IsInt64() {
			f.slow = true
			return
		}
		f.ilo, f.ihi = lo.Num().Int64(), hi.Num().Int64()
	} else {
		if lo.Sign() < 0 {
			lo = new(big.Rat)
		}
		if !lo.Num().IsUint64() || !hi.Num().IsUint64() {
			f.slow = true
			return
		}
		f.ulo, f.uhi = lo.Num().Uint64(), hi.Num().Uint64()
	}
}

func (c *fastCompiler) floatBounds(f *fnode, m map[string]any) {
	set := func(k string, p *float64, has, ex *bool, exclusive bool) {
		n, ok := m[k].(json.Number)
		if !ok {
			return
		}
		v, err := strconv.ParseFloat(string(n), 64)
		if err != nil || *has {
			f.slow = true // two bounds on one side: leave it to the validator
			return
		}
		*p, *has, *ex = v, true, exclusive
	}
	set("minimum", &f.flo, &f.hasFlo, &f.floEx, false)
	set("exclusiveMinimum", &f.flo, &f.hasFlo, &f.floEx, true)
	set("maximum", &f.fhi, &f.hasFhi, &f.fhiEx, false)
	set("exclusiveMaximum", &f.fhi, &f.hasFhi, &f.fhiEx, true)
}

// fastState is the pooled per-call state of the fast path.
type fastState struct {
	buf bytes.Buffer
	dec jsontext.Decoder
}

var fastPool = sync.Pool{New: func() any { return new(fastState) }}

var errGiveUp = errors.New("fast path gives up")

// fastDecode validates args and decodes them into v in one pass. It
// reports false when it cannot decide; v may then hold partial data.
func fastDecode(f *fnode, args []byte, v reflect.Value) bool {
	trimmed := trimJSONSpace(args)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		trimmed = []byte("{}")
	}
	st := fastPool.Get().(*fastState)
	defer func() {
		// Drop the reference to the arguments before pooling: a pooled
		// decoder must not keep a 1 MiB call alive.
		st.buf = bytes.Buffer{}
		st.dec.Reset(&st.buf)
		fastPool.Put(st)
	}()
	st.buf = *bytes.NewBuffer(trimmed)
	st.dec.Reset(&st.buf)
	if err := f.decode(&st.dec, v); err != nil {
		return false
	}
	_, err := st.dec.ReadToken()
	return err == io.EOF
}

func (f *fnode) decode(d *jsontext.Decoder, v reflect.Value) error {
	if f.nullOf != nil {
		if d.PeekKind() != 'n' {
			return f.nullOf.decode(d, v)
		}
		if _, err := d.ReadToken(); err != nil {
			return err
		}
		switch v.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
			v.SetZero()
		}
		return nil
	}
	if f.slow {
		return errGiveUp
	}
	for v.Kind() == reflect.Pointer && f.plan.typ != v.Type() {
		if d.PeekKind() == 'n' {
			break
		}
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		v = v.Elem()
	}
	k := d.PeekKind()
	if k == 'n' {
		if f.plan.kind != kAny && f.plan.kind != kRaw {
			return errGiveUp // null where the schema does not allow it
		}
		if v.Kind() == reflect.Pointer {
			// encoding/json sets a pointer to nil on null, even a pointer
			// to a json.RawMessage.
			if _, err := d.ReadToken(); err != nil {
				return err
			}
			v.SetZero()
			return nil
		}
	}
	switch f.plan.kind {
	case kStruct:
		return f.decodeObject(d, v)
	case kMap:
		return f.decodeMap(d, v)
	case kSlice, kArray:
		return f.decodeArray(d, v)
	case kBool:
		if k != 't' && k != 'f' {
			return errGiveUp
		}
		tok, err := d.ReadToken()
		if err != nil {
			return err
		}
		v.SetBool(tok.Bool())
		return nil
	case kInt, kUint, kFloat:
		return f.decodeNumber(d, v)
	case kString, kTime, kBytes:
		return f.decodeString(d, v)
	case kAny, kRaw:
		raw, err := d.ReadValue()
		if err != nil {
			return err
		}
		if f.plan.kind == kRaw {
			v.SetBytes(bytes.Clone(raw))
			return nil
		}
		var x any
		if err := json.Unmarshal(raw, &x); err != nil {
			return errGiveUp
		}
		if x != nil {
			v.Set(reflect.ValueOf(x))
		}
		return nil
	}
	return errGiveUp
}

func (f *fnode) decodeObject(d *jsontext.Decoder, v reflect.Value) error {
	if d.PeekKind() != '{' {
		return errGiveUp
	}
	if _, err := d.ReadToken(); err != nil {
		return err
	}
	var seenSmall uint64
	var seenBig []bool
	if len(f.fields) > 64 {
		seenBig = make([]bool, len(f.fields))
	}
	for d.PeekKind() != '}' {
		name, err := d.ReadValue()
		if err != nil {
			return err
		}
		if bytes.IndexByte(name, '\\') >= 0 {
			return errGiveUp
		}
		i, ok := f.nameIdx[string(name[1:len(name)-1])]
		if !ok {
			return errGiveUp
		}
		if seenBig != nil {
			seenBig[i] = true
		} else {
			seenSmall |= 1 << i
		}
		if err := f.fields[i].decode(d, fieldAt(v, f.plan.fields[i].index)); err != nil {
			return err
		}
	}
	if _, err := d.ReadToken(); err != nil {
		return err
	}
	for i := range f.fields {
		seen := seenBig != nil && seenBig[i] || seenBig == nil && seenSmall&(1<<i) != 0
		if seen {
			continue
		}
		if f.required[i] {
			return errGiveUp
		}
		if pf := &f.plan.fields[i]; pf.def != nil {
			if err := decode(pf.plan, fieldAt(v, pf.index), pf.def, ""); err != nil {
				return errGiveUp
			}
		}
	}
	return nil
}

func (f *fnode) decodeMap(d *jsontext.Decoder, v reflect.Value) error {
	if d.PeekKind() != '{' {
		return errGiveUp
	}
	if _, err := d.ReadToken(); err != nil {
		return err
	}
	if v.IsNil() {
		v.Set(reflect.MakeMap(v.Type()))
	}
	keyType, elemType := v.Type().Key(), v.Type().Elem()
	for d.PeekKind() != '}' {
		tok, err := d.ReadToken()
		if err != nil {
			return err
		}
		key := tok.String() // before the next read voids tok
		ev := reflect.New(elemType).Elem()
		if err := f.elem.decode(d, ev); err != nil {
			return err
		}
		v.SetMapIndex(reflect.ValueOf(key).Convert(keyType), ev)
	}
	_, err := d.ReadToken()
	return err
}

func (f *fnode) decodeArray(d *jsontext.Decoder, v reflect.Value) error {
	if d.PeekKind() != '[' {
		return errGiveUp
	}
	if _, err := d.ReadToken(); err != nil {
		return err
	}
	n := 0
	isSlice := v.Kind() == reflect.Slice
	if isSlice {
		v.Set(reflect.MakeSlice(v.Type(), 0, 4))
	}
	for d.PeekKind() != ']' {
		var ev reflect.Value
		if isSlice {
			if n == v.Cap() {
				grown := reflect.MakeSlice(v.Type(), n, 2*n)
				reflect.Copy(grown, v)
				v.Set(grown)
			}
			v.SetLen(n + 1)
			ev = v.Index(n)
		} else {
			if n >= v.Len() {
				return errGiveUp
			}
			ev = v.Index(n)
		}
		if err := f.elem.decode(d, ev); err != nil {
			return err
		}
		n++
	}
	if _, err := d.ReadToken(); err != nil {
		return err
	}
	if f.minItems >= 0 && n < f.minItems || f.maxItems >= 0 && n > f.maxItems || !isSlice && n != v.Len() {
		return errGiveUp
	}
	return nil
}

func (f *fnode) decodeNumber(d *jsontext.Decoder, v reflect.Value) error {
	if d.PeekKind() != '0' {
		return errGiveUp
	}
	raw, err := d.ReadValue()
	if err != nil {
		return err
	}
	switch f.plan.kind {
	case kInt:
		i, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || i < f.ilo || i > f.ihi {
			return errGiveUp // 5.0, 1e2 and out-of-range values: the validator decides
		}
		v.SetInt(i)
	case kUint:
		u, err := strconv.ParseUint(string(raw), 10, 64)
		if err != nil || u < f.ulo || u > f.uhi {
			return errGiveUp
		}
		v.SetUint(u)
	case kFloat:
		x, err := strconv.ParseFloat(string(raw), 64)
		if err != nil {
			return errGiveUp
		}
		// Rounding is monotonic: a float strictly inside the rounded bounds
		// comes from a decimal strictly inside the exact ones. On a bound,
		// only an exact match decides here; otherwise the validator does.
		okLo := !f.hasFlo || x > f.flo || x == f.flo && !f.floEx && exactFloat(raw, f.flo)
		okHi := !f.hasFhi || x < f.fhi || x == f.fhi && !f.fhiEx && exactFloat(raw, f.fhi)
		if !okLo || !okHi {
			return errGiveUp
		}
		if v.Kind() == reflect.Float32 {
			x32, err := strconv.ParseFloat(string(raw), 32)
			if err != nil || math.IsInf(x32, 0) {
				return errGiveUp
			}
			x = x32
		}
		v.SetFloat(x)
	}
	return nil
}

// exactFloat reports whether the decimal raw is exactly b.
func exactFloat(raw []byte, b float64) bool {
	r, ok := new(big.Rat).SetString(string(raw))
	return ok && r.Cmp(new(big.Rat).SetFloat64(b)) == 0
}

func (f *fnode) decodeString(d *jsontext.Decoder, v reflect.Value) error {
	if d.PeekKind() != '"' {
		return errGiveUp
	}
	raw, err := d.ReadValue()
	if err != nil {
		return err
	}
	var s string
	if bytes.IndexByte(raw, '\\') < 0 {
		s = string(raw[1 : len(raw)-1])
	} else {
		b, err := jsontext.AppendUnquote(nil, raw)
		if err != nil {
			return errGiveUp
		}
		s = string(b)
	}
	if f.enum != nil {
		found := false
		for _, e := range f.enum {
			if e == s {
				found = true
				break
			}
		}
		if !found {
			return errGiveUp
		}
	}
	if f.minLen >= 0 || f.maxLen >= 0 {
		n := utf8.RuneCountInString(s)
		if f.minLen >= 0 && n < f.minLen || f.maxLen >= 0 && n > f.maxLen {
			return errGiveUp
		}
	}
	if f.pattern != nil && !f.pattern.MatchString(s) {
		return errGiveUp
	}
	switch f.plan.kind {
	case kString:
		v.SetString(s)
	case kTime:
		if err := v.Addr().Interface().(*time.Time).UnmarshalText([]byte(s)); err != nil {
			return errGiveUp
		}
	case kBytes:
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return errGiveUp
		}
		v.SetBytes(b)
	}
	return nil
}
