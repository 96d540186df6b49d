package fakemodel

import (
	"encoding/json"

	"github.com/google/go-cmp/cmp"
)

// Called is a call the model made and what it was sent back: the tool's
// name, the arguments as scripted, and the result from the request that
// answered the call (empty when none did).
type Called struct {
	Name    string
	Args    string
	Result  string
	IsError bool
}

// Calls are the calls the script made, in order, each with the result
// the client sent back for it: the whole run as the model saw it.
// Compare them with cmp.Diff and EquateJSON, or with AssertCalls.
func (s *Server) Calls() []Called {
	out, _ := s.called()
	return out
}

// answered is how a call was answered: whether a request sent its result,
// and whether that request's API marks a failed call (OpenAI's do not).
type answered struct {
	found, marks bool
}

// called joins each call made with its result, and says how it was
// answered.
func (s *Server) called() ([]Called, []answered) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Called, len(s.made))
	how := make([]answered, len(s.made))
	used := map[[2]int]bool{} // request, result: each result answers one call
	for i, c := range s.made {
		out[i] = Called{Name: c.Name, Args: c.Args}
	find:
		for r := c.request + 1; r < len(s.requests); r++ {
			req := s.requests[r]
			if req.dialect == nil {
				continue
			}
			for j, res := range req.dialect.results(req.fields) {
				if used[[2]int{r, j}] || (res.ID != "" && res.ID != c.ID) || (res.ID == "" && res.Name != c.Name) {
					continue
				}
				used[[2]int{r, j}] = true
				out[i].Result, out[i].IsError = res.Text, res.IsError
				how[i] = answered{found: true, marks: marksErrors(req.dialect)}
				break find
			}
		}
	}
	return out, how
}

// marksErrors says whether d's tool results say that a call failed:
// OpenAI's carry only the text.
func marksErrors(d dialect) bool {
	switch d.(type) {
	case chat, responsesAPI:
		return false
	}
	return true
}

// AssertCalls fails the test, with a diff, unless the calls the script
// made and their results are want, in order (arguments and results that
// are JSON compared as JSON, so that key order and spacing do not count).
func (s *Server) AssertCalls(want ...Called) {
	if s.t == nil {
		panic("fakemodel: AssertCalls fails a test, and a server of Start has none: compare Calls instead")
	}
	s.t.Helper()
	if diff := cmp.Diff(want, s.Calls(), EquateJSON()); diff != "" {
		s.t.Errorf("fakemodel: calls and results (-want +got):\n%s", diff)
	}
}

// EquateJSON is a cmp option that compares strings holding a JSON object
// or array by what they hold, not how they are written.
func EquateJSON() cmp.Option {
	return cmp.FilterValues(func(a, b string) bool { return isJSON(a) && isJSON(b) },
		cmp.Transformer("ParseJSON", func(s string) any {
			var v any
			json.Unmarshal([]byte(s), &v)
			return v
		}))
}

func isJSON(s string) bool {
	var v any
	return len(s) > 0 && (s[0] == '{' || s[0] == '[') && json.Unmarshal([]byte(s), &v) == nil
}
