package adapt

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/internal/dialect"
)

var errNotStrict = errors.New("not strict")

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
		st, err := tt.s.Lower(tt.tool, dialect.OpenAIStrict, errNotStrict)
		if (err != nil) != tt.wantErr || tt.wantErr && !errors.Is(err, errNotStrict) {
			t.Errorf("%s: err = %v", tt.name, err)
		}
		if (st.Schema != nil) != tt.wantStrict || (st.Strip != nil) != tt.wantStrict {
			t.Errorf("%s: schema %s, strip %v", tt.name, st.Schema, st.Strip)
		}
	}
}

func TestCacheBuildsOnce(t *testing.T) {
	tool := toolreg.MustNew("t", "d", func(context.Context, struct{}) (string, error) { return "", nil })
	var c Cache[int]
	builds := 0
	build := func(toolreg.AnyTool) int { builds++; return builds }
	first, second := c.Get(tool, build), c.Get(tool, build)
	if first != 1 || second != 1 || builds != 1 {
		t.Errorf("built %d times", builds)
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
