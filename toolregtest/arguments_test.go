package toolregtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/internal/args"
)

// argumentSchemas are schema shapes, one or two keywords each, that
// ArgumentsFor must satisfy for every seed.
var argumentSchemas = []struct {
	name, schema string
}{
	{"required and optional", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"},"c":{"type":"boolean"}},"required":["a"],"additionalProperties":false}`},
	{"enum", `{"type":"object","properties":{"unit":{"type":"string","enum":["c","f"]}},"required":["unit"]}`},
	{"enum of mixed types", `{"type":"object","properties":{"v":{"type":"integer","enum":["x",true,3]}},"required":["v"]}`},
	{"const", `{"type":"object","properties":{"v":{"const":{"k":[1,2]}}},"required":["v"]}`},
	{"bounds", `{"type":"object","properties":{"n":{"type":"integer","minimum":100,"maximum":200}},"required":["n"]}`},
	{"exclusive bounds", `{"type":"object","properties":{"n":{"type":"integer","exclusiveMinimum":4,"exclusiveMaximum":6},"x":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":0.001}},"required":["n","x"]}`},
	{"negative range", `{"type":"object","properties":{"n":{"type":"number","maximum":-1000.5}},"required":["n"]}`},
	{"draft 4 exclusive", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"n":{"type":"integer","minimum":1,"exclusiveMinimum":true,"maximum":2}},"required":["n"]}`},
	{"multipleOf", `{"type":"object","properties":{"n":{"type":"number","multipleOf":0.25,"minimum":1.1},"i":{"type":"integer","multipleOf":1.5},"k":{"type":"integer","multipleOf":7,"minimum":-20,"maximum":-8}},"required":["n","i","k"]}`},
	{"int64 bounds", `{"type":"object","properties":{"n":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807},"f":{"type":"number","minimum":-1.7976931348623157e+308,"maximum":1.7976931348623157e+308}},"required":["n","f"]}`},
	{"lengths", `{"type":"object","properties":{"s":{"type":"string","minLength":12,"maxLength":12},"e":{"type":"string","maxLength":0}},"required":["s","e"]}`},
	{"pattern", `{"type":"object","properties":{"s":{"type":"string","pattern":"^[A-Z]{3}-\\d{2,4}$"},"t":{"type":"string","pattern":"(cat|dog)s?"}},"required":["s","t"]}`},
	{"pattern and length", `{"type":"object","properties":{"s":{"type":"string","pattern":"^[a-z]+$","minLength":20,"maxLength":25}},"required":["s"]}`},
	{"pattern with classes", `{"type":"object","properties":{"s":{"type":"string","pattern":"^[^\\s@]+@[^\\s@]+\\.[a-z]{2,}$"},"w":{"type":"string","pattern":"^\\w+\\b"}},"required":["s","w"]}`},
	{"formats", `{"type":"object","properties":{
		"dt":{"type":"string","format":"date-time"},"d":{"type":"string","format":"date"},"t":{"type":"string","format":"time"},
		"e":{"type":"string","format":"email"},"u":{"type":"string","format":"uri"},"id":{"type":"string","format":"uuid"},
		"v4":{"type":"string","format":"ipv4"},"v6":{"type":"string","format":"ipv6"},"dur":{"type":"string","format":"duration"},
		"h":{"type":"string","format":"hostname"},"r":{"type":"string","format":"regex"},"p":{"type":"string","format":"json-pointer"},
		"x":{"type":"string","format":"made-up"}},
		"required":["dt","d","t","e","u","id","v4","v6","dur","h","r","p","x"]}`},
	{"format with pattern", `{"type":"object","properties":{"when":{"type":"string","format":"date-time","pattern":"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]+)?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$"}},"required":["when"]}`},
	{"format with length", `{"type":"object","properties":{"e":{"type":"string","format":"email","maxLength":6}},"required":["e"]}`},
	{"array bounds", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"},"minItems":3,"maxItems":4}},"required":["a"]}`},
	{"unique items", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string","enum":["x","y","z"]},"minItems":3,"uniqueItems":true},"b":{"type":"array","items":{"type":"integer","minimum":0,"maximum":1000},"minItems":5,"uniqueItems":true}},"required":["a","b"]}`},
	{"prefix items", `{"type":"object","properties":{"p":{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"items":false,"minItems":2}},"required":["p"]}`},
	{"contains", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"},"contains":{"const":7}}},"required":["a"]}`},
	{"map", `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"integer","minimum":5}}},"required":["m"]}`},
	{"map with min and names", `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"boolean"},"propertyNames":{"pattern":"^[a-z]{3}$"},"minProperties":3}},"required":["m"]}`},
	{"required beyond properties", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a","b"]}`},
	{"pattern properties", `{"type":"object","patternProperties":{"^x_":{"type":"integer"}},"required":["x_n"],"additionalProperties":false}`},
	{"dependent required", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a"],"dependentRequired":{"a":["b"]}}`},
	{"nullable", `{"type":"object","properties":{"a":{"type":["string","null"],"minLength":2},"b":{"anyOf":[{"type":"null"},{"type":"integer","minimum":3}]}},"required":["a","b"]}`},
	{"oneOf", `{"type":"object","properties":{"shape":{"oneOf":[{"type":"object","properties":{"kind":{"const":"circle"},"r":{"type":"number","exclusiveMinimum":0}},"required":["kind","r"],"additionalProperties":false},{"type":"object","properties":{"kind":{"const":"square"},"side":{"type":"number"}},"required":["kind","side"],"additionalProperties":false}]}},"required":["shape"]}`},
	{"oneOf overlapping", `{"type":"object","properties":{"n":{"oneOf":[{"type":"integer"},{"type":"number","minimum":0.5,"maximum":0.5}]}},"required":["n"]}`},
	{"anyOf with siblings", `{"type":"object","properties":{"n":{"type":"integer","minimum":10,"anyOf":[{"maximum":5},{"maximum":20}]}},"required":["n"]}`},
	{"allOf", `{"type":"object","allOf":[{"properties":{"a":{"type":"string","minLength":3}},"required":["a"]},{"properties":{"a":{"maxLength":4},"b":{"type":"integer","minimum":2}},"required":["b"]}]}`},
	{"ref", `{"type":"object","$defs":{"city":{"type":"string","enum":["Oslo","Lima"]}},"properties":{"from":{"$ref":"#/$defs/city"},"to":{"$ref":"#/$defs/city","description":"where"}},"required":["from","to"]}`},
	{"ref with siblings", `{"type":"object","$defs":{"n":{"type":"integer","minimum":0}},"properties":{"a":{"$ref":"#/$defs/n","maximum":3}},"required":["a"]}`},
	{"nested defs", `{"type":"object","$defs":{"addr":{"type":"object","properties":{"zip":{"$ref":"#/$defs/zip"}},"required":["zip"]},"zip":{"type":"string","pattern":"^\\d{5}$"}},"properties":{"home":{"$ref":"#/$defs/addr"}},"required":["home"]}`},
	{"recursive tree", `{"type":"object","$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}},"required":["name","children"]}},"properties":{"root":{"$ref":"#/$defs/node"}},"required":["root"]}`},
	{"recursive nullable", `{"type":"object","$defs":{"list":{"type":"object","properties":{"v":{"type":"integer"},"next":{"anyOf":[{"$ref":"#/$defs/list"},{"type":"null"}]}},"required":["v","next"]}},"properties":{"head":{"$ref":"#/$defs/list"}},"required":["head"]}`},
	{"recursive root", `{"type":"object","properties":{"name":{"type":"string"},"sub":{"$ref":"#"}},"required":["name"]}`},
	{"any value", `{"type":"object","properties":{"x":true,"y":{}},"required":["x","y"]}`},
	{"default preferred", `{"type":"object","properties":{"n":{"type":"integer","default":4}},"required":["n"]}`},
	{"min properties", `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"},"c":{"type":"integer"}},"minProperties":3}`},
	{"key needing escapes", `{"type":"object","properties":{"a/b ~c%":{"type":"integer","minimum":3}},"required":["a/b ~c%"]}`},
	{"true schema", `true`},
}

func TestArgumentsForSatisfies(t *testing.T) {
	for _, tc := range argumentSchemas {
		t.Run(tc.name, func(t *testing.T) {
			v := compileForTest(t, tc.schema)
			for seed := range uint64(25) {
				got, err := ArgumentsFor(json.RawMessage(tc.schema), seed)
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				if err := validateWith(v, got); err != nil {
					t.Fatalf("seed %d: %s: %v", seed, got, err)
				}
				again, _ := ArgumentsFor(json.RawMessage(tc.schema), seed)
				if !bytes.Equal(got, again) {
					t.Fatalf("seed %d: two runs made %s and %s; want the same", seed, got, again)
				}
			}
		})
	}
}

// TestArgumentsForValues: what the generator prefers: the schema's own
// default, const, a single enum value; bounds and recursion as expected.
func TestArgumentsForValues(t *testing.T) {
	for _, tc := range []struct {
		name, schema, want string
	}{
		{"default", `{"type":"object","properties":{"n":{"type":"integer","default":4}},"required":["n"]}`, `{"n":4}`},
		{"examples", `{"type":"object","properties":{"s":{"type":"string","examples":["Paris","Rome"]}},"required":["s"],"additionalProperties":false}`, `{"s":"Paris"}`},
		{"invalid default is not used", `{"type":"object","properties":{"n":{"type":"integer","minimum":10,"maximum":10,"default":4}},"required":["n"]}`, `{"n":10}`},
		{"single enum of the type", `{"type":"object","properties":{"u":{"type":"string","enum":[1,"kelvin",null]}},"required":["u"],"additionalProperties":false}`, `{"u":"kelvin"}`},
		{"const", `{"type":"object","properties":{"k":{"const":"v1"}},"required":["k"],"additionalProperties":false}`, `{"k":"v1"}`},
		{"exclusive integer bounds", `{"type":"object","properties":{"n":{"type":"integer","exclusiveMinimum":4,"exclusiveMaximum":6}},"required":["n"],"additionalProperties":false}`, `{"n":5}`},
		{"multipleOf with bounds", `{"type":"object","properties":{"n":{"type":"integer","multipleOf":7,"minimum":-20,"maximum":-8}},"required":["n"],"additionalProperties":false}`, `{"n":-14}`},
		{"fixed length pattern", `{"type":"object","properties":{"s":{"type":"string","pattern":"^ab{3}c$"}},"required":["s"],"additionalProperties":false}`, `{"s":"abbbc"}`},
		{"empty string", `{"type":"object","properties":{"s":{"type":"string","maxLength":0}},"required":["s"],"additionalProperties":false}`, `{"s":""}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ArgumentsFor(json.RawMessage(tc.schema), 1)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// TestArgumentsForUnsatisfiable: a schema no value satisfies is an error
// that says where and why, for every seed.
func TestArgumentsForUnsatisfiable(t *testing.T) {
	for _, tc := range []struct {
		name, schema, want string
	}{
		{"min above max", `{"type":"object","properties":{"n":{"type":"integer","minimum":5,"maximum":2}},"required":["n"]}`, "field n: no integer lies within minimum 5, maximum 2"},
		{"no integer between", `{"type":"object","properties":{"n":{"type":"integer","exclusiveMinimum":1,"exclusiveMaximum":2}},"required":["n"]}`, "field n: no integer lies within exclusiveMinimum 1, exclusiveMaximum 2"},
		{"equal exclusive", `{"type":"object","properties":{"x":{"type":"number","minimum":1,"exclusiveMaximum":1}},"required":["x"]}`, "field x: no number lies within"},
		{"multipleOf outside bounds", `{"type":"object","properties":{"n":{"type":"integer","multipleOf":10,"minimum":1,"maximum":9}},"required":["n"]}`, "field n: no integer lies within minimum 1, maximum 9, multipleOf 10"},
		{"lengths", `{"type":"object","properties":{"s":{"type":"string","minLength":5,"maxLength":2}},"required":["s"]}`, "field s: minLength 5 is more than maxLength 2"},
		{"enum without the type", `{"type":"object","properties":{"u":{"type":"integer","enum":["a","b"]}},"required":["u"]}`, `field u: no value of enum ["a","b"] satisfies the schema's other keywords (type "integer")`},
		{"items", `{"type":"object","properties":{"a":{"type":"array","minItems":4,"maxItems":1}},"required":["a"]}`, "field a: minItems 4 is more than maxItems 1"},
		{"unique items too few", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"boolean"},"minItems":3,"uniqueItems":true}},"required":["a"]}`, "field a: uniqueItems is set and minItems is 3, but the item schema gave only 2 distinct values"},
		{"required but closed", `{"type":"object","properties":{"a":{"type":"string"}},"required":["b"],"additionalProperties":false}`, `field "b" is required, but it is not among the properties and additionalProperties is false`},
		{"pattern and length", `{"type":"object","properties":{"s":{"type":"string","pattern":"^[a-z]{3}$","minLength":5}},"required":["s"]}`, `field s: found no string that matches pattern "^[a-z]{3}$" of length 5 or more`},
		{"pattern the generator cannot read", `{"type":"object","properties":{"s":{"type":"string","pattern":"^(?!x)"}},"required":["s"]}`, ""},
		{"false", `{"type":"object","properties":{"a":false},"required":["a"]}`, "field a: the schema is false"},
		{"allOf types", `{"type":"object","properties":{"a":{"allOf":[{"type":"string"},{"type":"integer"}]}},"required":["a"]}`, `field a: type "string" and type "integer" have no value in common`},
		{"recursion without end", `{"type":"object","$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"}},"required":["next"]}},"properties":{"head":{"$ref":"#/$defs/n"}},"required":["head"]}`, "a recursive type that requires itself at every level has no finite value"},
		{"ref nowhere", `{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}},"required":["a"]}`, ""},
		{"required past maxProperties", `{"type":"object","properties":{"a":{},"b":{}},"required":["a","b"],"maxProperties":1}`, "2 fields are required, but maxProperties is 1"},
		{"format and length", `{"type":"object","properties":{"d":{"type":"string","format":"date","maxLength":4}},"required":["d"]}`, `field d: found no string of length 0 to 4 in format "date"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ArgumentsFor(json.RawMessage(tc.schema), 0)
			if err == nil {
				t.Fatalf("made %s; want an error", got)
			}
			// A schema that does not compile is refused as such, not as unsatisfiable.
			if tc.want != "" && !errors.Is(err, ErrUnsatisfiable) {
				t.Errorf("error %v does not match ErrUnsatisfiable", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
		})
	}
}

