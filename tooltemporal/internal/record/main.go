// Command record runs the trip scenario (package trip) on an in-process
// Temporal server, with an in-memory SQLite store, and writes the run's
// history for the replay test of package tooltemporal. Halfway, while the
// run waits for the host, it stops the worker and starts another, which
// rebuilds the run from its history before the decisions arrive.
//
// With -bench N it times N trips on the server against the same trips
// through the plain runner (Chat.Run, then Chat.Run again once decided).
//
// With -continued PATTERN it records the trip on an Agent whose runs
// continue as new when they pause (trip.Continued): the first run's
// history, and the second's, decided by the workflow ID alone.
//
//	GOWORK=off go run . -continued ../../testdata/trip.continued.%d.history.json
//
// With -long N it runs N steps that continue as new every -every steps
// (the calls as activities, then inline), and one that does not, and
// prints the events and bytes of each run's history.
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
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/tooltemporal"
	"github.com/toolreg/toolreg/tooltemporal/internal/offline"
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
	"google.golang.org/protobuf/proto"
)

func main() {
	out := flag.String("o", "trip.history.json", "the file to write the history to")
	serve := flag.Bool("serve", false, "only run the server, until interrupted")
	bench := flag.Int("bench", 0, "time this many trips on the server and through the plain runner, instead of recording")
	continued := flag.String("continued", "", "record the trip that continues as new when it pauses, its runs' histories in files named by this pattern (%d: the run)")
	long := flag.Int("long", 0, "run this many steps, continuing as new every -every steps, and print each run's history size, instead of recording")
	every := flag.Int("every", 100, "with -long: Options.ContinueAfterSteps")
	flag.Parse()
	var err error
	switch {
	case *continued != "":
		err = recordContinued(*continued)
	case *long > 0:
		err = longRun(*long, *every)
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

// tripOn is the trip on an in-process server: its client, the scripted
// model and its client, the tools; end stops them.
type tripOn struct {
	ts     *temporaltest.TestServer
	c      client.Client
	script *offline.Script
	chat   openai.ChatCompletionService
	reg    *toolreg.Registry
	end    func()
}

func newTrip() *tripOn {
	ts := newServer()
	script := trip.Script()
	chat, stop := script.Client()
	return &tripOn{ts: ts, c: ts.GetDefaultClient(), script: script, chat: chat, reg: trip.Registry(), end: func() { stop(); ts.Stop() }}
}

func record(out string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	t := newTrip()
	defer t.end()
	ts, c, script, chat, reg := t.ts, t.c, t.script, t.chat, t.reg
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

	runs, err := chain(ctx, c, run.GetID(), run.GetRunID())
	if err != nil {
		return err
	}
	h := runs[0]
	b, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(h)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Printf("%d events, %d model calls, %d steps: written to %s\n", len(h.Events), script.Asked.Load(), res.State.Steps, out)
	return nil
}

// recordContinued records the trip on an agent whose runs continue as
// new after trip.ContinueAfterSteps steps: the first run pauses and
// continues as new, the second is decided (by the workflow ID alone, as a
// host that knows no run ID decides) and ends.
func recordContinued(pattern string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	t := newTrip()
	defer t.end()
	ts, c, script, chat, reg := t.ts, t.c, t.script, t.chat, t.reg
	agents := trip.Continued(reg, &chat)
	w := ts.NewWorkerWithOptions(trip.TaskQueue, agents.Register, worker.Options{})
	defer w.Stop()
	in, err := trip.Input(reg)
	if err != nil {
		return err
	}
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "trip-continued", TaskQueue: trip.TaskQueue}, agents.Name(), in)
	if err != nil {
		return err
	}
	first := run.GetRunID() // Get follows the chain, and the run's id with it
	for {
		pending, err := tooltemporal.Pending(ctx, c, run.GetID(), "")
		if err == nil && len(pending) == len(trip.Decisions()) {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	if _, err := tooltemporal.Decide(ctx, c, run.GetID(), "", trip.Decisions()...); err != nil {
		return fmt.Errorf("deciding: %w", err)
	}
	res, err := tooltemporal.Get(ctx, run)
	if err != nil {
		return fmt.Errorf("the run: %w", err)
	}
	runs, err := chain(ctx, c, run.GetID(), first)
	if err != nil {
		return err
	}
	for i, h := range runs {
		b, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(h)
		if err != nil {
			return err
		}
		out := fmt.Sprintf(pattern, i+1)
		if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
			return err
		}
		fmt.Printf("run %d: %d events: written to %s\n", i+1, len(h.Events), out)
	}
	fmt.Printf("%d model calls, %d steps\n", script.Asked.Load(), res.State.Steps)
	return nil
}

// chain returns the histories of the runs of a workflow, from runID on,
// following continue-as-new.
func chain(ctx context.Context, c client.Client, id, runID string) ([]*historypb.History, error) {
	var runs []*historypb.History
	for runID != "" {
		var h historypb.History
		iter := c.GetWorkflowHistory(ctx, id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for iter.HasNext() {
			e, err := iter.Next()
			if err != nil {
				return nil, err
			}
			h.Events = append(h.Events, e)
		}
		runs = append(runs, &h)
		runID = h.Events[len(h.Events)-1].GetWorkflowExecutionContinuedAsNewEventAttributes().GetNewExecutionRunId()
	}
	return runs, nil
}

// longRun runs a run of n steps (each a weather call; the last answers)
// that continues as new every every steps, the calls as activities, then
// inline, then a run that does not continue, and prints the size of each
// run's history: what the bound keeps each run under, and what an inline
// call costs the history.
func longRun(n, every int) error {
	ctx := context.Background()
	ts := newServer()
	defer ts.Stop()
	c := ts.GetDefaultClient()
	script := &offline.Script{}
	for i := 1; i < n; i++ {
		script.Replies = append(script.Replies, offline.Reply{Calls: []offline.Call{{ID: fmt.Sprintf("c%d", i), Name: "get_weather", Arguments: `{"city":"Oslo"}`}}})
	}
	script.Replies = append(script.Replies, offline.Reply{Text: "Done."})
	chat, stop := script.Client()
	defer stop()
	reg := trip.Registry()
	in, err := trip.Input(reg)
	if err != nil {
		return err
	}
	in.MaxSteps = n
	for i, v := range []struct {
		bound  int
		inline bool
	}{{every, false}, {every, true}, {-1, false}} {
		bound := v.bound
		opts := tooltemporal.Options{Name: fmt.Sprintf("long%d", i), ContinueAfterSteps: bound, ContinueAfterEvents: -1, ContinueAfterBytes: -1}
		if v.inline {
			opts.Tool.Inline = true
		}
		agents := trip.AgentWith(reg, &chat, opts)
		w := ts.NewWorker(trip.TaskQueue, agents.Register)
		start := time.Now()
		run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: agents.Name(), TaskQueue: trip.TaskQueue}, agents.Name(), in)
		if err != nil {
			return err
		}
		first := run.GetRunID()
		res, err := tooltemporal.Get(ctx, run)
		took := time.Since(start)
		if err != nil {
			// A history past the server's limit fails the run: say so,
			// and show the history it had.
			fmt.Printf("ContinueAfterSteps %d: the run failed: %v\n", bound, err)
			res = &tooltemporal.Result{}
		}
		w.Stop()
		runs, err := chain(ctx, c, run.GetID(), first)
		if err != nil {
			return err
		}
		fmt.Printf("%d steps, ContinueAfterSteps %d, inline %v: %d runs in %v\n", res.State.Steps, bound, v.inline, len(runs), took.Round(time.Millisecond))
		for i, h := range runs {
			fmt.Printf("  run %d: %d events, %d bytes\n", i+1, len(h.Events), proto.Size(h))
		}
	}
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
