package args

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/santhosh-tekuri/jsonschema/v6"

	rs "github.com/toolreg/toolreg/internal/reflectschema"
)

// The fast path checks and decodes the arguments in one pass over the
// bytes, evaluating the keywords of the tool's own canonical schema as it
// goes, the way the validator evaluates them (formats with the validator's
// own format checks). Where the schema holds something it does not
// evaluate (a type's own JSONSchema(), a keyword it does not know), the
// position is marked slow: a call that reaches it is left to the reference
// path, which then decides. So a call is decided by one of the two paths,
// never by a guess; the tests check that they agree.

// verdict is what the fast path decided.
type verdict uint8

const (
	unsure   verdict = iota // the reference path decides
	accepted                // dst holds the arguments
	rejected                // the problems say why
	pending                 // the fast path has not run yet
)

// fnode is the fast plan of one schema position: its Go shape and the
// constraints the canonical schema puts there.
type fnode struct {
	shape  *rs.Shape // pointers skipped
	slow   bool      // a keyword or type the fast path does not evaluate
	nullOf *fnode    // set on a nullable position: null, or a value checked by nullOf
	typ    string    // the schema's type, for messages

	// strings
	enum           []string
	enumShown      []string // the enum as the message shows it
	minLen, maxLen int      // -1: none
	pattern        *regexp.Regexp
	format         *jsonschema.Format

	// numbers: the schema's bounds, exact, in the validator's order
	bounds     []bound
	multipleOf *big.Rat
	// integers: the tightest integer range the bounds allow, so that an
	// integer literal is checked without arithmetic
	ilo, ihi int64
	ulo, uhi uint64

	// arrays
	minItems, maxItems int // -1: none
	elem               *fnode
	elemSlot           slot       // how the byte scanner stores a slice's items
	scratch            *sync.Pool // a slice's: where the byte scanner reads long lists (longSlice)

	// objects
	fields   []*fnode // parallel to shape.Fields
	required []bool
	allowed  []string
	slots    []slot   // parallel to shape.Fields: where the byte scanner stores each
	quoted   []string // parallel to shape.Fields: each name as JSON writes it without escapes, "" when it needs them
	qwords   []uint64 // parallel to quoted: a quoted name of up to 8 bytes as a little-endian word, compared in one load
}

type boundKind uint8

const (
	minimum boundKind = iota
	maximum
	exclusiveMinimum
	exclusiveMaximum
)

// bound is one numeric keyword of the schema.
type bound struct {
	kind boundKind
	r    *big.Rat // exact
	d    decimal  // exact, as the schema writes it
	f    float64  // rounded: decides unless a value rounds to it
	text string   // as the message shows it
}

// fails reports whether the exact value d breaks the bound.
func (b *bound) fails(d decimal) bool {
	c := d.cmp(b.d)
	switch b.kind {
	case minimum:
		return c < 0
	case maximum:
		return c > 0
	case exclusiveMinimum:
		return c <= 0
	}
	return c >= 0
}

func (b *bound) message(got string) string {
	switch b.kind {
	case minimum:
		return msgMinimum(got, b.text)
	case maximum:
		return msgMaximum(got, b.text)
	case exclusiveMinimum:
		return msgExclusiveMinimum(got, b.text)
	}
	return msgExclusiveMaximum(got, b.text)
}

// fastPlan compiles the fast plan of a tool from its shape and its
// canonical schema, or returns nil when the schema's root is beyond it. An
// error is a pattern that does not compile, refused at declaration.
func fastPlan(shape *rs.Shape, schema json.RawMessage) (*fnode, error) {
	var root map[string]any
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	if err := dec.Decode(&root); err != nil {
		return nil, fmt.Errorf("reading the canonical schema: %v", err)
	}
	defs, _ := root["$defs"].(map[string]any)
	c := &fastCompiler{defs: defs, memo: map[string]*fnode{}}
	f := c.compile(shape, root)
	if c.err != nil {
		return nil, c.err
	}
	if f.slow {
		return nil, nil
	}
	f.settle(map[*fnode]bool{})
	return f, nil
}

