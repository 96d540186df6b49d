package args

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// doubling is a schema of levels definitions, each the allOf of two
// references to the next: about a kilobyte at 18 levels, whose tree holds
// 2^18 copies of the last.
func doubling(levels int) json.RawMessage {
	var defs []string
	for i := range levels {
		defs = append(defs, fmt.Sprintf(`"l%d":{"allOf":[{"$ref":"#/$defs/l%d"},{"$ref":"#/$defs/l%d"}]}`, i, i+1, i+1))
	}
	defs = append(defs, fmt.Sprintf(`"l%d":{"type":"object"}`, levels))
	return json.RawMessage(`{"type":"object","$ref":"#/$defs/l0","$defs":{` + strings.Join(defs, ",") + `}}`)
}

// TestSize counts each subschema once, each reference as the size of
// what it refers to, and a reference back into a schema being counted as
// 1.
func TestSize(t *testing.T) {
	for _, tc := range []struct {
		name   string
		schema string
		want   int
	}{
		{"one schema", `{"type":"object"}`, 1},
		{"properties", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"array","items":{"type":"integer"}}}}`, 4},
		{"a definition used twice", `{"type":"object","properties":{"a":{"$ref":"#/$defs/p"},"b":{"$ref":"#/$defs/p"}},"$defs":{"p":{"type":"object","properties":{"x":{},"y":{}}}}}`, 1 + 2*(1+3)},
		{"an unused definition", `{"type":"object","$defs":{"p":{"properties":{"x":{},"y":{}}}}}`, 1},
		{"recursion", `{"type":"object","properties":{"next":{"$ref":"#"}}}`, 3},
		{"dynamic reference", `{"$dynamicAnchor":"node","type":"object","properties":{"kids":{"type":"array","items":{"$dynamicRef":"#node"}}}}`, 4},
		{"every applicator", `{"type":"object","not":{},"allOf":[{}],"anyOf":[{}],"oneOf":[{}],"if":{},"then":{},"else":{},` +
			`"propertyNames":{},"additionalProperties":{},"unevaluatedProperties":{},"patternProperties":{"^a":{}},"dependentSchemas":{"a":{}},` +
			`"contains":{},"prefixItems":[{}],"items":{},"unevaluatedItems":{}}`, 17},
		{"doubling, 1 level", string(doubling(1)), 1 + (1 + 2*(1+1))},
		{"doubling, 10 levels", string(doubling(10)), 4*1024 - 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := compileSchema(json.RawMessage(tc.schema))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, Size(s, 1<<20)); diff != "" {
				t.Errorf("Size (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSizeStopsAtTheBound: past max, Size says so without counting the
// rest, and CompileSchema refuses the schema with a message that says
// what was too big, the bound, and how to change it.
func TestSizeStopsAtTheBound(t *testing.T) {
	s, err := compileSchema(doubling(60)) // 2^60 schemas: counting them all would never end
	if err != nil {
		t.Fatal(err)
	}
	if got := Size(s, 1000); got <= 1000 {
		t.Errorf("Size(doubling(60), 1000) = %d, want over 1000", got)
	}
	_, err = CompileSchema(doubling(60), 1000)
	for _, want := range []string{"expands to more than 1000 subschemas", "WithMaxSchemaNodes"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CompileSchema(doubling(60), 1000) = %v, want an error with %q", err, want)
		}
	}
	if _, err := CompileSchema(doubling(8), 4*256-2); err != nil {
		t.Errorf("CompileSchema of a schema at the bound: %v", err)
	}
	if _, err := CompileSchema(doubling(8), 4*256-3); err == nil {
		t.Errorf("CompileSchema of a schema one past the bound: no error")
	}
	if _, err := CompileSchema(doubling(60), 0); err != nil {
		t.Errorf("CompileSchema with no bound: %v", err)
	}
}
