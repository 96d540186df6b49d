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
