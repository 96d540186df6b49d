package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/toolreg/toolreg"
)

// State is where a run stands, as plain data that encodes as JSON: the
// provider's transcript, the model calls made, the retries counted and, when
// the run is paused, the calls of the paused turn. The host decides the
// pending calls (Approve, Reject, Answer) and resumes the run with the
// State, in this process or another. A runner resumes a State only as a
// runner wrote it, with decisions made after loading it or sealed
// (Options.StateKey): see Validate and Reseal.
type State struct {
	// Provider is the runner's provider: a State resumes only there.
	Provider string `json:"provider"`
	// Steps counts the model calls made.
	Steps int `json:"steps"`
	// Transcript is the conversation so far, in the provider's own wire
	// JSON (for a paused turn: up to and including the model's message
	// that asked for the calls).
	Transcript json.RawMessage `json:"transcript,omitempty"`
	// Cursor is what else the provider needs to go on (the Responses API:
	// the previous response's id).
	Cursor string `json:"cursor,omitempty"`
	// Turn holds the calls of the paused turn, in the model's order: some
	// ran, some wait for the host; in a checkpoint (Options.Checkpoint),
	// some may not have run yet (StatusAsked).
	Turn []Call `json:"turn,omitempty"`
	// Retries counts the failed calls of each tool in a row; RunRetries,
	// of the whole run.
	Retries    map[string]int `json:"retries,omitempty"`
	RunRetries int            `json:"run_retries,omitempty"`
	// RunID names the run, the same across its pauses and resumes: a tool
	// reads it in toolreg.Info(ctx).RunID. The loop makes one up when a
	// run starts without it.
	RunID string `json:"run_id,omitempty"`
	// Ran lists the ids (toolreg.Info(ctx).ID) of the calls of the last
	// turn that are done (they ran, or were refused or rejected), so that
	// none runs again, whatever a model, a stream or a store repeats.
	Ran []string `json:"ran,omitempty"`
	// Unsent lists the calls that ran but whose results no model read: the
	// model call that asked for them failed after they had started (a
	// stream that broke off or contradicted itself, a cancelled context),
	// so they are in no transcript. Each holds the arguments it ran with
	// and its result: a host that retries the run sees here which side
	// effects already happened.
	Unsent []Call `json:"unsent,omitempty"`
	// Loaded lists the deferred tools the model found with the tool
	// search (Options.Defer), in the order found: the run declares them
	// from then on, after the tools it declared from the start. A name the
	// registry does not hold makes the runner refuse the State
	// (ErrInvalidState).
	Loaded []string `json:"loaded,omitempty"`
	// Seal, when the runner has a key (Options.StateKey), is the MAC that
	// makes the State's contents trusted when it comes back; see Reseal.
	Seal string `json:"seal,omitempty"`
}

// Call is one call of a paused turn.
type Call struct {
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	// Index is the call's place in the turn.
	Index int `json:"index"`
	// Status says where the call stands.
	Status Status `json:"status"`
	// Question is what an interrupting tool asks (StatusInterrupted), as
	// JSON.
	Question json.RawMessage `json:"question,omitempty"`
	// Answer is the host's answer to the question (StatusAnswered).
	Answer json.RawMessage `json:"answer,omitempty"`
	// Reason is why the host rejected the call (StatusRejected); the model
	// reads it.
	Reason string `json:"reason,omitempty"`
	// Result is the call's result, once it ran (StatusDone).
	Result *Result `json:"result,omitempty"`

	// before is the call as it was before the host decided it in this
	// process (Approve, ApproveWith, Reject, Answer): nil for a call whose
	// status came with the State. It is not JSON, so a decision read from
	// a store does not have it.
	before *Call
}

// Key identifies the call in its turn: its id, or "#" and its index when
// the provider gave it none.
func (c Call) Key() string {
	if c.ID != "" {
		return c.ID
	}
	return "#" + strconv.Itoa(c.Index)
}

// Equal reports whether c and d are the same call, as their JSON says:
// whether the host decided c or d in this process is left aside (so
// go-cmp compares Calls with it).
func (c Call) Equal(d Call) bool {
	c.before, d.before = nil, nil
	b, err := json.Marshal(c)
	e, err2 := json.Marshal(d)
	return err == nil && err2 == nil && string(b) == string(e)
}

// ToolCall is the call as the registry runs it.
func (c Call) ToolCall() toolreg.ToolCall {
	return toolreg.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments}
}

