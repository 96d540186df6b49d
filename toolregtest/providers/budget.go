package providers

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/toolregtest/internal/tokens"
)

// Encoding names the tokenizer Sizes counts with: OpenAI's o200k_base
// (GPT-4o and later), built into the test binary, so counting needs no
// network.
const Encoding = tokens.Encoding

// Size is how much of a request something takes.
type Size struct {
	Bytes int
	// Tokens are o200k_base tokens of the same bytes. For a dialect whose
	// Estimate is set they are an estimate of the provider's count.
	Tokens int
}

// ToolSize is one tool's definition in one dialect.
type ToolSize struct {
	Tool string
	// Size is that of the definition as the request's tools array holds
	// it: name, description and schema, with the dialect's wrapping.
	Size Size
	// Parts are the contributors to Size, the largest first: what to trim.
	Parts []Part
	// Refused is why the dialect cannot express the tool ("" when it can);
	// Size and Parts are then zero. Snapshot shows the same reason.
	Refused string
}

// DialectSizes is every tool of a registry in one provider dialect.
type DialectSizes struct {
	// Dialect is the dialect's name, as Dialects lists it.
	Dialect string
	// Estimate is set when the provider publishes no tokenizer (Anthropic,
	// Gemini): the o200k_base count then stands in for the provider's.
	Estimate bool
	// Tools is each tool's definition, in registration order.
	Tools []ToolSize
	// Request is the tools array of one request holding every tool the
	// dialect can express, as the adapter sends it.
	Request Size
	// Refused is why the adapter refuses that request as a whole ("" when
	// it does not): a per-request limit of a strict mode.
	Refused string
}

// Report is the size of a registry's definitions in every provider
// dialect: what each tool costs on every request, and what of it.
type Report struct {
	Dialects []DialectSizes
}

// estimated are the dialects whose tokens are counted with another
// tokenizer than the model's: the providers that publish none, and MCP,
// whose client may send the tools to any model.
var estimated = map[string]bool{"anthropic": true, "anthropic strict": true, "gemini": true, "gemini legacy": true, "bedrock": true, "mcp": true}

// measured are the dialects Sizes measures: those of Snapshot but the
// canonical one (what toolreg holds; no model receives it), Bedrock's
// Converse (not in Snapshot, whose golden files it would change), and MCP.
func measured() []form {
	return append(slices.Clone(dialects[1:]), bedrockDialect, mcpDialect)
}

// Dialects lists the names of the dialects Sizes measures, in the order a
// Report holds them: "openai chat", "openai chat strict", "openai
// responses", "anthropic", "anthropic strict", "gemini", "gemini legacy",
// "bedrock", "mcp". Budget.Dialects takes them.
func Dialects() []string {
	var names []string
	for _, d := range measured() {
		names = append(names, d.name)
	}
	return names
}

// Sizes measures every definition reg emits, in every provider dialect, in
// bytes and in tokens, and breaks each into its largest parts. Print the
// Report (its String) to see them in a table; CheckBudget fails a test on
// them.
//
// Bytes are exact: the JSON each adapter puts in a request, and for MCP
// the tools of a tools/list result, as toolmcp.AddTools serves them (for
// Bedrock, the toolConfig's tools as toolbedrock sends them, rendered
// here: that adapter is a module of its own). Tokens
// are o200k_base tokens of those bytes, exact for OpenAI's current models
// and an estimate (Estimate set) for Anthropic, Gemini and Bedrock's
// models, whose tokenizers are not public, and for MCP, whose client may use any model: their
// counts for the same text differ from OpenAI's, by an amount this package
// has not measured. Leave headroom in a budget, or ask the provider's
// token-counting endpoint (Anthropic's /v1/messages/count_tokens, Gemini's
// countTokens) for the exact figure. Either way a provider renders the
// definitions into its own prompt format, and adds a tool-use preamble of
// its own, so the billed count differs from the count of the JSON: the
// Report is for comparing definitions and holding them to a budget, not
// for billing.
//
// To measure the tools of one step rather than the whole registry, pass
// the view the step offers: reg.Select(toolreg.Tagged("read-only")).
func Sizes(reg *toolreg.Registry) Report {
	tools := reg.Tools()
	var r Report
	for _, d := range measured() {
		ds := DialectSizes{Dialect: d.name, Estimate: estimated[d.name]}
		// Most often the dialect takes every tool: one request then holds
		// every definition. Else each tool is emitted alone, so that a
		// refusal belongs to the tool that caused it.
		whole, defs := request(d, reg, tools)
		var accepted []toolreg.AnyTool
		for i, t := range tools {
			def := definition{}
			if defs != nil {
				def.json = defs[i]
			} else {
				def = define(d, t)
			}
			if def.err != nil {
				ds.Tools = append(ds.Tools, ToolSize{Tool: t.Name(), Refused: def.err.Error()})
				continue
			}
			accepted = append(accepted, t)
			ds.Tools = append(ds.Tools, ToolSize{Tool: t.Name(), Size: measure(def.json), Parts: parts(def.json)})
		}
		if defs == nil {
			whole = nil
			req := toolreg.NewRegistry()
			if err := req.Add(accepted...); err != nil {
				ds.Refused = err.Error()
			} else if whole, err = d.emit(req); err != nil {
				ds.Refused = err.Error()
			}
		}
		if ds.Refused == "" {
			ds.Request = measure(whole)
		}
		r.Dialects = append(r.Dialects, ds)
	}
	return r
}

