package providers

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolmcp"
	"github.com/toolreg/toolreg/toolregtest/internal/fixture"
	"github.com/toolreg/toolreg/toolregtest/internal/tokens"
)

// searchTickets is the kind of definition an imported server brings: a
// description that explains everything, an enum of every queue, and a
// nested filter type.
func searchTickets() toolreg.AnyTool {
	queues := make([]string, 300)
	for i := range queues {
		queues[i] = fmt.Sprintf("%q", fmt.Sprintf("queue-%03d-customer-support", i))
	}
	desc := strings.Repeat("Searches the ticket system for tickets matching a filter; use it for any question about tickets. ", 12)
	schema := `{
		"type": "object",
		"properties": {
			"queue": {"type": "string", "description": "The queue to search.", "enum": [` + strings.Join(queues, ",") + `]},
			"filter": {"$ref": "#/$defs/Filter"},
			"limit": {"type": "integer", "description": "How many tickets to return.", "default": 20, "examples": [10, 50]}
		},
		"required": ["queue"],
		"$defs": {
			"Filter": {
				"type": "object",
				"description": "Which tickets to keep.",
				"properties": {
					"text": {"type": "string", "description": "Words the ticket must contain, in its title or body."},
					"assignee": {"type": "string", "description": "The login of the person the ticket is assigned to."}
				}
			}
		}
	}`
	return toolreg.MustNewDynamic("search_tickets", desc, json.RawMessage(schema),
		func(context.Context, json.RawMessage) (string, error) { return "no tickets", nil })
}

// budgetRegistry holds tools of different shapes: a structured result and
// an enum, no arguments, a map (refused by strict modes and Gemini's
// legacy form), and the bloated one.
func budgetRegistry() *toolreg.Registry {
	return fixture.Registry(fixture.Weather(), fixture.Time(), fixture.Labels(), searchTickets())
}

func dialectSizes(t *testing.T, r Report, name string) DialectSizes {
	t.Helper()
	for _, ds := range r.Dialects {
		if ds.Dialect == name {
			return ds
		}
	}
	t.Fatalf("the report has no dialect %q", name)
	return DialectSizes{}
}

