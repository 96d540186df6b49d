package tooltemporal

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
)

// Errors cross the workflow's boundary as data: their text and the
// sentinels they match, by name. The loop branches on some of them
// (invalid arguments and Retry are counted, StopRun ends the run, an
// Interrupt pauses it) and hosts on the others, so each comes back as an
// error that matches the same sentinels. The names are stored in
// histories: never rename one.
var sentinels = []struct {
	name string
	err  error
}{
	{"unknown_tool", toolreg.ErrUnknownTool},
	{"invalid_arguments", toolreg.ErrInvalidArguments},
	{"tool_panic", toolreg.ErrToolPanic},
	{"invalid_result", toolreg.ErrInvalidResult},
	{"tool_failed", toolreg.ErrToolFailed},
	{"timeout", toolreg.ErrTimeout},
	{"internal", toolreg.ErrInternal},
	{"overloaded", toolreg.ErrOverloaded},
	{"retry", toolreg.ErrRetry},
	{"stop_run", toolreg.ErrStopRun},
	{"interrupt", toolreg.ErrInterrupt},
	{"max_steps", toolreg.ErrMaxSteps},
	{"truncated", toolreg.ErrTruncated},
	{"too_many_retries", toolreg.ErrTooManyRetries},
	{"unsupported_schema", toolreg.ErrUnsupportedSchema},
	{"paused", agent.ErrPaused},
	{"undecided", agent.ErrUndecided},
	{"invalid_step", agent.ErrInvalidStep},
	{"no_such_call", agent.ErrNoSuchCall},
	{"invalid_state", agent.ErrInvalidState},
	{"canceled", context.Canceled},
	{"deadline_exceeded", context.DeadlineExceeded},
}

// wireError is an error as data.
type wireError struct {
	Text string   `json:"text"`
	Is   []string `json:"is,omitempty"`
	// Question is an Interrupt's question.
	Question json.RawMessage `json:"question,omitempty"`
}

func encodeError(err error) *wireError {
	if err == nil {
		return nil
	}
	w := &wireError{Text: err.Error()}
	for _, s := range sentinels {
		if errors.Is(err, s.err) {
			w.Is = append(w.Is, s.name)
		}
	}
	var ie *toolreg.InterruptError
	if errors.As(err, &ie) {
		w.Question = ie.Question
	}
	return w
}

// err is the error again: its text, matching its sentinels (and an
// Interrupt's *toolreg.InterruptError), and also the errors of also.
func (w *wireError) err(also ...error) error {
	if w == nil {
		return nil
	}
	e := &remoteError{text: w.Text}
	for _, name := range w.Is {
		for _, s := range sentinels {
			if s.name == name {
				e.is = append(e.is, s.err)
			}
		}
	}
	if w.Question != nil {
		e.is = append(e.is, &toolreg.InterruptError{Question: w.Question})
	}
	e.is = append(e.is, also...)
	return e
}

// remoteError is an error that crossed the boundary.
type remoteError struct {
	text string
	is   []error
}

func (e *remoteError) Error() string   { return e.text }
func (e *remoteError) Unwrap() []error { return e.is }

// callResult is a tool call's Output as data.
type callResult struct {
	Result agent.Result `json:"result"`
	Err    *wireError   `json:"err,omitempty"`
}

func encodeOutput(out toolreg.Output) callResult {
	return callResult{Result: *agent.ResultOf(out), Err: encodeError(out.Err)}
}

func (r callResult) output() toolreg.Output {
	out := r.Result.Output()
	if r.Err != nil {
		out.Err = r.Err.err()
	}
	return out
}
