package reflectschema

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

// Kind is how a Go type is read from JSON.
type Kind uint8

// The kinds of Shape.
const (
	String Kind = iota
	Bool
	Int
	Uint
	Float
	Struct
	Pointer
	Slice
	Array
	Map
	Any    // interface{}: the JSON value as encoding/json would give it
	Bytes  // []byte: base64 text
	Number // json.Number
	Raw    // json.RawMessage
	Time   // time.Time
	Text   // a TextUnmarshaler from a JSON string (net.IP)
	Hook   // a type with its own JSONSchema(): decoded by encoding/json
)

// Shape is how values of one Go type read as JSON, decided once at
// declaration: the kind, and the fields or element below it. The Shape of
// a recursive type points back into itself.
type Shape struct {
	Kind         Kind
	Type         reflect.Type
	Elem         *Shape  // Pointer, Slice, Array, Map
	Fields       []Field // Struct, in declaration order
	HasDefault   bool    // Struct: some field has a default
	DefaultBelow bool    // a default somewhere at or below this shape

	byName map[string]int // Struct of more than linearFields fields: JSON name → index in Fields
}

// Field is one JSON member of a struct as encoding/json sees it: promoted
// fields of embedded structs are flattened into their outer struct.
type Field struct {
	Name      string       // the JSON name, exactly as encoding/json matches it
	GoPath    string       // Go selector for error messages, e.g. "Base.City"
	Index     []int        // reflect index path, through embedded structs
	Type      reflect.Type // the field's Go type
	Tag       reflect.StructTag
	OmitEmpty bool // omitempty or omitzero

	Shape    *Shape
	Required bool
	Default  any // the default as a JSON value (json.Number for numbers); nil when none
}

// FieldIndex returns the index in Fields of the struct field with JSON
// name name, without allocating.
func (s *Shape) FieldIndex(name []byte) (int, bool) {
	if s.byName == nil {
		for i := range s.Fields {
			if s.Fields[i].Name == string(name) {
				return i, true
			}
		}
		return 0, false
	}
	i, ok := s.byName[string(name)]
	return i, ok
}

// linearFields is the number of fields up to which a struct's fields are
// found by name without a map: as fast, and smaller.
const linearFields = 8

// Field returns the struct field with JSON name name, or nil.
func (s *Shape) Field(name string) *Field {
	if s == nil || s.Kind != Struct {
		return nil
	}
	i, ok := s.FieldIndex([]byte(name))
	if !ok {
		return nil
	}
	return &s.Fields[i]
}

// FieldNames lists the JSON names of a struct's fields, nil for other
// kinds.
func (s *Shape) FieldNames() []string {
	if s == nil || s.Kind != Struct {
		return nil
	}
	out := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		out[i] = f.Name
	}
	return out
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
// faithfully and building its Shape.
type analyzer struct {
	output bool // describing a Result (encoding) rather than Args (decoding)
	shapes map[reflect.Type]*Shape
}

func newAnalyzer(output bool) *analyzer {
	return &analyzer{output: output, shapes: map[reflect.Type]*Shape{}}
}

