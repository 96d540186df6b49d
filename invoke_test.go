package toolreg

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

type weatherArgs struct {
	City  string   `json:"city" jsonschema:"description=City name"`
	Days  *int     `json:"days,omitempty" jsonschema:"minimum=1,maximum=7"`
	Unit  string   `json:"unit,omitempty" jsonschema:"enum=celsius,enum=fahrenheit,default=celsius"`
	Count int      `json:"count" jsonschema:"default=3"`
	Tags  []string `json:"tags,omitempty"`
	Stop  *stop    `json:"stop,omitempty"`
}

type stop struct {
	Name  string `json:"name"`
	Hours int    `json:"hours" jsonschema:"default=1"`
}

type forecast struct {
	City string `json:"city"`
	Days int    `json:"days"`
	Note string `json:"note"`
}

func intPtr(i int) *int { return &i }

// recorder is a tool whose function records the arguments it received.
func recorder(t *testing.T) (*Tool[weatherArgs, forecast], *weatherArgs) {
	got := new(weatherArgs)
	tool, err := New("get_weather", "Weather for a city.", func(_ context.Context, a weatherArgs) (forecast, error) {
		*got = a
		days := 1
		if a.Days != nil {
			days = *a.Days
		}
		return forecast{City: a.City, Days: days, Note: "<sunny> & warm"}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tool, got
}

func TestInvokeDecodesAndAppliesDefaults(t *testing.T) {
	tests := []struct {
		name string
		args string
		want weatherArgs
	}{
		{"minimal", `{"city":"Paris"}`, weatherArgs{City: "Paris", Unit: "celsius", Count: 3}},
		{"all fields", `{"city":"Oslo","days":2,"unit":"fahrenheit","count":5,"tags":["a"],"stop":{"name":"x","hours":4}}`,
			weatherArgs{City: "Oslo", Days: intPtr(2), Unit: "fahrenheit", Count: 5, Tags: []string{"a"}, Stop: &stop{Name: "x", Hours: 4}}},
		{"default inside a nested object", `{"city":"Rome","stop":{"name":"x"}}`,
			weatherArgs{City: "Rome", Unit: "celsius", Count: 3, Stop: &stop{Name: "x", Hours: 1}}},
		{"explicit zero is kept, not defaulted", `{"city":"Rome","count":0}`, weatherArgs{City: "Rome", Unit: "celsius", Count: 0}},
		{"whole-number float for an integer", `{"city":"Rome","days":2.0,"count":1e1}`, weatherArgs{City: "Rome", Days: intPtr(2), Unit: "celsius", Count: 10}},
		{"surrounding whitespace", " \n{\"city\":\"Rome\"}\t", weatherArgs{City: "Rome", Unit: "celsius", Count: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool, got := recorder(t)
			out := tool.Invoke(context.Background(), json.RawMessage(tt.args))
			if out.IsError {
				t.Fatalf("Invoke failed: %s", out.Text)
			}
			if diff := cmp.Diff(tt.want, *got); diff != "" {
				t.Errorf("function received (-want +got):\n%s", diff)
			}
		})
	}
}

func TestInvokeResult(t *testing.T) {
	tool, _ := recorder(t)
	out := tool.Invoke(context.Background(), json.RawMessage(`{"city":"Paris","days":3}`))
	want := Output{
		Text:       `{"city":"Paris","days":3,"note":"<sunny> & warm"}`,
		Structured: json.RawMessage(`{"city":"Paris","days":3,"note":"<sunny> & warm"}`),
	}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	text := MustNew("echo", "Echo.", func(_ context.Context, a struct {
		S string `json:"s"`
	}) (string, error) {
		return a.S, nil
	})
	out = text.Invoke(context.Background(), json.RawMessage(`{"s":"plain \"text\""}`))
	if diff := cmp.Diff(Output{Text: `plain "text"`}, out); diff != "" {
		t.Errorf("string result (-want +got):\n%s", diff)
	}
}

func TestInvokeEmptyArgumentsMeanEmptyObject(t *testing.T) {
	calls := 0
	tool := MustNew("ping", "Ping.", func(context.Context, struct{}) (string, error) { calls++; return "pong", nil })
	for _, args := range []string{"", "  \n", "null", "{}", " { } "} {
		out := tool.Invoke(context.Background(), json.RawMessage(args))
		if out.IsError || out.Text != "pong" {
			t.Errorf("args %q: %+v", args, out)
		}
	}
	if calls != 5 {
		t.Errorf("calls = %d, want 5", calls)
	}
	// But a tool with a required field still says what is missing.
	tool2, _ := recorder(t)
	out := tool2.Invoke(context.Background(), nil)
	if !out.IsError || !strings.Contains(out.Text, "city: required field is missing; expected a string") {
		t.Errorf("missing city not reported: %s", out.Text)
	}
}

func TestInvokeInvalidArguments(t *testing.T) {
	tests := []struct {
		name string
		args string
		want []Problem
	}{
		{"not JSON", `{"city":`, []Problem{{Message: "not valid JSON: the input ends early (8 bytes); send one complete JSON object"}}},
		{"bad token", `{"city":'Paris'}`, []Problem{{Message: "not valid JSON: invalid character '\\'' at start of value (at offset 8)"}}},
		{"trailing data", `{"city":"Paris"} {}`, []Problem{{Message: "not valid JSON: unexpected data after the JSON value at offset 17"}}},
		{"array instead of object", `["Paris"]`, []Problem{{Message: `expected object, got ["Paris"]`}}},
		{"string instead of object", `"Paris"`, []Problem{{Message: `expected object, got "Paris"`}}},
		{"missing field", `{"days":2}`, []Problem{{Path: "city", Message: "required field is missing; expected a string"}}},
		{"wrong type", `{"city":42}`, []Problem{{Path: "city", Message: "expected string, got 42"}}},
		{"enum violation", `{"city":"Paris","unit":"kelvin"}`, []Problem{{Path: "unit", Message: `"kelvin" is not allowed; allowed values: "celsius", "fahrenheit"`}}},
		{"above maximum", `{"city":"Paris","days":9}`, []Problem{{Path: "days", Message: "9 is greater than the maximum 7"}}},
		{"fractional integer", `{"city":"Paris","days":2.5}`, []Problem{{Path: "days", Message: "expected integer, got 2.5"}}},
		{"null for a pointer", `{"city":"Paris","days":null}`, []Problem{{Path: "days", Message: "expected integer, got null; the field is optional: leave it out instead of sending null, or send an integer"}}},
		{"null for an optional field", `{"city":"Paris","unit":null,"tags":null}`, []Problem{
			{Path: "tags", Message: "expected array, got null; the field is optional: leave it out instead of sending null, or send an array"},
			{Path: "unit", Message: "expected string, got null; the field is optional: leave it out instead of sending null, or send a string"},
		}},
		{"null for an optional field in a long call", `{"city":"Paris","tags":["a","b","c","d","e","f","g","h","i","j","k","l","m","n","o","p","q","r","s","t"],"unit":null}`, []Problem{
			{Path: "unit", Message: "expected string, got null; the field is optional: leave it out instead of sending null, or send a string"},
		}},
		{"null for a required field", `{"city":null}`, []Problem{{Path: "city", Message: "expected string, got null"}}},
		{"null for a required field of an optional object", `{"city":"Paris","stop":{"name":null}}`, []Problem{{Path: "stop.name", Message: "expected string, got null"}}},
		{"unknown field", `{"city":"Paris","country":"FR"}`, []Problem{{Path: "country", Message: "unknown field; allowed fields: city, days, unit, count, tags, stop"}}},
		{"wrong-case key", `{"City":"Paris"}`, []Problem{
			{Path: "City", Message: `unknown field (did you mean "city"?); allowed fields: city, days, unit, count, tags, stop`},
			{Path: "city", Message: "required field is missing; expected a string"},
		}},
		{"nested problems", `{"city":"Paris","tags":["a",1],"stop":{"hours":"x"}}`, []Problem{
			{Path: "stop.hours", Message: `expected integer, got "x"`},
			{Path: "stop.name", Message: "required field is missing; expected a string"},
			{Path: "tags[1]", Message: "expected string, got 1"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool, _ := recorder(t)
			out := tool.Invoke(context.Background(), json.RawMessage(tt.args))
			if !out.IsError || out.Structured != nil {
				t.Fatalf("IsError = %v, Structured = %s; want an error result", out.IsError, out.Structured)
			}
			if !errors.Is(out.Err, ErrInvalidArguments) {
				t.Errorf("Err = %v, want ErrInvalidArguments", out.Err)
			}
			var ae *ArgumentError
			if !errors.As(out.Err, &ae) {
				t.Fatalf("Err is not an *ArgumentError: %T", out.Err)
			}
			if diff := cmp.Diff(tt.want, ae.Problems); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if !strings.HasPrefix(out.Text, `invalid arguments for tool "get_weather":`) || !strings.HasSuffix(out.Text, "call the tool again.") {
				t.Errorf("text does not frame the problems:\n%s", out.Text)
			}
		})
	}
}

func TestInvokeHugeValueIsShortenedInMessage(t *testing.T) {
	tool, _ := recorder(t)
	out := tool.Invoke(context.Background(), json.RawMessage(`{"city":"`+strings.Repeat("x", 10000)+`","days":"`+strings.Repeat("y", 10000)+`"}`))
	if !out.IsError || len(out.Text) > 500 {
		t.Errorf("message is %d bytes long:\n%.600s", len(out.Text), out.Text)
	}
}

var errNoStation = errors.New("no weather station near this city; try a larger city nearby")

func TestInvokeToolError(t *testing.T) {
	tool := MustNew("t", "d", func(context.Context, struct{}) (forecast, error) { return forecast{}, errNoStation })
	out := tool.Invoke(context.Background(), nil)
	if !out.IsError || out.Text != errNoStation.Error() || out.Structured != nil {
		t.Errorf("got %+v", out)
	}
	if !errors.Is(out.Err, errNoStation) {
		t.Errorf("Err = %v does not wrap the tool's error", out.Err)
	}
	if errors.Is(out.Err, ErrInvalidArguments) || errors.Is(out.Err, ErrToolPanic) {
		t.Errorf("Err = %v matches the wrong sentinel", out.Err)
	}
}

func TestInvokePanic(t *testing.T) {
	secret := "/home/alice/secret-token-123"
	tool := MustNew("boom", "d", func(context.Context, struct{}) (string, error) {
		var m map[string]int
		m[secret]++ // panics: assignment to entry in nil map
		return "", nil
	})
	out := tool.Invoke(context.Background(), nil)
	if !out.IsError || !errors.Is(out.Err, ErrToolPanic) {
		t.Fatalf("got %+v", out)
	}
	if strings.Contains(out.Text, "goroutine") || strings.Contains(out.Text, "nil map") || strings.Contains(out.Text, secret) || strings.Contains(out.Text, ".go:") {
		t.Errorf("model-facing text leaks panic details: %s", out.Text)
	}
	var pe *PanicError
	if !errors.As(out.Err, &pe) || !strings.Contains(string(pe.Stack), "TestInvokePanic") {
		t.Errorf("host error has no stack: %v", out.Err)
	}
	// The error's text is one line, the tool and the value; the stack
	// stays in Stack.
	if msg := pe.Error(); strings.Contains(msg, "goroutine") || strings.Contains(msg, "\n") ||
		!strings.Contains(msg, `"boom"`) || !strings.Contains(msg, "nil map") {
		t.Errorf("PanicError.Error() = %q, want the tool and the panic value on one line", msg)
	}
	// A panic with an error value is also errors.Is-able as that error.
	tool2 := MustNew("boom2", "d", func(context.Context, struct{}) (string, error) { panic(errNoStation) })
	if out := tool2.Invoke(context.Background(), nil); !errors.Is(out.Err, errNoStation) || !errors.Is(out.Err, ErrToolPanic) {
		t.Errorf("Err = %v", out.Err)
	}
}

func TestInvokeResultThatCannotBeEncoded(t *testing.T) {
	tool := MustNew("t", "d", func(context.Context, struct{}) (float64, error) { return 0, nil })
	if out := tool.Invoke(context.Background(), nil); out.IsError || out.Text != "0" {
		t.Fatalf("got %+v", out)
	}
	nan := MustNew("t", "d", func(context.Context, struct{}) (map[string]float64, error) {
		return map[string]float64{"x": zero / zero}, nil
	})
	out := nan.Invoke(context.Background(), nil)
	if !out.IsError || !errors.Is(out.Err, ErrInvalidResult) {
		t.Errorf("got %+v", out)
	}
}

var zero float64

func TestInvokeCancelledContext(t *testing.T) {
	ran := false
	tool := MustNew("t", "d", func(context.Context, struct{}) (string, error) { ran = true; return "", nil })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := tool.Invoke(ctx, nil)
	if !out.IsError || !errors.Is(out.Err, context.Canceled) || ran {
		t.Errorf("got %+v, ran = %v", out, ran)
	}
	// The context reaches the function.
	type key struct{}
	seen := MustNew("t", "d", func(ctx context.Context, _ struct{}) (string, error) { return ctx.Value(key{}).(string), nil })
	if out := seen.Invoke(context.WithValue(context.Background(), key{}, "v"), nil); out.Text != "v" {
		t.Errorf("context value not passed: %+v", out)
	}
	var nilCtx context.Context // Invoke must guard a nil context
	if out := tool.Invoke(nilCtx, nil); out.IsError {
		t.Errorf("nil context: %+v", out)
	}
}

func TestCallIsTheTypedPath(t *testing.T) {
	tool, _ := recorder(t)
	got, err := tool.Call(context.Background(), weatherArgs{City: "Lima", Days: intPtr(4)})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(forecast{City: "Lima", Days: 4, Note: "<sunny> & warm"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestInvokeStopRun(t *testing.T) {
	budget := errors.New("the budget for this task is spent")
	tool := MustNew("t", "d", func(context.Context, struct{}) (string, error) { return "", StopRun(budget) })
	out := tool.Invoke(context.Background(), nil)
	if !out.IsError || out.Text != budget.Error() || !errors.Is(out.Err, ErrStopRun) || !errors.Is(out.Err, budget) {
		t.Errorf("got %+v", out)
	}
	bare := MustNew("t", "d", func(context.Context, struct{}) (string, error) { return "", StopRun(nil) })
	if out := bare.Invoke(context.Background(), nil); !errors.Is(out.Err, ErrStopRun) || out.Text == "" {
		t.Errorf("got %+v", out)
	}
}

// TestCallSkipsTheModelsPath checks what Call's doc says it skips:
// validation, defaults, the tool's timeout, panic recovery and result
// encoding.
func TestCallSkipsTheModelsPath(t *testing.T) {
	tool, got := recorder(t)
	// Days 99 breaks maximum=7; Count and Unit stay zero, not their defaults.
	if _, err := tool.Call(context.Background(), weatherArgs{City: "Lima", Days: intPtr(99)}); err != nil {
		t.Fatal(err)
	}
	if got.Count != 0 || got.Unit != "" || *got.Days != 99 {
		t.Errorf("Call validated or filled defaults: %+v", *got)
	}
	failing := errors.New("plain")
	slow := MustNew("slow", "d", func(ctx context.Context, _ struct{}) (string, error) {
		if _, ok := ctx.Deadline(); ok {
			return "", errors.New("Call gave the function a deadline")
		}
		return "", failing
	}, WithTimeout(time.Millisecond))
	if _, err := slow.Call(context.Background(), struct{}{}); err != failing {
		t.Errorf("Call's error = %v, want the function's own, unwrapped", err)
	}
	boom := MustNew("boom", "d", func(context.Context, struct{}) (string, error) { panic("boom") })
	defer func() {
		if recover() == nil {
			t.Error("Call recovered the function's panic")
		}
	}()
	boom.Call(context.Background(), struct{}{})
}
