package adapt

import (
	"encoding/json"
	"testing"
)

// TestSameJSON: the arguments a stream handed over and the final
// response's agree when only their writing differs (white space, member
// order, string escapes), and differ when any value does.
func TestSameJSON(t *testing.T) {
	tests := []struct {
		a, b string
		same bool
	}{
		{`{"city":"Oslo","days":2}`, `{"city":"Oslo","days":2}`, true},
		{`{"city": "Oslo", "days": 2}`, `{"city":"Oslo","days":2}`, true},
		{`{"query":"go","limit":3}`, `{"limit":3,"query":"go"}`, true},
		{`{"note":"caf\u00e9 <b>"}`, `{"note":"café \u003cb\u003e"}`, true},
		{`{"n":12345678901234567890}`, `{"n":12345678901234567890}`, true},
		{`{"items":[1,2]}`, `{"items":[2,1]}`, false},
		{`{"n":12345678901234567890}`, `{"n":12345678901234567891}`, false},
		{`{"n":2}`, `{"n":2.0}`, false},
		{`{"city":"Oslo"}`, `{"city":"Rome"}`, false},
		{`{"city":"Oslo"}`, `{"city":"Oslo","days":2}`, false},
		{`{"city":"Oslo"}`, `{"city":"Oslo"} {}`, false},
		{`{"city":"Oslo"`, `{"city":"Oslo"`, true}, // the same bytes: whatever they are, the tool refuses both alike
		{`{"city":"Oslo"`, `{"city":"Oslo"}`, false},
		{`{"a":2}`, `{"a":1,"a":2}`, false}, // a member named twice: a tool refuses one and not the other
		{`{"a":1,"a":2}`, `{"a":2}`, false},
	}
	for _, tt := range tests {
		if got := sameJSON(json.RawMessage(tt.a), json.RawMessage(tt.b)); got != tt.same {
			t.Errorf("sameJSON(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.same)
		}
	}
}
