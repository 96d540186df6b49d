package toolregtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/anthropic"
)

// tool declares a tool with Args A and a text result.
func tool[A any](name, description string) toolreg.AnyTool {
	return toolreg.MustNew(name, description, func(context.Context, A) (string, error) { return "", nil })
}

// schemaTool is an AnyTool with a hand-built input schema, for sizes no Go
// type in a test should have.
func schemaTool(name string, schema string) toolreg.AnyTool {
	return &fakeTool{name: name, description: "A tool with a generated schema, named " + name + ".", input: json.RawMessage(schema),
		invoke: func(json.RawMessage) toolreg.Output { return toolreg.Output{Text: "ok"} }}
}

// flat is an object schema of n properties built by prop(i), required or
// not.
func flat(n int, required bool, prop func(i int) string) string {
	props := make([]string, n)
	names := make([]string, n)
	for i := range n {
		props[i] = fmt.Sprintf(`"p%d":%s`, i, prop(i))
		names[i] = fmt.Sprintf(`"p%d"`, i)
	}
	req := "[]"
	if required {
		req = "[" + strings.Join(names, ",") + "]"
	}
	return fmt.Sprintf(`{"type":"object","properties":{%s},"required":%s,"additionalProperties":false}`, strings.Join(props, ","), req)
}

// nested is an object schema n properties deep: a.a.a... ending in a
// string.
func nested(n int) string {
	s := `{"type":"string","description":"leaf"}`
	for range n {
		s = fmt.Sprintf(`{"type":"object","description":"level","properties":{"a":%s},"required":["a"],"additionalProperties":false}`, s)
	}
	return s
}

func manyTools(n int, prefix string, schema func(i int) string) []toolreg.AnyTool {
	out := make([]toolreg.AnyTool, n)
	for i := range n {
		out[i] = schemaTool(fmt.Sprintf("%s_%d", prefix, i), schema(i))
	}
	return out
}

const describedString = `{"type":"string","description":"a describedString string"}`

type Described struct {
	City string `json:"city" jsonschema:"description=City name"`
}

type Undescribed struct {
	City string `json:"city"`
}

type Home struct {
	Street string `json:"street"`
	Zip    string `json:"zip" jsonschema:"description=Postal code"`
}

type NestedArgs struct {
	Home   Home            `json:"home" jsonschema:"description=Home address"`
	Stops  []Home          `json:"stops" jsonschema:"description=Stops"`
	Labels map[string]Home `json:"labels,omitempty" jsonschema:"description=Named addresses"`
}

type Tree struct {
	Name     string  `json:"name"`
	Children []*Tree `json:"children,omitempty" jsonschema:"description=Subtrees"`
}

type TreeArgs struct {
	Tree  *Tree `json:"tree,omitempty" jsonschema:"description=A tree"`
	Other *Tree `json:"other,omitempty" jsonschema:"description=Another tree"`
}

type DescribedKinds struct {
	Days  *int    `json:"days,omitempty" jsonschema:"description=Days,nullable"`
	Tree  *Tree   `json:"tree,omitempty" jsonschema:"description=A tree"`
	Tags  []int   `json:"tags" jsonschema:"description=Tags"`
	Any   any     `json:"any" jsonschema:"description=Anything"`
	Score float64 `json:"score" jsonschema:"description=Score,minimum=0"`
}

type EnumArgs struct {
	Unit string   `json:"unit" jsonschema:"enum=celsius,enum=fahrenheit"`
	Tags []string `json:"tags" jsonschema:"enum=a,enum=b"`
	Days *int     `json:"days,omitempty" jsonschema:"nullable,enum=1,enum=7"`
}

type DescribedEnum struct {
	Unit string `json:"unit" jsonschema:"description=Temperature unit,enum=celsius,enum=fahrenheit"`
}

type ForeignArgs struct {
	City  string `json:"city" description:"the city"`
	Stops []struct {
		Name string `json:"name" jsonschema:"description=Stop" validate:"required"`
	} `json:"stops" jsonschema:"description=Stops"`
	Embedded
}

type Embedded struct {
	Unit string `json:"unit" jsonschema:"description=Unit" enum:"c,f"`
}

type ownTags struct {
	City string `json:"city" jsonschema:"description=City" yaml:"city" xml:"city"`
}

