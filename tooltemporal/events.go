package tooltemporal

import (
	"context"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/workflow"
)

// QueryEvents returns the events of the run after a number (its argument,
// an int), as []Event.
const QueryEvents = "toolreg.events"

// Event is what happened in a run, as data, for a host that shows a run as
// it goes (a chat UI): an agent.Event, numbered. Read a run's events with
// Events, or see them in the worker with Options.OnEvent.
//
// A step brings, in order: TextDelta with the text the model wrote in the
// step (only from a model that streams, whose deltas the model-call
// activity joins into one), StepDone with the step's usage once the model
// call is over, CallReady for each call the model asked for (once the
// gate let it run or wait), and CallResult for each call once the turn's
// results go back to the model, in call order.
type Event struct {
	// Seq numbers the events of a run from 1, on across the workflow runs
	// of one that continues as new.
	Seq  int             `json:"seq"`
	Kind agent.EventKind `json:"kind"`
	Step int             `json:"step"`
	// Text is the model's text of the step (TextDelta).
	Text string `json:"text,omitempty"`
	// Call is the call the event is about (CallReady, CallResult).
	Call *toolreg.ToolCall `json:"call,omitempty"`
	// Result is the call's result (CallResult).
	Result *agent.Result `json:"result,omitempty"`
	// Usage is the tokens of the step's model call (StepDone).
	Usage agent.Usage `json:"usage,omitzero"`
}

// Events returns the events of the run workflowID (runID "" for its latest
// run) numbered after after; 0 returns them all. Poll it with the Seq of
// the last event read. It is a Query: it adds nothing to the run's
// history, and a run that has ended still answers it (a worker replays
// it). A workflow run holds the events since it began: after a
// continue-as-new (Options.ContinueAfterSteps) the first Seq it returns
// may be past after+1, when events of the previous run were not read in
// time.
func Events(ctx context.Context, c client.Client, workflowID, runID string, after int) ([]Event, error) {
	v, err := c.QueryWorkflow(ctx, workflowID, runID, QueryEvents, after)
	if err != nil {
		return nil, err
	}
	var events []Event
	return events, v.Get(&events)
}

// event numbers e and keeps it, and hands it to Options.OnEvent unless
// the workflow replays what it did before: a replay rebuilds the events,
// and emits none of them again.
func (m *workflowModel) event(e agent.Event) {
	m.seq++
	ev := Event{Seq: m.seq, Kind: e.Kind, Step: e.Step, Text: e.Text}
	switch e.Kind {
	case agent.CallReady:
		c := e.Call
		ev.Call = &c
	case agent.CallResult:
		c := e.Call
		ev.Call, ev.Result = &c, agent.ResultOf(e.Output)
	case agent.StepDone:
		ev.Usage = e.Usage
	}
	m.events = append(m.events, ev)
	if m.a.opts.OnEvent != nil && !workflow.IsReplaying(m.ctx) {
		m.a.opts.OnEvent(ev)
	}
}

// eventsAfter are the events kept numbered after after.
func (m *workflowModel) eventsAfter(after int) []Event {
	for i, e := range m.events {
		if e.Seq > after {
			return m.events[i:]
		}
	}
	return []Event{}
}

// replaySafe is an Observer that a workflow's replay does not call: the
// spans of the model calls a worker replays were recorded when they ran.
type replaySafe struct {
	ctx workflow.Context
	obs agent.Observer
}

func (o replaySafe) RunStarted(ctx context.Context, run agent.RunInfo) context.Context {
	if workflow.IsReplaying(o.ctx) {
		return ctx
	}
	return o.obs.RunStarted(ctx, run)
}

func (o replaySafe) RunEnded(ctx context.Context, run agent.RunInfo, err error) {
	if !workflow.IsReplaying(o.ctx) {
		o.obs.RunEnded(ctx, run, err)
	}
}

func (o replaySafe) ModelCallStarted(ctx context.Context, call agent.ModelCall) context.Context {
	if workflow.IsReplaying(o.ctx) {
		return ctx
	}
	return o.obs.ModelCallStarted(ctx, call)
}

func (o replaySafe) ModelCallEnded(ctx context.Context, call agent.ModelCall, usage agent.Usage, err error) {
	if !workflow.IsReplaying(o.ctx) {
		o.obs.ModelCallEnded(ctx, call, usage, err)
	}
}
