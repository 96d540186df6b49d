package toolregtest

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/toolregtest/internal/fixture"
)

// tool declares a tool with Args A and a text result.
func tool[A any](name, description string) toolreg.AnyTool {
	return fixture.Typed[A](name, description)
}

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

type DescribedKinds struct {
	Days  *int          `json:"days,omitempty" jsonschema:"description=Days,nullable"`
	Tree  *fixture.Tree `json:"tree,omitempty" jsonschema:"description=A tree"`
	Tags  []int         `json:"tags" jsonschema:"description=Tags"`
	Any   any           `json:"any" jsonschema:"description=Anything"`
	Score float64       `json:"score" jsonschema:"description=Score,minimum=0"`
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
			tools: []toolreg.AnyTool{tool[fixture.TreeArgs]("draw_tree", "Draws a tree of names; use it when the user asks for a diagram."),
				tool[fixture.Tree]("draw_root", "Draws a tree given at the root; use it for diagrams.")},
			want: []Finding{{Tool: "draw_tree", Field: "tree.name"}, {Tool: "draw_root", Field: "name"}}},
		{name: "described fields of every kind", rule: RuleFieldDescription,
			tools: []toolreg.AnyTool{tool[Described]("get_weather", "Weather forecast for a city; use it for weather questions."),
				tool[DescribedKinds]("kinds", "A tool with a described field of every kind."),
				tool[struct{}]("get_time", "The current time, for questions about time.")},
			want: []Finding{{Tool: "kinds", Field: "tree.name"}}},

		{name: "enum without description", rule: RuleEnumDescription,
			tools: []toolreg.AnyTool{tool[EnumArgs]("convert", "Converts temperatures; use it for unit questions.")},
			want:  []Finding{{Tool: "convert", Field: "unit"}, {Tool: "convert", Field: "tags"}, {Tool: "convert", Field: "days"}}, msg: `one of "celsius", "fahrenheit"`},
		{name: "const without description", rule: RuleEnumDescription,
			tools: []toolreg.AnyTool{fixture.Schema("const_tool", `{"type":"object","properties":{"kind":{"const":"x"}},"additionalProperties":false}`)},
			want:  []Finding{{Tool: "const_tool", Field: "kind"}}},
		{name: "enum with description", rule: RuleEnumDescription,
			tools: []toolreg.AnyTool{tool[DescribedEnum]("convert", "Converts temperatures; use it for unit questions.")}},

		{name: "long descriptions", rule: RuleLongDescription,
			tools: []toolreg.AnyTool{tool[Described]("search_tickets", strings.Repeat("Searches the tickets; use it for questions about tickets. ", 20)),
				fixture.Schema("long_field", `{"type":"object","properties":{"query":{"type":"string","description":"`+strings.Repeat("Words to look for. ", 20)+`"},`+
					`"since":{"anyOf":[{"type":"string","description":"`+strings.Repeat("A date. ", 40)+`"},{"type":"null"}]}}}`)},
			want: []Finding{{Tool: "search_tickets"}, {Tool: "long_field", Field: "query"}, {Tool: "long_field", Field: "since"}}, msg: "1159 characters, more than 1000"},
		{name: "descriptions at the limits", rule: RuleLongDescription,
			tools: []toolreg.AnyTool{tool[Described]("search_tickets", strings.Repeat("x", MaxDescriptionLength)),
				fixture.Schema("long_field", `{"type":"object","properties":{"query":{"type":"string","description":"`+strings.Repeat("é", MaxFieldDescriptionLength)+`"}}}`)}},
		{name: "large enums", rule: RuleLargeEnum,
			tools: []toolreg.AnyTool{fixture.Schema("pick_queue", `{"type":"object","properties":{`+
				`"queue":{"type":"string","description":"The queue","enum":[`+numbers(MaxEnumValues+1)+`]},`+
				`"queues":{"type":"array","description":"Queues","items":{"enum":[`+numbers(300)+`]}},`+
				`"small":{"type":"integer","description":"At the limit","enum":[`+numbers(MaxEnumValues)+`]}}}`)},
			want: []Finding{{Tool: "pick_queue", Field: "queue"}, {Tool: "pick_queue", Field: "queues"}}, msg: "one of 51 values (0, 1, 2 …), more than 50"},

		{name: "foreign tags", rule: RuleForeignTag,
			tools: []toolreg.AnyTool{tool[ForeignArgs]("plan", "Plans a trip; use it when the user lists places.")},
			want:  []Finding{{Tool: "plan", Field: "city"}, {Tool: "plan", Field: "stops[].name"}, {Tool: "plan", Field: "unit"}}, msg: `description:"the city" is read by other libraries but not by toolreg`},
		{name: "tags toolreg reads or that are not about schemas", rule: RuleForeignTag,
			tools: []toolreg.AnyTool{tool[ownTags]("own_tags", "A tool whose fields carry only tags toolreg reads or ignores rightly."),
				tool[NestedArgs]("save_addresses", "Saves the user's addresses; use it when the user gives one."),
				fixture.Schema("no_go_type", `{"type":"object","properties":{},"additionalProperties":false}`)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []Finding
			for _, f := range Lint(fixture.Registry(tc.tools...)) {
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

// numbers lists 0 to n-1, comma-separated, for an enum.
func numbers(n int) string {
	s := make([]string, n)
	for i := range s {
		s[i] = strconv.Itoa(i)
	}
	return strings.Join(s, ",")
}

func TestLintCleanRegistry(t *testing.T) {
	if fs := Lint(fixture.Registry(fixture.Weather(), fixture.Time(), fixture.Trip())); len(fs) != 0 {
		t.Errorf("findings on well-described tools: %v", fs)
	}
}

// TestLintCheck: the findings of rules added with Check are reported
// among Lint's own, each tool's in registration order and the registry's
// last, and Ignore skips them too.
func TestLintCheck(t *testing.T) {
	// b_tool has an undescribed field (Lint's own rule); the checks report
	// on both tools and on the registry, in an order of their own.
	reg := fixture.Registry(tool[Described]("a_tool", "The first tool, with a described field."),
		tool[Undescribed]("b_tool", "The second tool, with an undescribed field."))
	registryWide := func(*toolreg.Registry) []Finding {
		return []Finding{{Rule: "registry-rule"}, {Tool: "b_tool", Rule: "tool-rule"}, {Tool: "a_tool", Rule: "tool-rule"}}
	}
	stranger := func(*toolreg.Registry) []Finding {
		return []Finding{{Tool: "not_in_the_registry", Rule: "stranger-rule"}, {Tool: "a_tool", Rule: "second-check"}}
	}
	for _, tc := range []struct {
		name string
		opts []LintOption
		want []Finding // Message left out
	}{
		{"no check", nil, []Finding{{Tool: "b_tool", Field: "city", Rule: RuleFieldDescription}}},
		{"one check", []LintOption{Check(registryWide)}, []Finding{
			{Tool: "a_tool", Rule: "tool-rule"},
			{Tool: "b_tool", Field: "city", Rule: RuleFieldDescription},
			{Tool: "b_tool", Rule: "tool-rule"},
			{Rule: "registry-rule"},
		}},
		{"two checks", []LintOption{Check(registryWide), Check(stranger)}, []Finding{
			{Tool: "a_tool", Rule: "tool-rule"},
			{Tool: "a_tool", Rule: "second-check"},
			{Tool: "b_tool", Field: "city", Rule: RuleFieldDescription},
			{Tool: "b_tool", Rule: "tool-rule"},
			{Rule: "registry-rule"},
			{Tool: "not_in_the_registry", Rule: "stranger-rule"},
		}},
		{"ignored, before or after the check", []LintOption{Ignore("tool-rule"), Check(registryWide), Ignore(RuleFieldDescription)}, []Finding{
			{Rule: "registry-rule"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Lint(reg, tc.opts...)
			for i := range got {
				got[i].Message = ""
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLintT(t *testing.T) {
	reg := fixture.Registry(tool[Undescribed]("getWeather", "Gets the weather."))
	f := fixture.Run(t, func(tb testing.TB) { LintT(tb, reg) })
	want := []string{
		"3 lint findings",
		"getWeather: the name is not snake_case; write it as get_weather (tool-name)",
		`getWeather: the description "Gets the weather." has 17 characters`,
		"getWeather: city: the field has no description",
	}
	if len(f.Errors) != 1 {
		t.Fatalf("want one failure listing every finding, got:\n%s", f.Text())
	}
	for _, w := range want {
		if !strings.Contains(f.Errors[0], w) {
			t.Errorf("the failure does not say %q:\n%s", w, f.Errors[0])
		}
	}

	f = fixture.Run(t, func(tb testing.TB) { LintT(tb, reg, Ignore(RuleToolName, RuleToolDescription, RuleFieldDescription)) })
	if f.Failed() {
		t.Errorf("every rule ignored, still:\n%s", f.Text())
	}
	f = fixture.Run(t, func(tb testing.TB) { LintT(tb, reg, Ignore(RuleToolName)) })
	if len(f.Errors) != 1 || strings.Contains(f.Errors[0], "tool-name") || !strings.Contains(f.Errors[0], "2 lint findings") {
		t.Errorf("tool-name ignored:\n%s", f.Text())
	}
}

func TestFindingString(t *testing.T) {
	for _, tc := range []struct {
		f    Finding
		want string
	}{
		{Finding{Tool: "t", Field: "a.b", Rule: RuleFieldDescription, Message: "m"}, "t: a.b: m (field-description)"},
		{Finding{Tool: "t", Rule: RuleToolName, Message: "m"}, "t: m (tool-name)"},
		{Finding{Rule: "openai-tools", Message: "m"}, "registry: m (openai-tools)"},
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
		if got := tagKeys(reflect.StructTag(tag)); !cmp.Equal(got, want) {
			t.Errorf("%s: %q, want %q", tag, got, want)
		}
	}
}
