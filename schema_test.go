package toolreg

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg/internal/reflectschema"
)

// schemaOfArgs declares a throwaway tool over A and returns its input
// schema decoded, for comparison with cmp.
func schemaOfArgs[A any](t *testing.T) map[string]any {
	t.Helper()
	tool, err := New("t", "test tool", func(context.Context, A) (string, error) { return "", nil })
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(tool.InputSchema(), &m); err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
	return m
}

// property returns the schema of property name, and whether it is required.
func property(t *testing.T, schema map[string]any, name string) (map[string]any, bool) {
	t.Helper()
	props, _ := schema["properties"].(map[string]any)
	if props[name] == true {
		return map[string]any{"(true)": true}, isRequired(schema, name) // the "any value" schema
	}
	p, ok := props[name].(map[string]any)
	if !ok {
		t.Fatalf("no property %q in %v", name, schema)
	}
	return p, isRequired(schema, name)
}

func isRequired(schema map[string]any, name string) bool {
	req := false
	for _, r := range schema["required"].([]any) {
		req = req || r == name
	}
	return req
}

type shapes struct {
	S     string            `json:"s" jsonschema:"description=A string,minLength=1,maxLength=9,pattern=^[a-z]+$"`
	B     bool              `json:"b"`
	I     int               `json:"i"`
	I8    int8              `json:"i8"`
	I16   int16             `json:"i16"`
	I32   int32             `json:"i32"`
	U     uint              `json:"u"`
	U8    uint8             `json:"u8"`
	U16   uint16            `json:"u16"`
	U32   uint32            `json:"u32"`
	U64   uint64            `json:"u64"`
	F32   float32           `json:"f32"`
	F64   float64           `json:"f64"`
	Enum  string            `json:"enum" jsonschema:"enum=a,enum=b"`
	Range int               `json:"range" jsonschema:"minimum=1,maximum=7"`
	Wide  int8              `json:"wide" jsonschema:"minimum=-1000,maximum=1000"`
	List  []string          `json:"list" jsonschema:"minItems=1,maxItems=3"`
	Arr   [2]int            `json:"arr"`
	Map   map[string]int    `json:"map"`
	When  time.Time         `json:"when"`
	Ptr   *int              `json:"ptr"`
	Omit  int               `json:"omit,omitempty"`
	Zero  int               `json:"zero,omitzero"`
	Def   string            `json:"def" jsonschema:"default=x"`
	Desc  string            `json:"desc" jsonschema_description:"Described"`
	Inner inner             `json:"inner" jsonschema:"description=Nested"`
	PIn   *inner            `json:"pin"`
	Any   any               `json:"any"`
	Raw   json.RawMessage   `json:"raw"`
	Bytes []byte            `json:"bytes"`
	Num   json.Number       `json:"num"`
	Items []inner           `json:"items"`
	ByKey map[string]*inner `json:"by_key"`
	NoTag string
	skip  string
	Dash  string `json:"-"`
	Base
}

type inner struct {
	A string `json:"a"`
}

// Base is embedded in shapes: its fields are promoted.
type Base struct {
	ID string `json:"id"`
}