func (a *analyzer) analyze(t reflect.Type, path string) (*Shape, error) {
	if n, ok := a.shapes[t]; ok {
		return n, nil
	}
	refuse := func(why, fix string) (*Shape, error) {
		return nil, &Error{Path: path, Type: t.String(), Why: why, Fix: fix}
	}
	n := &Shape{Type: t}
	if t.Kind() == reflect.Pointer {
		n.Kind = Pointer
		return a.container(n, path)
	}
	switch t {
	case timeType:
		n.Kind = Time
		return a.keep(n)
	case rawMessageType:
		n.Kind = Raw
		return a.keep(n)
	case numberType:
		n.Kind = Number
		return a.keep(n)
	case ipType:
		n.Kind = Text
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
		n.Kind = Hook
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
		n.Kind = String
	case reflect.Bool:
		n.Kind = Bool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n.Kind = Int
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n.Kind = Uint
	case reflect.Float32, reflect.Float64:
		n.Kind = Float
	case reflect.Interface:
		if t.NumMethod() > 0 {
			return refuse("an interface with methods cannot be decoded from JSON", "use a concrete type, or any")
		}
		n.Kind = Any
	case reflect.Slice:
		if t.Elem() == reflect.TypeFor[byte]() {
			n.Kind = Bytes
			return a.keep(n)
		}
		n.Kind = Slice
		return a.container(n, path+"[]")
	case reflect.Array:
		n.Kind = Array
		return a.container(n, path+"[]")
	case reflect.Map:
		k := t.Key()
		if k.Kind() != reflect.String || hasDecoder(k) || hasEncoder(k) {
			return refuse(fmt.Sprintf("map keys of type %s have no faithful schema (JSON object keys are strings)", k), "use a map with string keys")
		}
		n.Kind = Map
		return a.container(n, path+"{}")
	case reflect.Struct:
		return a.structPlan(n, path)
	default:
		why := fmt.Sprintf("a %s cannot be represented in JSON", t.Kind())
		if !a.output {
			return refuse(why, "remove the field from the arguments or hide it with json:\"-\"")
		}
		return refuse(why+", so the tool's result type cannot hold it",
			"a result type holds only what encoding/json writes: strings, numbers, bools, structs, maps with string keys, slices, arrays and pointers to them "+
				"(or is a string for text, or toolreg.Output to word the result yourself); hide a result field of another kind with json:\"-\"")
	}
	return a.keep(n)
}

func (a *analyzer) keep(n *Shape) (*Shape, error) {
	a.shapes[n.Type] = n
	return n, nil
}

func (a *analyzer) container(n *Shape, path string) (*Shape, error) {
	a.shapes[n.Type] = n
	elem, err := a.analyze(n.Type.Elem(), path)
	if err != nil {
		delete(a.shapes, n.Type)
		return nil, err
	}
	n.Elem = elem
	return n, nil
}

func (a *analyzer) structPlan(n *Shape, path string) (*Shape, error) {
	n.Kind = Struct
	fields, err := structFields(n.Type, path)
	if err != nil {
		return nil, err
	}
	a.shapes[n.Type] = n // before the fields: recursive types point back here
	if len(fields) > linearFields {
		n.byName = make(map[string]int, len(fields))
	}
	for _, f := range fields {
		fpath := joinPath(path, f.Name)
		fs, err := a.analyze(f.Type, fpath)
		if err != nil {
			delete(a.shapes, n.Type)
			return nil, err
		}
		tags, err := checkTags(f, fpath)
		if err != nil {
			delete(a.shapes, n.Type)
			return nil, err
		}
		pf := f
		pf.Shape, pf.Default = fs, tags.def
		if a.output {
			pf.Required = !f.OmitEmpty
		} else {
			pf.Required = tags.required || !(f.OmitEmpty || f.Type.Kind() == reflect.Pointer || tags.def != nil)
		}
		if tags.def != nil {
			n.HasDefault = true
		}
		if n.byName != nil {
			n.byName[f.Name] = len(n.Fields)
		}
		n.Fields = append(n.Fields, pf)
	}
	return n, nil
}

// hasHook reports whether a shape reaches a type with its own JSONSchema().
func hasHook(n *Shape, seen map[*Shape]bool) bool {
	if n == nil || seen[n] {
		return false
	}
	seen[n] = true
	if n.Kind == Hook || hasHook(n.Elem, seen) {
		return true
	}
	for _, f := range n.Fields {
		if hasHook(f.Shape, seen) {
			return true
		}
	}
	return false
}

// markDefaults sets DefaultBelow on every shape that has a default at or
// below it. Shapes of recursive types are cyclic: it iterates to a fixpoint.
func markDefaults(root *Shape) {
	var all []*Shape
	seen := map[*Shape]bool{}
	var collect func(n *Shape)
	collect = func(n *Shape) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		all = append(all, n)
		collect(n.Elem)
		for _, f := range n.Fields {
			collect(f.Shape)
		}
	}
	collect(root)
	for changed := true; changed; {
		changed = false
		for _, n := range all {
			deep := n.HasDefault || n.Elem != nil && n.Elem.DefaultBelow
			for _, f := range n.Fields {
				deep = deep || f.Shape.DefaultBelow
			}
			if deep && !n.DefaultBelow {
				n.DefaultBelow, changed = true, true
			}
		}
	}
}
