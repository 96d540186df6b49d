package tooltemporal

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/tooltemporal/internal/offline"
)

// TestDeferredToolSearch: a deferred tool is left out of the model calls
// until the model finds it with the loop's tool search, which the workflow
// answers; then the activity declares it, after the others, and its call
// runs as an activity.
func TestDeferredToolSearch(t *testing.T) {
	var s seen
	reg := testRegistry(&s)
	reg.MustAdd(toolreg.MustNew("refund", "Refunds an order.", func(ctx context.Context, a struct {
		Order string `json:"order"`
	}) (string, error) {
		s.add(ctx)
		return "refunded " + a.Order, nil
	}, toolreg.WithDeferred()))
	script := &offline.Script{Replies: []offline.Reply{
		reply(offline.Call{ID: "s", Name: agent.SearchToolName, Arguments: `{"query":"refund an order"}`}),
		reply(offline.Call{ID: "r", Name: "refund", Arguments: `{"order":"A1"}`}),
		say("Refunded."),
	}}
	a := newAgent(t, reg, script, Options{Tool: ToolOptions{Retry: fastRetry}})
	r := runIn(t, newEnv(t), a, Input{Model: "scripted", State: firstState(t, reg, "refund A1")}, nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	all := []string{"weather", "book", "pick", "lookup", "flaky", "broken", "final", "halt", "slow", agent.SearchToolName}
	found := append(all[:len(all):len(all)], "refund")
	if diff := gocmp.Diff([][]string{all, found, found}, script.Offered()); diff != "" {
		t.Errorf("tools declared to the provider (-want +got):\n%s", diff)
	}
	lines := transcript(t, r.res.State)
	if len(lines) != 6 || !strings.HasPrefix(lines[2], "tool s: found 1 tool") || !strings.Contains(lines[2], "- refund: Refunds an order.") || lines[4] != "tool r: refunded A1" {
		t.Errorf("transcript %q", lines)
	}
	if diff := gocmp.Diff([]string{"refund"}, r.res.State.Loaded); diff != "" {
		t.Errorf("State.Loaded (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff([]ran{{Tool: "refund", ID: "r", Step: 2, Attempt: 1, Activity: 1}}, s.list()); diff != "" {
		t.Errorf("tool calls (-want +got):\n%s", diff)
	}
}

// TestWireStepNames: a step of the history names the tools it declares;
// one the registry lacks, or named twice, is an error, not a request.
func TestWireStepNames(t *testing.T) {
	reg := testRegistry(&seen{})
	for _, declared := range [][]string{{"weather", "drop_tables"}, {"weather", "weather"}} {
		in := &step{Number: 1, Tools: []string{"weather"}, Declared: declared}
		if _, err := in.agentStep(reg); !errors.Is(err, agent.ErrInvalidStep) || !strings.Contains(err.Error(), declared[1]) {
			t.Errorf("declared %q: err = %v, want ErrInvalidStep", declared, err)
		}
	}
	// The loop's search is declared when the registry holds no tool of
	// its name, and offered only when the step offers it.
	in := &step{Number: 1, Tools: []string{"weather"}, Declared: []string{"weather", agent.SearchToolName}}
	s, err := in.agentStep(reg)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range s.Declared() {
		names = append(names, tl.Name())
	}
	if diff := gocmp.Diff([]string{"weather", agent.SearchToolName}, names); diff != "" || s.Allows(agent.SearchToolName) {
		t.Errorf("declared (-want +got):\n%s; search offered: %v", diff, s.Allows(agent.SearchToolName))
	}
}

// TestWireStepDeclaresNone: a step that declares no tool still declares
// none once it went through JSON, as the history stores it; a step of an
// older history, without the member, declares every tool.
func TestWireStepDeclaresNone(t *testing.T) {
	reg := testRegistry(&seen{})
	for _, tt := range []struct {
		name string
		wire func(t *testing.T) []byte
		want int
	}{
		{"declares none", func(t *testing.T) []byte {
			b, err := json.Marshal(&step{Number: 1, Declared: make([]string, 0)})
			if err != nil {
				t.Fatal(err)
			}
			return b
		}, 0},
		{"older history", func(*testing.T) []byte { return []byte(`{"number":1,"tools":null,"choice":{}}`) }, len(agent.NewStep(1, reg).Declared())},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var in step
			if err := json.Unmarshal(tt.wire(t), &in); err != nil {
				t.Fatal(err)
			}
			s, err := in.agentStep(reg)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(s.Declared()); got != tt.want || tt.want == 0 && len(s.Tools()) != 0 {
				t.Errorf("declared %d tools, offered %v; want %d declared", got, s.Tools(), tt.want)
			}
		})
	}
}
