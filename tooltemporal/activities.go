package tooltemporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/adapt"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
)

// The application error types of the activities' failures.
const (
	errTypeTool    = "toolreg.tool"    // a retryable failure of a tool call; details: callResult
	errTypeModel   = "toolreg.model"   // a failed model call; details: wireError, agent.State
	errTypeRun     = "toolreg.run"     // the run ended with an error; details: wireError, Result
	errTypeUnknown = "toolreg.nomodel" // no model of that name on the worker
)

// askInput is a model call: the State to build the model from, the results
// of the previous turn to add first, and the step (none: only add the
// results and save).
type askInput struct {
	Model  string          `json:"model"`
	Params json.RawMessage `json:"params,omitempty"`
	State  agent.State     `json:"state"`
	Answer *answer         `json:"answer,omitempty"`
	Step   *step           `json:"step,omitempty"`
}

// answer is a turn's calls and their results, in call order.
type answer struct {
	Calls   []toolreg.ToolCall `json:"calls"`
	Results []agent.Result     `json:"results"`
}

// step is an agent.Step as data: the tools it offers, and those its
// request declares, in order (the run's tools array: deferred tools not
// found left out, the loop's tool search in). A step of a history written
// before Declared was carried has no "declared" member (nil), and declares
// every tool; a step that declares none has an empty list, which is why
// the member is written even when empty.
type step struct {
	Number   int              `json:"number"`
	Tools    []string         `json:"tools"`
	Choice   agent.ToolChoice `json:"choice"`
	Declared []string         `json:"declared"`
}

// agentStep is the step again, over reg.
func (in *step) agentStep(reg *toolreg.Registry) (*agent.Step, error) {
	s := agent.NewStep(in.Number, reg)
	if in.Declared != nil {
		declared, err := adapt.DeclaredTools(reg, in.Declared)
		if err != nil {
			return nil, err
		}
		s = agent.NewDeclaredStep(in.Number, reg, declared)
	}
	if err := s.Only(in.Tools...); err != nil {
		return nil, err
	}
	// Only keeps the loop's own tools the step offered; hide those the
	// loop's step did not.
	for _, n := range s.Tools() {
		if _, ok := reg.Lookup(n); !ok && !slices.Contains(in.Tools, n) {
			if err := s.Hide(n); err != nil {
				return nil, err
			}
		}
	}
	s.Choice = in.Choice
	return s, nil
}

// askOutput is what a model call returns: the State with the model's
// message in its transcript, and what the model asked for.
type askOutput struct {
	State agent.State `json:"state"`
	Reply agent.Reply `json:"reply"`
	// Text is the model's text of the step, from a model that streams.
	Text string `json:"text,omitempty"`
}

// ask is the model-call activity: it builds the provider's model from the
// State, adds the previous turn's results, asks, and saves. Each attempt
// starts from the input, so a retried attempt asks the same question.
func (a *Agent) ask(ctx context.Context, in askInput) (askOutput, error) {
	fn, ok := a.model(in.Model)
	if !ok {
		return askOutput{}, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("tooltemporal: no model named %q on this worker (register it with Agent.Model)", in.Model), errTypeUnknown, nil)
	}
	st := in.State
	m, err := fn(ctx, &st, in.Params)
	if err != nil {
		return askOutput{}, modelError(fmt.Errorf("tooltemporal: making model %q: %w", in.Model, err), nil, false)
	}
	if p := m.Info().Provider; st.Provider != "" && st.Provider != p {
		return askOutput{}, modelError(fmt.Errorf("agent: a state of provider %q cannot resume on %q", st.Provider, p), nil, true)
	}
	st.Provider = m.Info().Provider
	if in.Answer != nil {
		outs := make([]toolreg.Output, len(in.Answer.Results))
		for i := range outs {
			outs[i] = in.Answer.Results[i].Output()
		}
		if err := m.Answer(in.Answer.Calls, outs); err != nil {
			return askOutput{}, modelError(err, nil, true)
		}
	}
	var reply agent.Reply
	var text strings.Builder
	if in.Step != nil {
		s, serr := in.Step.agentStep(a.reg)
		if serr != nil {
			return askOutput{}, modelError(fmt.Errorf("tooltemporal: the step of the history: %w", serr), nil, true)
		}
		reply, err = m.Ask(ctx, s, func(e agent.Event) {
			if e.Kind == agent.TextDelta {
				text.WriteString(e.Text)
			}
		}, func(int, toolreg.ToolCall) {})
	}
	if serr := m.Save(&st); serr != nil && err == nil {
		err = fmt.Errorf("agent: saving the run's state: %w", serr)
	}
	if cerr := ctx.Err(); cerr != nil {
		return askOutput{}, cerr // Temporal cancelled or timed the attempt out
	}
	if err != nil {
		return askOutput{}, modelError(err, &st, false)
	}
	return askOutput{State: st, Reply: reply, Text: text.String()}, nil
}