// settle keeps, once the plan is whole, the slots that fit their plans:
// a recursive definition is known only then. A slot that does not fit is
// cleared, and its values go through reflect.
func (f *fnode) settle(seen map[*fnode]bool) {
	if f == nil || seen[f] {
		return
	}
	seen[f] = true
	f.nullOf.settle(seen)
	f.elem.settle(seen)
	if f.elem != nil && !f.elemSlot.fits(f.elem) {
		f.elemSlot = slot{}
	}
	for i, ff := range f.fields {
		ff.settle(seen)
		if ff == nil || !f.slots[i].fits(ff) { // nil: a slow struct, compiled in part
			f.slots[i] = slot{}
		}
	}
}

type fastCompiler struct {
	defs map[string]any
	memo map[string]*fnode // recursive definitions, by name
	err  error
}

// annotations are keywords that never make an instance invalid (in draft
// 2020-12 contentEncoding and contentMediaType are annotations unless
// content assertion is asked for, which it is not).
var annotations = map[string]bool{
	"description": true, "title": true, "default": true, "examples": true, "deprecated": true,
	"readOnly": true, "writeOnly": true, "contentEncoding": true, "contentMediaType": true, "$comment": true,
}

// schemaTypes are the JSON types a Go kind is read from.
var schemaTypes = map[rs.Kind]string{rs.String: "string", rs.Bool: "boolean", rs.Int: "integer", rs.Uint: "integer",
	rs.Float: "number", rs.Number: "number", rs.Struct: "object", rs.Map: "object", rs.Slice: "array", rs.Array: "array",
	rs.Time: "string", rs.Bytes: "string"}

func (c *fastCompiler) compile(shape *rs.Shape, s any) *fnode {
	shape = deref(shape)
	f := &fnode{shape: shape, minLen: -1, maxLen: -1, minItems: -1, maxItems: -1}
	if s == true {
		f.slow = shape.Kind != rs.Any && shape.Kind != rs.Raw
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
		*f = *c.compile(shape, def)
		return f
	}
	if alts, ok := m["anyOf"].([]any); ok {
		if len(alts) == 2 {
			if n, ok := alts[1].(map[string]any); ok && len(n) == 1 && n["type"] == "null" {
				// A wrapper, not a flagged copy: the inner node may be a
				// recursive definition still being compiled.
				return &fnode{shape: shape, nullOf: c.compile(shape, alts[0])}
			}
		}
		f.slow = true
		return f
	}
	f.typ, _ = m["type"].(string)
	for k, v := range m {
		if annotations[k] || k == "type" || k == "$defs" {
			continue
		}
		if !c.keyword(f, k, v) {
			f.slow = true
		}
	}
	if want := schemaTypes[shape.Kind]; want == "" || f.typ != want {
		f.slow = true
		return f
	}
	switch shape.Kind {
	case rs.Int, rs.Uint:
		f.intRange()
	case rs.Slice, rs.Array:
		items, ok := m["items"]
		if !ok {
			f.slow = true
			return f
		}
		f.elem = c.compile(shape.Elem, items)
		if t := shape.Type; shape.Kind == rs.Slice {
			f.elemSlot = slotOf(t.Elem(), 0)
			f.scratch = &sync.Pool{New: func() any { return &scratch{v: reflect.New(t).Elem()} }}
		}
	case rs.Map:
		ap, ok := m["additionalProperties"]
		if !ok {
			ap = true
		}
		f.elem = c.compile(shape.Elem, ap)
	case rs.Struct:
		props, _ := m["properties"].(map[string]any)
		if m["additionalProperties"] != false || len(props) != len(shape.Fields) {
			f.slow = true
			return f
		}
		f.fields = make([]*fnode, len(shape.Fields))
		f.required = make([]bool, len(shape.Fields))
		f.allowed = shape.FieldNames()
		f.slots = slots(shape)
		f.quoted = make([]string, len(shape.Fields))
		f.qwords = make([]uint64, len(shape.Fields))
		for i, sf := range shape.Fields {
			if plainName(sf.Name) {
				f.quoted[i] = `"` + sf.Name + `"`
				var w [8]byte
				copy(w[:], f.quoted[i])
				f.qwords[i] = binary.LittleEndian.Uint64(w[:])
			}
		}
		req, _ := m["required"].([]any)
		for i, sf := range shape.Fields {
			ps, ok := props[sf.Name]
			if !ok {
				f.slow = true
				return f
			}
			f.fields[i] = c.compile(sf.Shape, ps)
			for _, r := range req {
				f.required[i] = f.required[i] || r == sf.Name
			}
		}
	}
	return f
}

