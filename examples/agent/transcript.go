package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/toolreg/toolreg"
)

// transcript prints a run: each turn's tool calls as the model asks for
// them, then their results in the same order. The results come from the
// registry's middleware, which sees each call as it finishes; the calls
// of a turn run concurrently, so their results are kept and printed in
// call order when the next turn arrives, or when the run ends.
type transcript struct {
	w io.Writer

	mu    sync.Mutex
	step  int
	calls []string                  // the IDs of the current turn's calls, in order
	outs  map[string]toolreg.Output // their results, by call ID
	names map[string]string         // their tools, by call ID
}

func newTranscript(w io.Writer) *transcript {
	return &transcript{w: w, outs: map[string]toolreg.Output{}, names: map[string]string{}}
}

// observe is the middleware that keeps each call's result for the
// transcript.
func (t *transcript) observe(next toolreg.Handler) toolreg.Handler {
	return toolreg.HandlerFunc(func(ctx context.Context, call toolreg.ToolCall) toolreg.Output {
		out := next.HandleCall(ctx, call)
		t.mu.Lock()
		t.outs[call.ID], t.names[call.ID] = out, call.Name
		t.mu.Unlock()
		return out
	})
}

// askedCall is one tool call as the model asked for it.
type askedCall struct{ id, name, args string }

// turn prints the results of the previous turn's calls, then the calls of
// this turn.
func (t *transcript) turn(step int, calls []askedCall) {
	t.flush()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.step = step
	for _, c := range calls {
		fmt.Fprintf(t.w, "[step %d] assistant calls %s %s\n", step, c.name, c.args)
		t.calls = append(t.calls, c.id)
	}
}

// flush prints the results of the current turn's calls, in call order.
func (t *transcript) flush() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, id := range t.calls {
		out, ok := t.outs[id]
		if !ok {
			continue // not run: the run ended first
		}
		status := "result"
		if out.IsError {
			status = "error"
		}
		fmt.Fprintf(t.w, "[step %d]   %s %s: %s\n", t.step, t.names[id], status, strings.ReplaceAll(out.Text, "\n", "\n           "))
	}
	t.calls = nil
	clear(t.outs)
	clear(t.names)
}
