// Package agent steers the runs of toolreg's runners (the Run method of
// every adapter: toolopenai.Chat and toolopenai.Responses,
// toolanthropic.Adapter, toolgemini.Adapter, toolbedrock.Adapter): the
// options every runner takes, the hook that chooses each step's tools, the events a run reports
// as it goes, and the state of a paused run, which the host resumes after
// approving calls or answering a tool's question.
//
// The runners share one loop: a bounded number of model calls; each turn's
// tool calls run at once through the registry, their results go back in
// call order; calls that need approval (toolreg.WithApproval,
// toolreg.WithApprovalPolicy) or that interrupt (toolreg.Interrupt) pause
// the run, which returns ErrPaused and a State; retries (invalid arguments,
// toolreg.Retry) are counted per tool and per run.
//
// The loop is the trust boundary: whatever the model, its stream or a
// stored State says, a call runs only if the step offers its tool
// (ErrNotOffered), its arguments validate (before approval is asked), the
// host approved it when it must, it has not run before in its turn
// (ErrRepeatedCall) and it gets one of the registry's concurrency slots
// and its tool's group's (toolreg.WithGroup), early starts included. A
// stream that breaks its rules ends the run (ErrBrokenStream); the calls
// that had already run are in State.Unsent.
//
// A run keeps its tools array the same from step to step, so that the
// provider's prompt cache holds (Step.Declared): a step's restriction goes
// beside it where the provider allows (Step.Restriction). Tools the run
// defers (toolreg.WithDeferred, Options.Defer) are left out of it until
// the model finds them with the tool search the loop declares and answers
// (SearchToolName, ToolSearcher); found tools are added at its end.
//
// A State is plain data that encodes as JSON, so a paused run can be
// resumed in another process, or a day later:
//
//	run, err := chat.Run(ctx, client, params, nil, agent.Options{}) // nil: a new run
//	if errors.Is(err, agent.ErrPaused) {
//		for _, c := range run.State.Pending() {
//			run.State.Approve(c.Key())
//		}
//		run, err = chat.Run(ctx, client, params, run.State, agent.Options{}) // resumed
//	}
//
// A State that comes back in is data from outside, and the runners check
// it before anything runs (State.Validate, the paused turn against the
// transcript): one no runner would have written fails with
// ErrInvalidState, with no model call and no tool call. The host's
// decisions count when made after the State is loaded, in the process
// that resumes it; to decide in one process and resume in another, seal
// the States with a key (Options.StateKey, State.Reseal).
//
// A run with Options.Checkpoint hands its State to the host as it goes,
// when the model's reply comes and after each call: after a crash, the
// last one saved resumes the run as a paused State does, and no call
// that completed runs again.
package agent

import (
	"context"
	"errors"

	"github.com/toolreg/toolreg"
)

