package toolreg

// The schema never lies: an instance is valid under a tool's input schema if
// and only if Invoke decodes it and the function receives exactly the values
// it holds, defaults filled in. This file checks that promise field shape by
// field shape (TestSchemaAgreement), checks that the types the library cannot
// describe faithfully are refused (TestRefusedDeclarations), and searches for
// counterexamples with random and fuzzed instances (TestAgreementProperty,
// FuzzInvoke). Where the library is known to break the promise, the case lives
// in knownDisagreements, which reports it instead of failing.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"net"
	"net/url"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	invopop "github.com/invopop/jsonschema"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// agOmitted as the instance of a field row means the member "v" is left out:
// the arguments are {}.
const agOmitted = "<omitted>"

// agAccept is an instance that must be accepted, and the exact Go value the
// function must receive.
type agAccept[T any] struct {
	in   string
	want T
}

// agCase is one Args type with the instances it must accept and reject, as
// whole argument documents.
type agCase struct {
	name   string
	build  func() (*agHarness, error)
	accept []agWant
	reject []string
}

// agWant is an accepted instance with its wanted value, type-erased.
type agWant struct {
	doc  string
	want any
}

// agHarness is a declared tool whose function records what it received.
type agHarness struct {
	tool AnyTool
	take func() (got any, called bool) // the last value received; resets it
}

// agCmpBase compares received values exactly: a time.Time must be the
// same instant with the same offset, as encoding/json would give it.
var agCmpBase = []cmp.Option{
	cmp.Exporter(func(reflect.Type) bool { return true }),
	cmp.Comparer(func(a, b time.Time) bool {
		_, oa := a.Zone()
		_, ob := b.Zone()
		return a.Equal(b) && oa == ob
	}),
}

// agCmp is agCmpBase with json.RawMessage shown as text in diffs.
var agCmp = append([]cmp.Option{
	cmp.FilterPath(func(p cmp.Path) bool { return p.Last().Type() == reflect.TypeFor[json.RawMessage]() },
		cmp.Transformer("string", func(r json.RawMessage) string { return string(r) })),
}, agCmpBase...)

// agBuild declares a tool over Args A whose function records the value
// selected by pick.
func agBuild[A, T any](pick func(A) T) func() (*agHarness, error) {
	return func() (*agHarness, error) {
		var got T
		var called bool
		tool, err := New("agreement", "checks schema and decoder agreement",
			func(_ context.Context, a A) (string, error) {
				got, called = pick(a), true
				return "", nil
			})
		if err != nil {
			return nil, err
		}
		return &agHarness{tool: tool, take: func() (any, bool) {
			g, c := got, called
			var zero T
			got, called = zero, false
			return g, c
		}}, nil
	}
}

// agFieldDoc wraps the instance of field v into an arguments document.
func agFieldDoc(in string) string {
	if in == agOmitted {
		return "{}"
	}
	return `{"v":` + in + `}`
}

// agField is the case of Args agV[T], struct{ V T `json:"v"` }.
func agField[T any](name string, accept []agAccept[T], reject []string) agCase {
	c := agCase{name: name, build: agBuild(func(a agV[T]) T { return a.V })}
	for _, a := range accept {
		c.accept = append(c.accept, agWant{agFieldDoc(a.in), a.want})
	}
	for _, r := range reject {
		c.reject = append(c.reject, agFieldDoc(r))
	}
	return c
}

// agArgs is the case of Args A itself: instances are whole documents.
func agArgs[A any](name string, accept []agAccept[A], reject []string) agCase {
	c := agCase{name: name, build: agBuild(func(a A) A { return a })}
	for _, a := range accept {
		c.accept = append(c.accept, agWant{a.in, a.want})
	}
	c.reject = reject
	return c
}

// agRow is a field shape T on its own and nested as []T, map[string]T and *T.
func agRow[T any](name string, accept []agAccept[T], reject []string) []agCase {
	var inner []agAccept[T] // the instances that make sense inside a container
	var bad []string
	for _, a := range accept {
		if a.in != agOmitted {
			inner = append(inner, a)
		}
	}
	for _, r := range reject {
		if r != agOmitted {
			bad = append(bad, r)
		}
	}

	slice := []agAccept[[]T]{{"[]", []T{}}}
	for _, a := range inner {
		slice = append(slice, agAccept[[]T]{"[" + a.in + "]", []T{a.want}})
	}
	if len(inner) >= 2 {
		slice = append(slice, agAccept[[]T]{"[" + inner[0].in + ", " + inner[1].in + "]", []T{inner[0].want, inner[1].want}})
	}
	sliceBad := []string{agOmitted, "null", "{}"}
	for _, r := range bad {
		sliceBad = append(sliceBad, "["+r+"]")
		if len(inner) > 0 {
			sliceBad = append(sliceBad, "["+inner[0].in+","+r+"]")
		}
	}

	m := []agAccept[map[string]T]{{"{}", map[string]T{}}}
	for _, a := range inner {
		m = append(m, agAccept[map[string]T]{`{"k":` + a.in + `}`, map[string]T{"k": a.want}})
	}
	if len(inner) >= 2 {
		m = append(m, agAccept[map[string]T]{`{"a":` + inner[0].in + `,"b b":` + inner[1].in + `}`, map[string]T{"a": inner[0].want, "b b": inner[1].want}})
	}
	mBad := []string{agOmitted, "null", "[]"}
	for _, r := range bad {
		mBad = append(mBad, `{"k":`+r+`}`)
	}

	ptr := []agAccept[*T]{{agOmitted, nil}}
	for _, a := range inner {
		if a.in == "null" {
			ptr = append(ptr, agAccept[*T]{a.in, nil}) // encoding/json sets the pointer to nil
			continue
		}
		w := a.want
		ptr = append(ptr, agAccept[*T]{a.in, &w})
	}

	cs := []agCase{
		agField(name, accept, reject),
		agField(name+" in slice", slice, sliceBad),
		agField(name+" in map", m, mBad),
		agField(name+" behind pointer", ptr, bad),
	}
	if reflect.TypeFor[T]().Kind() == reflect.Uint8 {
		cs = append(cs[:1], cs[2:]...) // []uint8 is []byte: base64, its own row
	}
	return cs
}

// agRows is agRow for a tagged struct type A: each instance is the object
// of A, checked as the arguments themselves, as field v, and nested.
func agRows[A any](name string, accept []agAccept[A], reject []string) []agCase {
	return append([]agCase{agArgs(name+" as arguments", accept, reject)}, agRow(name, accept, reject)...)
}

// agSigned is the row of a signed integer kind: its exact bounds, and whole
// numbers written as floats, which JSON Schema's "integer" accepts.
func agSigned[T int | int8 | int16 | int32 | int64](name string) []agCase {
	bits := uint(reflect.TypeFor[T]().Bits())
	hi := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), bits-1), big.NewInt(1))
	lo := new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), bits-1))
	max, min := T(hi.Int64()), T(lo.Int64())
	above := new(big.Int).Add(hi, big.NewInt(1)).String()
	below := new(big.Int).Sub(lo, big.NewInt(1)).String()
	return agRow(name, []agAccept[T]{
		{"0", 0}, {"-0", 0}, {"1", 1}, {"-1", -1},
		{hi.String(), max}, {lo.String(), min},
		{hi.String() + ".0", max}, {agExp(hi.String()), max}, {"-" + agExp(lo.String()[1:]), min},
		{"5.0", 5}, {"1e2", 100}, {"1E+2", 100}, {"-1.0e0", -1}, {"12.50e1", 125},
	}, []string{
		above, below, above + ".0", "1.5", "-0.5", "1e400", "-1e400", "1e-400",
		`"1"`, "null", "true", "[]", "{}", agOmitted,
	})
}

// agUnsigned is agSigned for the unsigned kinds.
func agUnsigned[T uint | uint8 | uint16 | uint32 | uint64](name string) []agCase {
	bits := uint(reflect.TypeFor[T]().Bits())
	hi := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), bits), big.NewInt(1))
	max := T(hi.Uint64())
	above := new(big.Int).Add(hi, big.NewInt(1)).String()
	return agRow(name, []agAccept[T]{
		{"0", 0}, {"-0", 0}, {"-0.0", 0}, {"1", 1},
		{hi.String(), max}, {hi.String() + ".0", max}, {agExp(hi.String()), max},
		{"5.0", 5}, {"1e2", 100}, {"12.50e1", 125},
	}, []string{
		above, "-1", "-1.0", "-1e0", above + ".0", "1.5", "1e400", "1e-400",
		`"1"`, "null", "false", "[]", agOmitted,
	})
}

// agExp writes the digits of a whole number in exponent form: 127 → 1.27e2.
func agExp(digits string) string {
	return digits[:1] + "." + digits[1:] + "e" + strconv.Itoa(len(digits)-1)
}