func TestSchemaShapes(t *testing.T) {
	s := schemaOfArgs[shapes](t)
	for _, k := range []string{"$schema", "$id", "$defs", "$ref"} {
		if _, ok := s[k]; ok {
			t.Errorf("canonical schema has %s: %v", k, s)
		}
	}
	if s["type"] != "object" || s["additionalProperties"] != false {
		t.Errorf("root = type %v, additionalProperties %v; want object, false", s["type"], s["additionalProperties"])
	}
	tests := []struct {
		name     string
		want     map[string]any
		required bool
	}{
		{"s", map[string]any{"type": "string", "description": "A string", "minLength": 1.0, "maxLength": 9.0, "pattern": "^[a-z]+$"}, true},
		{"b", map[string]any{"type": "boolean"}, true},
		{"i", map[string]any{"type": "integer", "minimum": -9223372036854775808.0, "maximum": 9223372036854775807.0}, true},
		{"i8", map[string]any{"type": "integer", "minimum": -128.0, "maximum": 127.0}, true},
		{"i16", map[string]any{"type": "integer", "minimum": -32768.0, "maximum": 32767.0}, true},
		{"i32", map[string]any{"type": "integer", "minimum": -2147483648.0, "maximum": 2147483647.0}, true},
		{"u", map[string]any{"type": "integer", "minimum": 0.0, "maximum": 18446744073709551615.0}, true},
		{"u8", map[string]any{"type": "integer", "minimum": 0.0, "maximum": 255.0}, true},
		{"u16", map[string]any{"type": "integer", "minimum": 0.0, "maximum": 65535.0}, true},
		{"u32", map[string]any{"type": "integer", "minimum": 0.0, "maximum": 4294967295.0}, true},
		{"u64", map[string]any{"type": "integer", "minimum": 0.0, "maximum": 18446744073709551615.0}, true},
		{"f32", map[string]any{"type": "number", "exclusiveMinimum": -3.4028235677973366e+38, "exclusiveMaximum": 3.4028235677973366e+38}, true},
		{"f64", map[string]any{"type": "number", "minimum": -1.7976931348623157e308, "maximum": 1.7976931348623157e308}, true},
		{"enum", map[string]any{"type": "string", "enum": []any{"a", "b"}}, true},
		{"range", map[string]any{"type": "integer", "minimum": 1.0, "maximum": 7.0}, true},
		{"wide", map[string]any{"type": "integer", "minimum": -128.0, "maximum": 127.0}, true},
		{"list", map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "minItems": 1.0, "maxItems": 3.0}, true},
		{"arr", map[string]any{"type": "array", "minItems": 2.0, "maxItems": 2.0, "items": map[string]any{"type": "integer", "minimum": -9223372036854775808.0, "maximum": 9223372036854775807.0}}, true},
		{"map", map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "integer", "minimum": -9223372036854775808.0, "maximum": 9223372036854775807.0}}, true},
		{"when", map[string]any{"type": "string", "format": "date-time", "pattern": reflectschema.RFC3339Pattern}, true},
		{"ptr", map[string]any{"type": "integer", "minimum": -9223372036854775808.0, "maximum": 9223372036854775807.0}, false},
		{"omit", map[string]any{"type": "integer", "minimum": -9223372036854775808.0, "maximum": 9223372036854775807.0}, false},
		{"zero", map[string]any{"type": "integer", "minimum": -9223372036854775808.0, "maximum": 9223372036854775807.0}, false},
		{"def", map[string]any{"type": "string", "default": "x"}, false},
		{"desc", map[string]any{"type": "string", "description": "Described"}, true},
		{"inner", map[string]any{"type": "object", "description": "Nested", "additionalProperties": false, "properties": map[string]any{"a": map[string]any{"type": "string"}}, "required": []any{"a"}}, true},
		{"pin", map[string]any{"type": "object", "additionalProperties": false, "properties": map[string]any{"a": map[string]any{"type": "string"}}, "required": []any{"a"}}, false},
		{"any", map[string]any{"(true)": true}, true},
		{"raw", map[string]any{"(true)": true}, true},
		{"bytes", map[string]any{"type": "string", "contentEncoding": "base64", "pattern": reflectschema.Base64Pattern}, true},
		{"num", map[string]any{"type": "number"}, true},
		{"items", map[string]any{"type": "array", "items": map[string]any{"type": "object", "additionalProperties": false, "properties": map[string]any{"a": map[string]any{"type": "string"}}, "required": []any{"a"}}}, true},
		{"by_key", map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "object", "additionalProperties": false, "properties": map[string]any{"a": map[string]any{"type": "string"}}, "required": []any{"a"}}}, true},
		{"NoTag", map[string]any{"type": "string"}, true},
		{"id", map[string]any{"type": "string"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, req := property(t, s, tt.name)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("schema (-want +got):\n%s", diff)
			}
			if req != tt.required {
				t.Errorf("required = %v, want %v", req, tt.required)
			}
		})
	}
	props := s["properties"].(map[string]any)
	if len(props) != len(tests) {
		t.Errorf("schema has %d properties, want %d (hidden and unexported fields left out)", len(props), len(tests))
	}
}

func TestSchemaPropertyOrderFollowsDeclaration(t *testing.T) {
	tool := MustNew("t", "d", func(context.Context, struct {
		Zeta  string `json:"zeta"`
		Alpha string `json:"alpha"`
		Mid   string `json:"mid"`
	}) (string, error) {
		return "", nil
	})
	s := string(tool.InputSchema())
	if !(strings.Index(s, `"zeta"`) < strings.Index(s, `"alpha"`) && strings.Index(s, `"alpha"`) < strings.Index(s, `"mid"`)) {
		t.Errorf("properties not in declaration order: %s", s)
	}
}

