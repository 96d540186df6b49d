package tokens

import "testing"

// TestCount pins counts that OpenAI's own tiktoken gives for o200k_base,
// so that a changed or mis-embedded vocabulary fails here and not as a
// drifting budget.
func TestCount(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{`{"type":"object"}`, 5},
		{"Weather forecast for a city.", 6},
	} {
		if got := Count(tc.text); got != tc.want {
			t.Errorf("Count(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
}