func TestSizesDialects(t *testing.T) {
	r := Sizes(budgetRegistry())
	type row struct {
		Dialect  string
		Estimate bool
		Refused  []string // the tools the dialect refuses
	}
	var got []row
	for _, ds := range r.Dialects {
		rw := row{Dialect: ds.Dialect, Estimate: ds.Estimate}
		for _, ts := range ds.Tools {
			if ts.Refused != "" {
				rw.Refused = append(rw.Refused, ts.Tool)
				if ts.Size != (Size{}) || ts.Parts != nil {
					t.Errorf("%s: %s is refused but has a size %+v and %d parts", ds.Dialect, ts.Tool, ts.Size, len(ts.Parts))
				}
			}
		}
		got = append(got, rw)
	}
	want := []row{
		{Dialect: "openai chat"},
		{Dialect: "openai chat strict", Refused: []string{"set_labels"}},
		{Dialect: "openai responses"},
		{Dialect: "anthropic", Estimate: true},
		{Dialect: "anthropic strict", Estimate: true, Refused: []string{"set_labels"}},
		{Dialect: "gemini", Estimate: true},
		{Dialect: "gemini legacy", Estimate: true, Refused: []string{"set_labels"}},
		{Dialect: "bedrock", Estimate: true},
		{Dialect: "mcp", Estimate: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("dialects (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Dialects(), func() []string {
		var names []string
		for _, w := range want {
			names = append(names, w.Dialect)
		}
		return names
	}()); diff != "" {
		t.Errorf("Dialects() and the report disagree (-Dialects +report):\n%s", diff)
	}
}

// TestSizesAreTheWire: a tool's size is that of its definition as the
// adapter sends it, and the request's that of the whole tools array: the
// bytes, and the tokenizer's count of them.
func TestSizesAreTheWire(t *testing.T) {
	reg := budgetRegistry()
	r := Sizes(reg)
	for _, d := range measured() {
		ds := dialectSizes(t, r, d.name)
		var accepted []toolreg.AnyTool
		for i, tool := range reg.Tools() {
			def := define(d, tool)
			if def.err != nil {
				continue
			}
			accepted = append(accepted, tool)
			want := Size{Bytes: len(def.json), Tokens: tokens.Count(string(def.json))}
			if got := ds.Tools[i].Size; got != want {
				t.Errorf("%s: %s: size %+v, want %+v", d.name, tool.Name(), got, want)
			}
		}
		b, err := d.emit(fixture.Registry(accepted...))
		if err != nil {
			t.Fatalf("%s: %v", d.name, err)
		}
		if want := (Size{Bytes: len(b), Tokens: tokens.Count(string(b))}); ds.Request != want {
			t.Errorf("%s: request size %+v, want %+v", d.name, ds.Request, want)
		}
	}
	// In a dialect whose tools array is the definitions themselves, the
	// request is their bytes, the commas and the brackets.
	ds := dialectSizes(t, r, "openai chat")
	sum := 2 + len(ds.Tools) - 1
	for _, ts := range ds.Tools {
		sum += ts.Size.Bytes
	}
	if ds.Request.Bytes != sum {
		t.Errorf("openai chat: the request has %d bytes, the definitions %d with the array's punctuation", ds.Request.Bytes, sum)
	}
}

// TestSizesNamesTheBloatedParts: the largest parts of the bloated tool are
// the ones a person would trim, in every dialect, and a small tool's
// description is its own largest part.
func TestSizesNamesTheBloatedParts(t *testing.T) {
	r := Sizes(budgetRegistry())
	type part struct {
		Path   string
		Kind   PartKind
		Values int
	}
	top := func(ps []Part, n int) []part {
		var out []part
		for _, p := range ps[:min(n, len(ps))] {
			out = append(out, part{p.Path, p.Kind, p.Values})
		}
		return out
	}
	for _, ds := range r.Dialects {
		search := ds.Tools[3]
		want := []part{{"queue", PartEnum, 300}, {"", PartDescription, 0}}
		if diff := cmp.Diff(want, top(search.Parts, 2)); diff != "" {
			t.Errorf("%s: the largest parts of %s (-want +got):\n%s", ds.Dialect, search.Tool, diff)
		}
		var kinds []PartKind
		for _, p := range search.Parts {
			kinds = append(kinds, p.Kind)
		}
		for _, k := range []PartKind{PartExamples, PartDefault} {
			// Gemini and the strict modes leave examples and defaults out.
			if !strings.Contains(fmt.Sprint(kinds), string(k)) && !strings.HasPrefix(ds.Dialect, "gemini") && !strings.HasSuffix(ds.Dialect, "strict") {
				t.Errorf("%s: no %s among the parts of %s: %v", ds.Dialect, k, search.Tool, search.Parts)
			}
		}
		if got := top(ds.Tools[1].Parts, 1); !cmp.Equal(got, []part{{"", PartDescription, 0}}) {
			t.Errorf("%s: the largest part of get_time is %v, want its description", ds.Dialect, got)
		}
		// The enum is the bulk of the definition and no part is larger
		// than the whole.
		if enum := search.Parts[0].Size; enum.Tokens*2 < search.Size.Tokens || enum.Bytes > search.Size.Bytes {
			t.Errorf("%s: the enum has %+v of the definition's %+v", ds.Dialect, enum, search.Size)
		}
	}
	// The nested type is a part where the dialect keeps $defs.
	ds := dialectSizes(t, r, "openai chat")
	found := false
	for _, p := range ds.Tools[3].Parts {
		if p.Path == "$defs.Filter" && p.Kind == PartNestedType {
			found = true
		}
	}
	if !found {
		t.Errorf("openai chat: no nested type $defs.Filter among %v", ds.Tools[3].Parts)
	}
	// Gemini is sent the schema of a structured result and MCP lists it,
	// and it is the largest part of get_weather there; no other dialect
	// carries it.
	for _, ds := range r.Dialects {
		weather := ds.Tools[0]
		got := weather.Parts[0].Kind == PartResultSchema
		if want := ds.Dialect == "gemini" || ds.Dialect == "mcp"; got != want {
			t.Errorf("%s: the largest part of get_weather is %v; want the result schema: %v", ds.Dialect, weather.Parts[0], want)
		}
	}
}

func TestReportString(t *testing.T) {
	s := Sizes(budgetRegistry()).String()
	lines := strings.Split(s, "\n")
	var heads, tools []string
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "tokens", "bytes", "largest":
			heads = append(heads, f[0])
		case "get_weather", "get_time", "set_labels", "search_tickets", "request":
			tools = append(tools, f[0])
		}
	}
	if diff := cmp.Diff([]string{"tokens", "bytes", "largest"}, heads); diff != "" {
		t.Errorf("sections (-want +got):\n%s\n%s", diff, s)
	}
	rows := []string{"get_weather", "get_time", "set_labels", "search_tickets", "request"}
	want := append(append(rows, rows...), "get_weather", "get_time", "set_labels", "search_tickets")
	if diff := cmp.Diff(want, tools); diff != "" {
		t.Errorf("rows (-want +got):\n%s\n%s", diff, s)
	}
	for _, frag := range []string{"queue enum of 300 values", "~", "-"} {
		if !strings.Contains(s, frag) {
			t.Errorf("the report lacks %q:\n%s", frag, s)
		}
	}
}

