package tooltemporal

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// DefaultName is the workflow type of an Agent whose Options name none.
const DefaultName = "toolreg.agent"

// Defaults of Options and ToolOptions.
const (
	// DefaultModelTimeout bounds each attempt of a model call.
	DefaultModelTimeout = 2 * time.Minute
	// DefaultToolTimeout bounds each attempt of a call of a tool that has
	// no timeout of its own.
	DefaultToolTimeout = 10 * time.Minute
	// TimeoutGrace is added to a tool's own timeout to bound an attempt:
	// the registry ends the call at the tool's timeout with a result that
	// says so, and the grace lets that result reach the workflow before
	// Temporal gives up on the attempt.
	TimeoutGrace = 5 * time.Second

	// DefaultContinueAfterSteps is how many steps a run's history holds
	// before the run continues as new.
	DefaultContinueAfterSteps = 100
	// DefaultContinueAfterEvents is how many events a run's history holds
	// before the run continues as new, at the next step or pause: below
	// the 10,240 at which a server warns (it fails a run at 51,200).
	DefaultContinueAfterEvents = 10_000
	// DefaultContinueAfterBytes is how large a run's history grows before
	// the run continues as new: each model call carries the transcript, so
	// a history grows faster than its steps. A server warns at 10 MB and
	// fails a run at 50 MB.
	DefaultContinueAfterBytes = 8 << 20
)

// Options configure an Agent. They are read in the workflow: keep them the
// same on every worker.
type Options struct {
	// Name is the workflow's type, and the prefix of its activities' types
	// (Name+".ask", Name+".call"). Give each Agent of a worker its own. ""
	// means DefaultName.
	Name string
	// Tool is how each tool call runs as an activity; Tools, by tool name,
	// overrides it field by field for some tools.
	Tool  ToolOptions
	Tools map[string]ToolOptions
	// ModelTimeout bounds each attempt of a model call; 0 means
	// DefaultModelTimeout.
	ModelTimeout time.Duration
	// ModelRetry is the retry policy of model calls (a provider's outage, a
	// rate limit); nil means 3 attempts, 1 s apart and doubling, at most
	// 1 min. A cut-off response (toolreg.ErrTruncated) is never retried.
	ModelRetry *temporal.RetryPolicy
	// PrepareStep, if set, chooses each step's tools and tool choice, as
	// agent.Options.PrepareStep does. It runs in the workflow: it must
	// decide from the step alone (its Number, its tools), never from a
	// clock, a random number or anything outside the run.
	PrepareStep func(ctx context.Context, s *agent.Step) error
	// StateKey, when set, seals the State of every Result (and of a
	// failed run's) and makes a run refuse an Input.State without a valid
	// seal of it (a new run's first messages need none), as
	// agent.Options.StateKey does for the runners, whose doc says what a
	// seal protects against. It is read in the workflow but never written
	// to the history: give every worker the same. Decisions sent with
	// Decide are the host's, and need no seal.
	StateKey []byte
	// ContinueAfterSteps, ContinueAfterEvents and ContinueAfterBytes bound
	// the history of a run: past any of them, or when the server suggests
	// it (workflow.Info.GetContinueAsNewSuggested), the run continues as
	// new (Temporal's continue-as-new) at the next point where nothing is
	// in flight: before a step's model call, or when the run pauses for
	// the host. The new run, under the same workflow ID, starts from the
	// State (transcript, pending calls, counters, loaded tools) and the
	// Usage so far; it checks that State as it checks any Input.State.
	// Pending, Decide and Events with runID "" reach the latest run, and
	// Get follows the chain to the run that ends. 0 means
	// DefaultContinueAfterSteps, DefaultContinueAfterEvents and
	// DefaultContinueAfterBytes; a negative value turns that bound off.
	// Each run makes at least one step, so that a long run always
	// progresses. A Run called from a workflow of another type never
	// continues as new: the workflow is the caller's.
	ContinueAfterSteps  int
	ContinueAfterEvents int
	ContinueAfterBytes  int
	// OnEvent, if set, sees each Event of a run as it happens, in the
	// workflow, on the worker that runs it: it must return at once (hand
	// the event to a channel with room, a pub/sub client's buffer). A
	// worker that replays a run's history, to rebuild it or to answer a
	// Query, calls it for none of the events it replays: only for what
	// the run does from then on. (A workflow task that fails halfway is
	// retried, and may hand over its events again.) A host elsewhere reads
	// them with Events.
	OnEvent func(Event)
	// Observer, if set, sees each run and model call, as
	// agent.Options.Observer does (toolotel.Observer traces them); the
	// tools' calls run in activities, where the registry's middleware sees
	// them. A replay calls it for none of what it replays, so a span is
	// recorded once; a run that a worker picks up after another stopped
	// records from there on (its run's span may then be missing).
	Observer agent.Observer
}

