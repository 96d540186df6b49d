package toolreg

import (
	"encoding"
	"encoding/json"
	"fmt"
	"math/big"
	"net"
	"net/url"
	"reflect"
	"time"

	"github.com/invopop/jsonschema"
)

// kind is how a Go type is decoded from a validated JSON value.
type kind uint8

const (
	kString kind = iota
	kBool
	kInt
	kUint
	kFloat
	kStruct
	kPtr
	kSlice
	kArray
	kMap
	kAny    // interface{}: the JSON value as encoding/json would give it
	kBytes  // []byte: base64 text
	kNumber // json.Number
	kRaw    // json.RawMessage
	kTime   // time.Time
	kText   // a TextUnmarshaler from a JSON string (net.IP)
	kHook   // a type with its own JSONSchema(): decoded by encoding/json
)

// node is the decode plan of one Go type, built once at declaration. A plan
// of a recursive type points back into itself.
type node struct {
	kind       kind
	typ        reflect.Type
	elem       *node          // kPtr, kSlice, kArray, kMap
	fields     []planField    // kStruct, in declaration order
	byName     map[string]int // kStruct: JSON name → index in fields
	hasDef     bool           // kStruct: some field has a default
	hasDefDeep bool           // a default somewhere at or below this node
}

type planField struct {
	field
	plan     *node
	required bool
	def      any // the default as a JSON value (json.Number for numbers); nil when none
}

var (
	timeType       = reflect.TypeFor[time.Time]()
	durationType   = reflect.TypeFor[time.Duration]()
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	numberType     = reflect.TypeFor[json.Number]()
	ipType         = reflect.TypeFor[net.IP]()
	urlType        = reflect.TypeFor[url.URL]()
	bigIntType     = reflect.TypeFor[big.Int]()
	bigFloatType   = reflect.TypeFor[big.Float]()
	bigRatType     = reflect.TypeFor[big.Rat]()

	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	jsonMarshalerType   = reflect.TypeFor[json.Marshaler]()
	textMarshalerType   = reflect.TypeFor[encoding.TextMarshaler]()

	schemaHookType = reflect.TypeFor[interface{ JSONSchema() *jsonschema.Schema }]()
	aliasHookType  = reflect.TypeFor[interface{ JSONSchemaAlias() any }]()
	propHookType   = reflect.TypeFor[interface{ JSONSchemaProperty(string) any }]()
)

// hasDecoder reports whether encoding/json decodes t with a method of t's
// own instead of by its kind.
func hasDecoder(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return t.Implements(jsonUnmarshalerType) || p.Implements(jsonUnmarshalerType) ||
		t.Implements(textUnmarshalerType) || p.Implements(textUnmarshalerType)
}

// hasEncoder is hasDecoder for the encoding direction.
func hasEncoder(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return t.Implements(jsonMarshalerType) || p.Implements(jsonMarshalerType) ||
		t.Implements(textMarshalerType) || p.Implements(textMarshalerType)
}

// hasSchemaHook reports a value-receiver JSONSchema() method, the hook the
// schema reflector honours.
func hasSchemaHook(t reflect.Type) bool { return t.Implements(schemaHookType) }

// analyzer walks a Go type once, refusing what cannot be described
// faithfully and building its decode plan.
type analyzer struct {
	output bool // describing a Result (encoding) rather than Args (decoding)
	plans  map[reflect.Type]*node
}

func newAnalyzer(output bool) *analyzer {
	return &analyzer{output: output, plans: map[reflect.Type]*node{}}
}