type treeNode struct {
	Value    int         `json:"value"`
	Children []*treeNode `json:"children,omitempty"`
}

type listNode struct {
	Value int       `json:"value"`
	Next  *listNode `json:"next,omitempty"`
}

func TestSchemaRecursiveTypesUseDefs(t *testing.T) {
	type args struct {
		Tree treeNode  `json:"tree"`
		List *listNode `json:"list,omitempty"`
	}
	s := schemaOfArgs[args](t)
	defs, _ := s["$defs"].(map[string]any)
	if diff := cmp.Diff([]string{"listNode", "treeNode"}, sortedMapKeys(defs)); diff != "" {
		t.Errorf("$defs (-want +got):\n%s", diff)
	}
	if _, err := compileSchema(mustMarshal(t, s)); err != nil {
		t.Errorf("recursive schema does not compile: %v", err)
	}

	tool := MustNew("t", "d", func(_ context.Context, a args) (args, error) { return a, nil })
	out := tool.Invoke(context.Background(), json.RawMessage(`{"tree":{"value":1,"children":[{"value":2,"children":[{"value":3}]}]},"list":{"value":1,"next":{"value":2}}}`))
	if out.IsError {
		t.Fatalf("Invoke: %s", out.Text)
	}
	want := `{"tree":{"value":1,"children":[{"value":2,"children":[{"value":3}]}]},"list":{"value":1,"next":{"value":2}}}`
	if string(out.Structured) != want {
		t.Errorf("got %s\nwant %s", out.Structured, want)
	}
	bad := tool.Invoke(context.Background(), json.RawMessage(`{"tree":{"value":1,"children":[{"value":"x"}]}}`))
	if !bad.IsError || !strings.Contains(bad.Text, "tree.children[0].value") {
		t.Errorf("deep error not located: %s", bad.Text)
	}
}

func sortedMapKeys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSchemaOutput(t *testing.T) {
	type forecast struct {
		City  string    `json:"city"`
		Temps []float64 `json:"temps"`
		Note  *string   `json:"note"`
		Extra string    `json:"extra,omitempty"`
	}
	tool := MustNew("t", "d", func(context.Context, struct{}) (forecast, error) { return forecast{City: "Paris"}, nil })
	var s map[string]any
	if err := json.Unmarshal(tool.OutputSchema(), &s); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"properties": map[string]any{
			"city":  map[string]any{"type": "string"},
			"temps": map[string]any{"type": []any{"array", "null"}, "items": map[string]any{"type": "number", "minimum": -1.7976931348623157e308, "maximum": 1.7976931348623157e308}},
			"note":  map[string]any{"type": []any{"string", "null"}},
			"extra": map[string]any{"type": "string"},
		},
		"required": []any{"city", "temps", "note"},
	}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("output schema (-want +got):\n%s", diff)
	}
	// The encoded result must be valid under the advertised output schema,
	// nil slice and nil pointer included: MCP clients check it.
	out := tool.Invoke(context.Background(), nil)
	v, err := compileSchema(tool.OutputSchema())
	if err != nil {
		t.Fatal(err)
	}
	inst, _ := parseInstance(out.Structured)
	if err := v.Validate(inst); err != nil {
		t.Errorf("result %s does not match its own output schema: %v", out.Structured, err)
	}
	textTool := MustNew("t", "d", func(context.Context, struct{}) (string, error) { return "", nil })
	if textTool.OutputSchema() != nil {
		t.Errorf("string result has an output schema: %s", textTool.OutputSchema())
	}
}

