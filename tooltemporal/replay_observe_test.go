package tooltemporal_test

import (
	"log/slog"
	"testing"

	"github.com/toolreg/toolreg/toolotel"
	"github.com/toolreg/toolreg/tooltemporal"
	"github.com/toolreg/toolreg/tooltemporal/internal/trip"
	"go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
)

// TestReplayEmitsNothing: a worker that replays a run's history (after a
// restart, or to answer a Query) hands no event to Options.OnEvent and
// records no span: they were emitted when the run did what it replays.
func TestReplayEmitsNothing(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	events := 0
	a := tooltemporal.New(trip.Registry(), tooltemporal.Options{
		OnEvent:  func(tooltemporal.Event) { events++ },
		Observer: toolotel.NewObserver(toolotel.WithTracerProvider(trace.NewTracerProvider(trace.WithSpanProcessor(spans)))),
	})
	r := worker.NewWorkflowReplayer()
	a.RegisterWorkflow(r)
	if err := r.ReplayWorkflowHistoryFromJSONFile(log.NewStructuredLogger(slog.New(slog.DiscardHandler)), "testdata/trip.history.json"); err != nil {
		t.Fatal(err)
	}
	if events != 0 || len(spans.Started()) != 0 {
		t.Errorf("the replay emitted %d events and started %d spans, want none", events, len(spans.Started()))
	}
}