// keyword records one validation keyword; false means the fast path does
// not evaluate it.
func (c *fastCompiler) keyword(f *fnode, k string, v any) bool {
	count := func() int {
		n, err := strconv.Atoi(string(v.(json.Number)))
		if err != nil {
			return -2
		}
		return n
	}
	number := f.typ == "integer" || f.typ == "number"
	switch k {
	case "properties", "required", "additionalProperties", "items":
		return true // read with the type
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		n, ok := v.(json.Number)
		r, ok2 := new(big.Rat).SetString(string(n))
		if !number || !ok || !ok2 {
			return false
		}
		fl, _ := r.Float64()
		kind := map[string]boundKind{"minimum": minimum, "maximum": maximum, "exclusiveMinimum": exclusiveMinimum, "exclusiveMaximum": exclusiveMaximum}[k]
		f.bounds = append(f.bounds, bound{kind: kind, r: r, d: parseDecimal([]byte(n), nil), f: fl, text: ratString(r)})
		// The validator's order, so that two broken bounds read alike.
		for i := len(f.bounds) - 1; i > 0 && f.bounds[i].kind < f.bounds[i-1].kind; i-- {
			f.bounds[i], f.bounds[i-1] = f.bounds[i-1], f.bounds[i]
		}
		return true
	case "multipleOf":
		n, ok := v.(json.Number)
		r, ok2 := new(big.Rat).SetString(string(n))
		if !number || !ok || !ok2 || r.Sign() <= 0 {
			return false
		}
		f.multipleOf = r
		return true
	case "enum":
		if f.typ != "string" {
			return false
		}
		for _, e := range v.([]any) {
			s, ok := e.(string)
			if !ok {
				return false
			}
			f.enum = append(f.enum, s)
			f.enumShown = append(f.enumShown, snippet(s))
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
		if err != nil {
			c.err = fmt.Errorf("the pattern %q does not compile: %v", v, err)
			return false
		}
		f.pattern = re
		return true
	case "format":
		name, _ := v.(string)
		f.format = formatCheck(name)
		return f.typ == "string" && f.format != nil
	}
	return false
}

// intRange narrows the integer range of the Go type by the schema's bounds.
func (f *fnode) intRange() {
	lo, hi := rs.IntRange(f.shape.Type)
	for _, b := range f.bounds {
		// The tightest integer bound: ceil for a lower bound, floor for an
		// upper one, one more (less) when exclusive.
		q := new(big.Int)
		switch b.kind {
		case minimum, exclusiveMinimum:
			q.Neg(new(big.Int).Div(new(big.Int).Neg(b.r.Num()), b.r.Denom())) // ceil
			if b.kind == exclusiveMinimum && b.r.IsInt() {
				q.Add(q, big.NewInt(1))
			}
			if r := new(big.Rat).SetInt(q); r.Cmp(lo) > 0 {
				lo = r
			}
		default:
			q.Div(b.r.Num(), b.r.Denom()) // floor (Div rounds toward -inf for positive denominators)
			if b.kind == exclusiveMaximum && b.r.IsInt() {
				q.Sub(q, big.NewInt(1))
			}
			if r := new(big.Rat).SetInt(q); r.Cmp(hi) < 0 {
				hi = r
			}
		}
	}
	if f.shape.Kind == rs.Int {
		f.ilo, f.ihi = clampInt64(lo), clampInt64(hi)
		if lo.Cmp(hi) > 0 {
			f.ilo, f.ihi = 1, 0 // nothing is allowed
		}
		return
	}
	if lo.Sign() < 0 {
		lo = new(big.Rat)
	}
	f.ulo, f.uhi = clampUint64(lo), clampUint64(hi)
	if lo.Cmp(hi) > 0 {
		f.ulo, f.uhi = 1, 0
	}
}

func clampInt64(r *big.Rat) int64 {
	switch {
	case r.Num().IsInt64():
		return r.Num().Int64()
	case r.Sign() < 0:
		return math.MinInt64
	}
	return math.MaxInt64
}

func clampUint64(r *big.Rat) uint64 {
	if r.Num().IsUint64() {
		return r.Num().Uint64()
	}
	return math.MaxUint64
}

// formatChecks holds the validator's own checks of the formats, by name.
var formatChecks sync.Map

// formatCheck returns the validator's check of a format, nil for a format
// it does not know (whose keyword is then an annotation the fast path
// leaves to the reference path).
func formatCheck(name string) *jsonschema.Format {
	if f, ok := formatChecks.Load(name); ok {
		return f.(*jsonschema.Format)
	}
	s, err := compileSchema(json.RawMessage(`{"format":` + strconv.Quote(name) + `}`))
	if err != nil || s.Format == nil {
		return nil
	}
	formatChecks.Store(name, s.Format)
	return s.Format
}

// fastState is the pooled per-call state of the fast path.
type fastState struct {
	args     []byte
	buf      bytes.Buffer
	dec      jsontext.Decoder
	sizes    []span // from scan
	path     path
	problems []Problem
	number   *Problem // the first number beyond the limits
	digits   []byte   // scratch for decimals
	name     []byte   // scratch for names with escapes
	r, q     big.Rat  // scratch for multipleOf
}

// unquote returns the text of a quoted name: a view of the bytes, or of
// the scratch buffer when it has escapes.
func (st *fastState) unquote(quoted []byte) []byte {
	if bytes.IndexByte(quoted, '\\') < 0 {
		return quoted[1 : len(quoted)-1]
	}
	st.name, _ = jsontext.AppendUnquote(st.name[:0], quoted)
	return st.name
}

// size is the number of items of the container whose opening bracket was
// just read, 0 when small.
func (st *fastState) size() int { return sizeAt(st.sizes, st.dec.InputOffset()-1) }

var fastPool = sync.Pool{New: func() any { return new(fastState) }}

// allowDuplicates is made once: an option is an interface value, which
// would be allocated on every call.
var allowDuplicates = jsontext.AllowDuplicateNames(true)

var (
	errUnsure  = errors.New("the fast path leaves this call to the reference path")
	errTooMany = errors.New("enough problems to report")
)

// maxProblems bounds the problems the fast path collects: a huge invalid
// call gets a message of a readable length, and costs no more to read.
const maxProblems = 20

// keptArgs is the length of arguments up to which a pooled decoder may
// keep them until its next call.
const keptArgs = 4 << 10

// run checks args and decodes them into v in one pass; sizes are scan's.
func (f *fnode) run(args []byte, sizes []span, v reflect.Value) (verdict, []Problem) {
	st := fastPool.Get().(*fastState)
	defer func() {
		// Drop the references to the arguments before pooling: a pooled
		// decoder must not keep a 1 MiB call alive. Keeping a short one
		// costs less than the Reset.
		if len(args) > keptArgs {
			st.buf = bytes.Buffer{}
			st.dec.Reset(&st.buf)
		}
		st.path, st.problems, st.number, st.sizes, st.args = st.path[:0], nil, nil, nil, nil
		fastPool.Put(st)
	}()
	st.sizes, st.args = sizes, args
	st.buf = *bytes.NewBuffer(args)
	st.dec.Reset(&st.buf, allowDuplicates) // see duplicates.go
	err := f.decode(st, v)
	if err == nil {
		err = atEnd(&st.dec, args)
	}
	switch {
	case err == errUnsure:
		return unsure, nil
	case err != nil && err != errTooMany:
		return rejected, []Problem{*readProblem(err, st.path, args)}
	case st.number != nil:
		return rejected, []Problem{*st.number}
	case len(st.problems) == 0:
		return accepted, nil
	}
	return rejected, capProblems(st.problems)
}

// readProblem words an error of reading: a name met twice, or JSON that
// is not.
func readProblem(err error, p path, args []byte) *Problem {
	var dup *errDuplicate
	if errors.As(err, &dup) {
		return duplicateProblem(dup.at, dup.name)
	}
	return syntaxProblem(err, p, args)
}

// capProblems sorts problems and keeps the first maxProblems, saying so.
func capProblems(ps []Problem) []Problem {
	sortProblems(ps)
	if len(ps) >= maxProblems {
		ps = append(ps[:maxProblems:maxProblems], Problem{Message: fmt.Sprintf("(the first %d problems; fix them and call again to see whether there are more)", maxProblems)})
	}
	return ps
}

// fail records a problem at the current path.
func (st *fastState) fail(msg string) error {
	st.problems = append(st.problems, Problem{Path: st.path.String(), Message: msg})
	if len(st.problems) >= maxProblems {
		return errTooMany
	}
	return nil
}

// failType records a value of the wrong JSON type, skipping it.
func (st *fastState) failType(want string) error {
	raw, err := st.skip()
	if err != nil {
		return err
	}
	return st.fail(msgType([]string{want}, snippetRaw(raw)))
}

func (f *fnode) decode(st *fastState, v reflect.Value) error {
	if f.nullOf != nil {
		if st.dec.PeekKind() != 'n' {
			return f.nullOf.decode(st, v)
		}
		if _, err := st.dec.ReadToken(); err != nil {
			return err
		}
		switch v.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
			v.SetZero()
		}
		return nil
	}
	if f.slow {
		return errUnsure
	}
	k := st.dec.PeekKind()
	if k == 'n' && f.shape.Kind != rs.Any && f.shape.Kind != rs.Raw {
		return st.failType(f.typ) // null where the schema does not allow it
	}
	for v.Kind() == reflect.Pointer && f.shape.Type != v.Type() {
		if k == 'n' {
			// encoding/json sets a pointer to nil on null, even a pointer
			// to a json.RawMessage.
			if _, err := st.dec.ReadToken(); err != nil {
				return err
			}
			v.SetZero()
			return nil
		}
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		v = v.Elem()
	}
	switch f.shape.Kind {
	case rs.Struct:
		return f.decodeObject(st, v)
	case rs.Map:
		return f.decodeMap(st, v)
	case rs.Slice, rs.Array:
		return f.decodeArray(st, v)
	case rs.Bool:
		if k != 't' && k != 'f' {
			return st.failType(f.typ)
		}
		tok, err := st.dec.ReadToken()
		if err != nil {
			return err
		}
		v.SetBool(tok.Bool())
		return nil
	case rs.Int, rs.Uint, rs.Float, rs.Number:
		return f.decodeNumber(st, v)
	case rs.String, rs.Time, rs.Bytes:
		return f.decodeString(st, v)
	case rs.Raw:
		raw, err := st.skip()
		if err != nil {
			return err
		}
		v.SetBytes(bytes.Clone(raw))
		return nil
	case rs.Any:
		x, err := st.decodeAny()
		if err != nil {
			return err
		}
		if x != nil {
			v.Set(reflect.ValueOf(x))
		} else {
			v.SetZero()
		}
		return nil
	}
	return errUnsure
}

