// Command record runs the trip scenario (package trip) on an in-process
// Temporal server, with an in-memory SQLite store, and writes the run's
// history for the replay test of package tooltemporal. Halfway, while the
// run waits for the host, it stops the worker and starts another, which
// rebuilds the run from its history before the decisions arrive.
//
// With -serve it only runs the server, until interrupted, and prints its
// address: for trying the durable example's -address mode where the
// temporal CLI is not at hand.
//
// Record again when a change to the workflow is meant to change its
// history, under a new file name: keep the old histories, so that the test
// checks that runs started before the change still replay.
//
//	cd temporal/internal/record && GOWORK=off go run . -o ../../testdata/trip.history.json
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	tooltemporal "github.com/toolreg/toolreg/temporal"
	"github.com/toolreg/toolreg/temporal/internal/trip"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/server/temporaltest"
)

func main() {
	out := flag.String("o", "trip.history.json", "the file to write the history to")
	serve := flag.Bool("serve", false, "only run the server, until interrupted")
	flag.Parse()
	var err error
	if *serve {
		err = serveUntilInterrupted()
	} else {
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

func record(out string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	quiet := sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	ts := temporaltest.NewServer(temporaltest.WithBaseClientOptions(client.Options{Logger: quiet}))
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
	for {
		pending, err := tooltemporal.Pending(ctx, c, run.GetID(), "")
		if err != nil {
			return fmt.Errorf("querying the pending calls: %w", err)
		}
		if len(pending) == 2 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	first.Stop()
	second := newWorker("worker-2")
	defer second.Stop()
	if _, err := tooltemporal.Decide(ctx, c, run.GetID(), "", trip.Decisions()...); err != nil {
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
