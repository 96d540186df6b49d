package tooltemporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/adapt"
	"github.com/toolreg/toolreg/internal/trust"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Input starts a run.
type Input struct {
	// Model names the ModelFunc that asks the model (Agent.Model).
	Model string `json:"model"`
	// Params are handed to the ModelFunc at each model call: what differs
	// from run to run (a user, a model's name), as JSON.
	Params json.RawMessage `json:"params,omitempty"`
	// State is where the run starts: a new run's first messages (the
	// provider's transcript, as an agent.Model's Save writes it), or a
	// State a runner or another workflow paused, its pending calls decided
	// (with a seal: agent.State.Reseal) or not (then Decide them).
	//
	// It is data from outside, checked before anything runs: a State no
	// runner writes (agent.State.Validate), a decision it carries without
	// a valid seal, or, with Options.StateKey, a seal that does not match,
	// fail the run at once with a non-retryable error that matches
	// agent.ErrInvalidState. The workflow does not read the provider's
	// transcript (the model is made in an activity), so the paused turn is
	// not checked against it here, as the runners do: seal the States
	// (Options.StateKey) to bind the turn to its run.
	State agent.State `json:"state"`
	// MaxSteps, MaxRetries and MaxRunRetries bound the run as
	// agent.Options does.
	MaxSteps      int `json:"max_steps,omitempty"`
	MaxRetries    int `json:"max_retries,omitempty"`
	MaxRunRetries int `json:"max_run_retries,omitempty"`
	// Usage is what the run's model calls used before this workflow run:
	// a run that continues as new (Options.ContinueAfterSteps) carries it,
	// and Result.Usage adds to it.
	Usage agent.Usage `json:"usage,omitzero"`
	// Events is the Seq of the last Event of the run before this workflow
	// run: a run that continues as new carries it.
	Events int `json:"events,omitempty"`
}

// Result is how a run ended: its State (the transcript holds the model's
// answer) and the tokens its model calls used.
type Result struct {
	State agent.State `json:"state"`
	Usage agent.Usage `json:"usage"`
}

// The names of the workflow's Update and Queries.
const (
	// UpdateDecide decides pending calls: its argument is a []Decision,
	// applied in order; it returns the calls still pending. A decision
	// that names no pending call, or cannot apply, rejects the whole
	// Update, which then leaves no trace in the history.
	UpdateDecide = "toolreg.decide"
	// QueryPending returns the calls that wait for the host, as
	// []agent.Call.
	QueryPending = "toolreg.pending"
	// QueryState returns the run's agent.State.
	QueryState = "toolreg.state"
)

// Run is the workflow: the runners' loop (the same code), with each model
// call and each tool call an activity, and the calls that wait for the host
// waiting for an Update (UpdateDecide), for days if need be. Start runs by
// the Agent's Name; or call Run, once, from a workflow of your own to run
// an agent inside it (register the Agent's activities on its workers).
//
// A run that ends with an error fails with a non-retryable
// *temporal.ApplicationError that holds the Result so far; Get turns it
// back into the Result and an error that matches the loop's sentinels
// (toolreg.ErrMaxSteps, toolreg.ErrStopRun, ...). A cancelled run returns
// the cancellation.
func (a *Agent) Run(ctx workflow.Context, in Input) (*Result, error) {
	st := in.State
	m := &workflowModel{a: a, ctx: ctx, name: in.Model, params: in.Params, st: &st, usage: in.Usage, seq: in.Events}
	if err := m.handle(); err != nil {
		return nil, err
	}
	loop := &adapt.Run{
		Registry: a.reg,
		Model:    m,
		Options: agent.Options{
			MaxSteps: in.MaxSteps, MaxRetries: in.MaxRetries, MaxRunRetries: in.MaxRunRetries,
			PrepareStep: m.prepare, StateKey: a.opts.StateKey, OnEvent: m.event,
		},
		State: &st,
		Exec:  m.exec,
		Wait:  m.wait,
		// A run's id must replay as it was: the workflow's.
		NewID: func() string { return workflow.GetInfo(ctx).WorkflowExecution.ID },
	}
	if a.opts.Observer != nil {
		loop.Options.Observer = replaySafe{ctx: ctx, obs: a.opts.Observer}
	}
	// The loop's context never ends: a cancelled run ends through the
	// workflow's context, which fails the activity or the wait in progress.
	// A State paused elsewhere waits here first, as the loop resumes only a
	// decided one.
	// A State that fails the loop's checks fails before the wait, so that
	// no one is asked to decide its calls.
	err := trust.Admit(&st, nil, false, a.opts.StateKey)
	if err == nil {
		err = m.wait(context.Background(), &st)
	}
	if err == nil {
		err = loop.Do(context.Background())
	}
	if errors.Is(err, errContinue) {
		return nil, m.continueAsNew(in)
	}
	res := &Result{State: st, Usage: m.usage}
	if err == nil {
		return res, nil
	}
	if temporal.IsCanceledError(err) || ctx.Err() != nil {
		return nil, err
	}
	return nil, temporal.NewNonRetryableApplicationError(err.Error(), errTypeRun, err, encodeError(err), res)
}