// Field shapes used by the rows below.
type (
	agPoint struct {
		X     int    `json:"x"`
		Y     int    `json:"y"`
		Label string `json:"label,omitempty"`
	}
	agOptional struct {
		N  int     `json:"n,omitempty"`
		Z  int     `json:"z,omitzero"`
		P  *int    `json:"p"`
		S  *string `json:"s,omitempty"`
		Q  []int   `json:"q,omitempty"`
		Rq int     `json:"rq,omitempty" jsonschema:"required"`
	}
	agDefaults struct {
		S  string   `json:"s" jsonschema:"default=abc"`
		C  string   `json:"c" jsonschema:"default=a\\,b"`
		N  int      `json:"n" jsonschema:"default=42"`
		I8 int8     `json:"i8,omitempty" jsonschema:"default=-128"`
		U  uint64   `json:"u" jsonschema:"default=18446744073709551615"`
		B  bool     `json:"b" jsonschema:"default=true"`
		F  float64  `json:"f" jsonschema:"default=1.5"`
		P  *int     `json:"p" jsonschema:"default=7"`
		L  []string `json:"l" jsonschema:"default=x,default=y"`
		NS string   `json:"ns"` // required: defaults elsewhere do not make it optional
	}
	agEnum struct {
		Color string   `json:"color" jsonschema:"enum=red,enum=green,enum=a\\,b"`
		Level int      `json:"level" jsonschema:"enum=1,enum=2"`
		Tags  []string `json:"tags,omitempty" jsonschema:"enum=a,enum=b"`
		Ratio float64  `json:"ratio,omitempty" jsonschema:"enum=0.5,enum=1.5"`
	}
	agRange struct {
		N  int     `json:"n" jsonschema:"minimum=1,maximum=10"`
		F  float64 `json:"f" jsonschema:"exclusiveMinimum=0,maximum=1"`
		U  uint8   `json:"u" jsonschema:"minimum=-5,maximum=1000"` // clamped to 0..255
		M  int     `json:"m,omitempty" jsonschema:"multipleOf=3"`
		Ns []int16 `json:"ns,omitempty" jsonschema:"minimum=-2,maximum=2"`
	}
	agPattern struct {
		Code  string   `json:"code" jsonschema:"pattern=^[A-Z]{3}$"`
		Digit string   `json:"digit,omitempty" jsonschema:"pattern=^[0-9]{1\\,2}$"`
		Words []string `json:"words,omitempty" jsonschema:"pattern=^[a-z]+$"`
	}
	agLength struct {
		Name  string   `json:"name" jsonschema:"minLength=2,maxLength=4"`
		Items []int    `json:"items" jsonschema:"minItems=1,maxItems=2"`
		Set   []string `json:"set,omitempty" jsonschema:"uniqueItems=true"`
	}
	agNullable struct {
		N int      `json:"n" jsonschema:"nullable"`
		P *int     `json:"p" jsonschema:"nullable"`
		L []string `json:"l" jsonschema:"nullable"`
	}
	agTree struct {
		Name string   `json:"name"`
		Kids []agTree `json:"kids,omitempty"`
	}
	agList struct {
		Val  int     `json:"val"`
		Next *agList `json:"next,omitempty"`
	}
	agMutualA struct {
		B *agMutualB `json:"b,omitempty"`
	}
	agMutualB struct {
		As []agMutualA `json:"as"`
	}
	agBase struct {
		ID   string `json:"id"`
		Note string `json:"note" jsonschema:"default=none"`
	}
	agEmbedded struct {
		agBase
		X int `json:"x"`
	}
	AgExtra struct {
		Y int    `json:"y"`
		Z string `json:"z,omitempty"`
	}
	agEmbeddedPtr struct {
		*AgExtra
		X int `json:"x"`
	}
	agNamedEmbed struct {
		AgExtra `json:"extra"`
		X       int `json:"x"`
	}
	// agWide has more fields than the fast path tracks in one word.
	agWide struct {
		F00 int `json:"f00"`
		F01 int `json:"f01"`
		F02 int `json:"f02"`
		F03 int `json:"f03"`
		F04 int `json:"f04"`
		F05 int `json:"f05"`
		F06 int `json:"f06"`
		F07 int `json:"f07"`
		F08 int `json:"f08"`
		F09 int `json:"f09"`
		F10 int `json:"f10"`
		F11 int `json:"f11"`
		F12 int `json:"f12"`
		F13 int `json:"f13"`
		F14 int `json:"f14"`
		F15 int `json:"f15"`
		F16 int `json:"f16"`
		F17 int `json:"f17"`
		F18 int `json:"f18"`
		F19 int `json:"f19"`
		F20 int `json:"f20"`
		F21 int `json:"f21"`
		F22 int `json:"f22"`
		F23 int `json:"f23"`
		F24 int `json:"f24"`
		F25 int `json:"f25"`
		F26 int `json:"f26"`
		F27 int `json:"f27"`
		F28 int `json:"f28"`
		F29 int `json:"f29"`
		F30 int `json:"f30"`
		F31 int `json:"f31"`
		F32 int `json:"f32"`
		F33 int `json:"f33"`
		F34 int `json:"f34"`
		F35 int `json:"f35"`
		F36 int `json:"f36"`
		F37 int `json:"f37"`
		F38 int `json:"f38"`
		F39 int `json:"f39"`
		F40 int `json:"f40"`
		F41 int `json:"f41"`
		F42 int `json:"f42"`
		F43 int `json:"f43"`
		F44 int `json:"f44"`
		F45 int `json:"f45"`
		F46 int `json:"f46"`
		F47 int `json:"f47"`
		F48 int `json:"f48"`
		F49 int `json:"f49"`
		F50 int `json:"f50"`
		F51 int `json:"f51"`
		F52 int `json:"f52"`
		F53 int `json:"f53"`
		F54 int `json:"f54"`
		F55 int `json:"f55"`
		F56 int `json:"f56"`
		F57 int `json:"f57"`
		F58 int `json:"f58"`
		F59 int `json:"f59"`
		F60 int `json:"f60"`
		F61 int `json:"f61"`
		F62 int `json:"f62"`
		F63 int `json:"f63"`
		F64 int `json:"f64"`
		F65 int `json:"f65"`
		F66 int `json:"f66,omitempty"`
		F67 int `json:"f67"`
		F68 int `json:"f68" jsonschema:"default=68"`
		F69 int `json:"f69"`
	}
	agIntBounds struct {
		A int     `json:"a" jsonschema:"exclusiveMinimum=1,exclusiveMaximum=10"`
		B int     `json:"b,omitempty" jsonschema:"minimum=1.5,maximum=7.5"`
		C int8    `json:"c,omitempty" jsonschema:"minimum=-2.5,exclusiveMaximum=-0.5"`
		D uint    `json:"d,omitempty" jsonschema:"exclusiveMinimum=-3,maximum=5"`
		F float32 `json:"f,omitempty" jsonschema:"minimum=0.1,maximum=0.5"`
		G float64 `json:"g,omitempty" jsonschema:"exclusiveMinimum=0.1,exclusiveMaximum=0.3"`
	}
	agFormat struct {
		Email string `json:"email" jsonschema:"format=email"`
		ID    string `json:"id,omitempty" jsonschema:"format=uuid"`
		Day   string `json:"day,omitempty" jsonschema:"format=date"`
		Host  string `json:"host,omitempty" jsonschema:"format=ipv4"`
	}
	AgName      string
	agNamedTags struct {
		Name AgName            `json:"name" jsonschema:"enum=ann,enum=bob"`
		Keys map[AgName]uint16 `json:"keys"`
	}
)

func agPtr[T any](v T) *T { return &v }

