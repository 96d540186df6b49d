package adapt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/internal/dialect"
)

func TestStrictnessLower(t *testing.T) {
	plain := toolreg.MustNew("plain", "d", func(context.Context, struct {
		A *int `json:"a,omitempty"`
	}) (string, error) {
		return "", nil
	})
	open := toolreg.MustNew("open", "d", func(context.Context, struct {
		M map[string]int `json:"m"`
	}) (string, error) {
		return "", nil
	})
	tests := []struct {
		name       string
		s          Strictness
		tool       toolreg.AnyTool
		wantStrict bool
		wantErr    bool
	}{
		{"not asked", Strictness{}, plain, false, false},
		{"all", Strictness{All: true}, plain, true, false},
		{"named", Strictness{Tools: map[string]bool{"plain": true}}, plain, true, false},
		{"named other", Strictness{Tools: map[string]bool{"other": true}}, plain, false, false},
		{"cannot be strict", Strictness{All: true}, open, false, true},
		{"cannot be strict, fallback", Strictness{All: true, Fallback: true}, open, false, false},
	}
	for _, tt := range tests {
		st, err := tt.s.Lower(tt.tool, dialect.OpenAIStrict)
		if (err != nil) != tt.wantErr || tt.wantErr && !errors.Is(err, toolreg.ErrUnsupportedSchema) {
			t.Errorf("%s: err = %v", tt.name, err)
		}
		if (st.Schema != nil) != tt.wantStrict || (st.Strip != nil) != tt.wantStrict {
			t.Errorf("%s: schema %s, strip %v", tt.name, st.Schema, st.Strip)
		}
	}
}