// workflowModel is the workflow's side of a run: each model call is an
// activity, and the results of a turn go to the model with the next one.
type workflowModel struct {
	a      *Agent
	ctx    workflow.Context
	name   string
	params json.RawMessage
	st     *agent.State // the loop's
	answer *answer      // the results the model has not read yet
	usage  agent.Usage
	asked  int     // the model calls of this workflow run
	last   int     // the step of the last of them
	saved  error   // why the last Save failed
	seq    int     // the Seq of the last event
	events []Event // of this workflow run
}

// errContinue ends the loop of a workflow run that continues as new.
var errContinue = errors.New("tooltemporal: the run continues as new")

// versionContinue marks the runs that may continue as new: the histories
// of runs started before it replay as they ran, never continuing.
const versionContinue = "toolreg.continue-as-new"

// continueNow reports whether the run continues as new here, at a point
// where nothing is in flight: the run made a step, its history is past a
// bound of the Options (or the server suggests it), and the workflow is
// the Agent's own. What it reads of the history is the same on replay.
func (m *workflowModel) continueNow() bool {
	info := workflow.GetInfo(m.ctx)
	if m.asked == 0 || info.WorkflowType.Name != m.a.opts.Name {
		return false
	}
	o := m.a.opts
	past := info.GetContinueAsNewSuggested() ||
		over(m.asked, o.ContinueAfterSteps, DefaultContinueAfterSteps) ||
		over(info.GetCurrentHistoryLength(), o.ContinueAfterEvents, DefaultContinueAfterEvents) ||
		over(info.GetCurrentHistorySize(), o.ContinueAfterBytes, DefaultContinueAfterBytes)
	return past && workflow.GetVersion(m.ctx, versionContinue, workflow.DefaultVersion, 1) == 1
}

// prepare begins each step, and a resumed turn's: a new step begins with
// continuing as new when it is time (before the Observer sees a model
// call), then with the Options' PrepareStep.
func (m *workflowModel) prepare(ctx context.Context, s *agent.Step) error {
	if s.Number > m.last && m.continueNow() {
		// The step was counted, but the next run makes it.
		m.st.Steps--
		return errContinue
	}
	if m.a.opts.PrepareStep != nil {
		return m.a.opts.PrepareStep(ctx, s)
	}
	return nil
}

// over reports whether n reached the bound (0: def; negative: none).
func over(n, bound, def int) bool {
	if bound == 0 {
		bound = def
	}
	return bound > 0 && n >= bound
}

// continueAsNew ends this workflow run with Temporal's continue-as-new
// error, the next run starting from the State as the loop left it (sealed
// with the Options' key, the results of the last turn in its transcript).
// Update handlers finish first; the decide handler never blocks, so none
// is halfway.
func (m *workflowModel) continueAsNew(in Input) error {
	if m.answer != nil {
		// The last turn's results did not reach the transcript: carrying
		// the State would lose them.
		if m.saved == nil {
			m.saved = errors.New("tooltemporal: the last turn's results were not saved")
		}
		return temporal.NewNonRetryableApplicationError(m.saved.Error(), errTypeRun, m.saved, encodeError(m.saved), &Result{State: *m.st, Usage: m.usage})
	}
	if err := workflow.Await(m.ctx, func() bool { return workflow.AllHandlersFinished(m.ctx) }); err != nil {
		return err
	}
	next := in
	next.State, next.Usage, next.Events = *m.st, m.usage, m.seq
	return workflow.NewContinueAsNewError(m.ctx, workflow.GetInfo(m.ctx).WorkflowType.Name, next)
}

