// Command durable runs an agent as a Temporal workflow: each model call and
// each tool call is an activity, and the run waits for a person to approve
// a booking and to answer a tool's question, a day later. It prints the
// run's events as they happen (Options.OnEvent), and the run continues as
// new when it pauses (Options.ContinueAfterSteps, small here to show it),
// the next workflow run waiting for the host.
//
// By default it runs offline, in the Temporal SDK's test environment (no
// server; the day passes at once), with a scripted model that speaks the
// Chat Completions protocol to the real OpenAI SDK client. With -address it
// runs against a Temporal server instead (`temporal server start-dev`, or a
// cluster): it starts a worker and the run, waits for the run to pause,
// decides, and prints the result.
//
//	go run ./examples/durable
//	go run ./examples/durable -address localhost:7233
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/tooltemporal"
	"github.com/toolreg/toolreg/tooltemporal/internal/trip"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

func main() {
	address := flag.String("address", "", "a Temporal server's host:port (e.g. localhost:7233); none runs in the SDK's test environment")
	namespace := flag.String("namespace", "default", "the namespace, with -address")
	flag.Parse()
	var err error
	if *address == "" {
		err = offline(os.Stdout)
	} else {
		err = onServer(context.Background(), os.Stdout, client.Options{HostPort: *address, Namespace: *namespace, Logger: quiet})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "durable:", err)
		os.Exit(1)
	}
}

// quiet keeps the SDK's logs to warnings.
var quiet = log.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))

// offline runs the trip in the test environment: the workflow's time
// skips ahead while it waits, so the person who decides a day later does
// so at once. The test environment does not follow a continue-as-new (a
// server does): each run of the chain runs in an environment of its own,
// from the input the previous one continued with.
func offline(w io.Writer) error {
	script := trip.Script()
	chat, stop := script.Client()
	defer stop()
	reg := trip.Registry()
	agents := newAgent(reg, &chat, w)

	in, err := trip.Input(reg)
	if err != nil {
		return err
	}
	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(quiet)
	var took time.Duration
	for n := 1; ; n++ {
		env := suite.NewTestWorkflowEnvironment()
		agents.Register(env)
		start := env.Now()
		var decideErr error
		env.RegisterDelayedCallback(func() {
			v, err := env.QueryWorkflow(tooltemporal.QueryPending)
			var pending []agent.Call
			if err == nil {
				err = v.Get(&pending)
			}
			if err != nil {
				decideErr = err
				return
			}
			printPending(w, took+env.Now().Sub(start), pending)
			env.UpdateWorkflow(tooltemporal.UpdateDecide, "decide", &testsuite.TestUpdateCallback{
				OnReject: func(err error) { decideErr = err },
			}, trip.Decisions())
		}, 24*time.Hour)
		env.ExecuteWorkflow(agents.Name(), in)
		took += env.Now().Sub(start)
		if decideErr != nil {
			return decideErr
		}
		err := env.GetWorkflowError()
		var next *workflow.ContinueAsNewError
		if errors.As(err, &next) {
			if err := converter.GetDefaultDataConverter().FromPayloads(next.Input, &in); err != nil {
				return err
			}
			fmt.Fprintf(w, "-- run %d continues as new after step %d, %d calls waiting for the host\n", n, in.State.Steps, len(in.State.Pending()))
			continue
		}
		if err != nil {
			_, err = tooltemporal.Failure(err)
			return err
		}
		var res tooltemporal.Result
		if err := env.GetWorkflowResult(&res); err != nil {
			return err
		}
		return printRun(w, &res, script.Asked.Load(), took)
	}
}

// newAgent is the trip's Agent, whose runs continue as new when they pause
// after trip.ContinueAfterSteps steps (a real agent's bound is larger:
// DefaultContinueAfterSteps), and whose events are printed to w as they
// happen.
func newAgent(reg *toolreg.Registry, chat toolopenai.ChatClient, w io.Writer) *tooltemporal.Agent {
	return trip.AgentWith(reg, chat, tooltemporal.Options{
		ContinueAfterSteps: trip.ContinueAfterSteps,
		OnEvent:            func(e tooltemporal.Event) { printEvent(w, e) },
	})
}