func TestSchemaNoArguments(t *testing.T) {
	s := schemaOfArgs[struct{}](t)
	want := map[string]any{"type": "object", "additionalProperties": false, "properties": map[string]any{}}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

type configA struct {
	A int `json:"a"`
}

func TestSchemaSameTypeTwiceIsInlinedBoth(t *testing.T) {
	type args struct {
		X configA  `json:"x" jsonschema:"description=first"`
		Y *configA `json:"y" jsonschema:"description=second"`
	}
	s := schemaOfArgs[args](t)
	x, _ := property(t, s, "x")
	y, _ := property(t, s, "y")
	if x["description"] != "first" || y["description"] != "second" {
		t.Errorf("descriptions beside an inlined type were lost or shared: x=%v y=%v", x, y)
	}
	if x["type"] != "object" || y["type"] != "object" {
		t.Errorf("named struct not inlined: x=%v y=%v", x, y)
	}
}

func TestDeclarationErrors(t *testing.T) {
	noop := func(context.Context, struct{}) (string, error) { return "", nil }
	tests := []struct {
		name    string
		declare func() error
		want    error
		mention []string
	}{
		{"empty name", func() error { _, err := New("", "d", noop); return err }, ErrInvalidName, nil},
		{"dotted name", func() error { _, err := New("a.b", "d", noop); return err }, ErrInvalidName, []string{`"a.b"`, "OpenAI"}},
		{"leading digit", func() error { _, err := New("1tool", "d", noop); return err }, ErrInvalidName, nil},
		{"too long", func() error { _, err := New(strings.Repeat("a", 65), "d", noop); return err }, ErrInvalidName, nil},
		{"space", func() error { _, err := New("get weather", "d", noop); return err }, ErrInvalidName, nil},
		{"empty description", func() error { _, err := New("t", "  ", noop); return err }, ErrInvalidDeclaration, []string{"description"}},
		{"nil func", func() error {
			_, err := New[struct{}, string]("t", "d", nil)
			return err
		}, ErrInvalidDeclaration, nil},
		{"args not a struct", func() error {
			_, err := New("t", "d", func(context.Context, string) (string, error) { return "", nil })
			return err
		}, ErrInvalidDeclaration, []string{"struct"}},
		{"chan field", func() error {
			_, err := New("t", "d", func(context.Context, struct {
				C chan int `json:"c"`
			}) (string, error) {
				return "", nil
			})
			return err
		}, ErrInvalidDeclaration, []string{"field c", "chan int"}},
		{"duration field", func() error {
			_, err := New("t", "d", func(context.Context, struct {
				Wait time.Duration `json:"wait"`
			}) (string, error) {
				return "", nil
			})
			return err
		}, ErrInvalidDeclaration, []string{"field wait", "time.Duration", "ParseDuration"}},
		{"nested bad field names the path", func() error {
			_, err := New("t", "d", func(context.Context, struct {
				Outer struct {
					List []struct {
						F func() `json:"f"`
					} `json:"list"`
				} `json:"outer"`
			}) (string, error) {
				return "", nil
			})
			return err
		}, ErrInvalidDeclaration, []string{"outer.list[].f", "func()"}},
		{"plain text jsonschema tag", func() error {
			_, err := New("t", "d", func(context.Context, struct {
				City string `json:"city" jsonschema:"the city"`
			}) (string, error) {
				return "", nil
			})
			return err
		}, ErrInvalidDeclaration, []string{"field city", "description=the city"}},
		{"unescaped comma in a description", func() error {
			_, err := New("t", "d", func(context.Context, struct {
				City string `json:"city" jsonschema:"description=City name, e.g. Paris"`
			}) (string, error) {
				return "", nil
			})
			return err
		}, ErrInvalidDeclaration, []string{"field city", `" e.g. Paris"`, `\\,`}},
		{"keyword for another type", func() error {
			_, err := New("t", "d", func(context.Context, struct {
				City string `json:"city" jsonschema:"minimum=1"`
			}) (string, error) {
				return "", nil
			})
			return err
		}, ErrInvalidDeclaration, []string{"minimum", "minLength"}},
		{"default of the wrong type", func() error {
			_, err := New("t", "d", func(context.Context, struct {
				N int `json:"n" jsonschema:"default=abc"`
			}) (string, error) {
				return "", nil
			})
			return err
		}, ErrInvalidDeclaration, []string{"default", "abc"}},
		{"default out of range", func() error {
			_, err := New("t", "d", func(context.Context, struct {
				N int8 `json:"n" jsonschema:"default=300"`
			}) (string, error) {
				return "", nil
			})
			return err
		}, ErrInvalidDeclaration, []string{"int8"}},
		{"map with int keys", func() error {
			_, err := New("t", "d", func(context.Context, struct {
				M map[int]string `json:"m"`
			}) (string, error) {
				return "", nil
			})
			return err
		}, ErrInvalidDeclaration, []string{"field m", "string keys"}},
		{"result with a chan", func() error {
			_, err := New("t", "d", func(context.Context, struct{}) (chan int, error) { return nil, nil })
			return err
		}, ErrInvalidDeclaration, []string{"result"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.declare()
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want errors.Is %v", err, tt.want)
			}
			for _, m := range tt.mention {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not mention %q", err, m)
				}
			}
		})
	}
}

