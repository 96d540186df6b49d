package toolregtest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/toolregtest/internal/fixture"
)

func TestInvoke(t *testing.T) {
	var out toolreg.Output
	f := fixture.Run(t, func(tb testing.TB) { out = Invoke(tb, fixture.Weather(), `{"city":"Paris"}`) })
	if f.Failed() || out.IsError || out.Text != `{"city":"Paris","temp_c":18}` {
		t.Errorf("a successful call: failures %q, output %+v", f.Errors, out)
	}
	// A failure of the call is the test's to judge: Invoke does not fail.
	f = fixture.Run(t, func(tb testing.TB) { out = Invoke(tb, fixture.Weather(), `{"days":9}`) })
	if f.Failed() || !out.IsError {
		t.Errorf("an invalid call: failures %q, output %+v", f.Errors, out)
	}
}

func TestInvokeFailsOnPanic(t *testing.T) {
	var out toolreg.Output
	f := fixture.Run(t, func(tb testing.TB) { out = Invoke(tb, fixture.Trip(), `{"stops":[{"name":"panic"}]}`) })
	if len(f.Errors) != 1 || f.Stopped || !strings.Contains(f.Errors[0], "plan_trip panicked") ||
		!strings.Contains(f.Errors[0], "boom") || !strings.Contains(f.Errors[0], "goroutine") {
		t.Errorf("a tool's panic: want one failure with the value and the stack, got:\n%s", f.Text())
	}
	if !errors.Is(out.Err, toolreg.ErrToolPanic) {
		t.Errorf("the Output of a panic is not returned: %+v", out)
	}

	// An AnyTool whose Invoke itself panics breaks the contract: stop.
	bad := &fixture.Tool{ToolName: "bad", Run: func(json.RawMessage) toolreg.Output { panic("broken AnyTool") }}
	f = fixture.Run(t, func(tb testing.TB) { Invoke(tb, bad, `{}`) })
	if !f.Stopped || len(f.Errors) != 1 || !strings.Contains(f.Errors[0], "Invoke panicked") || !strings.Contains(f.Errors[0], "broken AnyTool") {
		t.Errorf("a panicking Invoke: fatal %v, failures:\n%s", f.Stopped, f.Text())
	}

	internal := &fixture.Tool{ToolName: "internal", Run: func(json.RawMessage) toolreg.Output {
		return toolreg.Output{Text: "internal error", IsError: true, Err: toolreg.ErrInternal}
	}}
	if f := fixture.Run(t, func(tb testing.TB) { Invoke(tb, internal, `{}`) }); len(f.Errors) != 1 {
		t.Errorf("an internal error: failures %q", f.Errors)
	}
}