// TestConfigure: what the strict-mode options choose, alone and together,
// a zero option doing nothing.
func TestConfigure(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []func(*Strictness)
		want Strictness
	}{
		{"none", nil, Strictness{}},
		{"all", []func(*Strictness){StrictAll}, Strictness{All: true}},
		{"tools add up", []func(*Strictness){StrictTools([]string{"a"}), StrictTools([]string{"b", "a"})},
			Strictness{Tools: map[string]bool{"a": true, "b": true}}},
		{"fallback", []func(*Strictness){StrictAll, StrictFallback}, Strictness{All: true, Fallback: true}},
		{"a zero option", []func(*Strictness){nil, StrictAll}, Strictness{All: true}},
	} {
		got := Configure(tc.opts, func(o func(*Strictness)) func(*Strictness) { return o })
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestDefs: each tool is built once, its error kept with it; All keeps
// the registry's order and joins the errors; Lookup finds neither an
// unknown tool nor one that failed.
func TestDefs(t *testing.T) {
	tool := func(name string) toolreg.AnyTool {
		return toolreg.MustNew(name, "d", func(context.Context, struct{}) (string, error) { return "", nil })
	}
	reg := toolreg.NewRegistry()
	reg.MustAdd(tool("a"), tool("bad"), tool("c"))
	builds := map[string]int{}
	defs := NewDefs(reg, func(t toolreg.AnyTool) (string, error) {
		builds[t.Name()]++
		if t.Name() == "bad" {
			return "", fmt.Errorf("tool %q: no", t.Name())
		}
		return "def " + t.Name(), nil
	})
	for range 2 {
		tools, es, err := defs.All()
		if len(tools) != 3 || !strings.Contains(fmt.Sprint(err), `tool "bad": no`) {
			t.Fatalf("All: %d tools, err %v", len(tools), err)
		}
		if diff := cmp.Diff([]string{"def a", "", "def c"}, es); diff != "" {
			t.Errorf("All (-want +got):\n%s", diff)
		}
	}
	if diff := cmp.Diff(map[string]int{"a": 1, "bad": 1, "c": 1}, builds); diff != "" {
		t.Errorf("builds (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		name string
		want string
		ok   bool
	}{{"a", "def a", true}, {"bad", "", false}, {"nope", "", false}} {
		if got, ok := defs.Lookup(tc.name); got != tc.want || ok != tc.ok {
			t.Errorf("Lookup(%q) = %q, %v; want %q, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
	reg.MustAdd(tool("late"))
	if got, ok := defs.Lookup("late"); got != "def late" || !ok {
		t.Errorf("a tool added later: %q, %v", got, ok)
	}
}

// TestStripNulls: a strict tool's placeholder nulls go; anything else
// stays as it came.
func TestStripNulls(t *testing.T) {
	strip, err := dialect.NewNullStripper(json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"}},"required":["b"],"additionalProperties":false}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		strip *dialect.NullStripper
		args  string
		want  string
	}{
		{"strict", strip, `{"a":null,"b":"x"}`, `{"b":"x"}`},
		{"not strict", nil, `{"a":null,"b":"x"}`, `{"a":null,"b":"x"}`},
		{"not JSON", strip, `{"a":`, `{"a":`},
	} {
		if got := string(Strict{Strip: tc.strip}.StripNulls([]byte(tc.args))); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

// TestUnsupported: an adapter's error keeps its own text and matches the
// one sentinel callers branch on.
func TestUnsupported(t *testing.T) {
	err := fmt.Errorf("%w: tool %q: %w", Unsupported("tool cannot be sent in strict mode"), "tag", errors.New("schema at labels: an open map"))
	if !errors.Is(err, toolreg.ErrUnsupportedSchema) {
		t.Errorf("%v does not match toolreg.ErrUnsupportedSchema", err)
	}
	if want := `tool cannot be sent in strict mode: tool "tag": schema at labels: an open map`; err.Error() != want {
		t.Errorf("text %q, want %q", err.Error(), want)
	}
	if errors.Is(Unsupported("x"), toolreg.ErrInvalidArguments) {
		t.Error("matches another sentinel")
	}
}

// TestNamed checks both ways Named looks a name up: a short list searched
// in place, a long one through a set.
func TestNamed(t *testing.T) {
	long := make([]string, 40)
	for i := range long {
		long[i] = fmt.Sprintf("tool%d", i)
	}
	for _, names := range [][]string{nil, {"a", "b"}, long} {
		named := Named(names)
		for _, n := range names {
			if !named(n) {
				t.Errorf("Named(%d names)(%q) = false, want true", len(names), n)
			}
		}
		for _, n := range []string{"", "c", "tool40", "Tool1", "tool1 "} {
			if named(n) {
				t.Errorf("Named(%d names)(%q) = true, want false", len(names), n)
			}
		}
	}
}

// TestStepTools checks that a step offering the last step's tools gets the
// last definitions without a build, and any other step a build of its own.
func TestStepTools(t *testing.T) {
	var c StepTools[string]
	builds := 0
	build := func(tools []toolreg.AnyTool) ([]string, error) {
		builds++
		var names []string
		for _, t := range tools {
			names = append(names, t.Name())
		}
		if slices.Contains(names, "bad") {
			return nil, errors.New("no definition")
		}
		return names, nil
	}
	steps := []struct {
		names      []string
		wantBuilds int
		wantErr    bool
	}{
		{[]string{"a", "b"}, 1, false},
		{[]string{"a", "b"}, 1, false}, // the same tools: no build
		{[]string{"a"}, 2, false},
		{nil, 3, false},
		{nil, 3, false},
		{[]string{"bad"}, 4, true},
		{[]string{"bad"}, 5, true}, // an error is not kept
		{[]string{"a"}, 6, false},
	}
	for i, s := range steps {
		var tools []toolreg.AnyTool
		for _, n := range s.names {
			tools = append(tools, namedTool(n))
		}
		got, err := c.For(tools, build)
		if (err != nil) != s.wantErr || builds != s.wantBuilds {
			t.Fatalf("step %d: err %v after %d builds, want error %v after %d", i, err, builds, s.wantErr, s.wantBuilds)
		}
		if diff := cmp.Diff(s.names, got); err == nil && diff != "" {
			t.Errorf("step %d: tools (-want +got):\n%s", i, diff)
		}
	}
}

// namedTool is a tool of that name, which takes nothing.
type namedTool string

func (n namedTool) Name() string                  { return string(n) }
func (n namedTool) Description() string           { return "A tool." }
func (n namedTool) InputSchema() json.RawMessage  { return json.RawMessage(`{"type":"object"}`) }
func (n namedTool) OutputSchema() json.RawMessage { return nil }
func (n namedTool) Invoke(context.Context, json.RawMessage) toolreg.Output {
	return toolreg.Output{Text: string(n)}
}