func (f *fnode) decodeObject(st *fastState, v reflect.Value) error {
	if st.dec.PeekKind() != '{' {
		return st.failType("object")
	}
	if _, err := st.dec.ReadToken(); err != nil {
		return err
	}
	var seenSmall uint64
	var seenBig []bool
	if len(f.fields) > 64 {
		seenBig = make([]bool, len(f.fields))
	}
	depth := len(st.path)
	var unknown []string
	for st.dec.PeekKind() != '}' {
		quoted, err := st.dec.ReadValue()
		if err != nil {
			return err
		}
		raw := st.unquote(quoted)
		i, known := f.shape.FieldIndex(raw)
		if !known {
			name := string(raw)
			st.path = append(st.path, key(name))
			// Every unknown name is a problem, so there are few to keep.
			if slices.Contains(unknown, name) {
				st.path = st.path[:depth]
				return st.duplicate(name)
			}
			unknown = append(unknown, name)
			if err := st.fail(msgUnknown(name, f.allowed)); err != nil {
				return err
			}
			if _, err := st.skip(); err != nil {
				return err
			}
			st.path = st.path[:depth]
			continue
		}
		name := f.shape.Fields[i].Name
		st.path = append(st.path, key(name))
		if seenBig != nil && seenBig[i] || seenBig == nil && seenSmall&(1<<i) != 0 {
			st.path = st.path[:depth]
			return st.duplicate(name)
		}
		if seenBig != nil {
			seenBig[i] = true
		} else {
			seenSmall |= 1 << i
		}
		null, before := !f.required[i] && st.dec.PeekKind() == 'n', len(st.problems)
		if err := f.fields[i].decode(st, fieldAt(v, f.shape.Fields[i].Index)); err != nil {
			return err
		}
		if null && len(st.problems) > before {
			p := &st.problems[len(st.problems)-1]
			p.Message = msgOptionalNull(p.Message, &f.shape.Fields[i])
		}
		st.path = st.path[:depth]
	}
	if _, err := st.dec.ReadToken(); err != nil {
		return err
	}
	for i := range f.fields {
		if seenBig != nil && seenBig[i] || seenBig == nil && seenSmall&(1<<i) != 0 {
			continue
		}
		sf := &f.shape.Fields[i]
		if f.required[i] {
			st.path = append(st.path, key(sf.Name))
			err := st.fail(msgRequired(sf))
			st.path = st.path[:depth]
			if err != nil {
				return err
			}
			continue
		}
		if sf.Default != nil {
			if p := decodeDefault(sf.Shape, fieldAt(v, sf.Index), sf.Default); p != nil {
				return errUnsure
			}
		}
	}
	return nil
}

