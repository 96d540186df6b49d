package toolregtest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/toolregtest"
	"github.com/toolreg/toolreg/toolregtest/internal/fixture"
)

// GetWeather takes a city and 1 to 7 days, and returns a forecast as
// structured JSON.
var GetWeather = fixture.Weather()

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
	// {"city":"Paris","temp_c":18}
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
	// In a test, LintT fails with every finding; Ignore skips rules, and
	// providers.Limits (package toolregtest/providers) adds the providers'
	// limits:
	//	toolregtest.LintT(t, reg, toolregtest.Ignore(toolregtest.RuleForeignTag))
	//	toolregtest.LintT(t, reg, providers.Limits())

	// Output:
	// getWeather: the name is not snake_case; write it as get_weather (tool-name)
	// getWeather: the description "Gets the weather." has 17 characters, fewer than 20; say what the tool does, when to use it and when not to (tool-description)
	// getWeather: city: the field has no description; add jsonschema:"description=..." saying what to put there (format, units, an example) (field-description)
	// getWeather: unit: the field takes one of "celsius", "fahrenheit" but has no description saying what the values mean and when to pick which; add jsonschema:"description=..." (enum-description)
	// getWeather: city: the struct tag description:"City name" is read by other libraries but not by toolreg: the model never sees it and no call is checked against it; write jsonschema:"description=..." (foreign-tag)
}

func ExampleCheck() {
	// A team's own rule: every tool name says which service it calls.
	prefixed := func(reg *toolreg.Registry) []toolregtest.Finding {
		var out []toolregtest.Finding
		for _, t := range reg.Tools() {
			if !strings.HasPrefix(t.Name(), "weather_") {
				out = append(out, toolregtest.Finding{Tool: t.Name(), Rule: "service-prefix",
					Message: "the name does not start with weather_, the service it calls"})
			}
		}
		return out
	}
	reg := toolreg.NewRegistry()
	reg.MustAdd(GetWeather)

	for _, f := range toolregtest.Lint(reg, toolregtest.Check(prefixed)) {
		fmt.Println(f)
	}
	// Output:
	// get_weather: the name does not start with weather_, the service it calls (service-prefix)
}

// Invoke runs a tool on the JSON a model would send and returns what the
// model would read, a tool's error included; only a panic or an internal
// error fails the test.
func ExampleInvoke() {
	trip := fixture.Trip() // fails for Atlantis, panics for "panic"
	out := toolregtest.Invoke(t, trip, `{"stops":[{"name":"Atlantis"}]}`)
	fmt.Println(out.IsError, out.Text)
	// toolregtest.Invoke(t, trip, `{"stops":[{"name":"panic"}]}`) fails the
	// test with the panic's value and stack.

	// Output:
	// true there is no route to Atlantis; ask the user for a real place
}

// AssertOK fails the test unless the call succeeds and its structured
// result matches the tool's output schema.
func ExampleAssertOK() {
	out := toolregtest.AssertOK(t, GetWeather, `{"city":"Lyon","unit":"fahrenheit"}`)
	fmt.Println(string(out.Structured))
	toolregtest.AssertOK(t, GetWeather, `{"city":"Lyon","unit":"kelvin"}`)
	// Output:
	// {"city":"Lyon","temp_c":18}
	// FAIL: toolregtest: get_weather on {"city":"Lyon","unit":"kelvin"} failed; want success
	// the model reads: invalid arguments for tool "get_weather":
	// - unit: "kelvin" is not allowed; allowed values: "celsius", "fahrenheit"
	// Fix the arguments and call the tool again.
	// the host gets: invalid arguments for tool "get_weather":
	// - unit: "kelvin" is not allowed; allowed values: "celsius", "fahrenheit"
}

// AssertExamples runs every example a tool shows the model: one the
// schema accepts but the function refuses would teach the model a call
// that fails.
func ExampleAssertExamples() {
	type Args struct {
		City string `json:"city" jsonschema:"description=City name"`
	}
	weather := toolreg.MustNew("get_weather", "Weather forecast for a city, for weather questions.",
		func(_ context.Context, a Args) (string, error) {
			if a.City == "Atlantis" {
				return "", errors.New("no weather station in Atlantis")
			}
			return "sunny", nil
		}, toolreg.WithExamples(Args{City: "Paris"}, Args{City: "Atlantis"}))
	reg := toolreg.NewRegistry()
	reg.MustAdd(weather)
	toolregtest.AssertExamples(t, reg)
	// Output:
	// FAIL: toolregtest: example 2 of tool "get_weather" ({"city":"Atlantis"}) fails: no weather station in Atlantis
}

// LintT fails the test with every finding of Lint.
func ExampleLintT() {
	type Args struct {
		City string `json:"city"`
	}
	reg := toolreg.NewRegistry()
	reg.MustAdd(GetWeather, toolreg.MustNew("weather", "Weather.", func(context.Context, Args) (string, error) { return "", nil }))
	toolregtest.LintT(t, reg)
	// Output:
	// FAIL: toolregtest: 2 lint findings:
	// 	weather: the description "Weather." only restates the name; say what the tool does, when to use it and when not to (tool-description)
	// 	weather: city: the field has no description; add jsonschema:"description=..." saying what to put there (format, units, an example) (field-description)
	// (skip a rule with toolregtest.Ignore)
}

// Ignore skips rules a team does not hold to, its own (Check) included.
func ExampleIgnore() {
	type Args struct {
		City string `json:"city"`
	}
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("get_weather", "Weather forecast for a city, for weather questions.",
		func(context.Context, Args) (string, error) { return "", nil }))
	fmt.Println(len(toolregtest.Lint(reg)), len(toolregtest.Lint(reg, toolregtest.Ignore(toolregtest.RuleFieldDescription))))
	// Output:
	// 1 0
}

