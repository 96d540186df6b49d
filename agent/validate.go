package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/internal/trust"
)

// ErrInvalidState: a State to resume is not one a runner wrote, or carries
// decisions the host did not make in this process: an unknown status, a
// done call without its result, a call its transcript does not hold, a
// counter below zero, a seal that does not match. Nothing of such a run
// runs: no model call, no tool call.
var ErrInvalidState = errors.New("invalid state")

// TurnReader is a Model that can read the calls of a paused turn from its
// transcript: the calls of the transcript's last message, which must be
// the model's, in order. Before anything runs, the loop checks that the
// State's paused turn holds the same calls (ids, names, arguments, in the
// same order). The models of toolopenai.Chat.Model,
// toolanthropic.Adapter.Model, toolgemini.Adapter.Model and
// toolbedrock.Adapter.Model are TurnReaders; a Responses run keeps its
// conversation on the server (State.Cursor), and its model is not.
type TurnReader interface {
	// TurnCalls returns the calls of the transcript's last message, as
	// the model asked for them; an error if that message is not the
	// model's.
	TurnCalls() ([]toolreg.ToolCall, error)
}

// Validate reports, as an error matching ErrInvalidState, what makes s a
// State no runner writes: a counter below zero (Steps, Retries, RunRetries),
// a paused turn without a provider or a transcript, and in the turn, a
// call out of place (Index), one that appears twice (Key), an unknown
// status, a done call without a result or an undone one with one, an
// interrupted call without a question, an answered one without an answer,
// a call not done whose id Ran lists (a done call made to run again).
// The message names the call and the field.
//
// The runners validate every State before resuming it, and check more:
// the provider, the turn against the transcript, and that each decision
// was made in this process or is sealed (Reseal). A host may validate a
// State it loads before showing its pending calls to anyone.
func (s *State) Validate() error {
	if s.Steps < 0 {
		return invalid("steps is %d, below 0", s.Steps)
	}
	if s.RunRetries < 0 {
		return invalid("run_retries is %d, below 0", s.RunRetries)
	}
	for name, n := range s.Retries {
		if n < 0 {
			return invalid("retries of %q is %d, below 0", name, n)
		}
	}
	loaded := make(map[string]bool, len(s.Loaded))
	for _, name := range s.Loaded {
		switch {
		case name == "":
			return invalid("loaded: an empty tool name")
		case loaded[name]:
			return invalid("loaded: %q appears twice", name)
		}
		loaded[name] = true
	}
	if len(s.Turn) == 0 {
		return nil
	}
	if s.Provider == "" {
		return invalid("a paused turn without a provider")
	}
	if len(s.Transcript) == 0 && s.Cursor == "" {
		return invalid("a paused turn without a transcript")
	}
	keys := make(map[string]bool, len(s.Turn))
	ran := make(map[string]bool, len(s.Ran))
	for _, id := range s.Ran {
		ran[id] = true
	}
	for i, c := range s.Turn {
		at := fmt.Sprintf("call %s (%q)", c.Key(), c.Name)
		switch {
		case c.Index != i:
			return invalid("%s: index is %d, at position %d of the turn", at, c.Index, i)
		case keys[c.Key()]:
			return invalid("%s: the key appears twice in the turn", at)
		case c.Name == "":
			return invalid("%s: name is empty", at)
		case !c.Status.known():
			return invalid("%s: status %q is not a status of a call", at, c.Status)
		case c.Status == StatusDone && c.Result == nil:
			return invalid("%s: result: a done call without its result", at)
		case c.Status != StatusDone && c.Result != nil:
			return invalid("%s: result: a call that is %s holds a result", at, c.Status)
		case c.Status == StatusInterrupted && len(c.Question) == 0:
			return invalid("%s: question: an interrupted call without a question", at)
		case c.Status == StatusAnswered && len(c.Answer) == 0:
			return invalid("%s: answer: an answered call without an answer", at)
		case c.Status != StatusDone && ran[s.callID(c)]:
			return invalid("%s: status is %s, yet ran lists its id: it ran already, and does not run again", at, c.Status)
		}
		keys[c.Key()] = true
	}
	return nil
}

// callID is the id c runs with (toolreg.Info(ctx).ID), as State.Ran lists
// it: the provider's, or one made of the run's id, the turn's step and
// the call's place in it.
func (s *State) callID(c Call) string {
	if c.ID != "" {
		return c.ID
	}
	return s.RunID + "." + strconv.Itoa(s.Steps) + "." + strconv.Itoa(c.Index)
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidState}, args...)...)
}

func (s Status) known() bool {
	switch s {
	case StatusDone, StatusApproval, StatusInterrupted, StatusApproved, StatusRejected, StatusAnswered, StatusAsked:
		return true
	}
	return false
}