func TestCheckBudget(t *testing.T) {
	reg := budgetRegistry()
	r := Sizes(reg)
	chat := dialectSizes(t, r, "openai chat")
	search := chat.Tools[3].Size.Tokens
	var largestSmall int // the largest of the other tools, in any dialect
	var largestRequest int
	for _, ds := range r.Dialects {
		for _, ts := range ds.Tools[:3] {
			largestSmall = max(largestSmall, ts.Size.Tokens)
		}
		largestRequest = max(largestRequest, ds.Request.Tokens)
	}
	if largestSmall*3 > search {
		t.Fatalf("the bloated tool has %d tokens, the others up to %d: not bloated enough to tell apart", search, largestSmall)
	}

	for _, tc := range []struct {
		name   string
		reg    *toolreg.Registry
		budget Budget
		want   []string // the offenders, in the table's order; nil passes
	}{
		{"no bounds", reg, Budget{}, nil},
		{"within", reg, Budget{ToolTokens: largestRequest, RequestTokens: largestRequest}, nil},
		{"the bloated tool", reg, Budget{ToolTokens: largestSmall},
			[]string{"search_tickets openai chat", "search_tickets openai chat strict", "search_tickets openai responses",
				"search_tickets anthropic", "search_tickets anthropic strict", "search_tickets gemini", "search_tickets gemini legacy",
				"search_tickets bedrock", "search_tickets mcp"}},
		{"one dialect", reg, Budget{ToolTokens: largestSmall, Dialects: []string{"openai responses"}},
			[]string{"search_tickets openai responses"}},
		{"the request", reg, Budget{RequestTokens: chat.Request.Tokens - 1, Dialects: []string{"openai chat"}},
			[]string{"request of 4 tools openai chat"}},
		{"a step without the bloated tool", reg.Select(func(t toolreg.AnyTool) bool { return t.Name() != "search_tickets" }),
			Budget{ToolTokens: largestSmall, RequestTokens: search}, nil},
		{"every tool", reg, Budget{ToolTokens: 1, Dialects: []string{"anthropic"}},
			[]string{"get_weather anthropic", "get_time anthropic", "set_labels anthropic", "search_tickets anthropic"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := fixture.Run(t, func(tb testing.TB) { CheckBudget(tb, tc.reg, tc.budget) })
			if tc.want == nil {
				if f.Failed() {
					t.Fatalf("CheckBudget failed:\n%s", f.Text())
				}
				return
			}
			if len(f.Errors) != 1 {
				t.Fatalf("CheckBudget reported %d failures, want 1:\n%s", len(f.Errors), f.Text())
			}
			var got []string
			for _, l := range strings.Split(f.Errors[0], "\n") {
				if !strings.HasPrefix(l, "\t") || strings.HasPrefix(l, "\tover") {
					continue
				}
				cells := strings.Split(strings.TrimSpace(l), "  ")
				var fields []string
				for _, c := range cells {
					if c = strings.TrimSpace(c); c != "" {
						fields = append(fields, c)
					}
				}
				got = append(got, fields[0]+" "+fields[1])
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("offenders (-want +got):\n%s\n%s", diff, f.Text())
			}
		})
	}

	// The failure says what to trim.
	f := fixture.Run(t, func(tb testing.TB) {
		CheckBudget(tb, reg, Budget{ToolTokens: largestSmall, Dialects: []string{"openai chat"}})
	})
	for _, frag := range []string{"1 definition over budget", "queue enum of 300 values", "description", fmt.Sprint(search), fmt.Sprint(largestSmall)} {
		if !strings.Contains(f.Text(), frag) {
			t.Errorf("the failure lacks %q:\n%s", frag, f.Text())
		}
	}
	if strings.Contains(f.Text(), fmt.Sprintf("~%d", search)) {
		t.Errorf("an OpenAI count is marked as an estimate:\n%s", f.Text())
	}
	f = fixture.Run(t, func(tb testing.TB) {
		CheckBudget(tb, reg, Budget{ToolTokens: largestSmall, Dialects: []string{"gemini"}})
	})
	if !strings.Contains(f.Text(), fmt.Sprintf("~%d", dialectSizes(t, r, "gemini").Tools[3].Size.Tokens)) {
		t.Errorf("a Gemini count is not marked as an estimate:\n%s", f.Text())
	}
}

