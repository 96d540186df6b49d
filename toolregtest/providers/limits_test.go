package providers

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolanthropic"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/internal/dialect"
	"github.com/toolreg/toolreg/toolregtest"
	"github.com/toolreg/toolreg/toolregtest/internal/fixture"
)

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
		out[i] = fixture.Schema(fmt.Sprintf("%s_%d", prefix, i), schema(i))
	}
	return out
}

const (
	described = `{"type":"string","description":"a described string"}`
	nullable  = `{"type":["string","null"],"description":"nullable"}`
)

func oneField(int) string       { return flat(1, true, func(int) string { return described }) }
func nullableFields(int) string { return flat(2, true, func(int) string { return nullable }) }

var treeTool = fixture.Typed[fixture.TreeArgs]("draw_tree", "Draws a tree of names; use it when the user asks for a diagram.")

// limitFindings are the findings of the limit rules alone.
func limitFindings(reg *toolreg.Registry) []toolregtest.Finding {
	var out []toolregtest.Finding
	for _, f := range toolregtest.Lint(reg, Limits()) {
		switch f.Rule {
		case RuleOpenAITools, RuleOpenAIStrictProperties, RuleOpenAIStrictDepth,
			RuleAnthropicStrictTools, RuleAnthropicStrictOptional, RuleAnthropicStrictUnions:
			out = append(out, f)
		}
	}
	return out
}