// Options bound, steer and observe a run. The zero value is usable.
type Options struct {
	// MaxSteps bounds the model calls of a run, resumed runs included;
	// 0 means DefaultMaxSteps.
	MaxSteps int
	// MaxRetries bounds the failed calls of one tool in a row (invalid
	// arguments, toolreg.Retry); past it the run stops with
	// toolreg.ErrTooManyRetries. 0 means DefaultMaxRetries; < 0, no bound.
	MaxRetries int
	// MaxRunRetries bounds the failed calls of the whole run, of any tool.
	// 0 means DefaultMaxRunRetries; < 0, no bound.
	MaxRunRetries int
	// PrepareStep, if set, is called before each model call: it may
	// choose the step's tools and tool choice. An error ends the run.
	// It is called again, with the same step number, when a run paused
	// in that step resumes (in another process, perhaps): the calls of
	// the paused turn and a tool search among them are checked against
	// the step it makes, as they were when the turn was asked.
	PrepareStep func(ctx context.Context, s *Step) error
	// Stream makes the runner ask the model through the provider's
	// streaming API (the same client has both): OnEvent then also sees
	// the model's text and tool calls as it writes them (TextDelta,
	// CallStarted, ArgumentsDelta), and a call whose arguments are
	// complete starts while the model writes the next. A stream that
	// breaks off ends the run with an error; no call runs on arguments
	// that did not arrive whole. A run paused while streaming may resume
	// either way.
	Stream bool
	// OnEvent, if set, sees what happens as it happens: the model's text
	// and tool calls (as they stream, with Stream), each call's result,
	// each step's end with its usage. It runs on the run's goroutine and
	// must not block for long.
	OnEvent func(Event)
	// Observer, if set, sees the run and each model call in it begin and
	// end, with contexts of its own: package toolreg/toolotel's opens
	// OpenTelemetry spans, and the tools' calls run under the run's.
	Observer Observer
	// StateKey, when set, seals every State the runner returns (State.Seal,
	// an HMAC-SHA256 of its JSON) and makes the runner refuse to resume a
	// State without a valid seal of it (a Fresh one needs none). Keep it
	// secret, and the same for every process that resumes the runs: at
	// least 32 random bytes.
	//
	// A State that comes back in is data from outside: whoever can write
	// the store it was kept in can change it. Without a key, a runner
	// validates the State (State.Validate, and the paused turn against its
	// transcript where the provider's model reads it, TurnReader) and
	// accepts only decisions made in its own process on the State as
	// loaded: a status approved, rejected or answered that came in the
	// JSON is refused. Someone who edits the store, then, cannot make a
	// call run that the host did not decide, run a done call again (while
	// State.Ran lists it), or make a counter go below zero: the run fails
	// with ErrInvalidState before any model or tool call. They can still
	// change what the host is asked (a pending call and the transcript
	// together, a question), what the model reads (the transcript, a done
	// call's result), set the counters back to zero, make the State a new
	// run's start (Fresh) with the transcript of their choice, or add to
	// a checkpoint's turn (Checkpoint) a call not run (StatusAsked), with
	// the transcript, or mark a done call not run, with Ran: such a call
	// passes the gate as the model's calls do, approval included.
	//
	// With a key, nothing in a State can be changed without it: not the
	// transcript, the counters, the results nor the turn; only the host's
	// decisions after loading (State.Approve, ApproveWith, Reject, Answer)
	// are added, as the seal covers each decided call as it was before. A
	// host that decides in one process and resumes in another seals its
	// decisions with State.Reseal. What the key cannot prevent: a State
	// replaced by an older one sealed with the same key (a seal proves
	// that the State is as the host left it, not that it is used once:
	// resuming the same sealed State twice runs its approved calls twice,
	// so make each resume happen once, e.g. with a version your store
	// compares and swaps, and key side effects on toolreg.Info(ctx).RunID
	// and ID), or by a Fresh one (a new run's first messages, of the
	// store's choosing).
	StateKey []byte
	// Checkpoint, if set, is called with the run's State each time a
	// crash would lose work that cannot be done again without cost: when
	// the model's reply with calls is received (its calls not run yet,
	// StatusAsked), and when each of its calls completes (StatusDone, with
	// its result). Save st where it survives the process (a file, a
	// database row); after a crash, resume the run from the last one
	// saved, as a paused run is resumed (Run with the State), in any
	// process: the done calls do not run again, their results are sent as
	// saved; the calls not run pass the gate again (offered, arguments
	// checked, approval when their tool needs it, which the host gives
	// again). A crash loses at most the work in flight: the calls running
	// then, and the model call being made.
	//
	// st is valid (State.Validate), sealed with StateKey when set, and the
	// hook's own to keep or encode. It is called on the run's goroutine,
	// one call at a time, while the turn's other calls may be running: a
	// call holds its concurrency slot until its result is saved, so no
	// more calls than the registry's MaxConcurrency have run unsaved. An
	// error stops the run with it (wrapped): no call starts after it, the
	// calls running finish, and the State returned with the error is the
	// last one saved or newer, and resumes as a checkpoint does.
	//
	// The hook is called once per model reply and once per tool call
	// completed, and each State holds the whole transcript, so a save
	// costs what the conversation weighs (an HMAC of it with a key): for
	// runs of many quick calls, set CheckpointTurns. With Stream, a call
	// starts once the reply is whole and saved, not while the model
	// writes the next: one that ran before would run again after a crash.
	// A tool's side effects that must happen once across a crash
	// are keyed on toolreg.Info(ctx).RunID and ID: a call that did not
	// complete before a crash runs again on resume with the same ones.
	// A host's decisions (State.Approve, ApproveWith, Answer) for calls
	// not run are kept in a checkpoint only under a StateKey; without
	// one, the host is asked again.
	Checkpoint func(ctx context.Context, st *State) error
	// CheckpointTurns makes Checkpoint be called once the turn's calls
	// are all done, rather than after each call: two saves a turn, but a
	// crash runs again the calls of the turn that completed since the
	// reply.
	CheckpointTurns bool
	// Defer, if set, defers the tools it accepts in this run, beside
	// those declared toolreg.WithDeferred (toolreg.Tagged("admin"), say):
	// their definitions are not sent until the model finds them with the
	// tool search the run then declares (SearchToolName), which the loop
	// answers. A found tool is declared from the next model call on, after
	// the others, so that the tools array only grows at its end; the State
	// keeps what was found (State.Loaded) across pauses. Deferred tools are
	// offered all the same: a call of one the model was not shown runs, its
	// arguments checked as always.
	Defer func(toolreg.AnyTool) bool
	// Search ranks the deferred tools for the tool search; nil means
	// KeywordSearch.
	Search ToolSearcher
}

