package toolreg

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const searchSchema = `{"type":"object","properties":{"query":{"type":"string","minLength":1},"limit":{"type":"integer","minimum":1,"maximum":50}},"required":["query"],"additionalProperties":false}`

func TestNewDynamicRefusesBadSchemas(t *testing.T) {
	fn := func(context.Context, json.RawMessage) (string, error) { return "", nil }
	tests := []struct {
		name, schema, want string
	}{
		{"not JSON", `{"type":`, "does not compile"},
		{"not a schema", `{"type":"objekt"}`, "does not compile"},
		{"a bad pattern", `{"type":"object","properties":{"a":{"type":"string","pattern":"("}}}`, "does not compile"},
		{"not an object", `{"type":"array"}`, `must describe an object`},
		{"no type", `{"properties":{}}`, `must describe an object`},
	}
	for _, tt := range tests {
		_, err := NewDynamic("d", "A dynamic tool.", json.RawMessage(tt.schema), fn)
		if !errors.Is(err, ErrInvalidDeclaration) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v", tt.name, err)
		}
	}
	if _, err := NewDynamic("d", "A dynamic tool.", json.RawMessage(searchSchema), fn, WithOutputSchema(json.RawMessage(`{"type":"object"}`))); !errors.Is(err, ErrInvalidDeclaration) {
		t.Errorf("WithOutputSchema on a string result: %v", err)
	}
	if _, err := New("t", "A typed tool.", func(context.Context, struct{}) (Output, error) { return Output{}, nil }, WithOutputSchema(json.RawMessage(`{}`))); !errors.Is(err, ErrInvalidDeclaration) {
		t.Errorf("WithOutputSchema on a typed tool: %v", err)
	}
}

func TestDynamicCallsAreCheckedLikeTypedOnes(t *testing.T) {
	var got json.RawMessage
	tool := MustNewDynamic("search", "Searches the catalogue.", json.RawMessage(searchSchema), func(_ context.Context, a json.RawMessage) (string, error) {
		got = a
		return "found", nil
	}, WithMaxValues(5))
	tests := []struct {
		args string
		want string // "" means success
	}{
		{` {"query": "lamp",  "limit": 3} `, ""},
		{`{"limit":0}`, "invalid arguments for tool \"search\":\n- limit: 0 is less than the minimum 1\n- query: required field is missing"},
		{`{"query":"lamp","colour":"red"}`, "- colour: unknown field"},
		{`{"query":"lamp","query":"desk"}`, `- query: the member "query" appears more than once in this object`},
		{`{"query":"lamp","limit":1e401}`, "- limit: 1e401 has an exponent beyond ±400"},
		{`{"query":"a","x":[1,2,3,4,5,6]}`, "hold more than 5 values"},
		{``, "- query: required field is missing"},
	}
	for _, tt := range tests {
		got = nil
		out := tool.Invoke(context.Background(), json.RawMessage(tt.args))
		if tt.want == "" {
			if out.IsError || string(got) != strings.TrimSpace(tt.args) {
				t.Errorf("%s: got %+v, arguments %s", tt.args, out, got)
			}
			continue
		}
		if !errors.Is(out.Err, ErrInvalidArguments) || !strings.Contains(out.Text, tt.want) || got != nil {
			t.Errorf("%s: got %q", tt.args, out.Text)
		}
	}
	if diff := cmp.Diff(searchSchema, string(tool.InputSchema())); diff != "" {
		t.Errorf("InputSchema (-want +got):\n%s", diff)
	}
}

func TestDynamicResults(t *testing.T) {
	schema := json.RawMessage(`{"type":"object"}`)
	whole := MustNewDynamic("w", "Words its own result.", schema, func(context.Context, json.RawMessage) (Output, error) {
		return Output{Text: "42 items", Structured: json.RawMessage(`{"n":42}`)}, nil
	}, WithOutputSchema(json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)))
	if out := whole.Invoke(context.Background(), nil); out.Text != "42 items" || string(out.Structured) != `{"n":42}` || out.IsError {
		t.Errorf("whole: %+v", out)
	}
	if string(whole.OutputSchema()) != `{"type":"object","properties":{"n":{"type":"integer"}}}` {
		t.Errorf("output schema %s", whole.OutputSchema())
	}
	failed := MustNewDynamic("f", "Fails in its own words.", schema, func(context.Context, json.RawMessage) (Output, error) {
		return Output{Text: "the remote tool failed", IsError: true}, nil
	})
	if out := failed.Invoke(context.Background(), nil); !out.IsError || !errors.Is(out.Err, ErrToolFailed) {
		t.Errorf("failed: %+v", out)
	}
	type count struct {
		N int `json:"n"`
	}
	typed := MustNewDynamic("c", "Counts.", schema, func(context.Context, json.RawMessage) (count, error) { return count{N: 2}, nil })
	if out := typed.Invoke(context.Background(), nil); string(out.Structured) != `{"n":2}` || typed.OutputSchema() == nil {
		t.Errorf("typed result: %+v, schema %s", out, typed.OutputSchema())
	}
}

// TestNewDynamicNullForOptionalHint: a dynamic tool's optional property sent
// as null gets the same hint as a typed tool's: leave it out, or send a
// value of its type; a required one does not. Properties behind $ref and
// in array items count too.
func TestNewDynamicNullForOptionalHint(t *testing.T) {
	schema := `{"type":"object","required":["b"],
		"properties":{"a":{"type":"string"},"b":{"type":"integer"},"o":{"$ref":"#/$defs/o"},
			"list":{"type":"array","items":{"type":"object","properties":{"y":{"type":"boolean"}}}}},
		"$defs":{"o":{"type":"object","properties":{"x":{"type":"number"}}}}}`
	tool, err := NewDynamic("d", "A dynamic tool for the test.", json.RawMessage(schema),
		func(context.Context, json.RawMessage) (string, error) { return "ok", nil })
	if err != nil {
		t.Fatal(err)
	}
	const hint = "leave it out instead of sending null"
	for _, tc := range []struct {
		args, path, send string // send "" when no hint is due
	}{
		{`{"a":null,"b":1}`, "a", "or send string"},
		{`{"b":null}`, "b", ""},
		{`{"b":1,"o":{"x":null}}`, "o.x", "or send number"},
		{`{"b":1,"list":[{"y":true},{"y":null}]}`, "list[1].y", "or send boolean"},
	} {
		out := tool.Invoke(context.Background(), json.RawMessage(tc.args))
		var ae *ArgumentError
		if !errors.As(out.Err, &ae) || len(ae.Problems) != 1 || ae.Problems[0].Path != tc.path {
			t.Errorf("%s: got %v, want one problem at %s", tc.args, out.Err, tc.path)
			continue
		}
		msg := ae.Problems[0].Message
		if tc.send == "" && strings.Contains(msg, hint) {
			t.Errorf("%s: %q hints to leave a required field out", tc.args, msg)
		}
		if tc.send != "" && (!strings.Contains(msg, hint) || !strings.Contains(msg, tc.send)) {
			t.Errorf("%s: %q, want the hint %q ... %q", tc.args, msg, hint, tc.send)
		}
	}
}