func (f *fnode) decodeMap(st *fastState, v reflect.Value) error {
	if st.dec.PeekKind() != '{' {
		return st.failType("object")
	}
	if _, err := st.dec.ReadToken(); err != nil {
		return err
	}
	if v.IsNil() {
		v.Set(reflect.MakeMapWithSize(v.Type(), st.size()))
	}
	keyType, elemType := v.Type().Key(), v.Type().Elem()
	depth := len(st.path)
	for st.dec.PeekKind() != '}' {
		tok, err := st.dec.ReadToken()
		if err != nil {
			return err
		}
		name := tok.String() // before the next read voids tok
		k := reflect.ValueOf(name).Convert(keyType)
		if v.MapIndex(k).IsValid() {
			return st.duplicate(name)
		}
		ev := reflect.New(elemType).Elem()
		st.path = append(st.path, key(name))
		if err := f.elem.decode(st, ev); err != nil {
			return err
		}
		st.path = st.path[:depth]
		v.SetMapIndex(k, ev)
	}
	_, err := st.dec.ReadToken()
	return err
}

func (f *fnode) decodeArray(st *fastState, v reflect.Value) error {
	if st.dec.PeekKind() != '[' {
		return st.failType("array")
	}
	if _, err := st.dec.ReadToken(); err != nil {
		return err
	}
	n := 0
	isSlice := v.Kind() == reflect.Slice
	if isSlice {
		v.Set(reflect.MakeSlice(v.Type(), 0, max(st.size(), 4)))
	}
	depth := len(st.path)
	var spare reflect.Value // where the items beyond a Go array's length go
	for st.dec.PeekKind() != ']' {
		var ev reflect.Value
		switch {
		case isSlice:
			if n == v.Cap() {
				grown := reflect.MakeSlice(v.Type(), n, 2*n)
				reflect.Copy(grown, v)
				v.Set(grown)
			}
			v.SetLen(n + 1)
			ev = v.Index(n)
		case n < v.Len():
			ev = v.Index(n)
		default:
			if !spare.IsValid() {
				spare = reflect.New(v.Type().Elem()).Elem()
			}
			spare.SetZero()
			ev = spare
		}
		st.path = append(st.path, index(n))
		if err := f.elem.decode(st, ev); err != nil {
			return err
		}
		st.path = st.path[:depth]
		n++
	}
	if _, err := st.dec.ReadToken(); err != nil {
		return err
	}
	if f.minItems >= 0 && n < f.minItems {
		if err := st.fail(msgMinItems(n, f.minItems)); err != nil {
			return err
		}
	}
	if f.maxItems >= 0 && n > f.maxItems {
		return st.fail(msgMaxItems(n, f.maxItems))
	}
	return nil
}

