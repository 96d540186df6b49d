package tooltemporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolreg/toolreg/agent"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

// Decision is the host's decision on one pending call of a run, sent with
// Decide (the UpdateDecide Update). Make it with Approve, ApproveWith,
// Reject or Answer.
type Decision struct {
	// Call is the call's key (agent.Call.Key).
	Call string `json:"call"`
	// Verdict says what the host decided.
	Verdict Verdict `json:"verdict"`
	// Arguments replace the model's (VerdictApprove); nil keeps them.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Reason is why the call is rejected (VerdictReject); the model reads
	// it.
	Reason string `json:"reason,omitempty"`
	// Answer answers an interrupting tool's question (VerdictAnswer), as
	// JSON.
	Answer json.RawMessage `json:"answer,omitempty"`
}

// Verdict is what a Decision decides.
type Verdict string

// The verdicts of a Decision, as agent.State's methods apply them.
const (
	VerdictApprove Verdict = "approve" // State.Approve, or State.ApproveWith when Arguments are set
	VerdictReject  Verdict = "reject"  // State.Reject
	VerdictAnswer  Verdict = "answer"  // State.Answer
)

// Approve lets the call with key run as the model asked.
func Approve(key string) Decision { return Decision{Call: key, Verdict: VerdictApprove} }

// ApproveWith lets the call with key run with other arguments; they are
// checked like the model's.
func ApproveWith(key string, arguments json.RawMessage) Decision {
	return Decision{Call: key, Verdict: VerdictApprove, Arguments: arguments}
}

// Reject refuses the call with key; the model reads reason as its result.
func Reject(key, reason string) Decision {
	return Decision{Call: key, Verdict: VerdictReject, Reason: reason}
}

// Answer answers the question of the call with key; answer must encode as
// JSON. The tool runs again and reads the answer in
// toolreg.Info(ctx).Answer.
func Answer(key string, answer any) (Decision, error) {
	b, err := json.Marshal(answer)
	if err != nil {
		return Decision{}, fmt.Errorf("tooltemporal: the answer does not encode as JSON: %w", err)
	}
	return Decision{Call: key, Verdict: VerdictAnswer, Answer: b}, nil
}

// decide applies ds to st, in order.
func decide(st *agent.State, ds []Decision) error {
	if len(ds) == 0 {
		return errors.New("tooltemporal: no decision")
	}
	for _, d := range ds {
		var err error
		switch d.Verdict {
		case VerdictApprove:
			if d.Arguments != nil {
				err = st.ApproveWith(d.Call, d.Arguments)
			} else {
				err = st.Approve(d.Call)
			}
		case VerdictReject:
			err = st.Reject(d.Call, d.Reason)
		case VerdictAnswer:
			err = st.Answer(d.Call, d.Answer)
		default:
			err = fmt.Errorf("tooltemporal: call %s: unknown verdict %q", d.Call, d.Verdict)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Decide sends decisions on pending calls to the run workflowID (runID ""
// for its latest run) and returns the calls still pending. The run goes on
// once none is. An error says why the decisions were refused (a call that
// waits for none); then none of them applies.
func Decide(ctx context.Context, c client.Client, workflowID, runID string, ds ...Decision) ([]agent.Call, error) {
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: workflowID, RunID: runID, UpdateName: UpdateDecide,
		Args: []any{ds}, WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return nil, err
	}
	var pending []agent.Call
	return pending, h.Get(ctx, &pending)
}

// Pending returns the calls of the run workflowID that wait for the host.
func Pending(ctx context.Context, c client.Client, workflowID, runID string) ([]agent.Call, error) {
	v, err := c.QueryWorkflow(ctx, workflowID, runID, QueryPending)
	if err != nil {
		return nil, err
	}
	var pending []agent.Call
	return pending, v.Get(&pending)
}

// Get waits for a run to end and returns its Result. When the run ended
// with an error, it returns the Result so far too, and an error that
// matches what the loop's error matched (toolreg.ErrMaxSteps,
// toolreg.ErrTooManyRetries, toolreg.ErrStopRun, ...) as well as
// Temporal's error.
func Get(ctx context.Context, run client.WorkflowRun) (*Result, error) {
	var res Result
	if err := run.Get(ctx, &res); err != nil {
		return Failure(err)
	}
	return &res, nil
}

// Failure reads the error a run failed with (from a client's
// WorkflowRun.Get, or a test environment's GetWorkflowError): the Result
// so far, and an error that matches the loop's sentinels as well as err.
// An error of another kind (the run was cancelled, terminated or timed
// out) comes back as it is, with no Result.
func Failure(err error) (*Result, error) {
	var ae *temporal.ApplicationError
	if !errors.As(err, &ae) || ae.Type() != errTypeRun {
		return nil, err
	}
	var we wireError
	var res Result
	if derr := ae.Details(&we, &res); derr != nil {
		return nil, fmt.Errorf("tooltemporal: reading the run's failure: %w (%w)", derr, err)
	}
	return &res, we.err(err)
}
