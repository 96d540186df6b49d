package toolregtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/internal/args"
)

// Invoke runs tool on args, the JSON a model would send, through the
// model's path: validation, decoding, defaults, the call and the encoding
// of the result. It fails t when the tool panics (a *toolreg.Tool turns a
// panic into an Output; Invoke reports it with its stack) or when the
// library reports an internal error, and stops the test when Invoke itself
// panics, which an AnyTool must never do. The Output is returned as is,
// for the test's own assertions.
//
// Use Tool.Call to test the function as plain Go; use Invoke for what the
// model meets: the schema, the messages, the defaults.
func Invoke(t testing.TB, tool toolreg.AnyTool, args string) toolreg.Output {
	t.Helper()
	var out toolreg.Output
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("toolregtest: %s: Invoke panicked (an AnyTool must turn every failure into an Output): %v\n%s", tool.Name(), r, debug.Stack())
			}
		}()
		out = tool.Invoke(t.Context(), json.RawMessage(args))
	}()
	var pe *toolreg.PanicError
	switch {
	case errors.As(out.Err, &pe):
		t.Errorf("toolregtest: %s panicked on %s: %v\n%s", tool.Name(), args, pe.Value, pe.Stack)
	case errors.Is(out.Err, toolreg.ErrToolPanic), errors.Is(out.Err, toolreg.ErrInternal):
		t.Errorf("toolregtest: %s on %s: %v", tool.Name(), args, out.Err)
	}
	return out
}

// AssertOK invokes tool on args and fails t unless the call succeeds. A
// structured result must also match the tool's output schema, the promise
// made to MCP clients and to Gemini. It returns the Output for further
// checks of its Text or Structured result.
func AssertOK(t testing.TB, tool toolreg.AnyTool, args string) toolreg.Output {
	t.Helper()
	out := Invoke(t, tool, args)
	if out.IsError {
		t.Errorf("toolregtest: %s on %s failed; want success\nthe model reads: %s\nthe host gets: %v", tool.Name(), args, out.Text, out.Err)
		return out
	}
	if out.Err != nil {
		t.Errorf("toolregtest: %s on %s: the Output has Err set without IsError: %v", tool.Name(), args, out.Err)
	}
	if schema := tool.OutputSchema(); schema != nil {
		if err := validate(schema, out.Structured); err != nil {
			t.Errorf("toolregtest: %s on %s: the structured result does not match the output schema: %v\nresult: %s", tool.Name(), args, err, out.Structured)
		}
	}
	return out
}

// AssertRejected invokes tool on args and fails t unless the call is
// refused as invalid arguments (IsError, and Err matching
// toolreg.ErrInvalidArguments) with a problem at field, and unless the
// message the model reads names field, so that the model knows what to
// fix. field is a path as toolreg reports it: "city", "home.zip",
// "stops[1].name"; "" for a problem with the arguments as a whole (not
// JSON, not an object). It returns the Output for checks of the message.
func AssertRejected(t testing.TB, tool toolreg.AnyTool, args, field string) toolreg.Output {
	t.Helper()
	out := Invoke(t, tool, args)
	if !out.IsError {
		t.Errorf("toolregtest: %s accepted %s; want it rejected at %q\nresult: %s", tool.Name(), args, field, out.Text)
		return out
	}
	var ae *toolreg.ArgumentError
	if !errors.Is(out.Err, toolreg.ErrInvalidArguments) || !errors.As(out.Err, &ae) {
		t.Errorf("toolregtest: %s on %s failed, but not for its arguments: %v; want invalid arguments at %q", tool.Name(), args, out.Err, field)
		return out
	}
	var paths []string
	found := false
	for _, p := range ae.Problems {
		paths = append(paths, fmt.Sprintf("%q", p.Path))
		found = found || p.Path == field
	}
	if !found {
		t.Errorf("toolregtest: %s rejected %s at %s; want a problem at %q\nthe model reads: %s", tool.Name(), args, strings.Join(paths, ", "), field, out.Text)
		return out
	}
	if field != "" && !strings.Contains(out.Text, field) {
		t.Errorf("toolregtest: %s rejected %s at %q, but the message does not name it, so the model cannot tell what to fix\nthe model reads: %s", tool.Name(), args, field, out.Text)
	}
	return out
}

// validate checks instance against schema, compiled for this one check.
func validate(schema, instance json.RawMessage) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return fmt.Errorf("the output schema is not JSON: %w", err)
	}
	c := args.NewCompiler() // a closed document: nothing outside it is loaded
	const url = "mem:///output.schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return err
	}
	s, err := c.Compile(url)
	if err != nil {
		return fmt.Errorf("the output schema does not compile: %w", err)
	}
	if instance == nil {
		return errors.New("the result has no structured JSON")
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(instance))
	if err != nil {
		return fmt.Errorf("the structured result is not JSON: %w", err)
	}
	return s.Validate(v)
}

// AssertExamples runs every tool's example arguments (toolreg.WithExamples)
// through the model's path, as AssertOK does, and fails t for each that
// does not succeed: an example the schema accepts but the function
// refuses would teach the model a call that fails. It fails t, too, when no
// tool of reg has examples, which means the test checks nothing.
func AssertExamples(t testing.TB, reg *toolreg.Registry) {
	t.Helper()
	n := 0
	for _, tool := range reg.Tools() {
		ex, ok := tool.(interface{ Examples() []json.RawMessage })
		if !ok {
			continue
		}
		for i, args := range ex.Examples() {
			n++
			out := Invoke(t, tool, string(args))
			if out.IsError {
				t.Errorf("toolregtest: example %d of tool %q (%s) fails: %s", i+1, tool.Name(), args, out.Text)
			}
		}
	}
	if n == 0 {
		t.Errorf("toolregtest: no tool of the registry has examples (toolreg.WithExamples)")
	}
}