func compileForTest(t *testing.T, schema string) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := args.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("mem:///test.json", doc); err != nil {
		t.Fatal(err)
	}
	v, err := c.Compile("mem:///test.json")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// panicky is a tool written by hand whose Check panics, and whose schema
// the test chooses.
type panicky struct {
	schema string
	panics bool
}

func (p panicky) Name() string                  { return "panicky" }
func (p panicky) Description() string           { return "A tool written by hand." }
func (p panicky) InputSchema() json.RawMessage  { return json.RawMessage(p.schema) }
func (p panicky) OutputSchema() json.RawMessage { return nil }
func (p panicky) Invoke(context.Context, json.RawMessage) toolreg.Output {
	return toolreg.Output{Text: "ran"}
}
func (p panicky) Check(json.RawMessage) (toolreg.Output, bool) {
	if p.panics {
		panic("boom")
	}
	return toolreg.Output{}, true
}

// TestArgumentsBadTools: a tool that lies about its schema or panics in its
// validator is an error naming the tool, never a panic.
func TestArgumentsBadTools(t *testing.T) {
	for _, tc := range []struct {
		name string
		tool toolreg.AnyTool
		want string
	}{
		{"check panics", panicky{schema: `{"type":"object"}`, panics: true}, `tool "panicky": no arguments satisfy the schema: the tool's validator panicked on {}: boom`},
		{"schema not JSON", panicky{schema: `{"type":`}, `tool "panicky": the schema is not JSON`},
		{"schema not an object", panicky{schema: `[1]`}, `tool "panicky": the schema is not a JSON object`},
		{"schema does not compile", panicky{schema: `{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json"}}}`}, `tool "panicky": the schema does not compile`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Arguments(tc.tool)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("got %s, %v; want an error starting %q", got, err, tc.want)
			}
		})
	}
}