// agShapes is the table of field shapes.
func agShapes() []agCase {
	var cs []agCase
	add := func(c ...agCase) { cs = append(cs, c...) }

	add(agRow("string", []agAccept[string]{
		{`"x"`, "x"}, {`""`, ""}, {`"é\u0000\"<\\"`, "é\x00\"<\\"}, {`"\ud83d\ude00"`, "😀"},
	}, []string{"1", "null", "true", `["x"]`, "{}", agOmitted})...)
	add(agRow("bool", []agAccept[bool]{{"true", true}, {"false", false}},
		[]string{`"true"`, "0", "1", "null", agOmitted})...)

	add(agSigned[int]("int")...)
	add(agSigned[int8]("int8")...)
	add(agSigned[int16]("int16")...)
	add(agSigned[int32]("int32")...)
	add(agSigned[int64]("int64")...)
	add(agUnsigned[uint]("uint")...)
	add(agUnsigned[uint8]("uint8")...)
	add(agUnsigned[uint16]("uint16")...)
	add(agUnsigned[uint32]("uint32")...)
	add(agUnsigned[uint64]("uint64")...)

	add(agRow("float32", []agAccept[float32]{
		{"0", 0}, {"1.5", 1.5}, {"0.1", 0.1}, {"-2", -2}, {"1e-50", 0}, {"1e38", 1e38},
		{"340282346638528859811704183484516925440", math.MaxFloat32},
		{"-340282346638528859811704183484516925440", -math.MaxFloat32},
	}, []string{"1e39", "-1e39", "1e400", `"1.5"`, "null", agOmitted})...)
	add(agRow("float64", []agAccept[float64]{
		{"0", 0}, {"-0", 0}, {"1.5", 1.5}, {"0.1", 0.1}, {"1e308", 1e308}, {"5e-324", 5e-324}, {"1e-400", 0},
		{"1.7976931348623157e308", math.MaxFloat64}, {"123456789012345678901234567890", 123456789012345678901234567890},
	}, []string{`"1.5"`, "null", "true", "[1]", agOmitted})...)

	add(agRow("*int", []agAccept[*int]{{"5", agPtr(5)}, {"0", agPtr(0)}, {"1e2", agPtr(100)}, {agOmitted, nil}},
		[]string{"null", `"5"`, "1.5", "9223372036854775808"})...)
	add(agRows("omitempty, omitzero and required", []agAccept[agOptional]{
		{`{"rq":0}`, agOptional{}},
		{`{"n":3,"z":4,"p":5,"s":"x","q":[1],"rq":6}`, agOptional{N: 3, Z: 4, P: agPtr(5), S: agPtr("x"), Q: []int{1}, Rq: 6}},
		{`{"n":0,"z":0,"q":[],"rq":0}`, agOptional{Q: []int{}}},
	}, []string{`{}`, `{"rq":0,"n":null}`, `{"rq":0,"p":null}`, `{"rq":0,"s":null}`, `{"rq":0,"q":null}`, `{"rq":"0"}`, `{"rq":0,"N":1}`})...)
	add(agRows("defaults", []agAccept[agDefaults]{
		{`{"ns":""}`, agDefaults{S: "abc", C: "a,b", N: 42, I8: -128, U: math.MaxUint64, B: true, F: 1.5, P: agPtr(7), L: []string{"x", "y"}}},
		{`{"ns":"n","s":"","c":"","n":0,"i8":0,"u":0,"b":false,"f":0,"p":0,"l":[]}`, agDefaults{NS: "n", P: agPtr(0), L: []string{}}},
		{`{"ns":"n","s":"s","b":false,"l":["z"]}`, agDefaults{NS: "n", S: "s", C: "a,b", N: 42, I8: -128, U: math.MaxUint64, F: 1.5, P: agPtr(7), L: []string{"z"}}},
	}, []string{`{}`, `{"ns":"","s":null}`, `{"ns":"","n":"1"}`, `{"ns":"","b":null}`, `{"ns":"","p":null}`, `{"ns":"","l":null}`, `{"ns":"","i8":128}`})...)

	add(agRow("[]string", []agAccept[[]string]{{"[]", []string{}}, {`["a","b"]`, []string{"a", "b"}}, {`["a","a"]`, []string{"a", "a"}}},
		[]string{"null", "[1]", `"a"`, "[null]", "{}", agOmitted})...)
	add(agRow("[3]int", []agAccept[[3]int]{{"[1,2,3]", [3]int{1, 2, 3}}, {"[1.0,2e0,-3]", [3]int{1, 2, -3}}},
		[]string{"[1,2]", "[1,2,3,4]", "[]", "null", "[1,2,null]", "[1,2,3.5]", `{"0":1}`, agOmitted})...)
	add(agRow("map[string]int", []agAccept[map[string]int]{{"{}", map[string]int{}}, {`{"a":1,"":2,"é":3,"a b":4}`, map[string]int{"a": 1, "": 2, "é": 3, "a b": 4}}},
		[]string{"null", `{"a":"1"}`, `{"a":1.5}`, `{"a":null}`, "[]", agOmitted})...)
	add(agRow("map[AgName]uint16 and enum on a named string", []agAccept[agNamedTags]{
		{`{"name":"ann","keys":{"x":65535}}`, agNamedTags{Name: "ann", Keys: map[AgName]uint16{"x": 65535}}},
	}, []string{`{"name":"eve","keys":{}}`, `{"name":"bob","keys":{"x":65536}}`, `{"name":"bob"}`})...)

	add(agRows("nested struct", []agAccept[agPoint]{
		{`{"x":1,"y":2}`, agPoint{X: 1, Y: 2}}, {`{"x":1,"y":2,"label":"p"}`, agPoint{X: 1, Y: 2, Label: "p"}},
	}, []string{`{"x":1}`, `{"x":1,"y":2,"z":3}`, `{"X":1,"y":2}`, `{"x":"1","y":2}`, "null", "[]", `"p"`})...)
	add(agRow("*struct", []agAccept[*agPoint]{{`{"x":1,"y":2}`, &agPoint{X: 1, Y: 2}}, {agOmitted, nil}},
		[]string{"null", "{}", `{"x":1,"y":2,"extra":0}`})...)

	add(agRow("time.Time", []agAccept[time.Time]{
		{`"2024-01-02T03:04:05Z"`, time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)},
		{`"2024-01-02T03:04:05+02:00"`, time.Date(2024, 1, 2, 3, 4, 5, 0, time.FixedZone("", 2*3600))},
		{`"2024-01-02T03:04:05.123456789-07:30"`, time.Date(2024, 1, 2, 3, 4, 5, 123456789, time.FixedZone("", -(7*3600+30*60)))},
		{`"2024-02-29T23:59:59.5Z"`, time.Date(2024, 2, 29, 23, 59, 59, 5e8, time.UTC)},
		{`"0001-01-01T00:00:00Z"`, time.Time{}},
		{`"9999-12-31T23:59:59+23:59"`, time.Date(9999, 12, 31, 23, 59, 59, 0, time.FixedZone("", 23*3600+59*60))},
	}, []string{
		`"2024-01-02"`, `"2024-01-02t03:04:05Z"`, `"2024-01-02T03:04:05z"`, `"2016-12-31T23:59:60Z"`,
		`"2024-02-30T00:00:00Z"`, `"2023-02-29T00:00:00Z"`, `"2024-01-02T03:04:05"`, `"2024-01-02 03:04:05Z"`,
		`"2024-01-02T03:04:05+24:00"`, `"2024-01-02T03:04:05.Z"`, `"2024-01-02T3:04:05Z"`, `"2024-13-02T03:04:05Z"`,
		`"2024-01-02T03:04:05+0200"`, `"tomorrow"`, `""`, "0", "null", agOmitted,
	})...)
	add(agRow("json.Number", []agAccept[json.Number]{
		{"12", "12"}, {"1.50", "1.50"}, {"-0", "-0"}, {"1e400", "1e400"}, {"1E+2", "1E+2"},
	}, []string{`"12"`, "null", "true", "[]", agOmitted})...)
	add(agRow("json.RawMessage", []agAccept[json.RawMessage]{
		{`{"a":1}`, json.RawMessage(`{"a":1}`)}, {`[1,"x",null]`, json.RawMessage(`[1,"x",null]`)},
		{"null", json.RawMessage("null")}, {`"s"`, json.RawMessage(`"s"`)}, {"1e400", json.RawMessage("1e400")}, {"true", json.RawMessage("true")},
	}, []string{agOmitted})...)
	add(agRow("any", []agAccept[any]{
		{"1", 1.0}, {"1e2", 100.0}, {"-0.5", -0.5}, {"123456789012345678901", 123456789012345678901.0},
		{`"s"`, "s"}, {"null", nil}, {"false", false},
		{`[1,"a",{"b":true}]`, []any{1.0, "a", map[string]any{"b": true}}}, {`{"k":{"n":[]}}`, map[string]any{"k": map[string]any{"n": []any{}}}},
	}, []string{agOmitted})...)
	add(agRow("net.IP", []agAccept[net.IP]{
		{`"1.2.3.4"`, net.ParseIP("1.2.3.4")}, {`"::1"`, net.ParseIP("::1")}, {`"2001:db8::8a2e:370:7334"`, net.ParseIP("2001:db8::8a2e:370:7334")},
		{`"::ffff:1.2.3.4"`, net.ParseIP("1.2.3.4")}, {`"255.255.255.255"`, net.IPv4bcast},
	}, []string{`""`, `"01.2.3.4"`, `"1.2.3.256"`, `"1.2.3"`, `"fe80::1%eth0"`, `"not-an-ip"`, `"1.2.3.4/8"`, "1", "[1,2,3,4]", "null", agOmitted})...)
	add(agRow("[]byte", []agAccept[[]byte]{
		{`""`, []byte{}}, {`"aGk="`, []byte("hi")}, {`"aGVsbG8gd29ybGQ="`, []byte("hello world")}, {`"AAEC"`, []byte{0, 1, 2}}, {`"+/8="`, []byte{0xfb, 0xff}},
	}, []string{`"hello world"`, `"aGk"`, `"aGk=="`, `"-_8="`, `"aGk=\n"`, "[104,105]", "null", agOmitted})...)

	add(agRows("enum", []agAccept[agEnum]{
		{`{"color":"red","level":1}`, agEnum{Color: "red", Level: 1}},
		{`{"color":"a,b","level":2.0,"tags":["a","b","a"],"ratio":1.5}`, agEnum{Color: "a,b", Level: 2, Tags: []string{"a", "b", "a"}, Ratio: 1.5}},
	}, []string{`{"color":"blue","level":1}`, `{"color":"Red","level":1}`, `{"color":"red","level":3}`, `{"color":"red","level":"1"}`,
		`{"color":"red","level":1,"tags":["c"]}`, `{"color":"red","level":1,"ratio":1}`, `{"color":"a","level":1}`})...)
	add(agRows("minimum and maximum", []agAccept[agRange]{
		{`{"n":1,"f":1,"u":0}`, agRange{N: 1, F: 1, U: 0}},
		{`{"n":10,"f":0.001,"u":255,"m":-9,"ns":[-2,2]}`, agRange{N: 10, F: 0.001, U: 255, M: -9, Ns: []int16{-2, 2}}},
	}, []string{`{"n":0,"f":1,"u":0}`, `{"n":11,"f":1,"u":0}`, `{"n":1,"f":0,"u":0}`, `{"n":1,"f":1.01,"u":0}`,
		`{"n":1,"f":1,"u":-1}`, `{"n":1,"f":1,"u":256}`, `{"n":1,"f":1,"u":0,"m":4}`, `{"n":1,"f":1,"u":0,"ns":[3]}`})...)
	add(agRows("pattern", []agAccept[agPattern]{
		{`{"code":"ABC"}`, agPattern{Code: "ABC"}},
		{`{"code":"XYZ","digit":"42","words":["ab","c"]}`, agPattern{Code: "XYZ", Digit: "42", Words: []string{"ab", "c"}}},
	}, []string{`{"code":"abc"}`, `{"code":"ABCD"}`, `{"code":""}`, `{"code":"ABC","digit":"123"}`, `{"code":"ABC","words":["a1"]}`})...)
	add(agRows("minLength and minItems", []agAccept[agLength]{
		{`{"name":"ab","items":[1]}`, agLength{Name: "ab", Items: []int{1}}},
		{`{"name":"éé","items":[1,2],"set":["a","b"]}`, agLength{Name: "éé", Items: []int{1, 2}, Set: []string{"a", "b"}}},
		{`{"name":"abcd","items":[1]}`, agLength{Name: "abcd", Items: []int{1}}},
	}, []string{`{"name":"a","items":[1]}`, `{"name":"é","items":[1]}`, `{"name":"abcde","items":[1]}`,
		`{"name":"ab","items":[]}`, `{"name":"ab","items":[1,2,3]}`, `{"name":"ab","items":[1],"set":["a","a"]}`})...)
	add(agRows("nullable", []agAccept[agNullable]{
		{`{"n":null,"p":null,"l":null}`, agNullable{}},
		{`{"n":1,"p":2,"l":["a"]}`, agNullable{N: 1, P: agPtr(2), L: []string{"a"}}},
		{`{"n":0,"l":[]}`, agNullable{L: []string{}}},
	}, []string{`{"p":1,"l":[]}`, `{"n":"1","l":[]}`, `{"n":1,"l":[null]}`})...)

	add(agRows("recursive tree", []agAccept[agTree]{
		{`{"name":"a"}`, agTree{Name: "a"}},
		{`{"name":"a","kids":[{"name":"b","kids":[{"name":"c","kids":[]}]},{"name":"d"}]}`,
			agTree{Name: "a", Kids: []agTree{{Name: "b", Kids: []agTree{{Name: "c", Kids: []agTree{}}}}, {Name: "d"}}}},
	}, []string{`{}`, `{"name":"a","kids":[{"name":"b","kids":[{}]}]}`, `{"name":"a","kids":[{"name":"b","x":1}]}`, `{"name":"a","kids":null}`, `{"name":"a","kids":[null]}`})...)
	add(agRows("recursive list", []agAccept[agList]{
		{`{"val":1}`, agList{Val: 1}},
		{`{"val":1,"next":{"val":2,"next":{"val":3}}}`, agList{Val: 1, Next: &agList{Val: 2, Next: &agList{Val: 3}}}},
	}, []string{`{"val":1,"next":null}`, `{"val":1,"next":{"val":"x"}}`, `{"val":1,"next":{"next":{"val":3}}}`, `{"val":1.5}`})...)
	add(agRows("mutual recursion", []agAccept[agMutualA]{
		{`{}`, agMutualA{}},
		{`{"b":{"as":[{},{"b":{"as":[]}}]}}`, agMutualA{B: &agMutualB{As: []agMutualA{{}, {B: &agMutualB{As: []agMutualA{}}}}}}},
	}, []string{`{"b":{}}`, `{"b":{"as":[{"b":null}]}}`, `{"b":{"as":[{"c":1}]}}`})...)

	add(agRows("embedded struct", []agAccept[agEmbedded]{
		{`{"id":"i","x":1}`, agEmbedded{agBase: agBase{ID: "i", Note: "none"}, X: 1}},
		{`{"id":"i","note":"n","x":1}`, agEmbedded{agBase: agBase{ID: "i", Note: "n"}, X: 1}},
	}, []string{`{"x":1}`, `{"agBase":{"id":"i"},"x":1}`, `{"id":"i","x":1,"ID":"j"}`})...)
	add(agRows("embedded *struct", []agAccept[agEmbeddedPtr]{
		{`{"y":2,"x":1}`, agEmbeddedPtr{AgExtra: &AgExtra{Y: 2}, X: 1}},
		{`{"y":2,"z":"z","x":1}`, agEmbeddedPtr{AgExtra: &AgExtra{Y: 2, Z: "z"}, X: 1}},
	}, []string{`{"AgExtra":{"y":2},"x":1}`, `{"y":null,"x":1}`, `{"y":2}`})...)
	add(agRows("embedded struct with a json name", []agAccept[agNamedEmbed]{
		{`{"extra":{"y":2},"x":1}`, agNamedEmbed{AgExtra: AgExtra{Y: 2}, X: 1}},
	}, []string{`{"y":2,"x":1}`, `{"extra":{},"x":1}`})...)

	add(agRows("integer and float bounds", []agAccept[agIntBounds]{
		{`{"a":2}`, agIntBounds{A: 2}},
		{`{"a":9,"b":2,"c":-2,"d":0,"f":0.1,"g":0.2}`, agIntBounds{A: 9, B: 2, C: -2, D: 0, F: 0.1, G: 0.2}},
		{`{"a":5,"b":7,"c":-1,"d":5,"f":0.5,"g":0.29999999999999998}`, agIntBounds{A: 5, B: 7, C: -1, D: 5, F: 0.5, G: 0.29999999999999998}},
		{`{"a":5,"f":0.1000000000000000055511151231257827021181583404541015625}`, agIntBounds{A: 5, F: 0.1}},
		{`{"a":5,"g":0.1000000000000000055511151231257827021181583404541015625}`, agIntBounds{A: 5, G: 0.1}},
	}, []string{`{"a":1}`, `{"a":10}`, `{"a":1.0}`, `{"a":5,"b":1}`, `{"a":5,"b":8}`, `{"a":5,"c":-3}`, `{"a":5,"c":-0.0}`,
		`{"a":5,"d":6}`, `{"a":5,"f":0.09999999999999999}`, `{"a":5,"f":0.5000000000000001}`, `{"a":5,"g":0.1}`, `{"a":5,"g":0.3}`,
		`{"a":5,"g":0.09999999999999999}`})...)
	add(agRows("format", []agAccept[agFormat]{
		{`{"email":"a@b.example"}`, agFormat{Email: "a@b.example"}},
		{`{"email":"a@b.example","id":"123e4567-e89b-12d3-a456-426614174000","day":"2024-02-29","host":"10.0.0.1"}`,
			agFormat{Email: "a@b.example", ID: "123e4567-e89b-12d3-a456-426614174000", Day: "2024-02-29", Host: "10.0.0.1"}},
	}, []string{`{"email":"not an email"}`, `{"email":"a@b.example","id":"123"}`, `{"email":"a@b.example","day":"2023-02-29"}`, `{"email":"a@b.example","host":"::1"}`})...)
	add(agRows("more than 64 fields", []agAccept[agWide]{
		{agWideDoc(-1, ""), agWide{F68: 68}},
		{agWideDoc(-1, `,"f66":1,"f68":9`), agWide{F66: 1, F68: 9}},
	}, []string{agWideDoc(0, ""), agWideDoc(65, ""), agWideDoc(69, ""), agWideDoc(-1, `,"f70":0`), agWideDoc(-1, `,"f69":null`), agWideDoc(-1, `,"f66":1,"f69":9`)})...)

	add(agArgs("no arguments", []agAccept[struct{}]{
		{"{}", struct{}{}}, {"", struct{}{}}, {" \t\r\n", struct{}{}}, {"null", struct{}{}}, {" null ", struct{}{}},
	}, []string{`{"a":1}`, "[]", "1", `"x"`, "nul", "{} {}", "{", "true"}))
	// Found by this file and fixed: each now agrees.
	add(agField[float32]("float32 given a number with a huge exponent", nil, []string{"1e1000001", "-1e1000001", "0.1e1000002"}))
	add(agArgs[agKnownBoundedFloat]("bounded float64 given a number with a huge exponent", nil, []string{`{"v":1e1000001}`, `{"v":-1e1000001}`}))
	add(agRows("recursive type through a nullable pointer", []agAccept[agKnownNullList]{
		{`{"val":1,"next":null}`, agKnownNullList{Val: 1}},
		{`{"val":1,"next":{"val":2,"next":null}}`, agKnownNullList{Val: 1, Next: &agKnownNullList{Val: 2}}},
	}, []string{`{"val":1,"next":{}}`, `{"val":1,"next":{"val":2,"next":{}}}`})[0])
	add(agField[float64]("float64 beyond its range", nil, []string{"1e309", "-1e309", "1e400"}))
	add(agField("float32 as encoding/json writes MaxFloat32", []agAccept[float32]{
		{"3.4028235e+38", math.MaxFloat32}, {"-3.4028235e+38", -math.MaxFloat32},
	}, nil))
	add(agArgs("json.RawMessage keeps its bytes", []agAccept[agKnownRaw]{
		{`{"v":{"b":1,"a":2},"n":5}`, agKnownRaw{V: json.RawMessage(`{"b":1,"a":2}`), N: 5}},
		{`{"v":{"b":1,"a":2},"n":5.0}`, agKnownRaw{V: json.RawMessage(`{"b":1,"a":2}`), N: 5}},
		{`{"v":{"a": [1, 2]},"n":1e0}`, agKnownRaw{V: json.RawMessage(`{"a": [1, 2]}`), N: 1}},
		{`{"v":"\u00e9","n":1.0}`, agKnownRaw{V: json.RawMessage(`"\u00e9"`), N: 1}},
	}, []string{`{"v":{"a":1,"a":2},"n":1}`, `{"v":{"a":1},"n":1,"n":2}`}))
	add(agArgs[struct{}]("non-JSON white space around the arguments", nil, []string{"\f{}", "\v", "{}\u00a0", "\u0085null"}))
	return cs
}

