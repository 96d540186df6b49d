// Command record runs the trip scenario (package trip) on an in-process
// Temporal server, with an in-memory SQLite store, and writes the run's
// history for the replay test of package tooltemporal. Halfway, while the
// run waits for the host, it stops the worker and starts another, which
// rebuilds the run from its history before the decisions arrive.
//
// With -bench N it times N trips on the server against the same trips
// through the plain runner (Chat.Run, then Chat.Run again once decided).
//
// With -serve it only runs the server, until interrupted, and prints its
// address: for trying the durable example's -address mode where the
// temporal CLI is not at hand.
//
// Record again when a change to the workflow is meant to change its
// history, under a new file name: keep the old histories, so that the test
// checks that runs started before the change still replay.
//
//	cd tooltemporal/internal/record && GOWORK=off go run . -o ../../testdata/trip.history.json
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/tooltemporal"
	"github.com/toolreg/toolreg/tooltemporal/internal/trip"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"go.temporal.io/server/temporaltest"
)

func main() {
	out := flag.String("o", "trip.history.json", "the file to write the history to")
	serve := flag.Bool("serve", false, "only run the server, until interrupted")
	bench := flag.Int("bench", 0, "time this many trips on the server and through the plain runner, instead of recording")
	flag.Parse()
	var err error
	switch {
	case *serve:
		err = serveUntilInterrupted()
	case *bench > 0:
		err = timeTrips(*bench)
	default:
		err = record(*out)
	}
	if err != nil {
		log.Fatal(err)
	}
}

func serveUntilInterrupted() error {
	ts := temporaltest.NewServer()
	defer ts.Stop()
	fmt.Println("serving on", ts.GetFrontendHostPort(), "namespace", ts.GetDefaultNamespace())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	return nil
}

// newServer starts an in-process server whose client logs warnings only.
func newServer() *temporaltest.TestServer {
	quiet := sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	return temporaltest.NewServer(temporaltest.WithBaseClientOptions(client.Options{Logger: quiet}))
}