func TestLintRules(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rule  Rule
		tools []toolreg.AnyTool
		want  []Finding // of tc.rule; Message is checked for "msg" only
		msg   string    // in the first finding's message
	}{
		{name: "short description", rule: RuleToolDescription,
			tools: []toolreg.AnyTool{tool[Described]("get_weather", "Gets the weather.")},
			want:  []Finding{{Tool: "get_weather"}}, msg: `has 17 characters, fewer than 20`},
		{name: "description restates the name", rule: RuleToolDescription,
			tools: []toolreg.AnyTool{tool[Described]("search_customer_orders_by_email", "Search customer orders by email.")},
			want:  []Finding{{Tool: "search_customer_orders_by_email"}}, msg: "only restates the name"},
		{name: "description long enough", rule: RuleToolDescription,
			tools: []toolreg.AnyTool{tool[Described]("get_weather", "Weather for a city."), tool[Described]("get_time", "Current time, for time questions.")},
			want:  []Finding{{Tool: "get_weather"}}},

		{name: "camelCase name", rule: RuleToolName,
			tools: []toolreg.AnyTool{tool[Described]("getWeather", "Weather forecast for a city; use it for weather questions.")},
			want:  []Finding{{Tool: "getWeather"}}, msg: "write it as get_weather"},
		{name: "dashes and capitals", rule: RuleToolName,
			tools: []toolreg.AnyTool{tool[Described]("Get-Weather", "Weather forecast for a city; use it for weather questions."),
				tool[Described]("_private", "A tool whose name starts with an underscore."),
				tool[Described]("double__underscore", "A tool whose name has two underscores in a row.")},
			want: []Finding{{Tool: "Get-Weather"}, {Tool: "_private"}, {Tool: "double__underscore"}}, msg: "write it as get_weather"},
		{name: "snake_case names", rule: RuleToolName,
			tools: []toolreg.AnyTool{tool[Described]("get_weather", "Weather forecast for a city; use it for weather questions."),
				tool[Described]("geocode_v2", "Coordinates of an address; use it before get_weather.")}},

		{name: "same description", rule: RuleDuplicateDescription,
			tools: []toolreg.AnyTool{tool[Described]("get_weather", "Weather forecast for a city; use it for weather questions."),
				tool[Described]("get_time", "The current time, for questions about time."),
				tool[Described]("get_forecast", "  weather forecast for a CITY;   use it for weather questions ")},
			want: []Finding{{Tool: "get_forecast"}}, msg: "same as that of get_weather"},
		{name: "different descriptions", rule: RuleDuplicateDescription,
			tools: []toolreg.AnyTool{tool[Described]("get_weather", "Weather forecast for a city; use it for weather questions."),
				tool[Described]("get_climate", "Climate averages for a city; use it for questions about climate.")}},

		{name: "field without description", rule: RuleFieldDescription,
			tools: []toolreg.AnyTool{tool[Undescribed]("get_weather", "Weather forecast for a city; use it for weather questions.")},
			want:  []Finding{{Tool: "get_weather", Field: "city"}}, msg: "has no description"},
		{name: "nested fields without description", rule: RuleFieldDescription,
			tools: []toolreg.AnyTool{tool[NestedArgs]("save_addresses", "Saves the user's addresses; use it when the user gives one.")},
			want:  []Finding{{Tool: "save_addresses", Field: "home.street"}, {Tool: "save_addresses", Field: "stops[].street"}, {Tool: "save_addresses", Field: "labels{}.street"}}},
		{name: "recursive type, reported once", rule: RuleFieldDescription,
			tools: []toolreg.AnyTool{tool[TreeArgs]("draw_tree", "Draws a tree of names; use it when the user asks for a diagram."),
				tool[Tree]("draw_root", "Draws a tree given at the root; use it for diagrams.")},
			want: []Finding{{Tool: "draw_tree", Field: "tree.name"}, {Tool: "draw_root", Field: "name"}}},
		{name: "describedString fields of every kind", rule: RuleFieldDescription,
			tools: []toolreg.AnyTool{tool[Described]("get_weather", "Weather forecast for a city; use it for weather questions."),
				tool[DescribedKinds]("kinds", "A tool with a describedString field of every kind."),
				tool[struct{}]("get_time", "The current time, for questions about time.")},
			want: []Finding{{Tool: "kinds", Field: "tree.name"}}},

		{name: "enum without description", rule: RuleEnumDescription,
			tools: []toolreg.AnyTool{tool[EnumArgs]("convert", "Converts temperatures; use it for unit questions.")},
			want:  []Finding{{Tool: "convert", Field: "unit"}, {Tool: "convert", Field: "tags"}, {Tool: "convert", Field: "days"}}, msg: `one of "celsius", "fahrenheit"`},
		{name: "const without description", rule: RuleEnumDescription,
			tools: []toolreg.AnyTool{schemaTool("const_tool", `{"type":"object","properties":{"kind":{"const":"x"}},"additionalProperties":false}`)},
			want:  []Finding{{Tool: "const_tool", Field: "kind"}}},
		{name: "enum with description", rule: RuleEnumDescription,
			tools: []toolreg.AnyTool{tool[DescribedEnum]("convert", "Converts temperatures; use it for unit questions.")}},

		{name: "foreign tags", rule: RuleForeignTag,
			tools: []toolreg.AnyTool{tool[ForeignArgs]("plan", "Plans a trip; use it when the user lists places.")},
			want:  []Finding{{Tool: "plan", Field: "city"}, {Tool: "plan", Field: "stops[].name"}, {Tool: "plan", Field: "unit"}}, msg: `description:"the city" is read by other libraries but not by toolreg`},
		{name: "tags toolreg reads or that are not about schemas", rule: RuleForeignTag,
			tools: []toolreg.AnyTool{tool[ownTags]("own_tags", "A tool whose fields carry only tags toolreg reads or ignores rightly."),
				tool[NestedArgs]("save_addresses", "Saves the user's addresses; use it when the user gives one."),
				schemaTool("no_go_type", `{"type":"object","properties":{},"additionalProperties":false}`)}},

		{name: "too many tools for OpenAI", rule: RuleOpenAITools,
			tools: manyTools(129, "t", func(int) string { return flat(1, true, func(int) string { return describedString }) }),
			want:  []Finding{{}}, msg: "129 tools; OpenAI accepts at most 128"},
		{name: "as many tools as OpenAI takes", rule: RuleOpenAITools,
			tools: manyTools(128, "t", func(int) string { return flat(1, true, func(int) string { return describedString }) })},

		{name: "too many properties for OpenAI strict", rule: RuleOpenAIStrictProperties,
			tools: []toolreg.AnyTool{schemaTool("big", flat(5001, true, func(int) string { return describedString }))},
			want:  []Finding{{Tool: "big"}}, msg: "5001 object properties"},
		{name: "properties in $defs count", rule: RuleOpenAIStrictProperties,
			tools: []toolreg.AnyTool{schemaTool("big_defs", `{"$defs":{"N":`+flat(4999, true, func(int) string { return describedString })+`},`+
				`"type":"object","properties":{"n":{"$ref":"#/$defs/N"},"m":{"$ref":"#/$defs/N"}},"required":["n","m"],"additionalProperties":false}`)},
			want: []Finding{{Tool: "big_defs"}}, msg: "5001 object properties"},
		{name: "as many properties as OpenAI strict takes", rule: RuleOpenAIStrictProperties,
			tools: []toolreg.AnyTool{schemaTool("big", flat(5000, true, func(int) string { return describedString }))}},

		{name: "too deep for OpenAI strict", rule: RuleOpenAIStrictDepth,
			tools: []toolreg.AnyTool{schemaTool("deep", nested(11))},
			want:  []Finding{{Tool: "deep", Field: "a.a.a.a.a.a.a.a.a.a"}}, msg: "objects nest 11 levels deep here"},
		{name: "through a $ref", rule: RuleOpenAIStrictDepth,
			tools: []toolreg.AnyTool{schemaTool("deep_ref", `{"$defs":{"D":`+nested(10)+`},"type":"object","properties":{"d":{"$ref":"#/$defs/D"}},"required":["d"],"additionalProperties":false}`)},
			want:  []Finding{{Tool: "deep_ref", Field: "d.a.a.a.a.a.a.a.a.a"}}},
		{name: "as deep as OpenAI strict takes", rule: RuleOpenAIStrictDepth,
			tools: []toolreg.AnyTool{schemaTool("deep", nested(10)),
				// Arrays and nullable wrappers are no level of their own.
				schemaTool("deep_array", strings.Replace(nested(10), `{"type":"string","description":"leaf"}`,
					`{"anyOf":[{"type":"array","items":{"type":"array","items":{"type":"string"}}},{"type":"null"}],"description":"leaf"}`, 1)),
				tool[TreeArgs]("draw_tree", "Draws a tree of names; use it when the user asks for a diagram.")}},

		{name: "too many strict tools for Anthropic", rule: RuleAnthropicStrictTools,
			tools: manyTools(21, "t", func(int) string { return flat(1, true, func(int) string { return describedString }) }),
			want:  []Finding{{}}, msg: "21 tools can be sent in Anthropic strict mode"},
		{name: "tools strict mode cannot express do not count", rule: RuleAnthropicStrictTools,
			tools: append(manyTools(20, "t", func(int) string { return flat(1, true, func(int) string { return describedString }) }),
				tool[LabelArgs]("set_labels", "Sets labels on the current document when asked to."))},

		{name: "too many optional parameters for Anthropic strict", rule: RuleAnthropicStrictOptional,
			tools: manyTools(5, "t", func(i int) string { return flat(5+i/4, false, func(int) string { return describedString }) }),
			want:  []Finding{{}}, msg: "26 optional parameters, and a request may carry at most 24 (t_4 6, t_0 5, t_1 5, t_2 5, t_3 5)"},
		{name: "one tool over the optional limit", rule: RuleAnthropicStrictOptional,
			tools: []toolreg.AnyTool{schemaTool("wide", flat(25, false, func(int) string { return describedString }))},
			want:  []Finding{{Tool: "wide"}}, msg: "the schema alone has 25 optional parameters"},
		{name: "as many optional parameters as Anthropic strict takes", rule: RuleAnthropicStrictOptional,
			tools: manyTools(4, "t", func(int) string { return flat(6, false, func(int) string { return describedString }) })},

		{name: "too many union parameters for Anthropic strict", rule: RuleAnthropicStrictUnions,
			tools: manyTools(17, "t", func(int) string {
				return flat(1, true, func(int) string { return `{"anyOf":[{"type":"string"},{"type":"null"}],"description":"nullable"}` })
			}),
			want: []Finding{{}}, msg: "17 parameters using anyOf or a type array"},
		{name: "one tool over the union limit", rule: RuleAnthropicStrictUnions,
			tools: []toolreg.AnyTool{schemaTool("nullable", flat(17, true, func(int) string { return `{"type":["string","null"],"description":"nullable"}` }))},
			want:  []Finding{{Tool: "nullable"}}, msg: "the schema alone has 17 parameters"},
		{name: "as many union parameters as Anthropic strict takes", rule: RuleAnthropicStrictUnions,
			tools: manyTools(16, "t", func(int) string {
				return flat(1, true, func(int) string { return `{"type":["string","null"],"description":"nullable"}` })
			})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []Finding
			for _, f := range Lint(registry(tc.tools...)) {
				if f.Rule == tc.rule {
					got = append(got, f)
				}
			}
			if len(got) > 0 && tc.msg != "" && !strings.Contains(got[0].Message, tc.msg) {
				t.Errorf("the message does not say %q:\n%s", tc.msg, got[0])
			}
			for i := range got {
				got[i].Message, got[i].Rule = "", ""
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("findings of %s (-want +got):\n%s", tc.rule, diff)
			}
		})
	}
}