// A finding reads as the tool, the field, the message and the rule.
func ExampleFinding_String() {
	f := toolregtest.Finding{Tool: "get_weather", Field: "unit", Rule: toolregtest.RuleEnumDescription,
		Message: "the field takes one of \"c\", \"f\" but has no description"}
	fmt.Println(f)
	fmt.Println(toolregtest.Finding{Tool: "get_weather", Rule: "service-prefix", Message: "the name does not say which service it calls"})
	// Output:
	// get_weather: unit: the field takes one of "c", "f" but has no description (enum-description)
	// get_weather: the name does not say which service it calls (service-prefix)
}

// Definitions an importer brings can be large: Lint names a description
// or an enum that every request would carry at length.
func ExampleLint_size() {
	states := make([]string, 120)
	for i := range states {
		states[i] = fmt.Sprintf(`"state_%d"`, i)
	}
	schema := `{"type":"object","properties":{"state":{"type":"string","description":"Workflow state","enum":[` + strings.Join(states, ",") + `]}}}`
	move := toolreg.MustNewDynamic("move_ticket", strings.Repeat("Moves a ticket to another state of its workflow. ", 25), json.RawMessage(schema),
		func(context.Context, json.RawMessage) (string, error) { return "moved", nil })
	reg := toolreg.NewRegistry()
	reg.MustAdd(move)
	for _, f := range toolregtest.Lint(reg) {
		fmt.Println(f)
	}
	// Output:
	// move_ticket: the description has 1224 characters, more than 1000, and every request carries it: keep what the model needs to choose the tool and fill its arguments; let the rest come with the results (long-description)
	// move_ticket: state: the field takes one of 120 values ("state_0", "state_1", "state_2" …), more than 50, and every request carries them all: take a plain string the tool checks, or offer a tool that looks the values up (large-enum)
}

// t stands in for a test's *testing.T in these examples: it prints what
// the test would report.
var t testing.TB = fixture.Printer{}

// Arguments a model could send, made from the tool's schema and accepted
// by its validator: a call that reaches the function without arguments
// written by hand. The same tool gives the same arguments; ArgumentsSeed
// gives others.
func ExampleArguments() {
	type Args struct {
		City string `json:"city" jsonschema:"minLength=2"`
		Unit string `json:"unit" jsonschema:"enum=celsius,enum=fahrenheit"`
		Days int    `json:"days" jsonschema:"minimum=1,maximum=7,default=3"`
		When string `json:"when" jsonschema:"format=date"`
	}
	forecast := toolreg.MustNew("forecast", "Weather forecast for a city.",
		func(_ context.Context, a Args) (string, error) {
			return fmt.Sprintf("%d days in %s", a.Days, a.City), nil
		})

	args, err := toolregtest.Arguments(forecast)
	fmt.Println(string(args), err)
	out := toolregtest.AssertOK(t, forecast, string(args))
	fmt.Println(out.Text)
	// Output:
	// {"city":"hotel","unit":"fahrenheit","days":3,"when":"2025-09-26"} <nil>
	// 3 days in hotel
}

// Another seed, other arguments; the same seed, the same ones, so that a
// failure reproduces.
func ExampleArgumentsSeed() {
	for _, seed := range []uint64{1, 2, 1} {
		args, err := toolregtest.ArgumentsSeed(GetWeather, seed)
		fmt.Println(string(args), err)
	}
	// Output:
	// {"city":"foxtrot","unit":"celsius"} <nil>
	// {"city":"golf","unit":"fahrenheit"} <nil>
	// {"city":"foxtrot","unit":"celsius"} <nil>
}

// A schema no arguments satisfy is an error that names the field and why.
func ExampleArgumentsFor() {
	_, err := toolregtest.ArgumentsFor(json.RawMessage(`{"type":"object",
		"properties":{"size":{"type":"integer","minimum":10,"maximum":5}},"required":["size"]}`), 0)
	fmt.Println(errors.Is(err, toolregtest.ErrUnsatisfiable))
	fmt.Println(err)

	args, _ := toolregtest.ArgumentsFor(json.RawMessage(`{"type":"object",
		"properties":{"code":{"type":"string","pattern":"^[A-Z]{3}-[0-9]{2}$"}},"required":["code"]}`), 0)
	fmt.Println(string(args))
	// Output:
	// true
	// no arguments satisfy the schema: field size: no integer lies within minimum 10, maximum 5
	// {"code":"STJ-27"}
}

// What the model reads when it gets a call wrong: a required field left
// out, a field of the wrong type, a field out of its bounds.
func ExampleInvalidArguments() {
	bad, err := toolregtest.InvalidArguments(GetWeather, 0)
	if err != nil {
		fmt.Println(err)
	}
	for _, b := range bad {
		out := toolregtest.AssertRejected(t, GetWeather, string(b.Args), b.Field)
		fmt.Printf("%s %s:\n%s\n", b.Kind, b.Args, out.Text)
	}
	// Output:
	// missing required field {"days":7}:
	// invalid arguments for tool "get_weather":
	// - city: required field is missing; expected a string
	// Fix the arguments and call the tool again.
	// wrong type {"city":12345,"days":7}:
	// invalid arguments for tool "get_weather":
	// - city: expected string, got 12345
	// Fix the arguments and call the tool again.
	// out of bounds {"city":"echo","days":8}:
	// invalid arguments for tool "get_weather":
	// - days: 8 is greater than the maximum 7
	// Fix the arguments and call the tool again.
}