func TestMustNewPanicsOnBadDeclaration(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Error("MustNew did not panic")
		}
	}()
	MustNew("bad name", "d", func(context.Context, struct{}) (string, error) { return "", nil })
}

func TestSchemaIsComputedOnce(t *testing.T) {
	tool := MustNew("t", "d", func(context.Context, shapes) (string, error) { return "", nil })
	a, b := tool.InputSchema(), tool.InputSchema()
	if &a[0] != &b[0] {
		t.Error("InputSchema returns new bytes on each call")
	}
}

// TestEmittedSchemasCompile: every schema New emits, input and output, is a
// valid draft 2020-12 schema (New no longer compiles them all eagerly).
func TestEmittedSchemasCompile(t *testing.T) {
	type recursive struct {
		Tree treeNode  `json:"tree"`
		List *listNode `json:"list,omitempty"`
	}
	schemas := map[string][2]json.RawMessage{}
	add := func(name string, in, out json.RawMessage) { schemas[name] = [2]json.RawMessage{in, out} }
	s := MustNew("s", "d", func(context.Context, shapes) (shapes, error) { return shapes{}, nil })
	add("shapes", s.InputSchema(), s.OutputSchema())
	r := MustNew("r", "d", func(context.Context, agRich) (agRich, error) { return agRich{}, nil })
	add("rich", r.InputSchema(), r.OutputSchema())
	rec := MustNew("rec", "d", func(context.Context, recursive) (*recursive, error) { return nil, nil })
	add("recursive", rec.InputSchema(), rec.OutputSchema())
	l := MustNew("l", "d", func(context.Context, struct{}) ([]map[string][]*treeNode, error) { return nil, nil })
	add("list result", l.InputSchema(), l.OutputSchema())
	for name, pair := range schemas {
		for i, schema := range pair {
			if _, err := compileSchema(schema); err != nil {
				t.Errorf("%s schema %d does not compile: %v\n%s", name, i, err, schema)
			}
		}
	}
}

func TestInvalidPatternRefused(t *testing.T) {
	_, err := New("t", "d", func(context.Context, struct {
		Code string `json:"code" jsonschema:"pattern=^(?<x>[a-z]+$"`
	}) (string, error) {
		return "", nil
	})
	if !errors.Is(err, ErrInvalidDeclaration) || !strings.Contains(err.Error(), "regular expression") {
		t.Errorf("err = %v", err)
	}
}

// A recursive Args type: the root is still type object (every provider
// needs that), its self-references point into $defs.
func TestSchemaRecursiveRoot(t *testing.T) {
	s := schemaOfArgs[treeNode](t)
	if s["type"] != "object" || s["$ref"] != nil {
		t.Fatalf("root is not an object: %v", s)
	}
	kids, _ := property(t, s, "children")
	if diff := cmp.Diff(map[string]any{"type": "array", "items": map[string]any{"$ref": "#/$defs/treeNode"}}, kids); diff != "" {
		t.Errorf("children (-want +got):\n%s", diff)
	}
	tool := MustNew("t", "d", func(_ context.Context, n treeNode) (treeNode, error) { return n, nil })
	out := tool.Invoke(context.Background(), json.RawMessage(`{"value":1,"children":[{"value":2,"children":[{"value":3}]}]}`))
	if out.IsError || string(out.Structured) != `{"value":1,"children":[{"value":2,"children":[{"value":3}]}]}` {
		t.Errorf("got %+v", out)
	}
}

// resultOf declares a throwaway tool whose result is R.
func resultOf[R any]() error {
	_, err := New("t", "d", func(context.Context, struct{}) (R, error) { var r R; return r, nil })
	return err
}

// argsOf declares a throwaway tool over A.
func argsOf[A any]() error {
	_, err := New("t", "d", func(context.Context, A) (string, error) { return "", nil })
	return err
}

