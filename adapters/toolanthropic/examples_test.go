package toolanthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/internal/adapt/adapttest"
)

type transferArgs struct {
	Account string `json:"account" jsonschema:"pattern=^[A-Z]{2}[0-9]{6}$"`
	Cents   int64  `json:"cents" jsonschema:"minimum=1"`
	Note    string `json:"note,omitempty"`
}

// examplesRegistry holds a tool with examples (one with an int64 past
// 2^53, which a float64 would round) and one without.
func examplesRegistry() *toolreg.Registry {
	reg := adapttest.Registry(nil)
	reg.MustAdd(toolreg.MustNew("transfer", "Moves money between accounts.", func(context.Context, transferArgs) (string, error) { return "", nil },
		toolreg.WithExamples(
			transferArgs{Account: "DE123456", Cents: 1250, Note: "rent"},
			transferArgs{Account: "FR654321", Cents: 9007199254740993},
		)))
	return reg
}

// TestInputExamples sends the tools through the real SDK: a tool's
// examples are its input_examples, in strict mode too, as declared
// (numbers digit for digit), and ToolsJSON sends the same bytes;
// WithoutInputExamples leaves them out.
func TestInputExamples(t *testing.T) {
	for _, tc := range []struct {
		name     string
		opts     []Option
		golden   string
		examples bool // sent
	}{
		{"sent", nil, "tools_examples.json", true},
		{"sent in strict mode", []Option{WithStrict()}, "tools_examples_strict.json", true},
		{"left out", []Option{WithoutInputExamples()}, "tools_no_examples.json", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := New(examplesRegistry(), tc.opts...)
			tools, err := a.Tools()
			if err != nil {
				t.Fatal(err)
			}
			f := fakeAnthropic(answer("hi"))
			client := newClient(t, f)
			p := params("hi")
			p.Tools = tools
			if _, err := client.Messages.New(context.Background(), p); err != nil {
				t.Fatal(err)
			}
			sent := rawField(t, f.Raw[0], "tools")
			var defs []json.RawMessage
			json.Unmarshal(sent, &defs)
			adapttest.GoldenJSON(t, tc.golden, defs[2], *update) // the tool with examples
			// Only the tool with examples has them.
			if n, want := bytes.Count(sent, []byte(`"input_examples"`)), map[bool]int{true: 1}[tc.examples]; n != want {
				t.Errorf("input_examples sent %d times, want %d:\n%s", n, want, sent)
			}
			wire, err := a.ToolsJSON()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(sent, wire) {
				t.Errorf("ToolsJSON differs from what the SDK sends:\nsdk  %s\njson %s", sent, wire)
			}
		})
	}
}