// modelError is a failed model call as an activity error, retried unless
// final says retrying cannot help, or err is a cut-off response
// (toolreg.ErrTruncated) or an error the model made non-retryable. st,
// when set, is the State with what the model said, for the run's last
// word.
func modelError(err error, st *agent.State, final bool) error {
	var ae *temporal.ApplicationError
	final = final || errors.Is(err, toolreg.ErrTruncated) || errors.As(err, &ae) && ae.NonRetryable()
	details := []any{encodeError(err)}
	if st != nil {
		details = append(details, st)
	}
	return temporal.NewApplicationErrorWithOptions(err.Error(), errTypeModel, temporal.ApplicationErrorOptions{
		NonRetryable: final, Cause: err, Details: details,
	})
}

// callInput is one tool call with its CallInfo, as data (the call's ID
// and tool name are the call's). The host's answer is sent only when there
// is one: a nil json.RawMessage would come back as the JSON null, which is
// an answer.
type callInput struct {
	Call     toolreg.ToolCall `json:"call"`
	Step     int              `json:"step"`
	Attempt  int              `json:"attempt"`
	Provider string           `json:"provider,omitempty"`
	Answer   json.RawMessage  `json:"answer,omitempty"`
}

func newCallInput(call toolreg.ToolCall, info toolreg.CallInfo) callInput {
	return callInput{Call: call, Step: info.Step, Attempt: info.Attempt, Provider: info.Provider, Answer: info.Answer}
}

func (in callInput) info() toolreg.CallInfo {
	return toolreg.CallInfo{ID: in.Call.ID, Tool: in.Call.Name, Step: in.Step, Attempt: in.Attempt, Provider: in.Provider, Answer: in.Answer}
}

// call is the tool-call activity: it runs the call through the registry,
// with the call's CallInfo (its id is an idempotency key the tool reads
// with toolreg.Info), and heartbeats while the tool runs if the tool's
// options ask for it. A result for the model is returned as data; a
// failure that may pass is an activity error, retried by the tool's retry
// policy.
func (a *Agent) call(ctx context.Context, in callInput) (callResult, error) {
	opts := a.toolOptions(in.Call.Name)
	if opts.HeartbeatTimeout > 0 {
		stop := heartbeat(ctx, opts.HeartbeatTimeout/3)
		defer stop()
	}
	info := in.info()
	cctx := toolreg.WithCallInfo(ctx, func(toolreg.ToolCall) toolreg.CallInfo { return info })
	out := a.reg.CallAll(cctx, []toolreg.ToolCall{in.Call})[0]
	res := encodeOutput(out)
	if err := ctx.Err(); err != nil {
		return res, err // Temporal cancelled or timed the attempt out
	}
	if retryable(out) {
		return res, temporal.NewApplicationErrorWithOptions(out.Err.Error(), errTypeTool, temporal.ApplicationErrorOptions{Details: []any{res}})
	}
	return res, nil
}

// retryable tells a failure that may pass (a tool's plain error, a
// timeout, an overloaded registry) from a result for the model.
func retryable(out toolreg.Output) bool {
	if !out.IsError || out.Err == nil {
		return false
	}
	for _, data := range []error{toolreg.ErrRetry, toolreg.ErrStopRun, toolreg.ErrInterrupt} {
		if errors.Is(out.Err, data) {
			return false
		}
	}
	var ae *temporal.ApplicationError
	if errors.As(out.Err, &ae) && ae.NonRetryable() {
		return false
	}
	return errors.Is(out.Err, toolreg.ErrToolFailed) || errors.Is(out.Err, toolreg.ErrTimeout) || errors.Is(out.Err, toolreg.ErrOverloaded)
}

// heartbeat records a heartbeat every interval until stop is called.
func heartbeat(ctx context.Context, every time.Duration) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx)
			}
		}
	}()
	return func() { close(done) }
}