// agWideDoc is an instance of agWide with every required field but skip,
// and extra members appended.
func agWideDoc(skip int, extra string) string {
	var b strings.Builder
	b.WriteString("{")
	sep := ""
	for i := range 70 {
		if i == skip || i == 66 || i == 68 {
			continue
		}
		fmt.Fprintf(&b, "%s\"f%02d\":0", sep, i)
		sep = ","
	}
	b.WriteString(extra + "}")
	return b.String()
}

// agParse reads an arguments document as the validator sees it. Invoke reads
// empty, blank and null arguments as {} (documented); blank is JSON
// whitespace here.
func agParse(doc []byte) (any, error) {
	switch string(bytes.Trim(doc, " \t\r\n")) {
	case "", "null":
		return map[string]any{}, nil
	}
	if !jsontext.Value(bytes.Trim(doc, " \t\r\n")).IsValid() {
		// I-JSON (RFC 7493): no member name twice in an object, UTF-8.
		return nil, fmt.Errorf("not I-JSON: %q", doc)
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(doc))
}

// agVerdict validates doc against the schema the model sees. A document that
// is not JSON is invalid.
func agVerdict(s *jsonschema.Schema, doc []byte) error {
	inst, err := agParse(doc)
	if err != nil {
		return fmt.Errorf("not JSON: %v", err)
	}
	return agValidate(s, inst)
}