// TestDeclarationErrorsSayWhatToDo: the error of each declaration mistake
// speaks of what the user wrote (the result type, the keyword, the tag) and
// says what is allowed instead.
func TestDeclarationErrorsSayWhatToDo(t *testing.T) {
	resultWords := []string{"result", "encoding/json writes", "struct", "string"}
	tests := []struct {
		name    string
		err     error
		mention []string
		not     []string
	}{
		{"chan result", resultOf[chan int](), resultWords, []string{"arguments"}},
		{"func result", resultOf[func()](), resultWords, []string{"arguments"}},
		{"complex result", resultOf[complex128](), resultWords, []string{"arguments"}},
		{"unsafe.Pointer result", resultOf[unsafe.Pointer](), resultWords, []string{"arguments"}},
		{"slice of chan result", resultOf[[]chan int](), resultWords, []string{"arguments"}},
		{"chan field in the result", resultOf[struct {
			C chan int `json:"c"`
		}](), append([]string{"field c"}, resultWords...), []string{"arguments"}},

		{"unknown keyword with a near one", argsOf[struct {
			City string `json:"city" jsonschema:"desc=City name"`
		}](), []string{"field city", "unknown keyword desc", "did you mean description?"}, []string{"does not apply"}},
		{"misspelt keyword", argsOf[struct {
			N int `json:"n" jsonschema:"minimun=1"`
		}](), []string{"field n", "unknown keyword minimun", "did you mean minimum?"}, []string{"does not apply"}},
		{"unknown keyword far from all", argsOf[struct {
			N int `json:"n" jsonschema:"zzzzzz=1"`
		}](), []string{"field n", "unknown keyword zzzzzz", "minimum"}, []string{"does not apply", "did you mean"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !errors.Is(tt.err, ErrInvalidDeclaration) {
				t.Fatalf("err = %v, want errors.Is ErrInvalidDeclaration", tt.err)
			}
			msg := tt.err.Error()
			for _, m := range tt.mention {
				if !strings.Contains(msg, m) {
					t.Errorf("error %q does not mention %q", msg, m)
				}
			}
			for _, m := range tt.not {
				if strings.Contains(msg, m) {
					t.Errorf("error %q mentions %q", msg, m)
				}
			}
		})
	}
}

// TestMalformedTagsRefused: a struct tag reflect.StructTag cannot parse
// loses its json or jsonschema key without a word; New refuses it, naming
// the field and the tag. The types are built with reflect.StructOf, as go
// vet refuses such tags in source.
func TestMalformedTagsRefused(t *testing.T) {
	structWith := func(tag string) reflect.Type {
		return reflect.StructOf([]reflect.StructField{{Name: "City", Type: reflect.TypeFor[string](), Tag: reflect.StructTag(tag)}})
	}
	tests := []struct {
		name   string
		tag    string
		result bool
		refuse bool
	}{
		{"invalid escape in a jsonschema value", `json:"city" jsonschema:"enum=a\,b"`, false, true},
		{"unquoted jsonschema value", `json:"city" jsonschema:description=City`, false, true},
		{"unquoted json value", `json:city`, false, true},
		{"unterminated jsonschema value", `json:"city" jsonschema:"enum=a`, false, true},
		{"invalid escape in the result", `json:"city" jsonschema:"enum=a\,b"`, true, true},
		{"escaped comma", `json:"city" jsonschema:"description=City name\\, e.g. Paris,enum=Paris"`, false, false},
		{"a comma between json and jsonschema", `json:"city",jsonschema:"description=City name,enum=Paris"`, false, true},
		{"a comma between jsonschema and json", `jsonschema:"description=x",json:"city"`, false, true},
		{"a semicolon between json and jsonschema", `json:"city";jsonschema:"enum=a"`, false, true},
		{"spaces between keys", `json:"city"   yaml:"city"`, false, false},
		{"malformed key of another package after json", `json:"city" db:unquoted`, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.result {
				_, _, err = reflectschema.Result(structWith(tt.tag))
			} else {
				_, _, err = reflectschema.Args(structWith(tt.tag))
			}
			if err != nil {
				err = declarationError("t", "arguments", err)
			}
			if !tt.refuse {
				if err != nil {
					t.Fatalf("tag %s refused: %v", tt.tag, err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidDeclaration) {
				t.Fatalf("tag %s: err = %v, want errors.Is ErrInvalidDeclaration", tt.tag, err)
			}
			for _, m := range []string{"City", "malformed", tt.tag} {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not mention %q", err, m)
				}
			}
		})
	}
}