// printEvent prints an event of the run.
func printEvent(w io.Writer, e tooltemporal.Event) {
	fmt.Fprintf(w, "   event %d, step %d: ", e.Seq, e.Step)
	switch e.Kind {
	case agent.StepDone:
		fmt.Fprintf(w, "model call done, %d+%d tokens\n", e.Usage.InputTokens, e.Usage.OutputTokens)
	case agent.CallReady:
		fmt.Fprintf(w, "call %s %s\n", e.Call.Name, e.Call.Arguments)
	case agent.CallResult:
		fmt.Fprintf(w, "result of %s: %s\n", e.Call.Name, strings.SplitN(e.Result.Text, "\n", 2)[0])
	default:
		fmt.Fprintf(w, "%v %s\n", e.Kind, e.Text)
	}
}

// onServer runs the trip on a Temporal server: a worker of the task queue
// (in a real deployment, many, on many machines), a run, and the host's
// decisions once the run waits for them.
func onServer(ctx context.Context, w io.Writer, opts client.Options) error {
	c, err := client.Dial(opts)
	if err != nil {
		return err
	}
	defer c.Close()
	script := trip.Script()
	chat, stop := script.Client()
	defer stop()
	reg := trip.Registry()
	agents := newAgent(reg, &chat, w)

	wk := worker.New(c, trip.TaskQueue, worker.Options{})
	agents.Register(wk)
	if err := wk.Start(); err != nil {
		return err
	}
	defer wk.Stop()

	in, err := trip.Input(reg)
	if err != nil {
		return err
	}
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: fmt.Sprintf("trip-%d", time.Now().UnixNano()), TaskQueue: trip.TaskQueue,
	}, agents.Name(), in)
	if err != nil {
		return err
	}
	start := time.Now()
	for {
		// "": the latest run of the workflow, which continues as new
		// when it pauses.
		pending, err := tooltemporal.Pending(ctx, c, run.GetID(), "")
		if err != nil {
			return err
		}
		if len(pending) == len(trip.Decisions()) {
			printPending(w, time.Since(start).Round(time.Second), pending)
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := tooltemporal.Decide(ctx, c, run.GetID(), "", trip.Decisions()...); err != nil {
		return err
	}
	res, err := tooltemporal.Get(ctx, run)
	if err != nil {
		return err
	}
	return printRun(w, res, script.Asked.Load(), time.Since(start).Round(time.Second))
}

func printPending(w io.Writer, after time.Duration, pending []agent.Call) {
	fmt.Fprintf(w, "-- %v later, the run waits for the host:\n", after)
	for _, c := range pending {
		switch c.Status {
		case agent.StatusApproval:
			fmt.Fprintf(w, "   %s %s needs approval\n", c.Name, c.Arguments)
		case agent.StatusInterrupted:
			fmt.Fprintf(w, "   %s %s asks %s\n", c.Name, c.Arguments, c.Question)
		}
	}
	var said []string
	for _, d := range trip.Decisions() {
		s := string(d.Verdict) + " " + d.Call
		if d.Answer != nil {
			s += " " + string(d.Answer)
		}
		said = append(said, s)
	}
	fmt.Fprintf(w, "-- the host decides: %s\n", strings.Join(said, "; "))
}

// message is a Chat Completions message of the transcript, as much of it
// as the program prints.
type message struct {
	Role       string `json:"role"`
	Content    any    `json:"content"`
	ToolCallID string `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct{ Name, Arguments string }
	} `json:"tool_calls"`
}

func printRun(w io.Writer, res *tooltemporal.Result, asked int64, took time.Duration) error {
	var msgs []message
	if err := json.Unmarshal(res.State.Transcript, &msgs); err != nil {
		return errors.New("the transcript is not a chat")
	}
	names := map[string]string{} // tool name by call id
	step := 0
	for _, m := range msgs {
		switch m.Role {
		case "user":
			fmt.Fprintf(w, "user: %v\n", m.Content)
		case "assistant":
			if len(m.ToolCalls) == 0 {
				fmt.Fprintf(w, "assistant: %v\n", m.Content)
				continue
			}
			step++
			for _, c := range m.ToolCalls {
				names[c.ID] = c.Function.Name
				fmt.Fprintf(w, "[step %d] assistant calls %s %s\n", step, c.Function.Name, c.Function.Arguments)
			}
		case "tool":
			text := strings.ReplaceAll(fmt.Sprint(m.Content), "\n", "\n           ")
			fmt.Fprintf(w, "[step %d]   %s: %s\n", step, names[m.ToolCallID], text)
		}
	}
	fmt.Fprintf(w, "(%d steps, %d model calls, %d+%d tokens, %v of workflow time)\n",
		res.State.Steps, asked, res.Usage.InputTokens, res.Usage.OutputTokens, took)
	return nil
}