func TestCheckBudgetUnknownDialect(t *testing.T) {
	f := fixture.Run(t, func(tb testing.TB) {
		CheckBudget(tb, budgetRegistry(), Budget{ToolTokens: 1, Dialects: []string{"openai"}})
	})
	if !f.Stopped || !strings.Contains(f.Text(), `no dialect "openai"`) || !strings.Contains(f.Text(), `"openai chat"`) {
		t.Errorf("an unknown dialect: stopped %v, %s", f.Stopped, f.Text())
	}
}

// BenchmarkSizes measures a registry of 100 tools, the size of a few
// bridged servers: what CheckBudget adds to a test.
func BenchmarkSizes(b *testing.B) {
	b.ReportAllocs()
	tools := make([]toolreg.AnyTool, 0, 100)
	for i := range 100 {
		name := fmt.Sprintf("get_weather_%d", i)
		tools = append(tools, toolreg.MustNew(name, fixture.Weather().Description(),
			func(context.Context, fixture.WeatherArgs) (string, error) { return "", nil }))
	}
	reg := fixture.Registry(tools...)
	for b.Loop() {
		Sizes(reg)
	}
}

// TestMCPSizesAreToolsList: the MCP definitions Sizes measures are the
// tools a client lists, member for member.
func TestMCPSizesAreToolsList(t *testing.T) {
	reg := budgetRegistry()
	ctx := context.Background()
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	if _, err := toolmcp.AddTools(srv, reg); err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	listed, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	decode := func(b []byte) any {
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	var want []any
	for _, tool := range listed.Tools {
		b, err := json.Marshal(tool)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, decode(b))
	}
	b, err := mcpToolsList(reg)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, decode(b)); diff != "" {
		t.Errorf("the measured MCP tools differ from those a client lists (-listed +measured):\n%s", diff)
	}
	if len(want) != len(reg.Tools()) {
		t.Errorf("%d tools listed, want %d", len(want), len(reg.Tools()))
	}
}

// TestPartsOfKeywordNames: properties named like keywords, and values
// that hold keyword names, are not taken for keywords.
func TestPartsOfKeywordNames(t *testing.T) {
	schema := `{"type":"object","properties":{
		"description":{"type":"string","description":"The ticket's text"},
		"enum":{"type":"array","items":{"type":"string","enum":["a","b"]}},
		"properties":{"type":"object","additionalProperties":{"type":"string","description":"A value"}},
		"kind":{"const":{"description":"not a description","enum":[1,2,3]}}
	}}`
	def := json.RawMessage(`{"name":"t","description":"A tool.","input_schema":` + schema + `}`)
	var got []string
	for _, p := range parts(def) {
		got = append(got, p.String())
	}
	slices.Sort(got)
	want := []string{"description", "description description", "enum[] enum of 2 values", "properties{} description"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parts (-want +got):\n%s", diff)
	}
	if ps := parts(json.RawMessage(`{"name":`)); ps != nil {
		t.Errorf("parts of malformed JSON: %v", ps)
	}
}
