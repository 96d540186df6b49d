package dialect

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
)

// FuzzLower lowers arbitrary bytes with every dialect: no panic, the input
// untouched, and either an *Error matching ErrUnsupported or valid,
// deterministic JSON that obeys the provider's rules. Seeds: the canonical
// schemas under testdata/canonical and testdata/fuzz/FuzzLower.
func FuzzLower(f *testing.F) {
	addCanonicalSeeds(f)
	f.Fuzz(func(t *testing.T, schema []byte) {
		before := bytes.Clone(schema)
		for _, d := range dialects {
			out, err := d.lower(schema)
			if !bytes.Equal(schema, before) {
				t.Fatalf("%s changed its input", d.name)
			}
			if err != nil {
				var de *Error
				if !errors.As(err, &de) || !errors.Is(err, ErrUnsupported) {
					t.Fatalf("%s: error %v (%T) is not an *Error matching ErrUnsupported", d.name, err, err)
				}
				continue
			}
			if !json.Valid(out) {
				t.Fatalf("%s: invalid JSON %s", d.name, out)
			}
			if v := d.rules(out); len(v) > 0 {
				t.Fatalf("%s: %s breaks the rules: %v", d.name, out, v)
			}
			if again, _ := d.lower(schema); !bytes.Equal(out, again) {
				t.Fatalf("%s: not deterministic:\n%s\n%s", d.name, out, again)
			}
		}
		if s, err := NewNullStripper(schema); err == nil {
			for _, args := range []string{`{"a":null,"b":[{"c":null}],"d":{"e":null}}`, `null`, `[null]`} {
				if _, err := s.Strip([]byte(args)); err != nil {
					t.Fatalf("Strip(%s): %v", args, err)
				}
			}
		}
	})
}

// FuzzStrip strips arbitrary arguments under arbitrary schemas: no panic,
// valid JSON in gives valid JSON out, no longer than the input, and a
// second Strip changes nothing.
func FuzzStrip(f *testing.F) {
	f.Add(readFile(f, "testdata/fixtures/canonical.schema.json"), []byte(`{"location":"Paris","unit":null,"days":null}`))
	f.Add(readFile(f, "testdata/canonical/core_tree.json"), []byte(`{"root":{"name":"r","children":[{"name":"a","children":null}]},"focus":null}`))
	f.Add(readFile(f, "testdata/canonical/core_nested.json"), []byte(`{"home":{"street":"s","city":"c","zip":null},"work":null,"stops":[{"zip":null}],"notes":null}`))
	f.Fuzz(func(t *testing.T, schema, args []byte) {
		s, err := NewNullStripper(schema)
		if err != nil {
			return
		}
		before := bytes.Clone(args)
		out, err := s.Strip(args)
		if !bytes.Equal(args, before) {
			t.Fatal("Strip changed its input")
		}
		if err != nil {
			if json.Valid(args) && !errors.Is(err, errDeep) {
				t.Fatalf("Strip(%s) refused valid JSON: %v", args, err)
			}
			return
		}
		if json.Valid(args) && !json.Valid(out) {
			t.Fatalf("Strip(%s) = %s, not valid JSON", args, out)
		}
		if len(out) > len(args) {
			t.Fatalf("Strip(%s) = %s grew", args, out)
		}
		if again, err := s.Strip(out); err != nil || !bytes.Equal(again, out) {
			t.Fatalf("Strip(Strip(%s)) = %s, %v; want %s", args, again, err, out)
		}
		if json.Valid(args) && !duplicateKeys(args) {
			in, _ := decodeJSON(args)
			got, _ := decodeJSON(out)
			if !onlyNullsRemoved(in, got) {
				t.Fatalf("Strip(%s) = %s: more than null members removed", args, out)
			}
		}
	})
}

// onlyNullsRemoved reports whether out is in less some object members
// whose value was null.
func onlyNullsRemoved(in, out any) bool {
	switch iv := in.(type) {
	case map[string]any:
		ov, ok := out.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range iv {
			o, kept := ov[k]
			if !kept && v != nil || kept && !onlyNullsRemoved(v, o) {
				return false
			}
		}
		return len(ov) <= len(iv)
	case []any:
		ov, ok := out.([]any)
		if !ok || len(ov) != len(iv) {
			return false
		}
		for i := range iv {
			if !onlyNullsRemoved(iv[i], ov[i]) {
				return false
			}
		}
		return true
	}
	return in == out
}

// duplicateKeys reports whether an object in the valid JSON b repeats a
// key, which makes decoded comparisons meaningless.
func duplicateKeys(b []byte) bool {
	d := json.NewDecoder(bytes.NewReader(b))
	var stack []map[string]bool // nil entries for arrays
	expectKey := func() bool { return len(stack) > 0 && stack[len(stack)-1] != nil }
	key := true
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, map[string]bool{})
			key = true
			continue
		case json.Delim('['):
			stack = append(stack, nil)
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			key = expectKey()
			continue
		}
		if expectKey() && key {
			k := tok.(string)
			if stack[len(stack)-1][k] {
				return true
			}
			stack[len(stack)-1][k] = true
			key = false
			continue
		}
		key = expectKey()
	}
}

func addCanonicalSeeds(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "canonical", "*.json"))
	for _, file := range files {
		f.Add(readFile(f, file))
	}
	f.Add(readFile(f, "testdata/fixtures/canonical.schema.json"))
}