func (m *workflowModel) Info() agent.RunInfo {
	// The provider is known once a model was made; the activity checks
	// that the State resumes on its own provider.
	return agent.RunInfo{Provider: m.st.Provider}
}

func (m *workflowModel) Ask(_ context.Context, s *agent.Step, _ func(agent.Event), _ func(int, toolreg.ToolCall)) (agent.Reply, error) {
	m.asked, m.last = m.asked+1, s.Number
	in := m.input()
	declared := make([]string, 0)
	for _, t := range s.Declared() {
		declared = append(declared, t.Name())
	}
	in.Step = &step{Number: s.Number, Tools: s.Tools(), Choice: s.Choice, Declared: declared}
	out, err := m.run(in)
	if err != nil {
		return agent.Reply{}, err
	}
	m.usage.InputTokens += out.Reply.Usage.InputTokens
	m.usage.OutputTokens += out.Reply.Usage.OutputTokens
	if out.Text != "" {
		m.event(agent.Event{Kind: agent.TextDelta, Step: s.Number, Text: out.Text})
	}
	m.event(agent.Event{Kind: agent.StepDone, Step: s.Number, Usage: out.Reply.Usage})
	return out.Reply, nil
}

func (m *workflowModel) Answer(calls []toolreg.ToolCall, outs []toolreg.Output) error {
	ans := &answer{Calls: calls, Results: make([]agent.Result, len(outs))}
	for i, out := range outs {
		ans.Results[i] = *agent.ResultOf(out)
	}
	m.answer = ans
	return nil
}

// Save adds the results the model has not read yet (the run ends after a
// turn: a tool stopped it, or too many retries) to the transcript, with an
// activity of its own.
func (m *workflowModel) Save(s *agent.State) error {
	if m.answer == nil {
		return nil
	}
	_, err := m.run(m.input())
	m.saved = err
	return err
}

// input is a model call's input: the provider's part of the State, and the
// results the model has not read yet.
func (m *workflowModel) input() askInput {
	return askInput{
		Model: m.name, Params: m.params, Answer: m.answer,
		State: agent.State{Provider: m.st.Provider, Steps: m.st.Steps, Transcript: m.st.Transcript, Cursor: m.st.Cursor},
	}
}

// run runs the model-call activity and takes the provider's part of the
// State it returns, also from a failed call that reports it.
func (m *workflowModel) run(in askInput) (askOutput, error) {
	var out askOutput
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(m.ctx, m.a.askOptions()), m.a.askType(), in).Get(m.ctx, &out)
	if err != nil {
		var ae *temporal.ApplicationError
		if !errors.As(err, &ae) || ae.Type() != errTypeModel {
			return out, err
		}
		var we wireError
		var st agent.State
		if ae.Details(&we, &st) == nil && st.Transcript != nil {
			m.take(st)
		}
		return out, we.err(err)
	}
	m.answer = nil
	m.take(out.State)
	return out, nil
}

func (m *workflowModel) take(st agent.State) {
	m.st.Provider, m.st.Transcript, m.st.Cursor = st.Provider, st.Transcript, st.Cursor
}

// exec runs a turn's calls as activities, all at once, and reads their
// results in call order; the calls of inline tools run in the workflow
// while the activities do.
func (m *workflowModel) exec(_ context.Context, calls []toolreg.ToolCall, infos []toolreg.CallInfo) []toolreg.Output {
	futures := make([]workflow.Future, len(calls))
	outs := make([]toolreg.Output, len(calls))
	// Each inline call runs in a workflow goroutine of its own, so that
	// the SDK's deadlock detector, which fails a workflow goroutine that
	// runs a second without yielding, times one call, not a turn of them.
	inline := workflow.NewWaitGroup(m.ctx)
	for i, c := range calls {
		if m.a.toolOptions(c.Name).Inline {
			inline.Add(1)
			workflow.Go(m.ctx, func(ctx workflow.Context) {
				defer inline.Done()
				outs[i] = m.inline(ctx, c, infos[i])
			})
			continue
		}
		actx := workflow.WithActivityOptions(m.ctx, m.a.callOptions(c.Name))
		futures[i] = workflow.ExecuteActivity(actx, m.a.callType(), newCallInput(c, infos[i]))
	}
	inline.Wait(m.ctx)
	for i, f := range futures {
		if f == nil {
			continue
		}
		var res callResult
		err := f.Get(m.ctx, &res)
		outs[i] = m.a.outcome(calls[i], res, err)
	}
	return outs
}