// request emits every tool of reg in dialect d, and splits the request
// into the definition of each of tools, in their order (an MCP server
// lists its tools by name); nil definitions if d refuses the request or
// it does not hold each tool once.
func request(d form, reg *toolreg.Registry, tools []toolreg.AnyTool) (json.RawMessage, []json.RawMessage) {
	b, err := d.emit(reg)
	if err != nil {
		return nil, nil
	}
	defs, err := d.split(b)
	if err != nil || len(defs) != len(tools) {
		return nil, nil
	}
	byName := make(map[string]json.RawMessage, len(defs))
	for _, def := range defs {
		var named struct {
			Name     string `json:"name"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"` // OpenAI Chat
			ToolSpec struct {
				Name string `json:"name"`
			} `json:"toolSpec"` // Bedrock
		}
		if json.Unmarshal(def, &named) != nil {
			return nil, nil
		}
		byName[cmp.Or(named.Name, named.Function.Name, named.ToolSpec.Name)] = def
	}
	ordered := make([]json.RawMessage, len(tools))
	for i, t := range tools {
		if ordered[i] = byName[t.Name()]; ordered[i] == nil {
			return nil, nil
		}
	}
	return b, ordered
}

// String lays the Report out in tables: tokens of every tool and of the
// request per dialect ("~" marks an estimate, "-" a tool the dialect
// refuses), the same in bytes, and each tool's largest parts in the
// dialect where it is largest.
func (r Report) String() string {
	if len(r.Dialects) == 0 {
		return "no dialects\n"
	}
	var b strings.Builder
	b.WriteString("tokens (" + Encoding + "; ~ an estimate, counted with another tokenizer than the model's)\n")
	r.table(&b, func(ds DialectSizes, s Size) string {
		if ds.Estimate {
			return fmt.Sprintf("~%d", s.Tokens)
		}
		return fmt.Sprint(s.Tokens)
	})
	b.WriteString("\nbytes\n")
	r.table(&b, func(_ DialectSizes, s Size) string { return fmt.Sprint(s.Bytes) })
	b.WriteString("\nlargest parts, in tokens\n")
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for i, t := range r.Dialects[0].Tools {
		ds, ts := r.largest(i)
		if ts.Refused != "" {
			continue
		}
		fmt.Fprintf(w, "%s\t%s\t%s\n", t.Tool, ds.Dialect, listParts(ts.Parts, 3))
	}
	w.Flush()
	return b.String()
}