// ToolOptions say how a tool's calls run as activities.
//
// A call whose result is data for the model is never retried by Temporal:
// a success, invalid arguments, an unknown tool, a toolreg.Retry (the
// model is asked to fix its call), toolreg.StopRun, toolreg.Interrupt, a
// panic, a result that does not encode, or an error the tool made
// non-retryable with temporal.NewNonRetryableApplicationError. A tool's
// plain error and a timeout are activity failures, retried by Retry; when
// it gives up, the model reads the last failure.
type ToolOptions struct {
	// Timeout bounds each attempt (the activity's StartToCloseTimeout). 0
	// means the tool's own timeout (toolreg.WithTimeout, which Tool.Timeout
	// reports) plus TimeoutGrace, else DefaultToolTimeout.
	Timeout time.Duration
	// Retry is the retry policy of the calls; nil means 3 attempts, 1 s
	// apart and doubling, at most 1 min.
	Retry *temporal.RetryPolicy
	// HeartbeatTimeout, when set, makes the activity heartbeat while the
	// tool runs (every third of it): an attempt whose worker died is
	// retried after HeartbeatTimeout instead of Timeout, and a cancelled
	// run cancels the call. Set it for long tools.
	HeartbeatTimeout time.Duration
	// Inline runs the tool's calls in the workflow instead of as
	// activities: for quick tools that compute from their arguments alone
	// (a unit conversion, a lookup in a table compiled in), where an
	// activity's round trip costs more than the call (see the package
	// doc's "Inline tools"). Each call passes the same gate as any other
	// (the step offers its tool, its arguments validate, the host approves
	// it if it must, it has not run before in its turn), runs once through
	// the registry, its middleware included, and its result is recorded
	// in the history (workflow.SideEffect): a replay reads the result back
	// and runs neither the tool nor its middleware again. It is never
	// retried: a failure is what the model reads. Timeout, Retry and
	// HeartbeatTimeout do not apply. In Options.Tool it makes every tool
	// inline; in Options.Tools, that tool.
	Inline bool
}

// ModelFunc makes the provider's side of a run from its State, in an
// activity, for each model call: it returns the adapter's agent.Model
// (toolopenai.Chat.Model, toolopenai.Responses.Model,
// toolanthropic.Adapter.Model, toolgemini.Adapter.Model,
// toolbedrock.Adapter.Model) over state, with its client and parameters. params
// are the run's Input.Params. The model asked may change from one worker
// version to the next; the name it is registered under may not.
type ModelFunc func(ctx context.Context, state *agent.State, params json.RawMessage) (agent.Model, error)

// Agent runs agents over a registry as Temporal workflows: it holds the
// workflow, the activities that ask the model and call the tools, and the
// models that workers know by name. Make one per registry with New, name
// its models with Model, and Register it on every worker of the task queue.
type Agent struct {
	reg  *toolreg.Registry
	opts Options

	mu     sync.RWMutex
	models map[string]ModelFunc
}