// agValidatorPanic is the verdict when the validator itself panics: the
// instance has no verdict, and Invoke must still call it invalid arguments.
type agValidatorPanic struct{ value any }

func (p agValidatorPanic) Error() string { return fmt.Sprintf("the validator panicked: %v", p.value) }

func agValidate(s *jsonschema.Schema, inst any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = agValidatorPanic{r}
		}
	}()
	return s.Validate(inst)
}

// agShow writes a document for a message, quoted when it holds characters
// that would not show.
func agShow(doc string) string {
	if strings.ContainsFunc(doc, func(r rune) bool { return !strconv.IsPrint(r) }) {
		return strconv.Quote(doc)
	}
	return doc
}

// agErr is the first line of an error: a panic's stack is noise here.
func agErr(err error) string {
	if err == nil {
		return "<nil>"
	}
	line, _, _ := strings.Cut(err.Error(), "\n")
	if errors.Is(err, ErrToolPanic) {
		return line + " (stack omitted)"
	}
	return strings.ReplaceAll(err.Error(), "\n", " ")
}

// agRun checks every instance of c and returns what disagrees.
func agRun(c agCase) ([]string, error) {
	h, err := c.build()
	if err != nil {
		return nil, err
	}
	s, err := compileSchema(h.tool.InputSchema())
	if err != nil {
		return nil, fmt.Errorf("the input schema does not compile as draft 2020-12: %v\n%s", err, h.tool.InputSchema())
	}
	var problems []string
	ctx := context.Background()
	for _, a := range c.accept {
		verr := agVerdict(s, []byte(a.doc))
		out := h.tool.Invoke(ctx, json.RawMessage(a.doc))
		got, called := h.take()
		switch {
		case verr != nil && out.IsError:
			problems = append(problems, fmt.Sprintf("%s: must be accepted, but the schema and Invoke reject it: %s", agShow(a.doc), agErr(verr)))
		case verr != nil:
			problems = append(problems, fmt.Sprintf("%s: Invoke accepts it but the schema rejects it: %s", agShow(a.doc), agErr(verr)))
		case out.IsError:
			problems = append(problems, fmt.Sprintf("%s: the schema accepts it but Invoke fails: %s", agShow(a.doc), agErr(out.Err)))
		case !called:
			problems = append(problems, fmt.Sprintf("%s: Invoke succeeded without calling the function", agShow(a.doc)))
		default:
			if d := cmp.Diff(a.want, got, agCmp...); d != "" {
				problems = append(problems, fmt.Sprintf("%s: the function received a different value (-want +got):\n%s", agShow(a.doc), d))
			}
		}
	}
	for _, doc := range c.reject {
		verr := agVerdict(s, []byte(doc))
		out := h.tool.Invoke(ctx, json.RawMessage(doc))
		_, called := h.take()
		switch {
		case verr == nil && !out.IsError:
			problems = append(problems, fmt.Sprintf("%s: must be rejected, but the schema and Invoke accept it", agShow(doc)))
		case verr == nil:
			problems = append(problems, fmt.Sprintf("%s: the schema accepts it but Invoke fails: %s", agShow(doc), agErr(out.Err)))
		case !out.IsError:
			problems = append(problems, fmt.Sprintf("%s: the schema rejects it (%s) but Invoke accepts it", agShow(doc), agErr(verr)))
		case !errors.Is(out.Err, ErrInvalidArguments):
			problems = append(problems, fmt.Sprintf("%s: Invoke failed with %s, want an error wrapping ErrInvalidArguments", agShow(doc), agErr(out.Err)))
		case called:
			problems = append(problems, fmt.Sprintf("%s: the function was called although Invoke failed", agShow(doc)))
		}
	}
	return problems, nil
}

func TestSchemaAgreement(t *testing.T) {
	shapes := agShapes()
	instances := 0
	seen := map[string]bool{}
	for _, c := range shapes {
		if seen[c.name] {
			t.Fatalf("two rows are named %q", c.name)
		}
		seen[c.name] = true
		instances += len(c.accept) + len(c.reject)
		t.Run(c.name, func(t *testing.T) {
			problems, err := agRun(c)
			if err != nil {
				t.Fatalf("declaration: %v", err)
			}
			for _, p := range problems {
				t.Error(p)
			}
		})
	}
	t.Logf("%d Args types, %d instances", len(shapes), instances)
}

// agKnown is a case where the library is known to break the agreement. The
// case says what is right; the test reports the disagreement with t.Log and
// fails once the case agrees, so that it moves into the main table.
type agKnown struct {
	bug string
	c   agCase
	// refuse, when set, is a declaration New should refuse instead of the case.
	refuse func() error
}

const agBugFloat64Range = "any fields (a documented limit): numbers beyond the range of float64 (1e309) are refused, as encoding/json refuses them for any, while the schema for any, true, accepts every JSON value"

// knownDisagreements are the library bugs this file found. Each case is
// minimal and states the behaviour the library promises.
var knownDisagreements = []agKnown{
	{
		bug: agBugFloat64Range,
		c:   agField[any]("any holding a number beyond float64", nil, []string{"1e309", `[1,-1e400]`, `{"a":{"b":1e999}}`}),
	},
}

type (
	agKnownPatternEq struct {
		V []string `json:"v" jsonschema:"pattern=^[a=]+$"`
	}
	agKnownEnumEq struct {
		V []string `json:"v" jsonschema:"enum=a=b,enum=c"`
	}
	agKnownNullList struct {
		Val  int              `json:"val"`
		Next *agKnownNullList `json:"next" jsonschema:"nullable"`
	}
	agKnownBoundedFloat struct {
		V float64 `json:"v" jsonschema:"minimum=-1e300,maximum=1e300"`
	}
	agKnownRaw struct {
		V json.RawMessage `json:"v"`
		N int             `json:"n"`
	}
	agKnownHexMin struct {
		V int `json:"v" jsonschema:"minimum=0x10"`
	}
	agKnownDefaultEnum struct {
		V string `json:"v" jsonschema:"enum=a,enum=b,default=c"`
	}
	agKnownDefaultMin struct {
		V int `json:"v" jsonschema:"minimum=5,default=1"`
	}
)