func (f *fnode) decodeNumber(st *fastState, v reflect.Value) error {
	if st.dec.PeekKind() != '0' {
		return st.failType(f.typ)
	}
	raw, err := st.dec.ReadValue()
	if err != nil {
		return err
	}
	if f.shape.Kind == rs.Number {
		v.SetString(string(raw)) // json.Number keeps any literal
		return nil
	}
	if msg := numberProblem(raw); msg != "" {
		if st.number == nil {
			st.number = &Problem{Path: st.path.String(), Message: snippet(json.Number(raw)) + " " + msg}
		}
		return nil
	}
	plain := bytes.IndexAny(raw, ".eE") < 0
	switch f.shape.Kind {
	case rs.Int:
		if !plain { // ParseInt would allocate its error
			return f.checkExact(st, raw, v)
		}
		if i, err := strconv.ParseInt(string(raw), 10, 64); err == nil && i >= f.ilo && i <= f.ihi && !f.notMultiple(st, raw) {
			v.SetInt(i)
			return nil
		}
		return f.checkExact(st, raw, v)
	case rs.Uint:
		if !plain {
			return f.checkExact(st, raw, v)
		}
		if u, err := strconv.ParseUint(string(raw), 10, 64); err == nil && u >= f.ulo && u <= f.uhi && !f.notMultiple(st, raw) {
			v.SetUint(u)
			return nil
		}
		return f.checkExact(st, raw, v)
	}
	x, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return errUnsure // numberProblem already refused what does not parse
	}
	// Rounding is monotonic: a float strictly inside a rounded bound comes
	// from a decimal strictly inside the exact one. A value that rounds to
	// a bound is compared exactly.
	for i := range f.bounds {
		b := &f.bounds[i]
		inside := b.kind == minimum || b.kind == exclusiveMinimum
		if inside && x > b.f || !inside && x < b.f {
			continue
		}
		return f.checkExact(st, raw, v)
	}
	if f.notMultiple(st, raw) {
		return f.checkExact(st, raw, v)
	}
	if v.Kind() == reflect.Float32 {
		x32, err := strconv.ParseFloat(string(raw), 32)
		if err != nil || math.IsInf(x32, 0) {
			return errUnsure // the schema's bounds exclude what overflows a float32
		}
		x = x32
	}
	v.SetFloat(x)
	return nil
}

