package agent

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// paused is a State as a runner leaves it: call 1 done, call 2 waiting
// for approval, call 3 interrupted.
func paused() *State {
	return &State{
		Provider: "openai.chat", Steps: 1, Transcript: json.RawMessage(`[]`),
		Retries: map[string]int{"lookup": 1}, RunRetries: 1,
		Turn: []Call{
			{ID: "1", Name: "weather", Arguments: json.RawMessage(`{}`), Index: 0, Status: StatusDone, Result: &Result{Text: "sunny"}},
			{ID: "2", Name: "book", Arguments: json.RawMessage(`{}`), Index: 1, Status: StatusApproval},
			{ID: "3", Name: "pick", Arguments: json.RawMessage(`{}`), Index: 2, Status: StatusInterrupted, Question: json.RawMessage(`"which?"`)},
		},
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(s *State)
		want string // in the error; "" for a valid State
	}{
		{"as the runner left it", func(*State) {}, ""},
		{"decided", func(s *State) {
			s.Turn[1].Status = StatusRejected
			s.Turn[2].Status, s.Turn[2].Answer = StatusAnswered, json.RawMessage(`"x"`)
		}, ""},
		{"a new run", func(s *State) { *s = State{Transcript: json.RawMessage(`[1]`)} }, ""},
		{"a cursor, no transcript", func(s *State) { s.Transcript, s.Cursor = nil, "resp_1" }, ""},
		{"steps below 0", func(s *State) { s.Steps = -50 }, "steps is -50"},
		{"run retries below 0", func(s *State) { s.RunRetries = -1 }, "run_retries is -1"},
		{"tools found", func(s *State) { s.Loaded = []string{"refund_order", "send_email"} }, ""},
		{"a tool found twice", func(s *State) { s.Loaded = []string{"refund_order", "refund_order"} }, `loaded: "refund_order" appears twice`},
		{"a tool found without a name", func(s *State) { s.Loaded = []string{""} }, "loaded: an empty tool name"},
		{"retries below 0", func(s *State) { s.Retries["lookup"] = -1 }, `retries of "lookup" is -1`},
		{"no provider", func(s *State) { s.Provider = "" }, "without a provider"},
		{"no transcript", func(s *State) { s.Transcript = nil }, "without a transcript"},
		{"index", func(s *State) { s.Turn[1].Index = 4 }, `call 2 ("book"): index is 4, at position 1`},
		{"duplicate ids", func(s *State) { s.Turn[2].ID = "1" }, `call 1 ("pick"): the key appears twice`},
		{"an id that is another's key", func(s *State) { s.Turn[0].ID, s.Turn[1].ID = "", "#0" }, "appears twice"},
		{"no name", func(s *State) { s.Turn[1].Name = "" }, "name is empty"},
		{"unknown status", func(s *State) { s.Turn[1].Status = "ran" }, `call 2 ("book"): status "ran"`},
		{"done without result", func(s *State) { s.Turn[0].Result = nil }, `call 1 ("weather"): result: a done call without its result`},
		{"result on a waiting call", func(s *State) { s.Turn[1].Result = &Result{} }, `call 2 ("book"): result: a call that is approval holds a result`},
		{"no question", func(s *State) { s.Turn[2].Question = nil }, `call 3 ("pick"): question`},
		{"no answer", func(s *State) { s.Turn[2].Status = StatusAnswered }, `call 3 ("pick"): answer`},
		{"a checkpoint", func(s *State) {
			s.Ran = []string{"1"}
			s.Turn[1].Status, s.Turn[2].Status, s.Turn[2].Question = StatusAsked, StatusAsked, nil
		}, ""},
		{"a done call asked again", func(s *State) {
			s.Ran = []string{"1"}
			s.Turn[0].Status, s.Turn[0].Result = StatusAsked, nil
		}, `call 1 ("weather"): status is asked, yet ran lists its id`},
		{"a call without an id that ran, waiting", func(s *State) {
			s.RunID, s.Ran = "r", []string{"r.1.1"}
			s.Turn[1].ID = ""
		}, `call #1 ("book"): status is approval, yet ran lists its id`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := paused()
			tt.edit(s)
			err := s.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidState) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want ErrInvalidState with %q", err, tt.want)
			}
		})
	}
}

func TestSeal(t *testing.T) {
	key := []byte("key")
	s := paused()
	if err := s.Verify(key); !errors.Is(err, ErrInvalidState) {
		t.Errorf("an unsealed State verified: %v", err)
	}
	if err := s.Reseal(key); !errors.Is(err, ErrInvalidState) {
		t.Errorf("an unsealed State was resealed: %v", err)
	}
	if err := s.seal(key); err != nil {
		t.Fatal(err)
	}
	if err := s.Verify(key); err != nil {
		t.Fatal(err)
	}
	if err := s.Verify([]byte("other")); !errors.Is(err, ErrInvalidState) {
		t.Errorf("verified with another key: %v", err)
	}
	// Decisions made here keep the seal valid; the same read from JSON
	// do not, until resealed.
	if err := s.ApproveWith("2", json.RawMessage(`{"city":"Oslo"}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.Answer("3", "Ritz"); err != nil {
		t.Fatal(err)
	}
	if err := s.Verify(key); err != nil {
		t.Errorf("after decisions: %v", err)
	}
	b, _ := json.Marshal(s)
	var back State
	json.Unmarshal(b, &back)
	if err := back.Verify(key); !errors.Is(err, ErrInvalidState) {
		t.Errorf("decisions read from JSON verified: %v", err)
	}
	if err := s.Reseal(key); err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(s)
	back = State{}
	json.Unmarshal(b, &back)
	if err := back.Verify(key); err != nil {
		t.Errorf("resealed, read from JSON: %v", err)
	}
	for _, seal := range []string{"", "hmac-sha256:", "hmac-sha256:!!", "sha1:abc", back.Seal + "A"} {
		c := back
		c.Seal = seal
		if err := c.Verify(key); !errors.Is(err, ErrInvalidState) {
			t.Errorf("seal %q verified: %v", seal, err)
		}
	}
	if err := (&State{}).Reseal(key); err != nil {
		t.Errorf("a new State: %v", err)
	}
	if err := back.Verify(nil); err == nil || errors.Is(err, ErrInvalidState) {
		t.Errorf("verified without a key: %v", err)
	}
}

// TestCallEqual: go-cmp compares Calls, decided here or not, by their
// JSON.
func TestCallEqual(t *testing.T) {
	s := paused()
	want := append([]Call(nil), s.Turn...)
	want[1].Status = StatusApproved
	s.Approve("2")
	if diff := cmp.Diff(want, s.Turn); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if cmp.Equal(s.Turn[0], s.Turn[1]) {
		t.Error("two calls are equal")
	}
}
