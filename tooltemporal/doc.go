// Package tooltemporal runs toolreg agents on Temporal (go.temporal.io/sdk),
// for runs that outlive a process: a run that waits days for a person's
// approval, that must survive a worker's restart, or whose tools must not
// run twice.
//
// The workflow runs the very loop of the runners (toolopenai.Chat.Run,
// toolanthropic.Adapter.Run, ...): each model call is an activity, each tool call an
// activity of its own (a turn's calls run at once, their results go back in
// call order), and calls that wait for the host (toolreg.WithApproval,
// toolreg.Interrupt) wait in the workflow until an Update decides them. A
// run's state is an agent.State, the same as every runner's: a run paused by
// a runner can go on in a workflow, and the other way round.
//
//	agents := tooltemporal.New(reg, tooltemporal.Options{})
//	agents.Model("openai", func(ctx context.Context, st *agent.State, _ json.RawMessage) (agent.Model, error) {
//		return adapter.Model(&client.Chat.Completions, params, st)
//	})
//	agents.Register(w) // a worker.Worker of the task queue
//
//	run, _ := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: "agents"}, agents.Name(),
//		tooltemporal.Input{Model: "openai", State: first})
//	// later, from anywhere:
//	pending, _ := tooltemporal.Pending(ctx, c, run.GetID(), "")
//	tooltemporal.Decide(ctx, c, run.GetID(), "", tooltemporal.Approve(pending[0].Key()))
//	res, err := tooltemporal.Get(ctx, run)
//
// The package is named tooltemporal, not temporal, because a program that
// uses it nearly always imports go.temporal.io/sdk/temporal too (for a
// RetryPolicy), and two packages named temporal in one file need an alias.
//
// # Determinism
//
// Temporal replays a workflow's code to rebuild its state, so the code must
// take the same path on every replay. The package keeps its part: the loop
// runs on a context that never ends, starts no goroutine, reads no clock
// and no randomness, and ranges over no map where order matters; only
// serializable values (agent.State, calls, results, decisions) cross into
// and out of the workflow. The user keeps the rest the same on every worker
// of the task queue, for as long as runs started under it are open:
//
//   - the registry: the same tools, added in the same order, each with the
//     same approval rule (toolreg.WithApproval, toolreg.WithApprovalPolicy,
//     which must be a function of the call alone). The workflow lists the
//     tools of each step and asks which calls need approval; the tools'
//     functions themselves run in activities and may do anything;
//   - the Options and the names: the Agent's name and the model names the
//     runs were started with (a model's factory may change: it runs in an
//     activity);
//   - this package's version: a change that makes the workflow schedule
//     other activities breaks the replay of open runs, which is what the
//     replay test of this package checks against a recorded history.
//
// To change any of these under open runs, start the new version on a new
// task queue (or with a new Agent name) and let the old runs finish.
//
// A history that no longer replays (the code took another path) fails the
// workflow task with the SDK's nondeterminism error, whose text begins
// with its code, "[TMPRL1100]" (a command the history holds that the code
// no longer makes, or the other way round): the run stops where it is,
// and goes on once workers with code that replays it are back. Test it
// before it reaches open runs: record histories of runs as they ran
// (client.GetWorkflowHistory), and replay them in go test with
// worker.NewWorkflowReplayer, as this package's replay test does; it
// fails with that error when a change breaks them.
//
// # Long runs
//
// Temporal keeps every step of a run in its history, and fails a run
// whose history passes 51,200 events or 50 MB. A run here continues as
// new (a new workflow run under the same workflow ID, from the State so
// far) once its history passes the Options' bounds (ContinueAfterSteps,
// ContinueAfterEvents, ContinueAfterBytes, or the server's suggestion),
// at a point where nothing is in flight: before a step's model call, or
// when the run pauses for the host. The next run starts from the State
// (transcript, calls that wait, counters, tools loaded) checked as any
// Input.State is, the usage so far and the events' numbering; Pending,
// Decide and Events with runID "" reach the latest run, and Get follows
// the chain. The choice to continue is versioned (workflow.GetVersion):
// runs started before it replay as they ran.
//
// # Inline tools
//
// A tool whose calls are quick and touch nothing outside the process (it
// computes from its arguments, or reads a table compiled in) may run in
// the workflow instead of as an activity (ToolOptions.Inline): no
// activity to schedule, dispatch and complete, and one history event (the
// recorded result) instead of an activity's three and a workflow task's.
// Its calls pass the same gate as every call (the step offers the tool,
// the arguments validate, the host approves them if the tool needs it,
// a call id runs once a turn), and run once: the result is recorded with
// workflow.SideEffect, and a replay reads it back without running the
// tool or the registry's middleware. What inline gives up: the call holds
// the workflow task while it runs (the SDK fails a task whose code runs a
// second without yielding, "[TMPRL1101] Potential deadlock detected"), it
// is never retried (its error is the model's to read), and
// no timeout applies to it. Keep inline tools pure in what they do: no
// I/O, no waiting on the network or the disk, no goroutine that outlives
// the call. A tool's changed result does not break the replay of open
// runs (the old result is read back); a tool made inline or not inline
// does, like any change to what the workflow schedules.
//
// # Events and telemetry
//
// A run keeps its Events (a step's end and usage, the calls it asks for
// and their results, the text of a model that streams), numbered, and a
// host reads them with the Events query as the run goes, or sees them on
// the worker with Options.OnEvent. Options.Observer (toolotel.Observer)
// traces the run and its model calls. A worker that replays a history
// (another worker picks the run up, or answers a Query on it) rebuilds
// the events and emits none of them again, and calls the Observer for
// nothing it replays: each is emitted once, when it happens.
package tooltemporal