// The lint's Anthropic sums must agree with the limits the adapter
// enforces: a finding exactly when the adapter refuses the request.
func TestLintAgreesWithAnthropicAdapter(t *testing.T) {
	nullable := func(int) string { return `{"type":["string","null"],"description":"nullable"}` }
	for _, tc := range []struct {
		tools []toolreg.AnyTool
		want  bool
	}{
		{manyTools(20, "t", func(int) string { return flat(1, true, func(int) string { return describedString }) }), false},
		{manyTools(21, "t", func(int) string { return flat(1, true, func(int) string { return describedString }) }), true},
		{manyTools(4, "t", func(int) string { return flat(6, false, func(int) string { return describedString }) }), false},
		{manyTools(5, "t", func(int) string { return flat(5, false, func(int) string { return describedString }) }), true},
		{manyTools(8, "t", func(int) string { return flat(2, true, nullable) }), false},
		{manyTools(9, "t", func(int) string { return flat(2, true, nullable) }), true},
		{[]toolreg.AnyTool{getWeather(), getTime(), planTrip(), setLabels()}, false},
	} {
		reg := registry(tc.tools...)
		var limits []Finding
		for _, f := range Lint(reg) {
			switch f.Rule {
			case RuleAnthropicStrictTools, RuleAnthropicStrictOptional, RuleAnthropicStrictUnions:
				limits = append(limits, f)
			}
		}
		_, err := anthropic.New(reg, anthropic.WithStrict(), anthropic.WithNonStrictFallback()).ToolsJSON()
		if refused := errors.Is(err, anthropic.ErrStrictLimit); refused != tc.want || (len(limits) > 0) != tc.want {
			t.Errorf("%d tools: the adapter says %v, the lint %v; want a refusal: %v", len(tc.tools), err, limits, tc.want)
		}
	}
}