func TestSchemaAgreementKnownDisagreements(t *testing.T) {
	for _, k := range knownDisagreements {
		if k.refuse != nil {
			if err := k.refuse(); errors.Is(err, ErrInvalidDeclaration) {
				t.Errorf("fixed: %s\nNew now refuses it (%v); move it to TestRefusedDeclarations", k.bug, err)
			} else {
				t.Logf("KNOWN BUG: %s\n\tNew returned %v, want an error wrapping ErrInvalidDeclaration", k.bug, err)
			}
			continue
		}
		problems, err := agRun(k.c)
		switch {
		case err != nil && errors.Is(err, ErrInvalidDeclaration):
			t.Errorf("fixed: %s\nNew now refuses the declaration (%v); move it to TestRefusedDeclarations", k.bug, err)
		case err != nil:
			t.Errorf("%s: %v", k.c.name, err)
		case len(problems) == 0:
			t.Errorf("fixed: %s\n%s now agrees; move it into agShapes", k.bug, k.c.name)
		default:
			t.Logf("KNOWN BUG: %s", k.bug)
			for _, p := range problems {
				t.Logf("\t%s: %s", k.c.name, p)
			}
		}
	}
}

// Types New must refuse.
type (
	agFlex    struct{ N int }
	agHookPtr int
	agDate    struct{ time.Time }
	agDupA    struct {
		Name string // JSON name "Name", untagged so that go vet allows the clash
	}
	agDupB struct {
		Label int `json:"Name"`
	}
	agDupArgs struct {
		agDupA
		agDupB
	}
	agEmbedUnexportedPtr struct {
		*agPoint
		X int `json:"x"`
	}
	agTag                  string
	agEmbedUnexportedNamed struct {
		agTag
		X int `json:"x"`
	}
	AgTags []string
)

func (f *agFlex) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, &f.N) }

func (*agHookPtr) JSONSchema() *invopop.Schema { return &invopop.Schema{Type: "string"} }

type agRefusal struct {
	name      string
	declare   func() error
	path, typ string // what the error names: the field path and its Go type
}

func agRefuse[A any](name, path, typ string) agRefusal {
	return agRefusal{name, func() error {
		_, err := New("refused", "must be refused", func(context.Context, A) (string, error) { return "", nil })
		return err
	}, path, typ}
}

// agV is Args with the one field v of type T.
type agV[T any] struct {
	V T `json:"v"`
}

func TestRefusedDeclarations(t *testing.T) {
	tests := []agRefusal{
		agRefuse[agKnownPatternEq]("pattern with '=' on []string items", "v", "[]string"),
		agRefuse[agKnownEnumEq]("enum with '=' on []string items", "v", "[]string"),
		agRefuse[agKnownHexMin]("minimum written in hexadecimal", "v", "int"),
		agRefuse[agKnownDefaultEnum]("default outside the enum", "v", "string"),
		agRefuse[agKnownDefaultMin]("default below the minimum", "v", "int"),
		agRefuse[agV[chan int]]("chan", "v", "chan int"),
		agRefuse[agV[func()]]("func", "v", "func()"),
		agRefuse[agV[complex128]]("complex128", "v", "complex128"),
		agRefuse[agV[uintptr]]("uintptr", "v", "uintptr"),
		agRefuse[agV[unsafe.Pointer]]("unsafe.Pointer", "v", "unsafe.Pointer"),
		agRefuse[agV[fmt.Stringer]]("interface with methods", "v", "fmt.Stringer"),
		agRefuse[agV[time.Duration]]("time.Duration", "v", "time.Duration"),
		agRefuse[agV[*time.Duration]]("*time.Duration", "v", "time.Duration"),
		agRefuse[agV[url.URL]]("url.URL", "v", "url.URL"),
		agRefuse[agV[big.Int]]("big.Int", "v", "big.Int"),
		agRefuse[agV[*big.Float]]("*big.Float", "v", "big.Float"),
		agRefuse[agV[map[int]string]]("map[int]string", "v", "map[int]string"),
		agRefuse[agV[map[uint8]string]]("map[uint8]string", "v", "map[uint8]string"),
		agRefuse[agV[agFlex]]("UnmarshalJSON without JSONSchema", "v", "toolreg.agFlex"),
		agRefuse[agV[agHookPtr]]("pointer-receiver JSONSchema", "v", "toolreg.agHookPtr"),
		agRefuse[agV[agDate]]("struct embedding time.Time", "v", "toolreg.agDate"),
		agRefuse[struct {
			V int `json:"v,string"`
		}]("json ,string", "V", "int"),
		agRefuse[struct {
			V int `json:"-,"`
		}]("json -,", "V", "int"),
		agRefuse[struct {
			V agPoint `json:",inline"`
		}]("json ,inline", "V", "toolreg.agPoint"),
		agRefuse[agDupArgs]("ambiguous duplicate JSON names via embedding", "Name", "toolreg.agDupArgs"),
		agRefuse[agEmbedUnexportedPtr]("embedded pointer to an unexported struct", "agPoint", "*toolreg.agPoint"),
		agRefuse[agEmbedUnexportedNamed]("embedded unexported non-struct", "agTag", "toolreg.agTag"),
		agRefuse[struct {
			City string `json:"city" jsonschema:"the city"`
		}]("plain text jsonschema tag", "city", "string"),
		agRefuse[struct {
			V string `json:"v" jsonschema:"minimum=1"`
		}]("minimum on a string", "v", "string"),
		agRefuse[struct {
			V AgTags `json:"v" jsonschema:"minItems=1"`
		}]("keywords on a named slice type", "v", "toolreg.AgTags"),
		agRefuse[struct {
			V int `json:"v" jsonschema:"default=abc"`
		}]("default=abc on an int", "v", "int"),
		agRefuse[struct {
			V int `json:"v" jsonschema:"enum=x"`
		}]("enum=x on an int", "v", "int"),
		agRefuse[struct {
			V int8 `json:"v" jsonschema:"default=300"`
		}]("default=300 on int8", "v", "int8"),
		agRefuse[struct {
			V uint `json:"v" jsonschema:"default=-1"`
		}]("default=-1 on uint", "v", "uint"),
		agRefuse[struct {
			V int `json:"v" jsonschema:"default=1.5"`
		}]("default=1.5 on int", "v", "int"),
		agRefuse[struct {
			V bool `json:"v" jsonschema:"default=yes"`
		}]("default=yes on bool", "v", "bool"),
		agRefuse[struct {
			V []int `json:"v" jsonschema:"default=1"`
		}]("default on []int", "v", "[]int"),
		agRefuse[struct {
			V string `json:"v" jsonschema_extras:"minLength=1"`
		}]("jsonschema_extras", "v", "string"),
		agRefuse[struct {
			V string `json:"v" jsonschema:"type=integer"`
		}]("type= override", "v", "string"),
		agRefuse[int]("Args int", "", "int"),
		agRefuse[[]string]("Args []string", "", "[]string"),
		agRefuse[*agPoint]("Args *struct", "", "*toolreg.agPoint"),
		agRefuse[map[string]any]("Args map", "", "map[string]interface {}"),
		agRefuse[struct {
			Items []struct {
				C chan int `json:"c"`
			} `json:"items"`
		}]("nested in a slice", "items[].c", "chan int"),
		agRefuse[struct {
			M map[string]struct {
				F func() `json:"f"`
			} `json:"m"`
		}]("nested in a map", "m{}.f", "func()"),
		agRefuse[struct {
			P *struct {
				D time.Duration `json:"d"`
			} `json:"p"`
		}]("nested behind a pointer", "p.d", "time.Duration"),
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.declare()
			if !errors.Is(err, ErrInvalidDeclaration) {
				t.Fatalf("New returned %v, want an error wrapping ErrInvalidDeclaration", err)
			}
			var de *DeclarationError
			if !errors.As(err, &de) {
				t.Fatalf("%v: not a *DeclarationError", err)
			}
			if diff := cmp.Diff([2]string{tt.path, tt.typ}, [2]string{de.Path, de.Type}); diff != "" {
				t.Errorf("%v\nfield path and Go type (-want +got):\n%s", err, diff)
			}
			msg := err.Error()
			for _, s := range []string{tt.path, tt.typ} {
				if !strings.Contains(msg, s) {
					t.Errorf("the message %q does not name %q", msg, s)
				}
			}
			if de.Why == "" || de.Fix == "" {
				t.Errorf("%v: the error must say why and how to fix it", err)
			}
		})
	}
}

