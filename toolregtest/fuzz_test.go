package toolregtest

import (
	"encoding/json"
	"testing"
)

// FuzzArgumentsFor: whatever the schema, ArgumentsFor does not panic or
// hang, and what it makes, the reference validator accepts.
func FuzzArgumentsFor(f *testing.F) {
	for i, tc := range argumentSchemas {
		f.Add(tc.schema, uint64(i))
	}
	f.Fuzz(func(t *testing.T, schema string, seed uint64) {
		if len(schema) > 4096 {
			return
		}
		g, err := newGenerator(json.RawMessage(schema), 0)
		if err != nil {
			return // not a schema
		}
		got, err := ArgumentsFor(json.RawMessage(schema), seed)
		if err != nil {
			return
		}
		if err := validateWith(g.validator, got); err != nil {
			t.Fatalf("made %s, which the schema refuses: %v", got, err)
		}
	})
}