// New returns an Agent over reg.
func New(reg *toolreg.Registry, opts Options) *Agent {
	if opts.Name == "" {
		opts.Name = DefaultName
	}
	return &Agent{reg: reg, opts: opts, models: map[string]ModelFunc{}}
}

// Name is the workflow's type: start runs with it.
func (a *Agent) Name() string { return a.opts.Name }

// Model registers fn under name; runs name it in Input.Model. Register the
// same names on every worker.
func (a *Agent) Model(name string, fn ModelFunc) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.models[name] = fn
}

func (a *Agent) model(name string) (ModelFunc, bool) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	fn, ok := a.models[name]
	return fn, ok
}

// Register registers the workflow and the activities on w (a worker, or a
// test environment).
func (a *Agent) Register(w worker.Registry) {
	a.RegisterWorkflow(w)
	a.RegisterActivities(w)
}

// RegisterWorkflow registers only the workflow: for a worker that runs no
// activities, or a replayer.
func (a *Agent) RegisterWorkflow(w worker.WorkflowRegistry) {
	w.RegisterWorkflowWithOptions(a.Run, workflow.RegisterOptions{Name: a.opts.Name})
}

// RegisterActivities registers only the activities: for a worker that
// calls models and tools and runs no workflow.
func (a *Agent) RegisterActivities(w worker.ActivityRegistry) {
	w.RegisterActivityWithOptions(a.ask, activity.RegisterOptions{Name: a.askType()})
	w.RegisterActivityWithOptions(a.call, activity.RegisterOptions{Name: a.callType()})
}

func (a *Agent) askType() string  { return a.opts.Name + ".ask" }
func (a *Agent) callType() string { return a.opts.Name + ".call" }

// defaultRetry is the retry policy when the options give none. The SDK's
// own default retries without end, which would hide a tool that always
// fails from the model.
func defaultRetry() *temporal.RetryPolicy {
	return &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute, MaximumAttempts: 3}
}

// toolOptions merges the options of the named tool over the defaults.
func (a *Agent) toolOptions(name string) ToolOptions {
	o := a.opts.Tool
	if t, ok := a.opts.Tools[name]; ok {
		if t.Timeout > 0 {
			o.Timeout = t.Timeout
		}
		if t.Retry != nil {
			o.Retry = t.Retry
		}
		if t.HeartbeatTimeout > 0 {
			o.HeartbeatTimeout = t.HeartbeatTimeout
		}
		o.Inline = o.Inline || t.Inline
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultToolTimeout
		if d := a.toolTimeout(name); d > 0 {
			o.Timeout = d + TimeoutGrace
		}
	}
	if o.Retry == nil {
		o.Retry = defaultRetry()
	}
	return o
}

// toolTimeout is the tool's own timeout, when it reports one.
func (a *Agent) toolTimeout(name string) time.Duration {
	t, ok := a.reg.Lookup(name)
	if !ok {
		return 0
	}
	if tt, ok := t.(interface{ Timeout() time.Duration }); ok {
		return tt.Timeout()
	}
	return 0
}

// callOptions are the activity options of one call of the named tool.
func (a *Agent) callOptions(name string) workflow.ActivityOptions {
	o := a.toolOptions(name)
	return workflow.ActivityOptions{
		StartToCloseTimeout: o.Timeout,
		HeartbeatTimeout:    o.HeartbeatTimeout,
		RetryPolicy:         o.Retry,
		Summary:             name,
	}
}

// askOptions are the activity options of a model call.
func (a *Agent) askOptions() workflow.ActivityOptions {
	o := workflow.ActivityOptions{StartToCloseTimeout: a.opts.ModelTimeout, RetryPolicy: a.opts.ModelRetry}
	if o.StartToCloseTimeout == 0 {
		o.StartToCloseTimeout = DefaultModelTimeout
	}
	if o.RetryPolicy == nil {
		o.RetryPolicy = defaultRetry()
	}
	return o
}
