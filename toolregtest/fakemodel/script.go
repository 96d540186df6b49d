package fakemodel

import (
	"encoding/json"
	"fmt"
	"time"
)

// Turn is one scripted answer of the model, written the same way for
// every provider: each request the client sends is answered with the next
// turn of the script, in the wire format of the API it asked.
//
// A turn holds Text, Calls or both (a model may write a line before it
// calls tools); or Status and Message for an HTTP error instead.
type Turn struct {
	// Text is what the model writes.
	Text string
	// Calls are the tools the model calls, in order; several are
	// parallel calls.
	Calls []ToolCall
	// Status, when set (400 to 599), answers with an HTTP error in the
	// provider's shape holding Message, and RetryAfter, when set, as the
	// retry-after header.
	Status     int
	Message    string
	RetryAfter time.Duration
	// Cut, when set, is how the answer breaks off.
	Cut Cut

	// fn, when set, makes the turn from the request (Func).
	fn func(Request) Turn
	// expect, for a turn of EveryTool, is what each call's result should
	// be (AssertEveryTool).
	expect []expectation
}

// ToolCall is a call the model makes: the tool's name, its arguments as
// a JSON object and, when the test needs to know it, the call's id. Without
// an ID the server makes one up as the provider would (Gemini calls get
// none, as the Gemini API often sends none).
type ToolCall struct {
	ID   string
	Name string
	Args string
}

// Cut is how an answer breaks off.
type Cut int

const (
	// CutMaxTokens ends the answer as a model does at its output limit: the
	// text and calls as scripted, and the provider's stop reason for it
	// (length, max_tokens, max_output_tokens, MAX_TOKENS).
	CutMaxTokens Cut = iota + 1
	// CutDropped writes half of the answer (half of the stream's events, or
	// of the JSON body) and closes the connection, as a network failure
	// would.
	CutDropped
)

// Text is a turn where the model answers with text and calls nothing:
// the last turn of a run.
func Text(text string) Turn { return Turn{Text: text} }

// Call is a turn where the model calls one tool with args, a JSON object.
func Call(name, args string) Turn { return Turn{Calls: []ToolCall{{Name: name, Args: args}}} }

// Calls is a turn where the model calls several tools at once.
func Calls(calls ...ToolCall) Turn { return Turn{Calls: calls} }

// Error is a turn answered with an HTTP error: status (400 to 599) and
// message in the provider's error shape.
func Error(status int, message string) Turn { return Turn{Status: status, Message: message} }

// RateLimit is a turn answered with 429 Too Many Requests and a
// retry-after header of after (in whole seconds, rounded up, and in
// milliseconds in retry-after-ms as OpenAI and Anthropic send it).
func RateLimit(after time.Duration) Turn {
	return Turn{Status: 429, Message: "rate limit exceeded, retry later", RetryAfter: after}
}

// Func is a turn made when its request comes, by fn from what the
// client sent: for an answer that depends on the request (one that
// repeats a tool's result, or calls whatever tools were declared). The
// turn fn returns is checked as New checks a script's; a malformed one,
// or a panic in fn, fails the test and is answered with a 500.
func Func(fn func(Request) Turn) Turn { return Turn{fn: fn} }

// Truncated is t ended at the model's output limit (CutMaxTokens).
func Truncated(t Turn) Turn { t.Cut = CutMaxTokens; return t }

// Dropped is t broken off half way (CutDropped).
func Dropped(t Turn) Turn { t.Cut = CutDropped; return t }

// check says what is wrong with the turn, numbered from 1, if anything.
func (t Turn) check() error {
	if t.fn != nil {
		if t.Text != "" || len(t.Calls) > 0 || t.Status != 0 || t.RetryAfter != 0 || t.Cut != 0 {
			return fmt.Errorf("a Func turn has nothing else: its function makes the turn")
		}
		return nil
	}
	if t.Status != 0 {
		if t.Status < 400 || t.Status > 599 {
			return fmt.Errorf("status %d is not an HTTP error (400 to 599)", t.Status)
		}
		if t.Text != "" || len(t.Calls) > 0 || t.Cut != 0 {
			return fmt.Errorf("an error turn (status %d) has no text, calls or cut", t.Status)
		}
		return nil
	}
	if t.RetryAfter != 0 {
		return fmt.Errorf("retry-after without an error status")
	}
	if t.Text == "" && len(t.Calls) == 0 {
		return fmt.Errorf("the turn has no text, no calls and no error status")
	}
	if t.Cut < 0 || t.Cut > CutDropped {
		return fmt.Errorf("unknown cut %d", t.Cut)
	}
	ids := map[string]bool{}
	for i, c := range t.Calls {
		if c.Name == "" {
			return fmt.Errorf("call %d has no name", i+1)
		}
		var args map[string]any
		if err := json.Unmarshal([]byte(c.Args), &args); err != nil || args == nil {
			return fmt.Errorf("call %d (%s): arguments %q are not a JSON object", i+1, c.Name, c.Args)
		}
		if c.ID != "" && ids[c.ID] {
			return fmt.Errorf("call %d (%s): id %q is used twice", i+1, c.Name, c.ID)
		}
		ids[c.ID] = true
	}
	return nil
}