// Likewise the OpenAI strict limits: a finding exactly when the adapter
// refuses the tool in strict mode for that limit.
func TestLintAgreesWithOpenAIAdapter(t *testing.T) {
	for _, tc := range []struct {
		tool    toolreg.AnyTool
		refusal string // in the adapter's error when refused
		want    bool
	}{
		{schemaTool("p5000", flat(5000, true, func(int) string { return describedString })), "object properties", false},
		{schemaTool("p5001", flat(5001, true, func(int) string { return describedString })), "object properties", true},
		{schemaTool("d10", nested(10)), "levels of nested objects", false},
		{schemaTool("d11", nested(11)), "levels of nested objects", true},
		{schemaTool("d11_ref", `{"$defs":{"D":`+nested(10)+`},"type":"object","properties":{"d":{"$ref":"#/$defs/D"}},"required":["d"],"additionalProperties":false}`), "levels of nested objects", true},
		{tool[TreeArgs]("draw_tree", "Draws a tree of names; use it when the user asks for a diagram."), "levels of nested objects", false},
	} {
		refused := false
		if def := define(dialectNamed("openai chat strict"), tc.tool); def.err != nil {
			refused = strings.Contains(def.err.Error(), tc.refusal)
		}
		found := false
		for _, f := range Lint(registry(tc.tool)) {
			found = found || f.Rule == RuleOpenAIStrictProperties || f.Rule == RuleOpenAIStrictDepth
		}
		if refused != tc.want || found != tc.want {
			t.Errorf("%s: the adapter refuses: %v, the lint finds: %v; want %v", tc.tool.Name(), refused, found, tc.want)
		}
	}
}