func (a *analyzer) analyze(t reflect.Type, path string) (*node, error) {
	if n, ok := a.plans[t]; ok {
		return n, nil
	}
	refuse := func(why, fix string) (*node, error) {
		return nil, &DeclarationError{Path: path, Type: t.String(), Why: why, Fix: fix}
	}
	n := &node{typ: t}
	if t.Kind() == reflect.Pointer {
		n.kind = kPtr
		return a.container(n, path)
	}
	switch t {
	case timeType:
		n.kind = kTime
		return a.keep(n)
	case rawMessageType:
		n.kind = kRaw
		return a.keep(n)
	case numberType:
		n.kind = kNumber
		return a.keep(n)
	case ipType:
		n.kind = kText
		return a.keep(n)
	case durationType:
		return refuse("encoding/json reads a time.Duration as a number of nanoseconds, which a model will not guess", `use a string field parsed with time.ParseDuration (e.g. "90s"), or an integer number of seconds`)
	case urlType:
		return refuse("encoding/json reads url.URL as an object of its fields, not as a URL string", "use a string field and parse it with url.Parse")
	case bigIntType, bigFloatType, bigRatType:
		return refuse("the arbitrary-precision types have no faithful schema", "use int64, float64 or a string field")
	}
	if t.Implements(aliasHookType) || t.Implements(propHookType) {
		return refuse("JSONSchemaAlias and JSONSchemaProperty substitute another type's schema, which the decoder does not follow", "describe the type with a value-receiver JSONSchema() method, or change the field's type")
	}
	if hasSchemaHook(t) {
		n.kind = kHook
		return a.keep(n)
	}
	if reflect.PointerTo(t).Implements(schemaHookType) {
		return refuse("JSONSchema() is declared on the pointer receiver, where the schema reflector silently ignores it", "declare JSONSchema() on the value receiver")
	}
	custom := hasDecoder(t)
	if a.output {
		custom = hasEncoder(t)
	}
	if custom {
		return refuse("the type has its own JSON or text encoding, so a schema reflected from its Go kind would not describe what it accepts", "give the type a value-receiver JSONSchema() method that describes its JSON form, or use a plain field type")
	}
	switch t.Kind() {
	case reflect.String:
		n.kind = kString
	case reflect.Bool:
		n.kind = kBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n.kind = kInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n.kind = kUint
	case reflect.Float32, reflect.Float64:
		n.kind = kFloat
	case reflect.Interface:
		if t.NumMethod() > 0 {
			return refuse("an interface with methods cannot be decoded from JSON", "use a concrete type, or any")
		}
		n.kind = kAny
	case reflect.Slice:
		if t.Elem() == reflect.TypeFor[byte]() {
			n.kind = kBytes
			return a.keep(n)
		}
		n.kind = kSlice
		return a.container(n, path+"[]")
	case reflect.Array:
		n.kind = kArray
		return a.container(n, path+"[]")
	case reflect.Map:
		k := t.Key()
		if k.Kind() != reflect.String || hasDecoder(k) || hasEncoder(k) {
			return refuse(fmt.Sprintf("map keys of type %s have no faithful schema (JSON object keys are strings)", k), "use a map with string keys")
		}
		n.kind = kMap
		return a.container(n, path+"{}")
	case reflect.Struct:
		return a.structPlan(n, path)
	default:
		return refuse(fmt.Sprintf("a %s cannot be represented in JSON", t.Kind()), "remove the field from the arguments or hide it with json:\"-\"")
	}
	return a.keep(n)
}

func (a *analyzer) keep(n *node) (*node, error) {
	a.plans[n.typ] = n
	return n, nil
}

func (a *analyzer) container(n *node, path string) (*node, error) {
	a.plans[n.typ] = n
	elem, err := a.analyze(n.typ.Elem(), path)
	if err != nil {
		delete(a.plans, n.typ)
		return nil, err
	}
	n.elem = elem
	return n, nil
}

func (a *analyzer) structPlan(n *node, path string) (*node, error) {
	n.kind = kStruct
	fields, err := structFields(n.typ, path)
	if err != nil {
		return nil, err
	}
	a.plans[n.typ] = n // before the fields: recursive types point back here
	n.byName = make(map[string]int, len(fields))
	for _, f := range fields {
		fpath := joinPath(path, f.name)
		plan, err := a.analyze(f.typ, fpath)
		if err != nil {
			delete(a.plans, n.typ)
			return nil, err
		}
		tags, err := checkTags(f, fpath)
		if err != nil {
			delete(a.plans, n.typ)
			return nil, err
		}
		pf := planField{field: f, plan: plan, def: tags.def}
		if a.output {
			pf.required = !f.omitempty
		} else {
			pf.required = tags.required || !(f.omitempty || f.typ.Kind() == reflect.Pointer || tags.def != nil)
		}
		if tags.def != nil {
			n.hasDef = true
		}
		n.byName[f.name] = len(n.fields)
		n.fields = append(n.fields, pf)
	}
	return n, nil
}

// hasHook reports whether a plan reaches a type with its own JSONSchema().
func hasHook(n *node, seen map[*node]bool) bool {
	if n == nil || seen[n] {
		return false
	}
	seen[n] = true
	if n.kind == kHook || hasHook(n.elem, seen) {
		return true
	}
	for _, f := range n.fields {
		if hasHook(f.plan, seen) {
			return true
		}
	}
	return false
}

// markDefaults sets hasDefDeep on every node that has a default at or
// below it. Plans of recursive types are cyclic: it iterates to a fixpoint.
func markDefaults(root *node) {
	var all []*node
	seen := map[*node]bool{}
	var collect func(n *node)
	collect = func(n *node) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		all = append(all, n)
		collect(n.elem)
		for _, f := range n.fields {
			collect(f.plan)
		}
	}
	collect(root)
	for changed := true; changed; {
		changed = false
		for _, n := range all {
			deep := n.hasDef || n.elem != nil && n.elem.hasDefDeep
			for _, f := range n.fields {
				deep = deep || f.plan.hasDefDeep
			}
			if deep && !n.hasDefDeep {
				n.hasDefDeep, changed = true, true
			}
		}
	}
}