// table writes one row per tool and a request row, one column per dialect.
func (r Report) table(b *strings.Builder, cell func(DialectSizes, Size) string) {
	w := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	width := len("request")
	for _, t := range r.Dialects[0].Tools {
		width = max(width, len(t.Tool))
	}
	name := func(s string) string { return fmt.Sprintf("%-*s\t", width, s) } // the names left-aligned
	fmt.Fprint(w, name("tool"))
	for _, ds := range r.Dialects {
		fmt.Fprintf(w, "%s\t", ds.Dialect)
	}
	fmt.Fprintln(w)
	for i, t := range r.Dialects[0].Tools {
		fmt.Fprint(w, name(t.Tool))
		for _, ds := range r.Dialects {
			if ts := ds.Tools[i]; ts.Refused != "" {
				fmt.Fprint(w, "-\t")
			} else {
				fmt.Fprintf(w, "%s\t", cell(ds, ts.Size))
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprint(w, name("request"))
	for _, ds := range r.Dialects {
		if ds.Refused != "" {
			fmt.Fprint(w, "refused\t")
		} else {
			fmt.Fprintf(w, "%s\t", cell(ds, ds.Request))
		}
	}
	fmt.Fprintln(w)
	w.Flush()
}

// largest is the dialect in which tool i is largest, the first among
// equals.
func (r Report) largest(i int) (DialectSizes, ToolSize) {
	best := 0
	for j, ds := range r.Dialects {
		if ds.Tools[i].Size.Tokens > r.Dialects[best].Tools[i].Size.Tokens {
			best = j
		}
	}
	return r.Dialects[best], r.Dialects[best].Tools[i]
}

// listParts reads "description 540, status enum of 300 values 402".
func listParts(ps []Part, n int) string {
	var s []string
	for i, p := range ps {
		if i == n {
			s = append(s, fmt.Sprintf("… (%d parts)", len(ps)))
			break
		}
		s = append(s, fmt.Sprintf("%s %d", p, p.Size.Tokens))
	}
	return strings.Join(s, ", ")
}

// Budget bounds the tokens definitions take, for CheckBudget. A zero
// field sets no bound.
type Budget struct {
	// ToolTokens bounds each tool's definition, in each dialect.
	ToolTokens int
	// RequestTokens bounds the tools array of one request: every tool of
	// the registry passed to CheckBudget (or of the view a step offers).
	RequestTokens int
	// Dialects limits the check to these dialects (names as Dialects lists
	// them): those of the providers you send to. Nil checks them all.
	Dialects []string
}

// CheckBudget fails t when a definition of reg is larger than b allows, in
// any dialect b checks: a tool's definition over b.ToolTokens, or the
// tools array of a request over b.RequestTokens. The failure is a table of
// the offenders with their largest parts, so the test says what to trim:
//
//	providers.CheckBudget(t, reg, providers.Budget{ToolTokens: 600, RequestTokens: 8000})
//
// The counts are those of Sizes: o200k_base tokens of the JSON each
// adapter sends, exact for OpenAI and an estimate for Anthropic, Gemini
// and Bedrock (see Sizes for how far off it may be). A tool a dialect refuses is not
// counted there; Snapshot and toolregtest.LintT with Limits report it.
func CheckBudget(t testing.TB, reg *toolreg.Registry, b Budget) {
	t.Helper()
	known := Dialects()
	for _, name := range b.Dialects {
		if !slices.Contains(known, name) {
			t.Fatalf("toolregtest: Budget.Dialects: no dialect %q; the dialects are %q", name, known)
		}
	}
	var over []string
	var sb strings.Builder
	w := tabwriter.NewWriter(&sb, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "over\tdialect\ttokens\tbudget\tlargest parts")
	row := func(what string, ds DialectSizes, tokens, budget int, parts string) {
		n := fmt.Sprint(tokens)
		if ds.Estimate {
			n = "~" + n
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%s\n", what, ds.Dialect, n, budget, parts)
		over = append(over, what)
	}
	for _, ds := range Sizes(reg).Dialects {
		if b.Dialects != nil && !slices.Contains(b.Dialects, ds.Dialect) {
			continue
		}
		for _, ts := range ds.Tools {
			if b.ToolTokens > 0 && ts.Refused == "" && ts.Size.Tokens > b.ToolTokens {
				row(ts.Tool, ds, ts.Size.Tokens, b.ToolTokens, listParts(ts.Parts, 3))
			}
		}
		if b.RequestTokens > 0 && ds.Refused == "" && ds.Request.Tokens > b.RequestTokens {
			row(fmt.Sprintf("request of %d tools", len(slices.DeleteFunc(slices.Clone(ds.Tools), func(t ToolSize) bool { return t.Refused != "" }))), ds, ds.Request.Tokens, b.RequestTokens, largestTools(ds.Tools, 3))
		}
	}
	if len(over) == 0 {
		return
	}
	w.Flush()
	noun := "definitions"
	if len(over) == 1 {
		noun = "definition"
	}
	table := "\t" + strings.ReplaceAll(strings.TrimSuffix(sb.String(), "\n"), "\n", "\n\t")
	t.Errorf("toolregtest: %d %s over budget (%s tokens; ~ an estimate, counted with another tokenizer than the model's):\n%s\n"+
		"Trim the largest parts (a long description, an enum of many values, a nested type), send fewer tools per request, or raise the budget.",
		len(over), noun, Encoding, table)
}

// largestTools reads "search_orders 1203, get_weather 80".
func largestTools(ts []ToolSize, n int) string {
	sorted := slices.DeleteFunc(slices.Clone(ts), func(t ToolSize) bool { return t.Refused != "" })
	slices.SortStableFunc(sorted, func(a, b ToolSize) int { return b.Size.Tokens - a.Size.Tokens })
	var s []string
	for i, t := range sorted {
		if i == n {
			s = append(s, fmt.Sprintf("… (%d tools)", len(sorted)))
			break
		}
		s = append(s, fmt.Sprintf("%s %d", t.Tool, t.Size.Tokens))
	}
	return strings.Join(s, ", ")
}