// notMultiple reports a value that breaks the schema's multipleOf.
func (f *fnode) notMultiple(st *fastState, raw []byte) bool {
	if f.multipleOf == nil {
		return false
	}
	r, ok := st.r.SetString(string(raw))
	return !ok || !st.q.Quo(r, f.multipleOf).IsInt()
}

// checkExact decides a number exactly, as the validator does: an integer
// written 5.0 or 1e2, a value beyond int64, a value on a bound.
func (f *fnode) checkExact(st *fastState, raw []byte, v reflect.Value) error {
	d := parseDecimal(raw, st.digits)
	st.digits = d.digits[:0]
	if f.typ == "integer" && !d.isInt() {
		return st.fail(msgType([]string{"integer"}, snippet(json.Number(raw))))
	}
	broken := false
	for i := range f.bounds {
		if b := &f.bounds[i]; b.fails(d) {
			broken = true
			if err := st.fail(b.message(snippet(json.Number(raw)))); err != nil {
				return err
			}
		}
	}
	if f.notMultiple(st, raw) {
		broken = true
		if err := st.fail(msgMultipleOf(snippet(json.Number(raw)), ratString(f.multipleOf))); err != nil {
			return err
		}
	}
	if broken {
		return nil
	}
	switch f.shape.Kind {
	case rs.Int:
		i, ok := d.int64()
		if !ok || v.OverflowInt(i) {
			return errUnsure // the schema's bounds hold the type's range
		}
		v.SetInt(i)
	case rs.Uint:
		u, ok := d.uint64()
		if !ok || d.neg && u != 0 || v.OverflowUint(u) {
			return errUnsure
		}
		v.SetUint(u)
	default:
		x, err := strconv.ParseFloat(string(raw), v.Type().Bits())
		if err != nil {
			return errUnsure
		}
		v.SetFloat(x)
	}
	return nil
}