func TestLintCleanRegistry(t *testing.T) {
	if fs := Lint(registry(getWeather(), getTime(), planTrip())); len(fs) != 0 {
		t.Errorf("findings on well-describedString tools: %v", fs)
	}
}

func TestLintT(t *testing.T) {
	reg := registry(tool[Undescribed]("getWeather", "Gets the weather."))
	f := failures(t, func(tb testing.TB) { LintT(tb, reg) })
	want := []string{
		"3 lint findings",
		"getWeather: the name is not snake_case; write it as get_weather (tool-name)",
		`getWeather: the description "Gets the weather." has 17 characters`,
		"getWeather: city: the field has no description",
	}
	if len(f.errors) != 1 {
		t.Fatalf("want one failure listing every finding, got:\n%s", f.text())
	}
	for _, w := range want {
		if !strings.Contains(f.errors[0], w) {
			t.Errorf("the failure does not say %q:\n%s", w, f.errors[0])
		}
	}

	f = failures(t, func(tb testing.TB) { LintT(tb, reg, Ignore(RuleToolName, RuleToolDescription, RuleFieldDescription)) })
	if f.Failed() {
		t.Errorf("every rule ignored, still:\n%s", f.text())
	}
	f = failures(t, func(tb testing.TB) { LintT(tb, reg, Ignore(RuleToolName)) })
	if len(f.errors) != 1 || strings.Contains(f.errors[0], "tool-name") || !strings.Contains(f.errors[0], "2 lint findings") {
		t.Errorf("tool-name ignored:\n%s", f.text())
	}
}

func TestFindingString(t *testing.T) {
	for _, tc := range []struct {
		f    Finding
		want string
	}{
		{Finding{Tool: "t", Field: "a.b", Rule: RuleFieldDescription, Message: "m"}, "t: a.b: m (field-description)"},
		{Finding{Tool: "t", Rule: RuleToolName, Message: "m"}, "t: m (tool-name)"},
		{Finding{Rule: RuleOpenAITools, Message: "m"}, "registry: m (openai-tools)"},
	} {
		if got := tc.f.String(); got != tc.want {
			t.Errorf("%#v: %q, want %q", tc.f, got, tc.want)
		}
	}
}

func TestTagKeys(t *testing.T) {
	for tag, want := range map[string][]string{
		`json:"a" description:"b"`:             {"json", "description"},
		`json:"a,omitempty"  enum:"x\"y"`:      {"json", "enum"},
		``:                                     nil,
		`json:"a" broken`:                      {"json"},
		`jsonschema:"description=a\\, b" x:""`: {"jsonschema", "x"},
	} {
		if got := tagKeys(reflectTag(tag)); !cmp.Equal(got, want) {
			t.Errorf("%s: %q, want %q", tag, got, want)
		}
	}
}
