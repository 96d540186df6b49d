package tooltemporal_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/tooltemporal"
	"github.com/toolreg/toolreg/tooltemporal/internal/trip"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
)

// TestReplayRecordedHistories replays the histories of testdata, recorded
// on a Temporal server by internal/record, against the workflow as it is
// now: a change that makes the workflow take another path (other
// activities, in another order, or a wait where there was none) fails here
// before it fails the runs that are open in production.
func TestReplayRecordedHistories(t *testing.T) {
	files, err := filepath.Glob("testdata/*.history.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded history in testdata (%v)", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			agent := trip.Agent
			if strings.Contains(file, ".continued.") {
				agent = trip.Continued
			}
			if err := replay(file, agent(trip.Registry(), nil)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestReplayBeforeContinueAsNew: a run recorded before runs continued as
// new replays as it ran on workers whose runs continue as new where it
// paused: the choice is versioned.
func TestReplayBeforeContinueAsNew(t *testing.T) {
	if err := replay("testdata/trip.history.json", trip.Continued(trip.Registry(), nil)); err != nil {
		t.Fatal(err)
	}
}

// TestReplayCatchesAChange: the same history, replayed against a registry
// whose booking tool no longer needs approval, is refused: the workflow
// would book at once where the recorded run waited.
func TestReplayCatchesAChange(t *testing.T) {
	changed := toolreg.NewRegistry()
	for _, tool := range trip.Registry().Tools() {
		if tool.Name() == "book_hotel" {
			tool = toolreg.MustNew("book_hotel", "Books a hotel in a city.", func(context.Context, trip.CityArgs) (string, error) { return "booked", nil })
		}
		changed.MustAdd(tool)
	}
	err := replay("testdata/trip.history.json", trip.Agent(changed, nil))
	if err == nil || !strings.Contains(err.Error(), "TMPRL1100") { // the SDK's code for nondeterminism
		t.Fatalf("err = %v, want a nondeterminism error", err)
	}
}

func replay(file string, a *tooltemporal.Agent) error {
	r := worker.NewWorkflowReplayer()
	a.RegisterWorkflow(r)
	return r.ReplayWorkflowHistoryFromJSONFile(log.NewStructuredLogger(slog.New(slog.DiscardHandler)), file)
}

// TestReplayEmitsNothing: a worker that replays a run's history (after a
// restart, or to answer a Query) hands no event to Options.OnEvent and
// tells the Observer nothing: they were told when the run did what it
// replays.
func TestReplayEmitsNothing(t *testing.T) {
	var obs told
	events := 0
	a := trip.AgentWith(trip.Registry(), nil, tooltemporal.Options{OnEvent: func(tooltemporal.Event) { events++ }, Observer: &obs})
	if err := replay("testdata/trip.history.json", a); err != nil {
		t.Fatal(err)
	}
	if events != 0 || obs != 0 {
		t.Errorf("the replay emitted %d events and told the Observer %d times, want none", events, obs)
	}
}

// told counts what an Observer is told.
type told int

func (o *told) RunStarted(ctx context.Context, _ agent.RunInfo) context.Context { *o++; return ctx }
func (o *told) RunEnded(context.Context, agent.RunInfo, error)                  { *o++ }
func (o *told) ModelCallStarted(ctx context.Context, _ agent.ModelCall) context.Context {
	*o++
	return ctx
}
func (o *told) ModelCallEnded(context.Context, agent.ModelCall, agent.Usage, error) { *o++ }
