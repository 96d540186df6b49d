package providers_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/toolregtest"
	"github.com/toolreg/toolreg/toolregtest/internal/fixture"
	"github.com/toolreg/toolreg/toolregtest/providers"
)

type WeatherArgs struct {
	City string `json:"city" jsonschema:"description=City name\\, e.g. Paris"`
	Days *int   `json:"days,omitempty" jsonschema:"description=Forecast length in days,minimum=1,maximum=7"`
}

var GetWeather = toolreg.MustNew("get_weather",
	"Weather forecast for a city. Use it for questions about the weather, not the climate.",
	func(ctx context.Context, a WeatherArgs) (string, error) { return "sunny", nil })

type LabelArgs struct {
	Labels map[string]string `json:"labels" jsonschema:"description=Labels to set by name"`
}

var SetLabels = toolreg.MustNew("set_labels",
	"Sets labels on the open document. Use it when the user asks to tag or label it.",
	func(ctx context.Context, a LabelArgs) (string, error) { return "done", nil })

func ExampleSnapshot() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(GetWeather, SetLabels)

	// In a test of the package that declares the tools. When a definition
	// changes, the test fails with the diff; TOOLREG_UPDATE=1 go test
	// rewrites the file, and the pull request shows the change in every
	// dialect.
	providers.Snapshot(t, reg, "testdata/example.golden")

	// The file holds each tool in each dialect, or why a dialect refuses
	// it: strict modes and Gemini's legacy Schema cannot express a map.
	golden, _ := os.ReadFile("testdata/example.golden")
	lines := strings.Split(string(golden), "\n")
	for i, line := range lines {
		if strings.HasPrefix(line, "=== ") || strings.HasPrefix(line, "--- ") {
			if strings.HasPrefix(lines[i+1], "refused: ") {
				line += " (refused)"
			}
			fmt.Println(line)
		}
	}
	// Output:
	// === get_weather
	// --- canonical
	// --- openai chat
	// --- openai chat strict
	// --- openai responses
	// --- anthropic
	// --- anthropic strict
	// --- gemini
	// --- gemini legacy
	// === set_labels
	// --- canonical
	// --- openai chat
	// --- openai chat strict (refused)
	// --- openai responses
	// --- anthropic
	// --- anthropic strict (refused)
	// --- gemini
	// --- gemini legacy (refused)
}

func ExampleLimits() {
	// Twenty-one tools of three optional fields each: one request in
	// Anthropic strict mode may carry 20 tools and 24 optional parameters.
	type Args struct {
		City    string `json:"city,omitempty" jsonschema:"description=City name"`
		Country string `json:"country,omitempty" jsonschema:"description=ISO country code"`
		Days    *int   `json:"days,omitempty" jsonschema:"description=Forecast length in days"`
	}
	reg := toolreg.NewRegistry()
	for i := range 21 {
		reg.MustAdd(toolreg.MustNew(fmt.Sprintf("weather_%d", i), "Weather forecast from one of many services.",
			func(ctx context.Context, a Args) (string, error) { return "sunny", nil }))
	}

	for _, f := range toolregtest.Lint(reg, providers.Limits(), toolregtest.Ignore(toolregtest.RuleDuplicateDescription)) {
		fmt.Println(f.Rule)
	}
	// In a test:
	//	toolregtest.LintT(t, reg, providers.Limits())

	// Output:
	// anthropic-strict-tools
	// anthropic-strict-optional
}

// t stands in for a test's *testing.T in these examples: it prints what
// the test would report.
var t testing.TB = fixture.Printer{}

func ExampleSizes() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(GetWeather, SetLabels)

	// Every definition in every dialect, in bytes and tokens, and the
	// largest parts of each: what to trim first.
	r := providers.Sizes(reg)
	for _, ds := range r.Dialects[:2] {
		fmt.Printf("%s: request %d bytes, %d tokens\n", ds.Dialect, ds.Request.Bytes, ds.Request.Tokens)
		for _, ts := range ds.Tools {
			if ts.Refused != "" {
				fmt.Printf("  %s: refused\n", ts.Tool)
				continue
			}
			fmt.Printf("  %s: %d tokens, the largest part %s with %d\n", ts.Tool, ts.Size.Tokens, ts.Parts[0], ts.Parts[0].Size.Tokens)
		}
	}
	// Output:
	// openai chat: request 787 bytes, 174 tokens
	//   get_weather: 94 tokens, the largest part description with 19
	//   set_labels: 79 tokens, the largest part description with 20
	// openai chat strict: request 435 bytes, 101 tokens
	//   get_weather: 99 tokens, the largest part description with 19
	//   set_labels: refused
}

func ExampleReport_String() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(GetWeather, SetLabels)

	fmt.Print(providers.Sizes(reg))
	// Output:
	// tokens (o200k_base; ~ an estimate, counted with another tokenizer than the model's)
	//   tool         openai chat  openai chat strict  openai responses  anthropic  anthropic strict  gemini  gemini legacy  bedrock   mcp
	//   get_weather           94                  99                92        ~85               ~93     ~85            ~78      ~90   ~84
	//   set_labels            79                   -                77        ~70                 -     ~70              -      ~75   ~69
	//   request              174                 101               170       ~155               ~94    ~162            ~85     ~167  ~154
	//
	// bytes
	//   tool         openai chat  openai chat strict  openai responses  anthropic  anthropic strict  gemini  gemini legacy  bedrock  mcp
	//   get_weather          418                 433               405        374               392     382            343      395  373
	//   set_labels           366                   -               353        322                 -     330              -      343  321
	//   request              787                 435               761        699               394     742            372      741  697
	//
	// largest parts, in tokens
	// get_weather  openai chat strict  description 19, city description 9, days description 6
	// set_labels   openai chat         description 20, labels description 7
}

func ExampleCheckBudget() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(GetWeather, SetLabels)

	// In a test: at most 80 tokens a tool and 8000 a request, in the
	// dialects of the providers you send to.
	providers.CheckBudget(t, reg, providers.Budget{ToolTokens: 80, RequestTokens: 8000, Dialects: []string{"openai responses", "anthropic"}})
	// Output:
	// FAIL: toolregtest: 2 definitions over budget (o200k_base tokens; ~ an estimate, counted with another tokenizer than the model's):
	// 	over         dialect           tokens  budget  largest parts
	// 	get_weather  openai responses  92      80      description 19, city description 9, days description 6
	// 	get_weather  anthropic         ~85     80      description 19, city description 9, days description 6
	// Trim the largest parts (a long description, an enum of many values, a nested type), send fewer tools per request, or raise the budget.
}
