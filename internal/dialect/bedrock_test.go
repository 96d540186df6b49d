package dialect

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// bedrockRules: Bedrock's Converse API, for every model behind it: a plain
// object root, every $ref inlined, no oneOf or allOf; and compactRules.
func bedrockRules(out []byte) violations {
	v := compactRules(out)
	root, err := decodeJSON(out)
	if err != nil {
		return v
	}
	checkRootObject(&v, root)
	for _, n := range subschemas(root) {
		for _, k := range []string{"$ref", "$defs", "oneOf", "allOf"} {
			if _, ok := n.s[k]; ok {
				v.add(n.path, "%s sent", k)
			}
		}
	}
	return v
}

// TestBedrockGolden is TestGolden for Bedrock: every canonical schema,
// lowered, against testdata/golden/<schema>/bedrock.golden and the rules.
func TestBedrockGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "canonical", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no canonical schemas: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			input := readFile(t, file)
			out, err := Bedrock(input)
			var got []byte
			if err != nil {
				var de *Error
				if !errors.As(err, &de) {
					t.Fatalf("error %v (%T) is not an *Error", err, err)
				}
				got = []byte("error: " + err.Error() + "\n")
			} else {
				got = indent(t, out)
				for _, v := range bedrockRules(out) {
					t.Errorf("breaks the Bedrock rules: %s", v)
				}
			}
			golden := filepath.Join("testdata", "golden", name, "bedrock.golden")
			if *update {
				writeFile(t, golden, got)
			}
			if diff := cmp.Diff(string(readFile(t, golden)), string(got)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", golden, diff)
			}
		})
	}
}

// TestBedrockIsCompact: where a schema has nothing Bedrock refuses, it is
// sent exactly as Compact writes it; and the research fixture's tool
// schema is what Bedrock takes.
func TestBedrockIsCompact(t *testing.T) {
	for _, name := range []string{"core_optional", "core_enums", "core_bounds", "core_maps", "core_special", "core_empty"} {
		t.Run(name, func(t *testing.T) {
			input := readFile(t, filepath.Join("testdata", "canonical", name+".json"))
			want, err := Compact(input)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Bedrock(input)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("Bedrock differs from Compact (-compact +bedrock):\n%s", diff)
			}
		})
	}
}

func TestBedrockErrors(t *testing.T) {
	tests := []struct {
		name, schema string
		path, reason string // reason "": the schema must pass, and out must equal want
		want         string
	}{
		{"root not object", `{"type":"string"}`, "", "root schema of type object", ""},
		{"root anyOf", `{"type":"object","anyOf":[{"type":"object"}]}`, "", "anyOf at the root", ""},
		{"recursion", string(readFile(t, "testdata/canonical/core_tree.json")), "root.children[]", "recursive", ""},
		{"allOf of two", `{"type":"object","properties":{"a":{"allOf":[{"type":"string"},{"minLength":1}]}}}`, "a", "allOf with several", ""},
		{"not", `{"type":"object","properties":{"a":{"not":{"type":"string"}}}}`, "a", `"not"`, ""},
		{"ref inlined with its description",
			`{"type":"object","properties":{"a":{"$ref":"#/$defs/A","description":"the a"}},"$defs":{"A":{"type":"string","minLength":1}}}`,
			"", "", `{"type":"object","properties":{"a":{"type":"string","minLength":1,"description":"the a"}}}`},
		{"oneOf to anyOf, allOf merged",
			`{"type":"object","properties":{"a":{"oneOf":[{"type":"string"},{"type":"integer"}]},"b":{"allOf":[{"type":"boolean"}],"description":"b"}}}`,
			"", "", `{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"integer"}]},"b":{"type":"boolean","description":"b"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := Bedrock(json.RawMessage(tt.schema))
			if tt.reason == "" {
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(out, []byte(tt.want)) {
					t.Errorf("got  %s\nwant %s", out, tt.want)
				}
				return
			}
			var de *Error
			if !errors.As(err, &de) || de.Path != tt.path || !strings.Contains(de.Reason, tt.reason) {
				t.Errorf("err = %v, want an *Error at %q saying %q", err, tt.path, tt.reason)
			}
		})
	}
}