// Observer sees the structure of a run: the run, and each model call
// inside it. Each start returns the context the rest runs in (the tools of
// the run run under RunStarted's), which its end receives.
type Observer interface {
	RunStarted(ctx context.Context, run RunInfo) context.Context
	RunEnded(ctx context.Context, run RunInfo, err error)
	ModelCallStarted(ctx context.Context, call ModelCall) context.Context
	ModelCallEnded(ctx context.Context, call ModelCall, usage Usage, err error)
}

// RunInfo names a run for an Observer.
type RunInfo struct {
	Provider string // "openai.chat", "openai.responses", "anthropic", "gemini", ...
	Model    string // the model asked, as the request names it
}

// ModelCall is one model call of a run, for an Observer.
type ModelCall struct {
	RunInfo
	Step int
}

// Defaults of Options.
const (
	DefaultMaxSteps      = 10
	DefaultMaxRetries    = 3
	DefaultMaxRunRetries = 10
)

// ErrPaused: the run is waiting for the host: calls need approval or
// answers (State.Pending). Decide them, then resume the run with the
// State.
var ErrPaused = errors.New("the run is waiting for the host")

// ErrUndecided: a run was resumed while calls of its State still wait for
// the host.
var ErrUndecided = errors.New("calls of the run still wait for the host")

// ErrInvalidStep: PrepareStep chose a tool the registry does not hold, or a
// tool choice outside the step's tools.
var ErrInvalidStep = errors.New("invalid step")

// ErrNotOffered: the model called a tool the step did not offer it (hidden
// by PrepareStep, outside the step's tool choice, or while the choice is
// None). The call does not run; the model reads which tools it may call.
var ErrNotOffered = toolreg.ErrNotOffered

// ErrRepeatedCall: the model, a stream or a stored State asked again for a
// call that has already run in the run (the same call id). It does not run
// again; the model reads that it ran.
var ErrRepeatedCall = toolreg.ErrRepeatedCall

// ErrBrokenStream: a model's response broke the rules of a response: two
// calls with one id, or, streamed, a call handed over twice, more of a
// call after it was complete, a call whose name or arguments changed after
// it started, or arguments past the tool's limit
// (toolreg.WithMaxArgumentBytes). The stream is ended and so is the run;
// calls that had already started are in State.Unsent.
var ErrBrokenStream = errors.New("the model's stream broke the rules of a stream")

// Model is one provider's side of a run: asking the model and keeping the
// conversation. Each adapter makes the one its runners use, and exports it
// for hosts that drive runs themselves (package toolreg/tooltemporal asks the
// model in an activity): the Model method of every adapter
// (toolopenai.Chat.Model, toolopenai.Responses.Model,
// toolanthropic.Adapter.Model, toolgemini.Adapter.Model,
// toolbedrock.Adapter.Model).
type Model interface {
	// Info names the provider and the model asked.
	Info() RunInfo
	// Ask makes one model call, offering the step's tools with its tool
	// choice, and returns the calls the model asked for: none when it
	// answered, and Again when it paused its turn (to be asked again
	// without running anything). It adds the model's message to the
	// conversation. It reports what streams through emit, and may hand
	// each call whose arguments are complete to ready, with its index in
	// the turn, so that the call starts while the model writes the next.
	// A host calling Ask itself may pass nil for either.
	Ask(ctx context.Context, s *Step, emit func(Event), ready func(i int, call toolreg.ToolCall)) (Reply, error)
	// Answer adds the results of a turn's calls to the conversation, in
	// the calls' order.
	Answer(calls []toolreg.ToolCall, outs []toolreg.Output) error
	// Save writes the conversation (and cursor) into s.
	Save(s *State) error
}

// NativeSearcher is a Model whose provider searches the run's deferred
// tools itself (toolanthropic's and toolopenai.Responses' runners, unless
// made WithClientToolSearch): its requests declare every tool of the
// registry, the deferred ones for the provider to load when its own search
// finds them. The loop then follows the request: Step.Declared lists every
// tool of the registry and no SearchToolName, a tool choice may force a
// deferred tool, and the loop neither declares nor answers its own search;
// a call of SearchToolName is refused as not offered (ErrNotOffered),
// unless the registry holds a tool of that name, which is then the
// registry's. A Model that does not implement it, or returns false, has
// its deferred tools searched by the loop.
type NativeSearcher interface {
	SearchesNatively() bool
}

// Reply is what one model call asked for.
type Reply struct {
	Calls []toolreg.ToolCall
	Again bool
	Usage Usage
}