// decided reports whether the status is one only the host sets.
func (s Status) decided() bool {
	return s == StatusApproved || s == StatusRejected || s == StatusAnswered
}

// decidedHere returns the call as it was before the host decided it in
// this process, if it did and the call still stands so.
func (c *Call) decidedHere() (Call, bool) {
	if c.before == nil || !c.Status.decided() {
		return Call{}, false
	}
	return *c.before, true
}

// Fresh reports whether s is a new run's start: nothing happened in it yet
// (no provider, no model call, no turn, no cursor, no retry, no run id, no
// call that ran, no seal), though it may hold the first messages in its
// transcript. A new State needs no seal.
func (s *State) Fresh() bool {
	return s.Provider == "" && s.Steps == 0 && len(s.Turn) == 0 && s.Cursor == "" && s.RunRetries == 0 && len(s.Retries) == 0 &&
		s.RunID == "" && len(s.Ran) == 0 && len(s.Unsent) == 0 && s.Seal == ""
}

func init() {
	trust.Admit = func(st any, turn []toolreg.ToolCall, read bool, key []byte) error {
		return st.(*State).admit(turn, read, key)
	}
	trust.Seal = func(st any, key []byte) error { return st.(*State).seal(key) }
	trust.Asked = func(c any) any { return c.(*Call).asked() }
}

// asked is c as the model asked for it, not run yet (StatusAsked): with
// its arguments as the model wrote them, before a decision of the host's
// in this process, which a checkpoint does not keep without a key.
func (c *Call) asked() Call {
	args := c.Arguments
	if b, ok := c.decidedHere(); ok {
		args = b.Arguments
	}
	return Call{ID: c.ID, Name: c.Name, Arguments: args, Index: c.Index, Status: StatusAsked}
}

// admit checks a State before a run resumes it, past Validate: with a key,
// the seal (a new State needs none); each decision made in this process,
// or carried under a valid seal; and, when the model reads its transcript
// (read), the turn's calls against the transcript's (turn), each as the
// model asked for it (before the host's decision, which may change the
// arguments).
func (s *State) admit(turn []toolreg.ToolCall, read bool, key []byte) error {
	if err := s.Validate(); err != nil {
		return err
	}
	sealed := false
	if len(key) > 0 && !s.Fresh() {
		if err := s.Verify(key); err != nil {
			return err
		}
		sealed = true
	}
	for i := range s.Turn {
		c := &s.Turn[i]
		if _, here := c.decidedHere(); c.Status.decided() && !here && !sealed {
			return invalid("call %s (%q): status is %s in the state as it came: decide it after loading the State (State.Approve, ApproveWith, Reject, Answer), or seal the State with the decision (Options.StateKey, State.Reseal)", c.Key(), c.Name, c.Status)
		}
	}
	if !read || len(s.Turn) == 0 {
		return nil
	}
	if len(turn) != len(s.Turn) {
		return invalid("the paused turn holds %d calls, the transcript's last message %d", len(s.Turn), len(turn))
	}
	for i, want := range turn {
		c, here := s.Turn[i].decidedHere()
		if !here {
			c = s.Turn[i]
		}
		at := fmt.Sprintf("call %s (%q)", s.Turn[i].Key(), s.Turn[i].Name)
		switch {
		case c.ID != want.ID:
			return invalid("%s: id is %q, the transcript's call %d has %q", at, c.ID, i, want.ID)
		case c.Name != want.Name:
			return invalid("%s: name is %q, the transcript's call %d has %q", at, c.Name, i, want.Name)
		case !here && c.Status == StatusApproved:
			// Approved under the seal: the host may have corrected the
			// arguments (ApproveWith), and the seal vouches for them.
		case !sameJSON(c.Arguments, want.Arguments):
			return invalid("%s: arguments are %s, the transcript's call %d has %s", at, c.Arguments, i, want.Arguments)
		}
	}
	return nil
}

// sameJSON reports whether a and b are the same arguments, as a store
// that re-encodes them would keep them: compacted, with HTML characters
// escaped, and no arguments the same as null.
func sameJSON(a, b json.RawMessage) bool {
	return bytes.Equal(canonicalJSON(a), canonicalJSON(b))
}

func canonicalJSON(raw json.RawMessage) []byte {
	if len(bytes.TrimSpace(raw)) == 0 {
		return []byte("null")
	}
	var c bytes.Buffer
	if json.Compact(&c, raw) != nil {
		return raw
	}
	var e bytes.Buffer
	json.HTMLEscape(&e, c.Bytes())
	return e.Bytes()
}