// inline runs a call of an inline tool in the workflow, once: a replay
// reads its recorded result.
func (m *workflowModel) inline(ctx workflow.Context, call toolreg.ToolCall, info toolreg.CallInfo) toolreg.Output {
	in := newCallInput(call, info)
	var res callResult
	err := workflow.SideEffect(ctx, func(workflow.Context) any {
		info := in.info() // as the activity's
		ctx := toolreg.WithCallInfo(context.Background(), func(toolreg.ToolCall) toolreg.CallInfo { return info })
		return encodeOutput(m.a.reg.CallAll(ctx, []toolreg.ToolCall{in.Call})[0])
	}).Get(&res)
	if err != nil {
		return m.a.outcome(call, callResult{}, err)
	}
	return res.output()
}

// outcome is a call's Output from its activity's result or failure: a
// failure the retry policy gave up on is what the model reads.
func (a *Agent) outcome(call toolreg.ToolCall, res callResult, err error) toolreg.Output {
	if err == nil {
		return res.output()
	}
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) && ae.Type() == errTypeTool && ae.Details(&res) == nil {
		return res.output()
	}
	var te *temporal.TimeoutError
	switch {
	case errors.As(err, &te):
		return toolreg.Output{
			Text:    fmt.Sprintf("tool %q did not finish in time; try again later, perhaps with a smaller request, or go on without it", call.Name),
			IsError: true,
			Err:     fmt.Errorf("%w: tool %q: %w", toolreg.ErrTimeout, call.Name, err),
		}
	case temporal.IsCanceledError(err):
		return toolreg.Output{
			Text:    fmt.Sprintf("the call to tool %q was cancelled", call.Name),
			IsError: true,
			Err:     fmt.Errorf("tool %q: %w: %w", call.Name, context.Canceled, err),
		}
	}
	return toolreg.Output{
		Text:    fmt.Sprintf("tool %q failed; go on without it or try again later", call.Name),
		IsError: true,
		Err:     fmt.Errorf("%w: tool %q: %w", toolreg.ErrToolFailed, call.Name, err),
	}
}

// wait blocks until the host has decided every pending call (UpdateDecide)
// or the run is cancelled.
func (m *workflowModel) wait(_ context.Context, st *agent.State) error {
	if st.Paused() && !decided(st) && m.continueNow() {
		return errContinue
	}
	return workflow.Await(m.ctx, func() bool { return !st.Paused() })
}

// decided reports whether the host decided a call of the paused turn: a
// decision made in this workflow run is not carried without a seal, so
// the run does not continue as new then (it never is: the loop waits
// first, and the decide handler runs when it waits).
func decided(st *agent.State) bool {
	for _, c := range st.Turn {
		if c.Status == agent.StatusApproved || c.Status == agent.StatusRejected || c.Status == agent.StatusAnswered {
			return true
		}
	}
	return false
}

// handle sets the run's Update and Queries up.
func (m *workflowModel) handle() error {
	if err := workflow.SetQueryHandler(m.ctx, QueryPending, func() ([]agent.Call, error) {
		return m.st.Pending(), nil
	}); err != nil {
		return err
	}
	if err := workflow.SetQueryHandler(m.ctx, QueryEvents, func(after int) ([]Event, error) {
		return m.eventsAfter(after), nil
	}); err != nil {
		return err
	}
	if err := workflow.SetQueryHandler(m.ctx, QueryState, func() (agent.State, error) {
		return *m.st, nil
	}); err != nil {
		return err
	}
	return workflow.SetUpdateHandlerWithOptions(m.ctx, UpdateDecide,
		func(ctx workflow.Context, ds []Decision) ([]agent.Call, error) {
			if err := decide(m.st, ds); err != nil {
				return nil, err
			}
			return m.st.Pending(), nil
		},
		workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, ds []Decision) error {
			trial := *m.st
			trial.Turn = append([]agent.Call(nil), m.st.Turn...)
			return decide(&trial, ds)
		}},
	)
}