// Rich Args types for the property test and the fuzz target. Every pointer
// is omitempty, so that json.Marshal of any value is an instance the schema
// must accept.
type (
	agRich struct {
		agBase
		Name   string           `json:"name" jsonschema:"minLength=1,maxLength=20"`
		Count  int8             `json:"count"`
		Big    uint64           `json:"big"`
		Small  int32            `json:"small,omitempty"`
		Ratio  float32          `json:"ratio"`
		Score  float64          `json:"score,omitempty"`
		Mode   string           `json:"mode" jsonschema:"enum=fast,enum=slow,default=fast"`
		Limit  int              `json:"limit" jsonschema:"minimum=1,maximum=100,default=10"`
		Flag   bool             `json:"flag"`
		When   time.Time        `json:"when"`
		Addr   net.IP           `json:"addr,omitempty"`
		Blob   []byte           `json:"blob"`
		Num    json.Number      `json:"num,omitempty"`
		Raw    json.RawMessage  `json:"raw,omitempty"`
		Any    any              `json:"any,omitempty"`
		Opt    *int16           `json:"opt,omitempty"`
		Tags   []string         `json:"tags"`
		Triple [3]uint8         `json:"triple"`
		Counts map[string]int32 `json:"counts"`
		Point  *agPoint         `json:"point,omitempty"`
		Tree   *agTree          `json:"tree,omitempty"`
		List   *agList          `json:"list,omitempty"`
		Maybe  []string         `json:"maybe,omitempty" jsonschema:"nullable"`
		Level  int              `json:"level,omitempty" jsonschema:"exclusiveMinimum=-1.5,maximum=7.5"`
		Frac   float64          `json:"frac,omitempty" jsonschema:"minimum=0.1,exclusiveMaximum=0.3"`
	}
	agNest struct {
		Groups map[string][]agPoint          `json:"groups"`
		Grid   [][2]int16                    `json:"grid"`
		Deep   map[string]map[string]*uint16 `json:"deep,omitempty"`
		Anys   []map[string]any              `json:"anys,omitempty"`
		Times  []time.Time                   `json:"times"`
		IPs    map[string]net.IP             `json:"ips,omitempty"`
		Blobs  [][]byte                      `json:"blobs,omitempty"`
		Nums   []json.Number                 `json:"nums,omitempty"`
	}
	agRecur struct {
		Tree  agTree    `json:"tree"`
		List  *agList   `json:"list,omitempty"`
		A     agMutualA `json:"a"`
		Trees []agTree  `json:"trees,omitempty"`
	}
)

// agGen makes random Go values of the rich types.
type agGen struct {
	r *rand.Rand
}

