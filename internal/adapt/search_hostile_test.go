package adapt

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
)

// searchRun is a run over a registry of one tool declared and one
// deferred, for calling the tool search directly.
func searchRun(search agent.ToolSearcher) (*Run, *agent.Step) {
	reg := toolreg.NewRegistry()
	reg.MustAdd(
		toolreg.MustNew("get_weather", "Weather for a city.", func(context.Context, struct{}) (string, error) { return "", nil }),
		toolreg.MustNew("refund_order", "Refund an order.", func(context.Context, struct{}) (string, error) { return "", nil }, toolreg.WithDeferred()),
	)
	r := &Run{Registry: reg, State: &agent.State{}, Options: agent.Options{Search: search}}
	return r, agent.NewDeclaredStep(1, reg, r.declare())
}

func callSearch(r *Run, step *agent.Step, args string) toolreg.Output {
	return r.answerSearch(context.Background(), step, toolreg.ToolCall{ID: "1", Name: agent.SearchToolName, Arguments: json.RawMessage(args)})
}

// TestSearchArgumentsLie: the search's arguments are checked against the
// schema the model is sent, as any tool's, in the registry's words: no Go
// internals, a member named twice refused, an integer written 2.0 taken.
func TestSearchArgumentsLie(t *testing.T) {
	r, step := searchRun(nil)
	for _, args := range []string{`{"query":"refund","limit":1e9}`, `{"query":5}`, `{"query":"refund","limit":1.5}`,
		`{"query":"refund","limit":0}`, `{"query":"x","query":"refund order"}`, `{"query":"refund","extra":1}`, `[]`, `{"query":"` + strings.Repeat("a", agent.MaxSearchQuery+1) + `"}`} {
		out := callSearch(r, step, args)
		if !out.IsError || !errors.Is(out.Err, toolreg.ErrInvalidArguments) || strings.Contains(out.Text, "Go ") || len(r.State.Loaded) != 0 {
			t.Errorf("%.80s: error %v, %v, loaded %v: %s", args, out.IsError, out.Err, r.State.Loaded, out.Text)
		}
	}
	if out := callSearch(r, step, `{"query":"refund order","limit":2.0}`); out.IsError || len(r.State.Loaded) != 1 {
		t.Errorf("limit 2.0: %s (loaded %v)", out.Text, r.State.Loaded)
	}
}

type failingSearcher struct{ panics bool }

func (f failingSearcher) Search(context.Context, string, []toolreg.AnyTool, int) ([]string, error) {
	if f.panics {
		var m map[string]int
		m["x"]++
	}
	return nil, errors.New("POST https://10.0.3.7:9200/tools/_search?api_key=sk-live-123: connection refused")
}

// TestSearcherFails: the host's searcher failing or panicking is a result
// the model reads, which names neither the host's error nor its stack; the
// host finds both in Err.
func TestSearcherFails(t *testing.T) {
	for _, panics := range []bool{false, true} {
		r, step := searchRun(failingSearcher{panics: panics})
		out := callSearch(r, step, `{"query":"refund"}`)
		if !out.IsError || strings.Contains(out.Text, "sk-live") || strings.Contains(out.Text, "goroutine") || out.Err == nil {
			t.Errorf("panics %v: %s (err %v)", panics, out.Text, out.Err)
		}
		if panics && !errors.Is(out.Err, toolreg.ErrToolPanic) {
			t.Errorf("a panic's Err: %v", out.Err)
		}
	}
}

// TestOnlyADeferredToolKeepsTheSearch: a step that offers only a deferred
// tool the model has not found keeps the search, so a required call can be
// made (the search) rather than being sent as no call at all.
func TestOnlyADeferredToolKeepsTheSearch(t *testing.T) {
	_, step := searchRun(nil)
	if err := step.Only("refund_order"); err != nil {
		t.Fatal(err)
	}
	step.Choice = agent.Required
	if err := step.Check(); err != nil {
		t.Fatal(err)
	}
	allowed, restricted := step.Restriction()
	if !restricted || len(allowed) != 1 || allowed[0] != agent.SearchToolName || !step.Allows(agent.SearchToolName) {
		t.Errorf("restriction %v %v; the search allowed: %v", allowed, restricted, step.Allows(agent.SearchToolName))
	}
	if err := step.Hide(agent.SearchToolName); err != nil || step.Allows(agent.SearchToolName) {
		t.Errorf("Hide of the search: %v; still allowed: %v", err, step.Allows(agent.SearchToolName))
	}
}