// Status is where a call of a paused turn stands.
type Status string

// The statuses of a Call.
const (
	StatusDone        Status = "done"        // it ran; Result holds what the model reads
	StatusApproval    Status = "approval"    // it waits for the host's approval
	StatusInterrupted Status = "interrupted" // its tool asked the host a question
	StatusApproved    Status = "approved"    // approved: it runs when the run resumes
	StatusRejected    Status = "rejected"    // rejected: the model reads Reason
	StatusAnswered    Status = "answered"    // answered: its tool runs again with Answer
	// StatusAsked: the model asked for it and it has not run (a
	// checkpoint's, Options.Checkpoint). When the run resumes it passes
	// the gate again as a new call does: offered, its arguments checked,
	// the host asked to approve it if its tool needs approval.
	StatusAsked Status = "asked"
)

// Result is the outcome of a call as the model reads it.
type Result struct {
	Text       string          `json:"text"`
	Structured json.RawMessage `json:"structured,omitempty"`
	Media      []toolreg.Media `json:"media,omitempty"`
	IsError    bool            `json:"is_error,omitempty"`
}

// ResultOf keeps of out what the model reads.
func ResultOf(out toolreg.Output) *Result {
	return &Result{Text: out.Text, Structured: out.Structured, Media: out.Media, IsError: out.IsError}
}

// Output is the result as an Output again; Err only says the call failed.
// A nil Result (a done call whose result was lost) is a failed call that
// says so.
func (r *Result) Output() toolreg.Output {
	if r == nil {
		return toolreg.Output{Text: "the result of this call was lost", IsError: true, Err: ErrInvalidState}
	}
	out := toolreg.Output{Text: r.Text, Structured: r.Structured, Media: r.Media, IsError: r.IsError}
	if r.IsError {
		out.Err = errors.New(r.Text)
	}
	return out
}

// Paused reports whether calls wait for the host.
func (s *State) Paused() bool { return len(s.Pending()) > 0 }

// Pending lists the calls that wait for the host: approvals and questions.
func (s *State) Pending() []Call {
	var out []Call
	for _, c := range s.Turn {
		if c.Status == StatusApproval || c.Status == StatusInterrupted {
			out = append(out, c)
		}
	}
	return out
}

// ErrNoSuchCall: a decision named a call that does not wait for it.
var ErrNoSuchCall = errors.New("no such pending call")

// Approve lets the call with key run as the model asked.
//
// A decision binds only when made in the process that resumes the run, on
// the State as loaded: a decided status read from JSON is refused
// (ErrInvalidState) unless the State carries a valid seal (Reseal).
func (s *State) Approve(key string) error {
	return s.decide(key, StatusApproval, func(c *Call) { c.Status = StatusApproved })
}

// ApproveWith lets the call with key run with other arguments (the host
// corrected them). They are checked like the model's when the call runs,
// not here: arguments the tool refuses reach the model as its invalid
// arguments do, and it may call again.
func (s *State) ApproveWith(key string, arguments json.RawMessage) error {
	return s.decide(key, StatusApproval, func(c *Call) { c.Status, c.Arguments = StatusApproved, arguments })
}

// Reject refuses the call with key; the model reads reason as its result.
func (s *State) Reject(key, reason string) error {
	return s.decide(key, StatusApproval, func(c *Call) { c.Status, c.Reason = StatusRejected, reason })
}

// Answer answers the question of the call with key; answer must encode as
// JSON. The tool runs again with the same arguments and reads the answer
// in toolreg.Info(ctx).Answer.
func (s *State) Answer(key string, answer any) error {
	b, err := json.Marshal(answer)
	if err != nil {
		return fmt.Errorf("agent: the answer does not encode as JSON: %w", err)
	}
	return s.decide(key, StatusInterrupted, func(c *Call) { c.Status, c.Answer = StatusAnswered, b })
}

func (s *State) decide(key string, want Status, apply func(*Call)) error {
	for i := range s.Turn {
		if c := &s.Turn[i]; c.Key() == key {
			if c.Status != want {
				return fmt.Errorf("%w: call %s is %s, not waiting for %s", ErrNoSuchCall, key, c.Status, want)
			}
			prev := *c
			prev.before = nil
			apply(c)
			c.before = &prev
			return nil
		}
	}
	return fmt.Errorf("%w: no call %s in the paused turn", ErrNoSuchCall, key)
}