func TestAssertOK(t *testing.T) {
	structured := func(text string, structured json.RawMessage, isError bool, err error) *fixture.Tool {
		return &fixture.Tool{ToolName: "fake", Output: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`),
			Run: func(json.RawMessage) toolreg.Output {
				return toolreg.Output{Text: text, Structured: structured, IsError: isError, Err: err}
			}}
	}
	for _, tc := range []struct {
		name string
		tool toolreg.AnyTool
		args string
		want string // in the failure; "" for none
	}{
		{"structured result", fixture.Weather(), `{"city":"Paris","unit":"celsius"}`, ""},
		{"text result", fixture.Time(), ``, ""},
		{"matching structured result", structured(`{"n":1}`, json.RawMessage(`{"n":1}`), false, nil), `{}`, ""},
		{"invalid arguments", fixture.Weather(), `{"city":"Paris","days":0}`, "failed; want success"},
		{"tool error", fixture.Trip(), `{"stops":[{"name":"Atlantis"}]}`, "no route to Atlantis"},
		{"result against the output schema", structured(`{"n":"one"}`, json.RawMessage(`{"n":"one"}`), false, nil), `{}`, "does not match the output schema"},
		{"no structured result", structured(`{"n":1}`, nil, false, nil), `{}`, "no structured JSON"},
		{"Err without IsError", structured(`{"n":1}`, json.RawMessage(`{"n":1}`), false, errors.New("half a failure")), `{}`, "Err set without IsError"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := fixture.Run(t, func(tb testing.TB) { AssertOK(tb, tc.tool, tc.args) })
			if tc.want == "" {
				if f.Failed() {
					t.Errorf("unexpected failure:\n%s", f.Text())
				}
				return
			}
			if len(f.Errors) != 1 || !strings.Contains(f.Errors[0], tc.want) {
				t.Errorf("want one failure containing %q, got:\n%s", tc.want, f.Text())
			}
		})
	}
}

func TestAssertRejected(t *testing.T) {
	// mute names no field in the text the model reads.
	mute := &fixture.Tool{ToolName: "mute", Run: func(json.RawMessage) toolreg.Output {
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
		{"out of range", fixture.Weather(), `{"city":"Paris","days":9}`, "days", ""},
		{"missing", fixture.Weather(), `{"days":2}`, "city", ""},
		{"not in the enum", fixture.Weather(), `{"city":"Paris","unit":"kelvin"}`, "unit", ""},
		{"unknown field", fixture.Weather(), `{"city":"Paris","country":"FR"}`, "country", ""},
		{"nested", fixture.Trip(), `{"stops":[{"name":"Lyon"},{}]}`, "stops[1].name", ""},
		{"not JSON", fixture.Weather(), `{"city":`, "", ""},
		{"one of several problems", fixture.Weather(), `{"days":9}`, "days", ""},
		{"accepted", fixture.Weather(), `{"city":"Paris"}`, "city", "accepted"},
		{"another field", fixture.Weather(), `{"city":"Paris","days":9}`, "unit", `rejected {"city":"Paris","days":9} at "days"; want a problem at "unit"`},
		{"a parent of the field", fixture.Trip(), `{"stops":[{"name":"Lyon"},{}]}`, "stops", `want a problem at "stops"`},
		{"the tool's own error", fixture.Trip(), `{"stops":[{"name":"Atlantis"}]}`, "stops", "not for its arguments"},
		{"message without the field", mute, `{}`, "city", "does not name it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := fixture.Run(t, func(tb testing.TB) { AssertRejected(tb, tc.tool, tc.args, tc.field) })
			if tc.want == "" {
				if f.Failed() {
					t.Errorf("unexpected failure:\n%s", f.Text())
				}
				return
			}
			if len(f.Errors) != 1 || !strings.Contains(f.Errors[0], tc.want) {
				t.Errorf("want one failure containing %q, got:\n%s", tc.want, f.Text())
			}
		})
	}
}

func TestAssertExamples(t *testing.T) {
	type trip struct {
		City string `json:"city"`
	}
	plan := toolreg.MustNew("plan", "Plans a trip to a city.", func(_ context.Context, a trip) (string, error) {
		if a.City == "Atlantis" {
			return "", errors.New("no trips to Atlantis")
		}
		return "planned", nil
	}, toolreg.WithExamples(trip{"Oslo"}, trip{"Atlantis"}))
	reg := toolreg.NewRegistry()
	reg.MustAdd(plan)
	f := fixture.Run(t, func(tb testing.TB) { AssertExamples(tb, reg) })
	if len(f.Errors) != 1 || !strings.Contains(f.Errors[0], `example 2 of tool "plan" ({"city":"Atlantis"}) fails: no trips to Atlantis`) {
		t.Errorf("errors: %q", f.Errors)
	}
	f = fixture.Run(t, func(tb testing.TB) { AssertExamples(tb, toolreg.NewRegistry()) })
	if len(f.Errors) != 1 || !strings.Contains(f.Errors[0], "no tool of the registry has examples") {
		t.Errorf("errors: %q", f.Errors)
	}
}
