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
package tooltemporal
