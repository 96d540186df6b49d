package toolreg

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestBadInputCatalogue: every bad input we know, one row each, with the
// Output it must give. The model must be able to act on the text, the host
// must be able to branch on Err, and nothing internal may leak.
func TestBadInputCatalogue(t *testing.T) {
	type args struct {
		City  string   `json:"city"`
		Count int      `json:"count,omitempty" jsonschema:"minimum=0,maximum=100"`
		Tags  []string `json:"tags,omitempty"`
		Any   any      `json:"any,omitempty"`
	}
	tool := MustNew("lookup", "Looks up a city.", func(_ context.Context, a args) (string, error) {
		return "ok", nil
	}, WithMaxArgumentBytes(4096), WithMaxDepth(8))
	reg := NewRegistry()
	reg.MustAdd(tool)

	tests := []struct {
		name string
		tool string // "" means "lookup"
		args string
		want error  // nil: the call succeeds
		text string // the model-facing text contains this
	}{
		{"non-JSON", "", `city=Paris`, ErrInvalidArguments, "not valid JSON: invalid character 'c' at start of value (at offset 0)"},
		{"truncated JSON", "", `{"city":"Par`, ErrInvalidArguments, "not valid JSON: the input ends early"},
		{"trailing data", "", `{"city":"Paris"}{"city":"Rome"}`, ErrInvalidArguments, "not valid JSON: unexpected data after the JSON value at offset 16"},
		{"array at the top", "", `["Paris"]`, ErrInvalidArguments, `expected object, got ["Paris"]`},
		{"string at the top", "", `"Paris"`, ErrInvalidArguments, `expected object, got "Paris"`},
		{"number at the top", "", `42`, ErrInvalidArguments, "expected object, got 42"},
		{"NaN token", "", `{"city":"Paris","count":NaN}`, ErrInvalidArguments, "not valid JSON: invalid character 'N'"},
		{"Infinity token", "", `{"city":"Paris","count":Infinity}`, ErrInvalidArguments, "not valid JSON: invalid character 'I'"},
		{"negative Infinity", "", `{"city":"Paris","count":-Infinity}`, ErrInvalidArguments, "not valid JSON: invalid character 'I' in number"},
		{"single quotes", "", `{'city':'Paris'}`, ErrInvalidArguments, "not valid JSON: invalid character '\\''"},
		{"comment", "", `{"city":"Paris" /* here */}`, ErrInvalidArguments, "not valid JSON: invalid character '/'"},
		{"byte order mark", "", "\ufeff{\"city\":\"Paris\"}", ErrInvalidArguments, `not valid JSON: invalid character '\ufeff' at start of value`},
		{"non-JSON white space", "", "\f{\"city\":\"Paris\"}", ErrInvalidArguments, "not valid JSON"},
		{"raw control character in a string", "", "{\"city\":\"Pa\nris\"}", ErrInvalidArguments, "not valid JSON: invalid character '\\n' in string"},
		{"duplicate keys: refused, as I-JSON", "", `{"city":"Paris","city":"Rome"}`, ErrInvalidArguments, `city: the member "city" appears more than once in this object; send each member once`},
		{"duplicate keys with an escaped name", "", `{"city":"Paris","\u0063ity":"Rome"}`, ErrInvalidArguments, `city: the member "city" appears more than once`},
		{"duplicate keys in a nested object", "", `{"city":"Paris","any":{"a":1,"b":{"a":1,"a":2}}}`, ErrInvalidArguments, `any.b.a: the member "a" appears more than once`},
		{"huge integer", "", `{"city":"Paris","count":123456789012345678901234567890}`, ErrInvalidArguments, "count: 123456789012345678901234567890 is greater than the maximum 100"},
		{"huge exponent", "", `{"city":"Paris","count":1e999999}`, ErrInvalidArguments, "count: 1e999999 has an exponent beyond ±400"},
		{"number beyond float64 in an any", "", `{"city":"Paris","any":[1e308,1e309]}`, ErrInvalidArguments, "any[1]: 1e309 is beyond the range of a 64-bit float"},
		{"number with a thousand digits", "", `{"city":"Paris","any":` + strings.Repeat("9", 1000) + `}`, ErrInvalidArguments, "has more than 400 characters"},
		{"deep nesting", "", `{"city":"Paris","any":` + strings.Repeat("[", 20) + strings.Repeat("]", 20) + `}`, ErrInvalidArguments, "deeper than 8 levels"},
		{"oversized string", "", `{"city":"` + strings.Repeat("x", 5000) + `"}`, ErrInvalidArguments, "the arguments are 5011 bytes long; the limit is 4096"},
		{"invalid UTF-8: refused, as I-JSON", "", "{\"city\":\"Par\xffis\"}", ErrInvalidArguments, "not valid JSON: a string holds bytes that are not UTF-8 (at offset 12); send UTF-8 text"},
		{"wrong-case key", "", `{"City":"Paris"}`, ErrInvalidArguments, `City: unknown field (did you mean "city"?)`},
		{"unknown key", "", `{"city":"Paris","country":"FR"}`, ErrInvalidArguments, "country: unknown field; allowed fields: city, count, tags, any"},
		{"null for a string", "", `{"city":null}`, ErrInvalidArguments, "city: expected string, got null"},
		{"null arguments mean {}", "", `null`, ErrInvalidArguments, "city: required field is missing"},
		{"empty arguments mean {}", "", ``, ErrInvalidArguments, "city: required field is missing"},
		{"wrong element type", "", `{"city":"Paris","tags":["a",2]}`, ErrInvalidArguments, "tags[1]: expected string, got 2"},
		{"negative below minimum", "", `{"city":"Paris","count":-1}`, ErrInvalidArguments, "count: -1 is less than the minimum 0"},
		{"fraction for an integer", "", `{"city":"Paris","count":1.5}`, ErrInvalidArguments, "count: expected integer, got 1.5"},
		{"unknown tool", "lookpu", `{}`, ErrUnknownTool, `there is no tool named "lookpu"; available tools: lookup`},
		{"unknown tool with odd characters", "a\"b\n<script>\x00", `{}`, ErrUnknownTool, `there is no tool named "a\"b\n<script>\x00"`},
		{"unknown tool with a huge name", strings.Repeat("n", 100000), `{}`, ErrUnknownTool, "…"},
		{"empty tool name", "", "", nil, ""}, // replaced below: the name "" is a lookup miss
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := tt.tool
			if name == "" {
				name = "lookup"
			}
			if tt.name == "empty tool name" {
				name, tt.want, tt.text = "", ErrUnknownTool, `there is no tool named ""`
			}
			out := reg.Call(context.Background(), name, json.RawMessage(tt.args))
			if tt.want == nil {
				if out.IsError || out.Text != "ok" {
					t.Fatalf("got %+v", out)
				}
				return
			}
			if !out.IsError || !errors.Is(out.Err, tt.want) {
				t.Fatalf("got %+v, want an error matching %v", out, tt.want)
			}
			if !strings.Contains(out.Text, tt.text) {
				t.Errorf("text %q\ndoes not contain %q", out.Text, tt.text)
			}
			if len(out.Text) > 2000 || strings.Contains(out.Text, ".go:") || strings.Contains(out.Text, "goroutine") {
				t.Errorf("text too long or leaking internals: %.200q", out.Text)
			}
		})
	}

	// A nil context is Background, not a crash.
	var nilCtx context.Context
	if out := reg.Call(nilCtx, "lookup", json.RawMessage(`{"city":"Paris"}`)); out.IsError {
		t.Errorf("nil context: %+v", out)
	}
	if outs := reg.CallAll(nilCtx, []ToolCall{{Name: "lookup", Arguments: json.RawMessage(`{"city":"Paris"}`)}}); outs[0].IsError {
		t.Errorf("nil context in CallAll: %+v", outs[0])
	}
}