// waitForPause waits until the trip waits for the host's decisions.
func waitForPause(ctx context.Context, c client.Client, run client.WorkflowRun) error {
	for {
		pending, err := tooltemporal.Pending(ctx, c, run.GetID(), run.GetRunID())
		if err != nil {
			return fmt.Errorf("querying the pending calls: %w", err)
		}
		if len(pending) == len(trip.Decisions()) {
			return nil
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// decide sends the host's decisions.
func decide(ctx context.Context, c client.Client, run client.WorkflowRun) error {
	_, err := tooltemporal.Decide(ctx, c, run.GetID(), run.GetRunID(), trip.Decisions()...)
	return err
}

func record(out string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ts := newServer()
	defer ts.Stop()
	c := ts.GetDefaultClient()

	script := trip.Script()
	chat, stop := script.Client()
	defer stop()
	reg := trip.Registry()
	newWorker := func(identity string) worker.Worker {
		return ts.NewWorkerWithOptions(trip.TaskQueue, trip.Agent(reg, &chat).Register, worker.Options{Identity: identity})
	}
	first := newWorker("worker-1")

	in, err := trip.Input(reg)
	if err != nil {
		return err
	}
	agents := trip.Agent(reg, &chat)
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "trip", TaskQueue: trip.TaskQueue}, agents.Name(), in)
	if err != nil {
		return err
	}
	if err := waitForPause(ctx, c, run); err != nil {
		return err
	}
	first.Stop()
	second := newWorker("worker-2")
	defer second.Stop()
	if err := decide(ctx, c, run); err != nil {
		return fmt.Errorf("deciding: %w", err)
	}
	res, err := tooltemporal.Get(ctx, run)
	if err != nil {
		return fmt.Errorf("the run: %w", err)
	}

	var h historypb.History
	iter := c.GetWorkflowHistory(ctx, run.GetID(), run.GetRunID(), false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for iter.HasNext() {
		e, err := iter.Next()
		if err != nil {
			return err
		}
		h.Events = append(h.Events, e)
	}
	b, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(&h)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Printf("%d events, %d model calls, %d steps: written to %s\n", len(h.Events), script.Asked.Load(), res.State.Steps, out)
	return nil
}

// timeTrips times n trips as workflows on an in-process server, and n
// through the plain runner.
func timeTrips(n int) error {
	ctx := context.Background()
	ts := newServer()
	defer ts.Stop()
	c := ts.GetDefaultClient()
	script := trip.Script()
	chat, stop := script.Client()
	defer stop()
	reg := trip.Registry()
	agents := trip.Agent(reg, &chat)
	ts.NewWorker(trip.TaskQueue, func(r worker.Registry) {
		agents.Register(r)
		r.RegisterWorkflowWithOptions(emptyActivities, workflow.RegisterOptions{Name: "empty"})
		r.RegisterActivityWithOptions(func(context.Context) error { return nil }, activity.RegisterOptions{Name: "nothing"})
	})
	in, err := trip.Input(reg)
	if err != nil {
		return err
	}

	// What the server costs alone: as many activities in a row as the
	// trip's turns and an empty workflow around them.
	baseline := func(i int) error {
		run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: fmt.Sprintf("empty-%d", i), TaskQueue: trip.TaskQueue}, "empty")
		if err != nil {
			return err
		}
		return run.Get(ctx, nil)
	}
	onServer := func(i int) error {
		run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: fmt.Sprintf("trip-%d", i), TaskQueue: trip.TaskQueue}, agents.Name(), in)
		if err != nil {
			return err
		}
		if err := waitForPause(ctx, c, run); err != nil {
			return err
		}
		if err := decide(ctx, c, run); err != nil {
			return err
		}
		_, err = tooltemporal.Get(ctx, run)
		return err
	}
	adapter := toolopenai.NewChat(reg)
	runner := func(int) error {
		st := in.State
		params := openai.ChatCompletionNewParams{Model: "scripted"}
		run, err := adapter.Run(ctx, &chat, params, &st, agent.Options{})
		if !errors.Is(err, agent.ErrPaused) {
			return fmt.Errorf("the runner did not pause: %w", err)
		}
		st = *run.State
		st.Approve("call_4")
		st.Answer("call_5", "double")
		_, err = adapter.Run(ctx, &chat, params, &st, agent.Options{})
		return err
	}
	var took [3]time.Duration
	for k, do := range []func(int) error{onServer, runner, baseline} {
		do(-1 - k) // warm up
		start := time.Now()
		for i := range n {
			if err := do(i); err != nil {
				return err
			}
		}
		took[k] = time.Since(start) / time.Duration(n)
	}
	fmt.Printf("a trip (4 model calls, 5 tool calls, 1 pause): %v as a workflow on the in-process server, %v through the runner (%.0f×), means of %d\n",
		took[0].Round(time.Microsecond), took[1].Round(time.Microsecond), float64(took[0])/float64(took[1]), n)
	fmt.Printf("the server alone: a workflow of 9 empty activities in the trip's rounds (1 and 2, 1 and 1, 1 and 2, 1): %v\n", took[2].Round(time.Microsecond))
	return nil
}

// emptyActivities schedules activities as the trip does (4 rounds: a model
// call, then 2, 1 and 2 tool calls), each doing nothing.
func emptyActivities(ctx workflow.Context) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
	for _, calls := range []int{2, 1, 2, 0} {
		if err := workflow.ExecuteActivity(ctx, "nothing").Get(ctx, nil); err != nil {
			return err
		}
		var fs []workflow.Future
		for range calls {
			fs = append(fs, workflow.ExecuteActivity(ctx, "nothing"))
		}
		for _, f := range fs {
			if err := f.Get(ctx, nil); err != nil {
				return err
			}
		}
	}
	return nil
}
