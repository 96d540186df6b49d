package args

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestPathWork: a recursion that branches into the same child grows with
// the depth of the arguments and is refused; recursion into other values
// (a tree), or branches that recurse into other keys, stays linear.
func TestPathWork(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		depth  int
		ok     bool
	}{
		{"two branches into the same child", `{"type":"object","$defs":{"n":{"allOf":[{"properties":{"a":{"$ref":"#/$defs/n"}}},{"properties":{"a":{"$ref":"#/$defs/n"}}}]}},"properties":{"a":{"$ref":"#/$defs/n"}}}`, 64, false},
		{"the same, anyOf", `{"type":"object","$defs":{"n":{"anyOf":[{"properties":{"a":{"$ref":"#/$defs/n"}}},{"properties":{"a":{"$ref":"#/$defs/n"}}}]}},"properties":{"a":{"$ref":"#/$defs/n"}}}`, 64, false},
		{"the same, shallow arguments", `{"type":"object","$defs":{"n":{"allOf":[{"properties":{"a":{"$ref":"#/$defs/n"}}},{"properties":{"a":{"$ref":"#/$defs/n"}}}]}},"properties":{"a":{"$ref":"#/$defs/n"}}}`, 8, true},
		{"a variant of three, each with children", `{"type":"object","$defs":{"n":{"oneOf":[{"properties":{"k":{"const":"a"},"children":{"type":"array","items":{"$ref":"#/$defs/n"}}}},{"properties":{"k":{"const":"b"},"children":{"type":"array","items":{"$ref":"#/$defs/n"}}}},{"properties":{"k":{"const":"c"},"children":{"type":"array","items":{"$ref":"#/$defs/n"}}}}]}},"properties":{"root":{"$ref":"#/$defs/n"}}}`, 64, false},
		{"a tree", `{"type":"object","$defs":{"n":{"type":"object","properties":{"v":{"type":"integer"},"left":{"$ref":"#/$defs/n"},"right":{"$ref":"#/$defs/n"}}}},"properties":{"root":{"$ref":"#/$defs/n"}}}`, 64, true},
		{"a tree of mixins", `{"type":"object","$defs":{"n":{"allOf":[{"properties":{"left":{"$ref":"#/$defs/n"}}},{"properties":{"right":{"$ref":"#/$defs/n"}}}]}},"properties":{"root":{"$ref":"#/$defs/n"}}}`, 64, true},
		{"a list of lists", `{"type":"object","$defs":{"l":{"type":"array","items":{"anyOf":[{"type":"integer"},{"$ref":"#/$defs/l"}]}}},"properties":{"x":{"$ref":"#/$defs/l"}}}`, 64, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := compileSchema(json.RawMessage(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- checkWork(v, tt.depth, 20_000) }()
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("the check did not return")
			}
			if (err == nil) != tt.ok {
				t.Errorf("err = %v, want ok %v", err, tt.ok)
			}
			if err != nil && !strings.Contains(err.Error(), "toolreg.WithMaxDepth") {
				t.Errorf("the error does not say what to do: %v", err)
			}
		})
	}
}

// TestPathWorkDoublesWithTheDepth: on a schema whose branches recurse
// into the same child, PathWork doubles with each level, as the
// validator's work does; CompileDynamic refuses it at the default depth
// and takes it when the arguments may nest 10 levels.
func TestPathWorkDoublesWithTheDepth(t *testing.T) {
	schema := `{"type":"object","$defs":{"n":{"allOf":[{"properties":{"a":{"$ref":"#/$defs/n"}}},{"properties":{"a":{"$ref":"#/$defs/n"}}}]}},"properties":{"a":{"$ref":"#/$defs/n"}}}`
	v, err := compileSchema(json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	prev := 0
	for depth := 1; depth <= 12; depth++ {
		n := PathWork(v, depth, 1<<30)
		if n < 2*prev-8 { // it doubles with each level, as the validator's work
			t.Errorf("depth %d: %d, after %d", depth, n, prev)
		}
		prev = n
	}
	_, err = CompileDynamic(json.RawMessage(schema), Limits{MaxBytes: 1 << 20, MaxDepth: 64, MaxValues: 10_000, MaxSchemaNodes: 20_000})
	if err == nil || !strings.Contains(err.Error(), "64 levels deep") {
		t.Errorf("err = %v", err)
	}
	if _, err := CompileDynamic(json.RawMessage(schema), Limits{MaxBytes: 1 << 20, MaxDepth: 10, MaxValues: 10_000, MaxSchemaNodes: 20_000}); err != nil {
		t.Errorf("at depth 10: %v", err)
	}
}
