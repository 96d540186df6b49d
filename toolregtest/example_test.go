package toolregtest_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/toolregtest"
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
	// changes, the test fails with the diff; go test -update rewrites the
	// file, and the pull request shows the change in every dialect.
	toolregtest.Snapshot(t, reg, "testdata/example.golden")

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

func ExampleAssertRejected() {
	// Days must be 1 to 7: the call is refused at "days", and the text the
	// model reads names the field, so the model knows what to fix.
	out := toolregtest.AssertRejected(t, GetWeather, `{"city":"Paris","days":9}`, "days")
	fmt.Println(out.Text)

	// A call that should succeed, on the model's path (JSON in, defaults
	// applied, result encoded).
	out = toolregtest.AssertOK(t, GetWeather, `{"city":"Paris"}`)
	fmt.Println(out.Text)
	// Output:
	// invalid arguments for tool "get_weather":
	// - days: 9 is greater than the maximum 7
	// Fix the arguments and call the tool again.
	// sunny
}

func ExampleLint() {
	type Args struct {
		City string `json:"city" description:"City name"`
		Unit string `json:"unit,omitempty" jsonschema:"enum=celsius,enum=fahrenheit"`
	}
	weather := toolreg.MustNew("getWeather", "Gets the weather.",
		func(ctx context.Context, a Args) (string, error) { return "sunny", nil })
	reg := toolreg.NewRegistry()
	reg.MustAdd(weather)

	for _, f := range toolregtest.Lint(reg) {
		fmt.Println(f)
	}
	// In a test, LintT fails with every finding; Ignore skips rules:
	//	toolregtest.LintT(t, reg, toolregtest.Ignore(toolregtest.RuleAnthropicStrictTools))

	// Output:
	// getWeather: the name is not snake_case; write it as get_weather (tool-name)
	// getWeather: the description "Gets the weather." has 17 characters, fewer than 20; say what the tool does, when to use it and when not to (tool-description)
	// getWeather: city: the field has no description; add jsonschema:"description=..." saying what to put there (format, units, an example) (field-description)
	// getWeather: unit: the field takes one of "celsius", "fahrenheit" but has no description saying what the values mean and when to pick which; add jsonschema:"description=..." (enum-description)
	// getWeather: city: the struct tag description:"City name" is read by other libraries but not by toolreg: the model never sees it and no call is checked against it; write jsonschema:"description=..." (foreign-tag)
}

// t stands in for a test's *testing.T in these examples: it prints what
// the test would report.
var t testing.TB = printT{}

type printT struct{ testing.TB }

func (printT) Helper()                      {}
func (printT) Name() string                 { return "Example" }
func (printT) Context() context.Context     { return context.Background() }
func (printT) Logf(string, ...any)          {}
func (printT) Errorf(f string, args ...any) { fmt.Printf("FAIL: "+f+"\n", args...) }
func (p printT) Fatalf(f string, args ...any) {
	p.Errorf(f, args...)
	panic("test stopped")
}
