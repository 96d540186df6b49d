package dialect

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
)

type (
	stripItem struct {
		ID    string  `json:"id"`
		Label *string `json:"label,omitempty"`
	}
	stripInner struct {
		Must string  `json:"must"`
		Opt  *int    `json:"opt,omitempty"`
		Deep *stripX `json:"deep,omitempty"`
	}
	stripX struct {
		Z *bool `json:"z,omitempty"`
	}
	stripArgs struct {
		City   string          `json:"city"`
		Days   *int            `json:"days,omitempty"`
		Unit   string          `json:"unit,omitempty" jsonschema:"enum=c,enum=f"`
		Inner  stripInner      `json:"inner"`
		OptIn  *stripInner     `json:"opt_in,omitempty"`
		Items  []stripItem     `json:"items,omitempty"`
		Any    any             `json:"any"`           // required, and null is valid: kept
		Raw    json.RawMessage `json:"raw,omitempty"` // optional, and null is valid: kept
		Counts map[string]*int `json:"counts,omitempty"`
		Tree   *treeNode       `json:"tree,omitempty"`
	}
)

func stripTool(t testing.TB) *toolreg.Tool[stripArgs, string] {
	t.Helper()
	tool, err := toolreg.New("strip", "A test tool.", func(_ context.Context, a stripArgs) (string, error) { return "ok", nil })
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

func TestNullStripper(t *testing.T) {
	tool := stripTool(t)
	s, err := NewNullStripper(tool.InputSchema())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args string
		want string // "" means: args unchanged, the same slice
	}{
		{"no null", `{"city":"Paris","days":3}`, ""},
		{"null only inside a string", `{"city":"null","unit":"c"}`, ""},
		{"null where it is valid", `{"city":"P","any":null,"raw":null}`, ""},
		{"required property null: kept, validation reports it", `{"city":null}`, ""},
		{"map value null: kept", `{"city":"P","counts":{"a":null}}`, ""},
		{"optional null, middle", `{"city":"P","days":null,"unit":"c"}`, `{"city":"P","unit":"c"}`},
		{"optional null, first", `{"days":null,"city":"P"}`, `{"city":"P"}`},
		{"optional null, last", `{"city":"P","days":null}`, `{"city":"P"}`},
		{"only member", `{"days":null}`, `{}`},
		{"every optional null", `{"city":"P","days":null,"unit":null,"opt_in":null,"items":null,"counts":null,"tree":null,"any":null}`,
			`{"city":"P","any":null}`},
		{"nested object", `{"city":"P","inner":{"must":"m","opt":null,"deep":{"z":null}}}`, `{"city":"P","inner":{"must":"m","deep":{}}}`},
		{"optional nested object", `{"city":"P","opt_in":{"must":"m","opt":null,"deep":null}}`, `{"city":"P","opt_in":{"must":"m"}}`},
		{"array of objects", `{"city":"P","items":[{"id":"a","label":null},{"id":"b","label":"B"},{"label":null,"id":"c"}]}`,
			`{"city":"P","items":[{"id":"a"},{"id":"b","label":"B"},{"id":"c"}]}`},
		{"recursive type", `{"city":"P","tree":{"name":"r","children":[{"name":"a","children":null},{"name":"b","children":[{"name":"c","children":null}]}]}}`,
			`{"city":"P","tree":{"name":"r","children":[{"name":"a"},{"name":"b","children":[{"name":"c"}]}]}}`},
		{"whitespace", "{\n  \"city\" : \"P\" ,\n  \"days\" : null\n}", `{"city":"P"}`},
		{"escaped key", `{"city":"P","d\u0061ys":null}`, `{"city":"P"}`},
		{"unknown member passes", `{"city":"P","extra":{"days":null},"days":null}`, `{"city":"P","extra":{"days":null}}`},
		{"not an object", `null`, ""},
		{"empty", ``, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := []byte(tt.args)
			got, err := s.Strip(in)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == "" {
				if string(got) != tt.args || len(in) > 0 && &got[0] != &in[0] {
					t.Errorf("got %s, want the input itself", got)
				}
				return
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if string(in) != tt.args {
				t.Errorf("the input changed to %s", in)
			}
		})
	}
}