// TestLimits lists, for each registry, every limit finding: where, and
// which rule. Message is checked for msg only.
func TestLimits(t *testing.T) {
	type F = toolregtest.Finding
	for _, tc := range []struct {
		name  string
		tools []toolreg.AnyTool
		want  []F
		msg   string // in one of the messages
	}{
		{name: "too many tools for OpenAI", tools: manyTools(129, "t", oneField),
			want: []F{{Rule: RuleOpenAITools}, {Rule: RuleAnthropicStrictTools}}, msg: "129 tools; OpenAI accepts at most 128"},
		{name: "as many tools as OpenAI takes", tools: manyTools(128, "t", oneField),
			want: []F{{Rule: RuleAnthropicStrictTools}}},

		{name: "too many properties for OpenAI strict",
			tools: []toolreg.AnyTool{fixture.Schema("big", flat(5001, true, func(int) string { return described }))},
			want:  []F{{Tool: "big", Rule: RuleOpenAIStrictProperties}}, msg: "allows at most 5000 object properties in all; this schema has 5001: split the tool"},
		{name: "properties in $defs count",
			tools: []toolreg.AnyTool{fixture.Schema("big_defs", `{"$defs":{"N":`+flat(4999, true, func(int) string { return described })+`},`+
				`"type":"object","properties":{"n":{"$ref":"#/$defs/N"},"m":{"$ref":"#/$defs/N"}},"required":["n","m"],"additionalProperties":false}`)},
			want: []F{{Tool: "big_defs", Rule: RuleOpenAIStrictProperties}}, msg: "this schema has 5001"},
		{name: "as many properties as OpenAI strict takes",
			tools: []toolreg.AnyTool{fixture.Schema("big", flat(5000, true, func(int) string { return described }))}},

		{name: "too deep for OpenAI strict", tools: []toolreg.AnyTool{fixture.Schema("deep", nested(11))},
			want: []F{{Tool: "deep", Field: "a.a.a.a.a.a.a.a.a.a", Rule: RuleOpenAIStrictDepth}}, msg: "allows at most 10 levels of nested objects; this schema has 11: flatten the arguments"},
		{name: "too deep through a $ref",
			tools: []toolreg.AnyTool{fixture.Schema("deep_ref", `{"$defs":{"D":`+nested(10)+`},"type":"object","properties":{"d":{"$ref":"#/$defs/D"}},"required":["d"],"additionalProperties":false}`)},
			want:  []F{{Tool: "deep_ref", Field: "d.a.a.a.a.a.a.a.a.a", Rule: RuleOpenAIStrictDepth}}},
		{name: "as deep as OpenAI strict takes",
			tools: []toolreg.AnyTool{fixture.Schema("deep", nested(10)),
				// Arrays and nullable wrappers are no level of their own.
				fixture.Schema("deep_array", strings.Replace(nested(10), `{"type":"string","description":"leaf"}`,
					`{"anyOf":[{"type":"array","items":{"type":"array","items":{"type":"string"}}},{"type":"null"}],"description":"leaf"}`, 1)),
				treeTool}},

		{name: "too many strict tools for Anthropic", tools: manyTools(21, "t", oneField),
			want: []F{{Rule: RuleAnthropicStrictTools}}, msg: "21 tools can be sent in Anthropic strict mode"},
		{name: "tools strict mode cannot express do not count", tools: append(manyTools(20, "t", oneField), fixture.Labels())},

		{name: "too many optional parameters for Anthropic strict",
			tools: manyTools(5, "t", func(i int) string { return flat(5+i/4, false, func(int) string { return described }) }),
			want:  []F{{Rule: RuleAnthropicStrictOptional}}, msg: "26 optional parameters, and a request may carry at most 24 (t_4 6, t_0 5, t_1 5, t_2 5, t_3 5)"},
		{name: "one tool over the optional limit",
			tools: []toolreg.AnyTool{fixture.Schema("wide", flat(25, false, func(int) string { return described }))},
			want:  []F{{Tool: "wide", Rule: RuleAnthropicStrictOptional}}, msg: "allows at most 24 optional properties across a request's strict tools; this schema alone has 25"},
		{name: "as many optional parameters as Anthropic strict takes",
			tools: manyTools(4, "t", func(int) string { return flat(6, false, func(int) string { return described }) })},

		{name: "too many union parameters for Anthropic strict",
			tools: manyTools(17, "t", func(int) string {
				return flat(1, true, func(int) string { return `{"anyOf":[{"type":"string"},{"type":"null"}],"description":"nullable"}` })
			}),
			want: []F{{Rule: RuleAnthropicStrictUnions}}, msg: "17 parameters using anyOf or a type array"},
		{name: "one tool over the union limit",
			tools: []toolreg.AnyTool{fixture.Schema("nullable", flat(17, true, func(int) string { return nullable }))},
			want:  []F{{Tool: "nullable", Rule: RuleAnthropicStrictUnions}}, msg: "this schema alone has 17: send the tool without strict"},
		{name: "as many union parameters as Anthropic strict takes",
			tools: manyTools(16, "t", func(int) string { return flat(1, true, func(int) string { return nullable }) })},

		// A refusal for anything but a limit is the snapshot's to show.
		{name: "a map is no limit", tools: []toolreg.AnyTool{fixture.Labels()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := limitFindings(fixture.Registry(tc.tools...))
			said := tc.msg == ""
			for i := range got {
				said = said || strings.Contains(got[i].Message, tc.msg)
				got[i].Message = ""
			}
			if !said {
				t.Errorf("no message says %q", tc.msg)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLimitsAmongLintFindings: the limits are reported with Lint's own
// findings, each tool's together and the registry's last, and Ignore
// skips them.
func TestLimitsAmongLintFindings(t *testing.T) {
	nulls := func(int) string { return flat(9, true, func(int) string { return nullable }) }
	reg := fixture.Registry(append([]toolreg.AnyTool{
		fixture.Schema("deep", nested(11)),
		fixture.Schema("Wide", flat(25, false, func(int) string { return described })),
	}, manyTools(2, "nulls", nulls)...)...)
	for _, tc := range []struct {
		name string
		opts []toolregtest.LintOption
		want []string // tool, field and rule of each finding
	}{
		{"all", []toolregtest.LintOption{Limits()}, []string{
			"deep a.a.a.a.a.a.a.a.a.a openai-strict-depth",
			"Wide  tool-name",
			"Wide  anthropic-strict-optional",
			"  anthropic-strict-unions",
		}},
		{"ignored", []toolregtest.LintOption{Limits(), toolregtest.Ignore(RuleAnthropicStrictOptional, RuleAnthropicStrictUnions)}, []string{
			"deep a.a.a.a.a.a.a.a.a.a openai-strict-depth",
			"Wide  tool-name",
		}},
		{"without Limits", nil, []string{
			"Wide  tool-name",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, f := range toolregtest.Lint(reg, tc.opts...) {
				got = append(got, fmt.Sprintf("%s %s %s", f.Tool, f.Field, f.Rule))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

// The Anthropic sums must agree with the limits the adapter enforces: a
// finding exactly when the adapter refuses the request.
func TestLimitsAgreeWithAnthropicAdapter(t *testing.T) {
	for _, tc := range []struct {
		tools []toolreg.AnyTool
		want  bool
	}{
		{manyTools(20, "t", oneField), false},
		{manyTools(21, "t", oneField), true},
		{manyTools(4, "t", func(int) string { return flat(6, false, func(int) string { return described }) }), false},
		{manyTools(5, "t", func(int) string { return flat(5, false, func(int) string { return described }) }), true},
		{manyTools(8, "t", nullableFields), false},
		{manyTools(9, "t", nullableFields), true},
		{[]toolreg.AnyTool{fixture.Weather(), fixture.Time(), fixture.Trip(), fixture.Labels()}, false},
	} {
		reg := fixture.Registry(tc.tools...)
		var limits []toolregtest.Finding
		for _, f := range limitFindings(reg) {
			switch f.Rule {
			case RuleAnthropicStrictTools, RuleAnthropicStrictOptional, RuleAnthropicStrictUnions:
				limits = append(limits, f)
			}
		}
		_, err := toolanthropic.New(reg, toolanthropic.WithStrict(), toolanthropic.WithNonStrictFallback()).ToolsJSON()
		if refused := errors.Is(err, toolanthropic.ErrStrictLimit); refused != tc.want || (len(limits) > 0) != tc.want {
			t.Errorf("%d tools: the adapter says %v, the lint %v; want a refusal: %v", len(tc.tools), err, limits, tc.want)
		}
	}
}

// Likewise the OpenAI strict limits: a finding exactly when the adapter,
// asked for strict mode, refuses the tool for that limit or sends it
// non-strict for it.
func TestLimitsAgreeWithOpenAIAdapter(t *testing.T) {
	for _, tc := range []struct {
		tool  toolreg.AnyTool
		limit error // the limit the adapter names when it refuses
		want  bool
	}{
		{fixture.Schema("p5000", flat(5000, true, func(int) string { return described })), dialect.ErrOpenAIProperties, false},
		{fixture.Schema("p5001", flat(5001, true, func(int) string { return described })), dialect.ErrOpenAIProperties, true},
		{fixture.Schema("d10", nested(10)), dialect.ErrOpenAIDepth, false},
		{fixture.Schema("d11", nested(11)), dialect.ErrOpenAIDepth, true},
		{fixture.Schema("d11_ref", `{"$defs":{"D":`+nested(10)+`},"type":"object","properties":{"d":{"$ref":"#/$defs/D"}},"required":["d"],"additionalProperties":false}`), dialect.ErrOpenAIDepth, true},
		{treeTool, dialect.ErrOpenAIDepth, false},
		{fixture.Typed[deep11]("typed_d11", "A typed tool whose objects nest eleven levels deep."), dialect.ErrOpenAIDepth, true},
	} {
		reg := fixture.Registry(tc.tool)
		a := toolopenai.NewChat(reg, toolopenai.WithStrict())
		_, err := a.ToolsJSON()
		if err == nil {
			err = a.NotStrict(tc.tool.Name())
		}
		refused := errors.Is(err, tc.limit)
		found := false
		for _, f := range limitFindings(reg) {
			found = found || f.Rule == RuleOpenAIStrictProperties || f.Rule == RuleOpenAIStrictDepth
		}
		if refused != tc.want || found != tc.want {
			t.Errorf("%s: the adapter refuses: %v (%v), the lint finds: %v; want %v", tc.tool.Name(), refused, err, found, tc.want)
		}
	}
}

// deep11 is a Go type whose objects nest eleven levels deep: a typed tool
// the openai adapter refuses in strict mode.
type deep11 = level[level[level[level[level[level[level[level[level[level[leaf]]]]]]]]]]

type level[T any] struct {
	A T `json:"a" jsonschema:"description=One level down"`
}

type leaf struct {
	Leaf string `json:"leaf" jsonschema:"description=The leaf"`
}