var agStrings = []string{"", "a", "é", "x y", `"`, `\`, "<&>", "\u2028", "😀", "\x00", "fast", "slow", "name", "abc"}

func (g *agGen) pick(n int) int { return g.r.IntN(n) }

func (g *agGen) string() string {
	var b strings.Builder
	for n := g.pick(4); n > 0; n-- {
		b.WriteString(agStrings[g.pick(len(agStrings))])
	}
	return b.String()
}

func (g *agGen) float() float64 {
	switch g.pick(5) {
	case 0:
		return 0
	case 1:
		return float64(g.r.Int64N(1e6) - 5e5)
	case 2:
		return g.r.NormFloat64() * math.Pow(10, float64(g.pick(600)-300))
	case 3:
		for {
			f := math.Float64frombits(g.r.Uint64())
			if !math.IsNaN(f) && !math.IsInf(f, 0) {
				return f
			}
		}
	}
	return g.r.Float64()
}

// anyValue is a random JSON value as encoding/json decodes it into any.
func (g *agGen) anyValue(depth int) any {
	n := 4
	if depth < 3 {
		n = 6
	}
	switch g.pick(n) {
	case 0:
		return nil
	case 1:
		return g.pick(2) == 0
	case 2:
		return g.float()
	case 3:
		return g.string()
	case 4:
		a := make([]any, g.pick(3))
		for i := range a {
			a[i] = g.anyValue(depth + 1)
		}
		return a
	}
	m := map[string]any{}
	for i := g.pick(3); i > 0; i-- {
		m[g.string()] = g.anyValue(depth + 1)
	}
	return m
}

// fill sets v, of any type the rich types use, to a random value.
func (g *agGen) fill(v reflect.Value, depth int) {
	t := v.Type()
	switch t {
	case reflect.TypeFor[time.Time]():
		lo, hi := time.Date(1, 1, 2, 0, 0, 0, 0, time.UTC).Unix(), time.Date(9999, 12, 30, 0, 0, 0, 0, time.UTC).Unix()
		tm := time.Unix(lo+g.r.Int64N(hi-lo), g.r.Int64N(1e9)*int64(g.pick(2)))
		if g.pick(2) == 0 {
			tm = tm.In(time.FixedZone("", (g.pick(48*60-1)-(24*60-1))*60))
		} else {
			tm = tm.UTC()
		}
		v.Set(reflect.ValueOf(tm))
		return
	case reflect.TypeFor[net.IP]():
		b := make([]byte, 4+12*g.pick(2))
		for i := range b {
			b[i] = byte(g.r.Uint32())
		}
		v.Set(reflect.ValueOf(net.IP(b)))
		return
	case reflect.TypeFor[json.Number]():
		nums := []string{"0", "-0", "1.50", "1e400", "-2E-3", strconv.FormatInt(g.r.Int64(), 10), strconv.FormatFloat(g.float(), 'g', -1, 64)}
		v.SetString(nums[g.pick(len(nums))])
		return
	case reflect.TypeFor[json.RawMessage]():
		b, err := json.Marshal(g.anyValue(0))
		if err != nil {
			panic(err)
		}
		v.SetBytes(b)
		return
	case reflect.TypeFor[[]byte]():
		b := make([]byte, g.pick(9))
		for i := range b {
			b[i] = byte(g.r.Uint32())
		}
		v.SetBytes(b)
		return
	}
	switch t.Kind() {
	case reflect.String:
		v.SetString(g.string())
	case reflect.Bool:
		v.SetBool(g.pick(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		bits := t.Bits()
		switch g.pick(4) {
		case 0:
			v.SetInt(1<<(bits-1) - 1)
		case 1:
			v.SetInt(-1 << (bits - 1))
		default:
			v.SetInt(g.r.Int64() >> (64 - bits))
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		bits := t.Bits()
		if g.pick(4) == 0 {
			v.SetUint(math.MaxUint64 >> (64 - bits))
		} else {
			v.SetUint(g.r.Uint64() >> (64 - bits))
		}
	case reflect.Float32:
		// Not beyond 3.4e38: see knownDisagreements on MaxFloat32.
		v.SetFloat(float64(float32(math.Max(-3.4e38, math.Min(3.4e38, g.float())))))
	case reflect.Float64:
		v.SetFloat(g.float())
	case reflect.Interface:
		if a := g.anyValue(depth); a != nil {
			v.Set(reflect.ValueOf(a))
		}
	case reflect.Pointer:
		if depth > 3 || g.pick(3) == 0 {
			v.SetZero() // every pointer field of the rich types is omitempty
			return
		}
		v.Set(reflect.New(t.Elem()))
		g.fill(v.Elem(), depth+1)
	case reflect.Slice:
		n := g.pick(4)
		if depth > 3 {
			n = 0
		}
		s := reflect.MakeSlice(t, n, n)
		for i := range n {
			g.fill(s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Array:
		for i := range v.Len() {
			g.fill(v.Index(i), depth+1)
		}
	case reflect.Map:
		m := reflect.MakeMap(t)
		for i := g.pick(4); i > 0 && depth <= 3; i-- {
			e := reflect.New(t.Elem()).Elem()
			g.fill(e, depth+1)
			if e.Kind() == reflect.Pointer && e.IsNil() {
				e.Set(reflect.New(t.Elem().Elem())) // map values must not be null
			}
			m.SetMapIndex(reflect.ValueOf(g.string()).Convert(t.Key()), e)
		}
		v.Set(m)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if f.IsExported() || f.Anonymous {
				g.fill(v.Field(i), depth+1)
			}
		}
	default:
		panic("agGen: no generator for " + t.String())
	}
}

// fix brings the tagged fields of the rich types into their allowed range.
func (g *agGen) fix(v any) {
	switch a := v.(type) {
	case *agRich:
		if n := len([]rune(a.Name)); n < 1 || n > 20 {
			a.Name = "n"
		}
		a.Mode = []string{"fast", "slow"}[g.pick(2)]
		a.Limit = 1 + g.pick(100)
		a.Level = g.pick(9) - 1
		if g.pick(2) == 0 {
			a.Frac = 0.1 + 0.19*g.r.Float64()
		} else {
			a.Frac = 0
		}
	}
}

// agMutate changes one thing in a parsed instance: it deletes a member, adds
// an unknown one, replaces a value by one of another type, by null, or by a
// number or string near a boundary.
func (g *agGen) mutate(doc any) any {
	var slots []func(any) // setters of every value inside doc
	var objects []map[string]any
	var walk func(x any, set func(any))
	walk = func(x any, set func(any)) {
		slots = append(slots, set)
		switch x := x.(type) {
		case map[string]any:
			objects = append(objects, x)
			for _, k := range agKeys(x) {
				walk(x[k], func(n any) { x[k] = n })
			}
		case []any:
			for i, v := range x {
				walk(v, func(n any) { x[i] = n })
			}
		}
	}
	walk(doc, func(n any) { doc = n })
	numbers := []string{"0", "-1", "1.5", "5.0", "1e2", "-0", "127", "128", "-129", "255", "256", "65536",
		"2147483648", "9223372036854775807", "9223372036854775808", "-9223372036854775809", "18446744073709551615",
		"18446744073709551616", "3.4028235e38", "340282346638528859811704183484516925440", "1e39", "1e308", "1e309", "-1e400", "1e-400", "101"}
	strs := []string{"", "fast", "FAST", "2024-01-02T03:04:05Z", "2024-01-02T03:04:05z", "2024-02-30T00:00:00Z", "2016-12-31T23:59:60Z",
		"2024-01-02", "aGk=", "aGk", "hello world", "1.2.3.4", "::1", "01.2.3.4", "x", strings.Repeat("long", 6)}
	switch g.pick(7) {
	case 0: // delete a member
		if len(objects) > 0 {
			o := objects[g.pick(len(objects))]
			if keys := agKeys(o); len(keys) > 0 {
				delete(o, keys[g.pick(len(keys))])
			}
		}
	case 1: // add an unknown member
		if len(objects) > 0 {
			objects[g.pick(len(objects))]["zz_unknown"] = json.Number("1")
		}
	case 2:
		slots[g.pick(len(slots))](nil)
	case 3:
		slots[g.pick(len(slots))](json.Number(numbers[g.pick(len(numbers))]))
	case 4:
		slots[g.pick(len(slots))](strs[g.pick(len(strs))])
	case 5: // another type
		others := []any{true, []any{}, map[string]any{}, json.Number("1"), "s"}
		slots[g.pick(len(slots))](others[g.pick(len(others))])
	case 6: // two mutations
		return g.mutate(g.mutate(doc))
	}
	return doc
}

// agKeys lists the keys of m in order, so that a seed always makes the same
// mutations.
func agKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// agKnownCause names the known disagreement an instance runs into, or "".
func agKnownCause(inst any, verdict error, out Output) string {
	if verdict == nil && out.IsError && agHasHugeNumber(inst) && strings.Contains(out.Err.Error(), "beyond the range of a 64-bit float") {
		return agBugFloat64Range
	}
	return ""
}

// agHasHugeNumber reports a number beyond the range of float64 in inst.
func agHasHugeNumber(inst any) bool {
	switch x := inst.(type) {
	case json.Number:
		_, err := strconv.ParseFloat(string(x), 64)
		return err != nil
	case map[string]any:
		for _, v := range x {
			if agHasHugeNumber(v) {
				return true
			}
		}
	case []any:
		for _, v := range x {
			if agHasHugeNumber(v) {
				return true
			}
		}
	}
	return false
}

// agProperty checks the agreement on n random values of A and on mutations
// of them.
func agProperty[A any](t *testing.T, seed uint64, n int) {
	t.Run(reflect.TypeFor[A]().Name(), func(t *testing.T) {
		h, err := agBuild(func(a A) A { return a })()
		if err != nil {
			t.Fatal(err)
		}
		s, err := compileSchema(h.tool.InputSchema())
		if err != nil {
			t.Fatal(err)
		}
		g := &agGen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
		ipType, rawType := reflect.TypeFor[net.IP](), reflect.TypeFor[json.RawMessage]()
		isType := func(ts ...reflect.Type) func(cmp.Path) bool {
			return func(p cmp.Path) bool {
				for _, t := range ts {
					if p.Last().Type() == t {
						return true
					}
				}
				return false
			}
		}
		opts := append([]cmp.Option{
			// omitempty drops empty slices and maps
			cmp.FilterPath(func(p cmp.Path) bool { return !isType(ipType, rawType)(p) }, cmpopts.EquateEmpty()),
			// encoding/json writes a 4-byte IP back as 16 bytes
			cmp.FilterPath(isType(ipType), cmp.Comparer(func(a, b net.IP) bool { return a.Equal(b) })),
			// the bytes may differ (see knownDisagreements); the value must not
			cmp.FilterPath(isType(rawType), cmp.Comparer(func(a, b json.RawMessage) bool {
				x, errA := jsonschema.UnmarshalJSON(bytes.NewReader(a))
				y, errB := jsonschema.UnmarshalJSON(bytes.NewReader(b))
				return errA == nil && errB == nil && reflect.DeepEqual(x, y)
			})),
		}, agCmpBase...)
		ctx := context.Background()
		var valid, invalid, known int
		for i := range n {
			var want A
			g.fill(reflect.ValueOf(&want).Elem(), 0)
			g.fix(&want)
			doc, err := json.Marshal(want)
			if err != nil {
				t.Fatalf("json.Marshal(%#v): %v", want, err)
			}
			if verr := agVerdict(s, doc); verr != nil {
				t.Errorf("json.Marshal of a Go value is rejected by the schema: %s\n%v", doc, verr)
				continue
			}
			out := h.tool.Invoke(ctx, doc)
			got, _ := h.take()
			if out.IsError {
				t.Errorf("valid %s: Invoke failed: %s", doc, agErr(out.Err))
				continue
			}
			if d := cmp.Diff(want, got, opts...); d != "" {
				t.Errorf("%s: the function received a different value (-want +got):\n%s", doc, d)
			}
			valid++

			for j := 0; j < 3; j++ {
				inst, err := agParse(doc)
				if err != nil {
					t.Fatal(err)
				}
				mdoc, err := json.Marshal(g.mutate(inst))
				if err != nil {
					t.Fatal(err)
				}
				inst, err = agParse(mdoc)
				if err != nil {
					t.Fatal(err)
				}
				verr := agValidate(s, inst)
				out := h.tool.Invoke(ctx, mdoc)
				_, called := h.take()
				switch {
				case (verr == nil) != !out.IsError:
					if cause := agKnownCause(inst, verr, out); cause != "" {
						known++
						continue
					}
					t.Errorf("instance %d.%d %s: validator says %s, Invoke says %s", i, j, mdoc, agErr(verr), agErr(out.Err))
				case verr != nil && !errors.Is(out.Err, ErrInvalidArguments):
					if cause := agKnownCause(inst, verr, out); cause != "" {
						known++
						continue
					}
					t.Errorf("%s: Invoke failed with %s, want an error wrapping ErrInvalidArguments", mdoc, agErr(out.Err))
				case verr == nil && !called:
					t.Errorf("%s: Invoke succeeded without calling the function", mdoc)
				case verr == nil:
					valid++
				default:
					invalid++
				}
			}
		}
		t.Logf("%d valid and %d invalid instances agree; %d hit a known disagreement", valid, invalid, known)
	})
}

func TestAgreementProperty(t *testing.T) {
	agProperty[agRich](t, 1, 200)
	agProperty[agNest](t, 2, 200)
	agProperty[agRecur](t, 3, 200)
}

var agFuzzTool = MustNew("fuzz", "fuzz target", func(context.Context, agRich) (string, error) { return "ok", nil })

func FuzzInvoke(f *testing.F) {
	for _, seed := range []string{
		`{}`, `null`, ``, `[]`, `{"name":"x"}`,
		`{"id":"i","name":"n","count":-128,"big":18446744073709551615,"ratio":1.5,"flag":true,"when":"2024-01-02T03:04:05+02:00","blob":"aGk=","tags":["a"],"triple":[1,2,3],"counts":{"a":1}}`,
		`{"id":"i","name":"n","count":127,"big":0,"ratio":-3e38,"flag":false,"when":"2024-02-29T00:00:00Z","blob":"","tags":[],"triple":[0,0,255],"counts":{},"mode":"slow","limit":100,"addr":"::1","num":1e400,"raw":{"b":[1,null]},"any":[1.5,"x",{"k":false}],"opt":-32768,"point":{"x":1,"y":2},"score":1e308,"small":5.0,"note":"n"}`,
	} {
		f.Add([]byte(seed))
	}
	s, err := compileSchema(agFuzzTool.InputSchema())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out := agFuzzTool.Invoke(context.Background(), data)
		inst, perr := agParse(data)
		if errors.Is(out.Err, ErrToolPanic) {
			if perr == nil {
				if cause := agKnownCause(inst, agValidate(s, inst), out); cause != "" {
					t.Logf("known disagreement: %s", cause)
					return
				}
			}
			t.Fatalf("Invoke panicked on %q: %v", data, out.Err)
		}
		if perr != nil {
			switch {
			case out.IsError && !errors.Is(out.Err, ErrInvalidArguments):
				t.Fatalf("%q is not JSON, but Invoke failed with %s, want an error wrapping ErrInvalidArguments", data, agErr(out.Err))
			case !out.IsError && bytes.ContainsFunc(data, agNonJSONSpace):
				t.Logf("known disagreement: non-JSON white space accepted in %q", data) // see knownDisagreements
			case !out.IsError:
				t.Fatalf("Invoke accepted %q, which is not JSON (%v)", data, perr)
			}
			return
		}
		verr := agValidate(s, inst)
		if (verr == nil) == out.IsError {
			if cause := agKnownCause(inst, verr, out); cause != "" {
				t.Logf("known disagreement: %s", cause)
				return
			}
			t.Fatalf("%q: validator says %s, Invoke says %s", data, agErr(verr), agErr(out.Err))
		}
		if verr != nil && !errors.Is(out.Err, ErrInvalidArguments) {
			if cause := agKnownCause(inst, verr, out); cause != "" {
				t.Logf("known disagreement: %s", cause)
				return
			}
			t.Fatalf("%q: Invoke failed with %s, want an error wrapping ErrInvalidArguments", data, agErr(out.Err))
		}
	})
}

// agNonJSONSpace is white space Go trims that JSON does not allow.
func agNonJSONSpace(r rune) bool {
	switch r {
	case '\v', '\f', 0x85, 0xA0:
		return true
	}
	return false
}
