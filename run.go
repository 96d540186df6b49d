package toolreg

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Run control: what a tool can tell the agent loop that runs it (the
// runners of the adapters), beyond its result, and why a run ends.
//
// A tool's plain error is reported to the model as the result of the call,
// and the model decides what to do. Retry, StopRun and Interrupt say more.

// ErrRetry marks a tool error that asks the model to fix its call and try
// again: the runners count these (and invalid arguments) per tool and per
// run, and stop the run with ErrTooManyRetries past their maximum. Tools
// return it through Retry.
var ErrRetry = errors.New("the tool asks the model to call it again")

// Retry wraps err, which says what to fix, so that the model is asked to
// call the tool again with that fixed; use it when the call was wrong in a
// way the schema cannot say (a city the service does not know). The retry
// counts toward the run's maximum.
func Retry(err error) error { return &controlError{sentinel: ErrRetry, err: err} }

// ErrTooManyRetries: a run stopped because the model called a tool wrongly
// more often than the run allows (agent.Options.MaxRetries, MaxRunRetries).
var ErrTooManyRetries = errors.New("the model called tools wrongly too often")

// ErrStopRun marks a tool error that ends an agent run: a runner sends the
// turn's results, then returns instead of asking the model again. Tools
// return it through StopRun.
var ErrStopRun = errors.New("the tool stopped the run")

// StopRun wraps err so that a runner stops after the current turn; use it
// when going on would be pointless or harmful (a budget is spent, a human
// must decide). The model still reads err's text as the tool's result
// (ErrorText's text instead, under that middleware), and the run's error
// matches both ErrStopRun and err. err may be nil.
func StopRun(err error) error { return &controlError{sentinel: ErrStopRun, err: err} }

// ErrInterrupt marks a call that paused its run to ask the host a question
// (Interrupt). The runner returns with the call pending in the run's state;
// when the host answers and resumes, the tool is called again with the same
// arguments, and CallInfo.Answer holds the answer.
var ErrInterrupt = errors.New("the tool asks the host a question")

// Interrupt pauses the run to ask the host a question: question is any
// value that encodes as JSON (a struct the host's code knows). Use it for a
// decision only a person or the host can make (confirm a payment, pick one
// of several matches). Outside a run, the call's Output is an error whose
// Err is an *InterruptError.
func Interrupt(question any) error {
	b, err := json.Marshal(question)
	if err != nil {
		return fmt.Errorf("toolreg.Interrupt: the question does not encode as JSON: %w", err)
	}
	return &InterruptError{Question: b}
}

// InterruptError is the error of an Interrupt: the question, as JSON.
type InterruptError struct {
	Question json.RawMessage
}

func (e *InterruptError) Error() string { return "the tool asks the host: " + string(e.Question) }

// Unwrap makes an InterruptError match ErrInterrupt.
func (e *InterruptError) Unwrap() error { return ErrInterrupt }

type controlError struct {
	sentinel error
	err      error
}

func (e *controlError) Error() string {
	if e.err == nil {
		return e.sentinel.Error()
	}
	return e.err.Error()
}

func (e *controlError) Unwrap() []error {
	if e.err == nil {
		return []error{e.sentinel}
	}
	return []error{e.sentinel, e.err}
}

// ErrMaxSteps: an agent run reached its maximum number of model calls
// while the model still asked for tools. The runners of the adapters
// return it with the transcript so far.
var ErrMaxSteps = errors.New("the run reached its maximum number of steps")

// ErrTruncated: a model's response was cut off (a token limit), so its
// tool calls or answer may be incomplete; the runners of the adapters stop
// with it rather than run half a call or return half an answer.
var ErrTruncated = errors.New("the model's response was cut off")
