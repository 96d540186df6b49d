package toolregtest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/toolreg/toolreg"
)

// fakeTool is an AnyTool whose every part a test sets.
type fakeTool struct {
	name, description string
	input, output     json.RawMessage
	invoke            func(args json.RawMessage) toolreg.Output
}

func (f *fakeTool) Name() string                  { return f.name }
func (f *fakeTool) Description() string           { return f.description }
func (f *fakeTool) InputSchema() json.RawMessage  { return f.input }
func (f *fakeTool) OutputSchema() json.RawMessage { return f.output }
func (f *fakeTool) Invoke(_ context.Context, args json.RawMessage) toolreg.Output {
	return f.invoke(args)
}

type Stop struct {
	Name string `json:"name" jsonschema:"description=Name of the stop"`
}

type TripArgs struct {
	Stops []Stop `json:"stops" jsonschema:"description=Stops in visiting order,minItems=1"`
}

func planTrip() *toolreg.Tool[TripArgs, string] {
	return toolreg.MustNew("plan_trip", "Plans a trip through the given stops; use it when the user lists places to visit.",
		func(ctx context.Context, a TripArgs) (string, error) {
			if a.Stops[0].Name == "Atlantis" {
				return "", errors.New("there is no route to Atlantis; ask the user for a real place")
			}
			if a.Stops[0].Name == "panic" {
				panic("boom")
			}
			return "ok", nil
		})
}

func TestInvoke(t *testing.T) {
	var out toolreg.Output
	f := failures(t, func(tb testing.TB) { out = Invoke(tb, getWeather(), `{"city":"Paris"}`) })
	if f.Failed() || out.IsError || out.Text != `{"city":"Paris","temp_c":18}` {
		t.Errorf("a successful call: failures %q, output %+v", f.errors, out)
	}
	// A failure of the call is the test's to judge: Invoke does not fail.
	f = failures(t, func(tb testing.TB) { out = Invoke(tb, getWeather(), `{"days":9}`) })
	if f.Failed() || !out.IsError {
		t.Errorf("an invalid call: failures %q, output %+v", f.errors, out)
	}
}

func TestInvokeFailsOnPanic(t *testing.T) {
	var out toolreg.Output
	f := failures(t, func(tb testing.TB) { out = Invoke(tb, planTrip(), `{"stops":[{"name":"panic"}]}`) })
	if len(f.errors) != 1 || f.fatal || !strings.Contains(f.errors[0], "plan_trip panicked") ||
		!strings.Contains(f.errors[0], "boom") || !strings.Contains(f.errors[0], "goroutine") {
		t.Errorf("a tool's panic: want one failure with the value and the stack, got:\n%s", f.text())
	}
	if !errors.Is(out.Err, toolreg.ErrToolPanic) {
		t.Errorf("the Output of a panic is not returned: %+v", out)
	}

	// An AnyTool whose Invoke itself panics breaks the contract: stop.
	bad := &fakeTool{name: "bad", invoke: func(json.RawMessage) toolreg.Output { panic("broken AnyTool") }}
	f = failures(t, func(tb testing.TB) { Invoke(tb, bad, `{}`) })
	if !f.fatal || len(f.errors) != 1 || !strings.Contains(f.errors[0], "Invoke panicked") || !strings.Contains(f.errors[0], "broken AnyTool") {
		t.Errorf("a panicking Invoke: fatal %v, failures:\n%s", f.fatal, f.text())
	}

	internal := &fakeTool{name: "internal", invoke: func(json.RawMessage) toolreg.Output {
		return toolreg.Output{Text: "internal error", IsError: true, Err: toolreg.ErrInternal}
	}}
	if f := failures(t, func(tb testing.TB) { Invoke(tb, internal, `{}`) }); len(f.errors) != 1 {
		t.Errorf("an internal error: failures %q", f.errors)
	}
}

