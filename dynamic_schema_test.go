package toolreg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg/internal/args"
)

// TestNewDynamicLoadsNothingOutsideTheSchema: a schema that reaches past
// its document, as input or output schema, is refused at declaration with
// ErrInvalidDeclaration; the error names the reference and holds nothing
// of the file it names. (internal/args tests every keyword and scheme.)
func TestNewDynamicLoadsNothingOutsideTheSchema(t *testing.T) {
	const secret = "c0ffee-not-for-the-model"
	dir := t.TempDir()
	file := filepath.Join(dir, "secret.json")
	if err := os.WriteFile(file, []byte(`{"type":"object","required":["`+secret+`"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	fileURL := "file://" + filepath.ToSlash(file)
	fn := func(context.Context, json.RawMessage) (Output, error) { return Output{}, nil }
	for _, tc := range []struct {
		name          string
		input, output string
		ref           string
	}{
		{"a file URL", `{"type":"object","properties":{"a":{"$ref":"` + fileURL + `"}}}`, "", fileURL},
		{"a path", `{"type":"object","$ref":"` + filepath.ToSlash(file) + `"}`, "", filepath.ToSlash(file)},
		{"$id moves the base", `{"$id":"file://` + filepath.ToSlash(dir) + `/","type":"object","$ref":"secret.json"}`, "", fileURL},
		{"$schema a file", `{"$schema":"` + fileURL + `","type":"object"}`, "", fileURL},
		{"$schema unknown", `{"$schema":"https://example.com/draft","type":"object"}`, "", "https://example.com/draft"},
		{"https", `{"type":"object","$ref":"https://example.com/schema.json"}`, "", "https://example.com/schema.json"},
		{"the output schema", `{"type":"object"}`, `{"type":"object","$ref":"` + fileURL + `"}`, fileURL},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var opts []Option
			if tc.output != "" {
				opts = append(opts, WithOutputSchema(json.RawMessage(tc.output)))
			}
			_, err := NewDynamic("d", "A dynamic tool.", json.RawMessage(tc.input), fn, opts...)
			if !errors.Is(err, ErrInvalidDeclaration) || !errors.Is(err, args.ErrExternalReference) {
				t.Fatalf("NewDynamic = %v, want ErrInvalidDeclaration for an external reference", err)
			}
			if msg := err.Error(); !strings.Contains(msg, tc.ref) || strings.Contains(msg, secret) {
				t.Errorf("the error should name %q and hold nothing of the file: %s", tc.ref, msg)
			}
		})
	}
}

// TestNewDynamicClosedSchemasStillWork: what a closed document may hold
// compiles and checks calls: the known drafts' meta-schemas, references
// to its own definitions, anchors and embedded resources, recursion.
func TestNewDynamicClosedSchemasStillWork(t *testing.T) {
	for _, tc := range []struct {
		name, schema, good, bad string
	}{
		{"$schema draft 2020-12", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"n":{"type":"integer"}}}`, `{"n":1}`, `{"n":"x"}`},
		{"$schema draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"n":{"$ref":"#/definitions/n"}},"definitions":{"n":{"type":"integer"}}}`, `{"n":1}`, `{"n":"x"}`},
		{"$defs", `{"type":"object","properties":{"n":{"$ref":"#/$defs/n"}},"$defs":{"n":{"type":"integer"}}}`, `{"n":1}`, `{"n":"x"}`},
		{"$anchor", `{"type":"object","properties":{"n":{"$ref":"#num"}},"$defs":{"n":{"$anchor":"num","type":"integer"}}}`, `{"n":1}`, `{"n":"x"}`},
		{"an embedded $id", `{"$id":"urn:example:root","type":"object","properties":{"n":{"$ref":"urn:example:n"}},"$defs":{"n":{"$id":"urn:example:n","type":"integer"}}}`, `{"n":1}`, `{"n":"x"}`},
		{"recursion", `{"type":"object","properties":{"v":{"type":"integer"},"next":{"$ref":"#"}}}`, `{"v":1,"next":{"v":2,"next":{"v":3}}}`, `{"v":1,"next":{"v":2,"next":{"v":"x"}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tool, err := NewDynamic("d", "A dynamic tool.", json.RawMessage(tc.schema), func(context.Context, json.RawMessage) (string, error) { return "ok", nil })
			if err != nil {
				t.Fatal(err)
			}
			got := []bool{tool.Invoke(context.Background(), json.RawMessage(tc.good)).IsError, tool.Invoke(context.Background(), json.RawMessage(tc.bad)).IsError}
			if diff := cmp.Diff([]bool{false, true}, got); diff != "" {
				t.Errorf("IsError of a good and a bad call (-want +got):\n%s", diff)
			}
		})
	}
}

// doubling is a schema of levels definitions, each the allOf of two
// references to the next: 1.2 KB at 18 levels, whose tree holds 2^18
// copies of the last, which the validator would walk on every call.
func doubling(levels int) json.RawMessage {
	var defs []string
	for i := range levels {
		defs = append(defs, fmt.Sprintf(`"l%d":{"allOf":[{"$ref":"#/$defs/l%d"},{"$ref":"#/$defs/l%d"}]}`, i, i+1, i+1))
	}
	defs = append(defs, fmt.Sprintf(`"l%d":{"type":"object","properties":{"n":{"type":"integer"}}}`, levels))
	return json.RawMessage(`{"type":"object","$ref":"#/$defs/l0","$defs":{` + strings.Join(defs, ",") + `}}`)
}

// wide is a large tool schema as servers write them: props properties,
// each an object of fields strings, 1 + props*(1+fields) subschemas.
func wide(props, fields int) json.RawMessage {
	var ps []string
	for i := range props {
		var fs []string
		for j := range fields {
			fs = append(fs, fmt.Sprintf(`"f%d":{"type":"string","description":"Field %d."}`, j, j))
		}
		ps = append(ps, fmt.Sprintf(`"p%d":{"type":"object","description":"Property %d.","properties":{%s}}`, i, i, strings.Join(fs, ",")))
	}
	return json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"},` + strings.Join(ps, ",") + `}}`)
}

// returnsWithin fails t if f has not returned after d: a guard against a
// hang, not a measure of speed.
func returnsWithin[T any](t *testing.T, d time.Duration, what string, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(d):
		t.Fatalf("%s has not returned after %v", what, d)
		panic("unreachable")
	}
}

// TestNewDynamicBoundsTheExpandedSize: a schema whose references expand
// past the bound is refused at declaration, input or output, before any
// call could walk it; under the bound it is accepted and calls work.
func TestNewDynamicBoundsTheExpandedSize(t *testing.T) {
	ok := func(context.Context, json.RawMessage) (Output, error) { return Output{Text: "ok"}, nil }
	for _, tc := range []struct {
		name   string
		input  json.RawMessage
		opts   []Option
		refuse string // "" when accepted
	}{
		{"doubling 18 levels", doubling(18), nil, fmt.Sprintf("the schema expands to more than %d subschemas", DefaultMaxSchemaNodes)},
		{"doubling 60 levels", doubling(60), nil, "WithMaxSchemaNodes"},
		{"doubling 10 levels", doubling(10), nil, ""},
		{"300 properties of 5, within a tenth of the default", wide(300, 5), []Option{WithMaxSchemaNodes(DefaultMaxSchemaNodes / 10)}, ""},
		{"doubling 10 levels, a lower bound", doubling(10), []Option{WithMaxSchemaNodes(1000)}, "more than 1000 subschemas"},
		{"doubling 14 levels, a higher bound", doubling(14), []Option{WithMaxSchemaNodes(100_000)}, ""},
		{"an output schema", json.RawMessage(`{"type":"object"}`), []Option{WithOutputSchema(doubling(18))}, "the output schema expands to more than"},
		{"a bound under 1", json.RawMessage(`{"type":"object"}`), []Option{WithMaxSchemaNodes(0)}, "WithMaxSchemaNodes(0)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			type result struct {
				tool *Tool[json.RawMessage, Output]
				err  error
			}
			r := returnsWithin(t, 10*time.Second, "NewDynamic", func() result {
				tool, err := NewDynamic("d", "A dynamic tool.", tc.input, ok, tc.opts...)
				return result{tool, err}
			})
			if tc.refuse != "" {
				if !errors.Is(r.err, ErrInvalidDeclaration) || !strings.Contains(r.err.Error(), tc.refuse) {
					t.Fatalf("NewDynamic = %v, want ErrInvalidDeclaration with %q", r.err, tc.refuse)
				}
				return
			}
			if r.err != nil {
				t.Fatal(r.err)
			}
			got := []bool{r.tool.Invoke(context.Background(), json.RawMessage(`{"n":1}`)).IsError, r.tool.Invoke(context.Background(), json.RawMessage(`{"n":"x"}`)).IsError}
			if diff := cmp.Diff([]bool{false, true}, got); diff != "" {
				t.Errorf("IsError of a good and a bad call (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNewDynamicBoundsTheWorkOfOneCall: a schema whose branches recurse
// into the same child (167 bytes; its validation doubles with each level
// of the arguments) is refused at the default depth, and declared when
// WithMaxDepth keeps the arguments shallow, where a deep call is refused
// before the validator walks it.
func TestNewDynamicBoundsTheWorkOfOneCall(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","$defs":{"n":{"allOf":[{"properties":{"a":{"$ref":"#/$defs/n"}}},{"properties":{"a":{"$ref":"#/$defs/n"}}}]}},"properties":{"a":{"$ref":"#/$defs/n"}}}`)
	fn := func(context.Context, json.RawMessage) (string, error) { return "ok", nil }
	_, err := NewDynamic("deep", "Deep.", schema, fn)
	if !errors.Is(err, ErrInvalidDeclaration) || !strings.Contains(err.Error(), "WithMaxDepth") {
		t.Fatalf("err = %v", err)
	}
	tool, err := NewDynamic("deep", "Deep.", schema, fn, WithMaxDepth(10))
	if err != nil {
		t.Fatal(err)
	}
	nest := func(n int) json.RawMessage {
		return json.RawMessage(strings.Repeat(`{"a":`, n) + "{}" + strings.Repeat("}", n))
	}
	if out := tool.Invoke(context.Background(), nest(8)); out.IsError {
		t.Errorf("8 levels: %s", out.Text)
	}
	if out := tool.Invoke(context.Background(), nest(30)); !errors.Is(out.Err, ErrInvalidArguments) {
		t.Errorf("30 levels: %+v", out)
	}
}
