package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/agent"
)

// scaleSizes are the registry sizes of BenchmarkScale.
var scaleSizes = []int{10, 1_000, 100_000}

// plainTool is a tool written by hand: it costs nothing to declare, so
// that a benchmark of 100,000 of them measures the registry.
type plainTool struct{ name string }

func (t plainTool) Name() string        { return t.name }
func (t plainTool) Description() string { return "A tool of a large registry." }
func (t plainTool) InputSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{}}`)
}
func (t plainTool) OutputSchema() json.RawMessage { return nil }
func (t plainTool) Invoke(context.Context, json.RawMessage) toolreg.Output {
	return toolreg.Output{Text: "ok"}
}

// scaleTools are n tools with names as imported servers give them (a
// verb, a noun, a number), the last one the Small tool of shapes_test.go
// named toolName.
func scaleTools(n int) []toolreg.AnyTool {
	verbs := []string{"get", "list", "create", "update", "delete", "search", "sync"}
	nouns := []string{"issue", "page", "invoice", "customer", "ticket", "file", "event", "report", "user", "order", "repo"}
	tools := make([]toolreg.AnyTool, n)
	for i := range n - 1 {
		tools[i] = plainTool{name: verbs[i%len(verbs)] + "_" + nouns[i/len(verbs)%len(nouns)] + "_" + strconv.Itoa(i)}
	}
	tools[n-1] = toolreg.MustNew(toolName, toolDesc, small.fn)
	return tools
}

// addEach adds tools one Add each to a registry made by fresh, per
// iteration, and reports ns/tool (ns/op ÷ tools).
func addEach(b *testing.B, tools []toolreg.AnyTool, fresh func() *toolreg.Registry) {
	b.ReportAllocs()
	for b.Loop() {
		reg := fresh()
		for _, t := range tools {
			if err := reg.Add(t); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(tools)), "ns/tool")
}

// scaleMisspelt is a name the registry does not hold: the name of its
// middle tool with one letter dropped, as a model misspells one.
func scaleMisspelt(tools []toolreg.AnyTool) string {
	name := tools[len(tools)/2].Name()
	return name[:1] + name[2:]
}

// BenchmarkScale measures a registry of 10, 1,000 and 100,000 tools: adding
// them one Add at a time and in one Add (ns/tool is ns/op ÷ tools), Lookup,
// Call of a known tool and of an unknown name (text-bytes is the length of
// the Output the model reads), Registry.Tools, and what a runner does
// before each model call: agent.NewStep alone, and with the definitions of
// toolopenai.Chat.Tools (Step).
func BenchmarkScale(b *testing.B) {
	ctx := context.Background()
	for _, n := range scaleSizes {
		tools := scaleTools(n)
		size := fmt.Sprintf("tools=%d", n)
		b.Run("Add_one_at_a_time/"+size, func(b *testing.B) {
			addEach(b, tools, func() *toolreg.Registry { return toolreg.NewRegistry() })
		})
		b.Run("Add_all_at_once/"+size, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := toolreg.NewRegistry().Add(tools...); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/tool")
		})
		reg := toolreg.NewRegistry()
		reg.MustAdd(tools...)
		b.Run("Lookup/"+size, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, ok := reg.Lookup(tools[i].Name()); !ok {
					b.Fatal("not found")
				}
				if i++; i == n {
					i = 0
				}
			}
		})
		b.Run("Call_known/"+size, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if out := reg.Call(ctx, toolName, small.args); out.IsError {
					b.Fatal(out.Text)
				}
			}
		})
		b.Run("Call_unknown/"+size, func(b *testing.B) {
			b.ReportAllocs()
			name := scaleMisspelt(tools)
			var out toolreg.Output
			for b.Loop() {
				if out = reg.Call(ctx, name, nil); !out.IsError {
					b.Fatal("an unknown name was called")
				}
			}
			b.ReportMetric(float64(len(out.Text)), "text-bytes")
		})
		b.Run("Tools/"+size, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if len(reg.Tools()) != n {
					b.Fatal("tools missing")
				}
			}
		})
		b.Run("NewStep/"+size, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !agent.NewStep(1, reg).Allows(toolName) {
					b.Fatal("the step does not allow the tool")
				}
			}
		})
		b.Run("Step/"+size, func(b *testing.B) {
			b.ReportAllocs()
			chat := toolopenai.NewChat(reg)
			if _, err := chat.Tools(); err != nil { // the definitions are made once, then kept
				b.Fatal(err)
			}
			for b.Loop() {
				step := agent.NewStep(1, reg)
				defs, err := chat.Tools()
				if err != nil || len(defs) != n || !step.Allows(toolName) {
					b.Fatal(err, len(defs))
				}
			}
		})
	}
}

// TestScaleRows checks what BenchmarkScale times: the misspelt name is
// unknown and its Output names the tool it came from.
func TestScaleRows(t *testing.T) {
	for _, n := range scaleSizes {
		tools := scaleTools(n)
		reg := toolreg.NewRegistry()
		for _, tool := range tools {
			reg.MustAdd(tool)
		}
		if got := reg.Call(context.Background(), toolName, small.args); got.Text != small.want {
			t.Errorf("%d tools: the known tool answered %q", n, got.Text)
		}
		name := scaleMisspelt(tools)
		out := reg.Call(context.Background(), name, nil)
		if !out.IsError || !containsWord(out.Text, tools[n/2].Name()) {
			t.Errorf("%d tools: calling %q answered %q", n, name, out.Text)
		}
	}
}

func containsWord(text, word string) bool {
	for i := 0; i+len(word) <= len(text); i++ {
		if text[i:i+len(word)] == word && (i+len(word) == len(text) || text[i+len(word)] == ',') {
			return true
		}
	}
	return false
}
