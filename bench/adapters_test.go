package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolanthropic"
	"github.com/toolreg/toolreg/adapters/toolgemini"
	"github.com/toolreg/toolreg/adapters/toolopenai"
)

// BenchmarkDefinitions100 builds the definitions of a 100-tool registry
// for one request, as each adapter does on every request: from schemas
// lowered once and cached, with no reflection. allocs/tool is the
// amortised count per tool.
func BenchmarkDefinitions100(b *testing.B) {
	tools, err := declare100()
	if err != nil {
		b.Fatal(err)
	}
	reg := toolreg.NewRegistry()
	reg.MustAdd(tools...)
	names := []string{"openai_Chat.Tools", "openai_Chat.Tools_strict", "openai_Responses.Tools", "anthropic_Tools", "gemini_Tools"}
	for _, name := range names {
		b.Run(name, func(b *testing.B) {
			// One adapter per benchmark, warmed by the first build: the
			// per-request cost is measured, not the first lowering.
			build := adapterBuild(b, name, reg)
			if n, err := build(); err != nil || n != 100 {
				b.Fatalf("%d tools, %v", n, err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := build(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(testing.AllocsPerRun(10, func() { build() }))/100, "allocs/tool")
		})
	}
}

// adapterBuild returns a build func over one long-lived adapter, so that
// the loop measures requests and not adapter construction.
func adapterBuild(b *testing.B, name string, reg *toolreg.Registry) func() (int, error) {
	switch name {
	case "openai_Chat.Tools":
		a := toolopenai.NewChat(reg)
		return func() (int, error) { t, err := a.Tools(); return len(t), err }
	case "openai_Chat.Tools_strict":
		a := toolopenai.NewChat(reg, toolopenai.WithStrict(), toolopenai.WithNonStrictFallback())
		return func() (int, error) { t, err := a.Tools(); return len(t), err }
	case "openai_Responses.Tools":
		a := toolopenai.NewResponses(reg)
		return func() (int, error) { t, err := a.Tools(); return len(t), err }
	case "anthropic_Tools":
		a := toolanthropic.New(reg)
		return func() (int, error) { t, err := a.Tools(); return len(t), err }
	case "gemini_Tools":
		a := toolgemini.New(reg)
		return func() (int, error) {
			t, err := a.Tools()
			if err != nil {
				return 0, err
			}
			return len(t[0].FunctionDeclarations), nil
		}
	}
	b.Fatalf("no adapter for %s", name)
	return nil
}

// BenchmarkOpenAIDispatch runs one tool call of an assistant message
// through the OpenAI adapter: arguments string → registry → tool message.
func BenchmarkOpenAIDispatch(b *testing.B) {
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew(toolName, toolDesc, small.fn))
	a := toolopenai.NewChat(reg)
	var msg openai.ChatCompletionMessage
	raw := fmt.Sprintf(`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":%q,"arguments":%q}}]}`, toolName, small.args)
	if err := json.Unmarshal([]byte(raw), &msg); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if out := a.CallAll(ctx, msg); len(out) != 1 {
		b.Fatal("no tool message")
	}
	b.ReportAllocs()
	for b.Loop() {
		a.CallAll(ctx, msg)
	}
}