func (f *fnode) decodeString(st *fastState, v reflect.Value) error {
	if st.dec.PeekKind() != '"' {
		return st.failType(f.typ)
	}
	tok, err := st.dec.ReadToken()
	if err != nil {
		return err
	}
	s := tok.String()
	if f.enum != nil {
		found := false
		for _, e := range f.enum {
			if e == s {
				found = true
				break
			}
		}
		if !found {
			return st.fail(msgEnum(snippet(s), f.enumShown))
		}
	}
	if f.format != nil {
		if err := f.format.Validate(s); err != nil {
			return st.fail(msgFormat(snippet(s), f.format.Name))
		}
	}
	broken := false
	if f.minLen >= 0 || f.maxLen >= 0 {
		n := utf8.RuneCountInString(s)
		if f.minLen >= 0 && n < f.minLen {
			broken = true
			if err := st.fail(msgMinLength(snippet(s), n, f.minLen)); err != nil {
				return err
			}
		}
		if f.maxLen >= 0 && n > f.maxLen {
			broken = true
			if err := st.fail(msgMaxLength(n, f.maxLen)); err != nil {
				return err
			}
		}
	}
	if f.pattern != nil && !f.pattern.MatchString(s) {
		broken = true
		if err := st.fail(msgPattern(f.shape, snippet(s), f.pattern.String())); err != nil {
			return err
		}
	}
	if broken {
		return nil
	}
	switch f.shape.Kind {
	case rs.String:
		v.SetString(s)
	case rs.Time:
		if err := v.Addr().Interface().(*time.Time).UnmarshalText([]byte(s)); err != nil {
			return st.fail(fmt.Sprintf("not an RFC 3339 date-time: %v", err))
		}
	case rs.Bytes:
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return st.fail(fmt.Sprintf("not valid base64: %v", err))
		}
		v.SetBytes(b)
	}
	return nil
}

// decodeAny reads any JSON value the way encoding/json stores it in an
// interface{}, refusing the numbers beyond the limits.
func (st *fastState) decodeAny() (any, error) {
	switch st.dec.PeekKind() {
	case '{':
		if _, err := st.dec.ReadToken(); err != nil {
			return nil, err
		}
		obj := make(map[string]any, st.size())
		depth := len(st.path)
		for st.dec.PeekKind() != '}' {
			tok, err := st.dec.ReadToken()
			if err != nil {
				return nil, err
			}
			name := tok.String()
			if _, dup := obj[name]; dup {
				return nil, st.duplicate(name)
			}
			st.path = append(st.path, key(name))
			x, err := st.decodeAny()
			if err != nil {
				return nil, err
			}
			st.path = st.path[:depth]
			obj[name] = x
		}
		_, err := st.dec.ReadToken()
		return obj, err
	case '[':
		if _, err := st.dec.ReadToken(); err != nil {
			return nil, err
		}
		if st.dec.PeekKind() == ']' {
			_, err := st.dec.ReadToken()
			return emptyArray, err
		}
		arr := make([]any, 0, st.size())
		depth := len(st.path)
		for st.dec.PeekKind() != ']' {
			st.path = append(st.path, index(len(arr)))
			x, err := st.decodeAny()
			if err != nil {
				return nil, err
			}
			st.path = st.path[:depth]
			arr = append(arr, x)
		}
		_, err := st.dec.ReadToken()
		return arr, err
	}
	tok, err := st.dec.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case '"':
		return tok.String(), nil
	case 't', 'f':
		return tok.Bool(), nil
	case '0':
		lit := tok.String()
		if msg := numberProblem([]byte(lit)); msg != "" {
			if st.number == nil {
				st.number = &Problem{Path: st.path.String(), Message: snippet(json.Number(lit)) + " " + msg}
			}
			return nil, nil
		}
		x, err := strconv.ParseFloat(lit, 64)
		if err != nil {
			return nil, errUnsure
		}
		if i := int(x); float64(i) == x && i >= 0 && i < len(smallNumbers) && !math.Signbit(x) {
			return smallNumbers[i], nil
		}
		return x, nil
	}
	return nil, nil
}

// emptyArray is [] as an any holds it, made once: with no room to grow
// into, it is never shared by an append.
var emptyArray any = []any{}

// smallNumbers are the small whole numbers as an any holds them, made
// once: an array of them in an any field costs its slots, not a float64
// allocated per item.
var smallNumbers = func() (ns [1024]any) {
	for i := range ns {
		ns[i] = float64(i)
	}
	return ns
}()