// TestNullStripperEndToEnd runs arguments shaped as an OpenAI strict-mode
// model sends them (every property present, null for "absent") through the
// tool: refused as they are, accepted once stripped.
func TestNullStripperEndToEnd(t *testing.T) {
	tool := stripTool(t)
	s, err := NewNullStripper(tool.InputSchema())
	if err != nil {
		t.Fatal(err)
	}
	args := []byte(`{"city":"Paris","days":null,"unit":null,"inner":{"must":"m","opt":null,"deep":{"z":null}},"opt_in":null,
		"items":[{"id":"a","label":null}],"any":null,"raw":null,"counts":null,"tree":{"name":"r","children":null}}`)
	if out := tool.Invoke(context.Background(), args); !out.IsError {
		t.Fatalf("the unstripped arguments passed validation: %s", out.Text)
	}
	stripped, err := s.Strip(args)
	if err != nil {
		t.Fatal(err)
	}
	if out := tool.Invoke(context.Background(), stripped); out.IsError {
		t.Fatalf("stripped arguments %s refused: %s", stripped, out.Text)
	}
}

// TestNullStripperFixture strips the OpenAI call of the research fixtures.
func TestNullStripperFixture(t *testing.T) {
	s, err := NewNullStripper(readFile(t, "testdata/fixtures/canonical.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var call struct {
		ToolCalls []struct {
			Function struct{ Arguments string }
		} `json:"tool_calls"`
	}
	if err := json.Unmarshal(readFile(t, "testdata/fixtures/openai_chat.call.json"), &call); err != nil {
		t.Fatal(err)
	}
	got, err := s.Strip([]byte(call.ToolCalls[0].Function.Arguments))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(`{"location":"Paris","unit":"celsius"}`, string(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestNullStripperNothingToStrip(t *testing.T) {
	for _, schema := range []string{
		`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`,
		`{"type":"object","properties":{"a":{"type":["string","null"]}}}`,
		`{"type":"object","properties":{"a":true}}`,
	} {
		s, err := NewNullStripper(json.RawMessage(schema))
		if err != nil {
			t.Fatal(err)
		}
		if s.root != nil {
			t.Errorf("%s: a plan where nothing can be stripped", schema)
		}
	}
}

// TestNullStripperDAG builds strippers for schemas with 2^60 paths through
// their $refs: each definition must be read once.
func TestNullStripperDAG(t *testing.T) {
	for _, anyOf := range []bool{false, true} {
		s, err := NewNullStripper(json.RawMessage(dagSchema(60, anyOf)))
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Strip([]byte(`{"x":{"l":{"r":null}}}`))
		if err != nil || string(got) != `{"x":{"l":{"r":null}}}` {
			t.Errorf("Strip = %s, %v; want the required null kept", got, err)
		}
	}
}

func TestNullStripperErrors(t *testing.T) {
	if _, err := NewNullStripper(json.RawMessage(`{`)); err == nil {
		t.Error("NewNullStripper took invalid JSON")
	}
	s, err := NewNullStripper(readFile(t, "testdata/fixtures/canonical.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Strip([]byte(`{"days":null`)); err == nil {
		t.Error("Strip took invalid JSON holding null")
	}
}

func TestStripNoNullAllocs(t *testing.T) {
	s, err := NewNullStripper(stripTool(t).InputSchema())
	if err != nil {
		t.Fatal(err)
	}
	args := []byte(`{"city":"Paris","days":3,"inner":{"must":"m","opt":1},"items":[{"id":"a","label":"x"}]}`)
	if n := testing.AllocsPerRun(100, func() { s.Strip(args) }); n != 0 {
		t.Errorf("Strip allocates %v times on arguments without null", n)
	}
	withNull := []byte(`{"city":"null","days":3}`) // a null token, nothing to strip
	if n := testing.AllocsPerRun(100, func() { s.Strip(withNull) }); n != 0 {
		t.Errorf("Strip allocates %v times on arguments with nothing to strip", n)
	}
}

func BenchmarkStripNoNull(b *testing.B) {
	s, err := NewNullStripper(stripTool(b).InputSchema())
	if err != nil {
		b.Fatal(err)
	}
	args := []byte(`{"city":"Paris","days":3,"unit":"c","inner":{"must":"m","opt":1,"deep":{"z":true}},"items":[{"id":"a","label":"x"},{"id":"b"}],"any":1}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(args)))
	for b.Loop() {
		if _, err := s.Strip(args); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStrip(b *testing.B) {
	s, err := NewNullStripper(stripTool(b).InputSchema())
	if err != nil {
		b.Fatal(err)
	}
	args := []byte(`{"city":"Paris","days":null,"unit":null,"inner":{"must":"m","opt":null,"deep":null},"opt_in":null,"items":[{"id":"a","label":null},{"id":"b","label":"x"}],"any":1,"raw":null,"counts":null,"tree":null}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(args)))
	for b.Loop() {
		if _, err := s.Strip(args); err != nil {
			b.Fatal(err)
		}
	}
}