func TestAssertOK(t *testing.T) {
	structured := func(text string, structured json.RawMessage, isError bool, err error) *fakeTool {
		return &fakeTool{name: "fake", output: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`),
			invoke: func(json.RawMessage) toolreg.Output {
				return toolreg.Output{Text: text, Structured: structured, IsError: isError, Err: err}
			}}
	}
	for _, tc := range []struct {
		name string
		tool toolreg.AnyTool
		args string
		want string // in the failure; "" for none
	}{
		{"structured result", getWeather(), `{"city":"Paris","unit":"celsius"}`, ""},
		{"text result", getTime(), ``, ""},
		{"matching structured result", structured(`{"n":1}`, json.RawMessage(`{"n":1}`), false, nil), `{}`, ""},
		{"invalid arguments", getWeather(), `{"city":"Paris","days":0}`, "failed; want success"},
		{"tool error", planTrip(), `{"stops":[{"name":"Atlantis"}]}`, "no route to Atlantis"},
		{"result against the output schema", structured(`{"n":"one"}`, json.RawMessage(`{"n":"one"}`), false, nil), `{}`, "does not match the output schema"},
		{"no structured result", structured(`{"n":1}`, nil, false, nil), `{}`, "no structured JSON"},
		{"Err without IsError", structured(`{"n":1}`, json.RawMessage(`{"n":1}`), false, errors.New("half a failure")), `{}`, "Err set without IsError"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := failures(t, func(tb testing.TB) { AssertOK(tb, tc.tool, tc.args) })
			if tc.want == "" {
				if f.Failed() {
					t.Errorf("unexpected failure:\n%s", f.text())
				}
				return
			}
			if len(f.errors) != 1 || !strings.Contains(f.errors[0], tc.want) {
				t.Errorf("want one failure containing %q, got:\n%s", tc.want, f.text())
			}
		})
	}
}

func TestAssertRejected(t *testing.T) {
	// mute names no field in the text the model reads.
	mute := &fakeTool{name: "mute", invoke: func(json.RawMessage) toolreg.Output {
		return toolreg.Output{Text: "bad arguments", IsError: true,
			Err: &toolreg.ArgumentError{Tool: "mute", Problems: []toolreg.Problem{{Path: "city", Message: "required"}}}}
	}}
	for _, tc := range []struct {
		name  string
		tool  toolreg.AnyTool
		args  string
		field string
		want  string // in the failure; "" for none
	}{
		{"out of range", getWeather(), `{"city":"Paris","days":9}`, "days", ""},
		{"missing", getWeather(), `{"days":2}`, "city", ""},
		{"not in the enum", getWeather(), `{"city":"Paris","unit":"kelvin"}`, "unit", ""},
		{"unknown field", getWeather(), `{"city":"Paris","country":"FR"}`, "country", ""},
		{"nested", planTrip(), `{"stops":[{"name":"Lyon"},{}]}`, "stops[1].name", ""},
		{"not JSON", getWeather(), `{"city":`, "", ""},
		{"one of several problems", getWeather(), `{"days":9}`, "days", ""},
		{"accepted", getWeather(), `{"city":"Paris"}`, "city", "accepted"},
		{"another field", getWeather(), `{"city":"Paris","days":9}`, "unit", `rejected {"city":"Paris","days":9} at "days"; want a problem at "unit"`},
		{"a parent of the field", planTrip(), `{"stops":[{"name":"Lyon"},{}]}`, "stops", `want a problem at "stops"`},
		{"the tool's own error", planTrip(), `{"stops":[{"name":"Atlantis"}]}`, "stops", "not for its arguments"},
		{"message without the field", mute, `{}`, "city", "does not name it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := failures(t, func(tb testing.TB) { AssertRejected(tb, tc.tool, tc.args, tc.field) })
			if tc.want == "" {
				if f.Failed() {
					t.Errorf("unexpected failure:\n%s", f.text())
				}
				return
			}
			if len(f.errors) != 1 || !strings.Contains(f.errors[0], tc.want) {
				t.Errorf("want one failure containing %q, got:\n%s", tc.want, f.text())
			}
		})
	}
}
