package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/toolreg/toolreg/agent"
)

// printEvents prints a run as its events come: the model's text as it
// streams, each tool call as the model asks for it, then the results of
// the turn in call order.
func printEvents(w io.Writer) func(agent.Event) {
	writing := false // in the middle of a streamed answer
	return func(e agent.Event) {
		switch e.Kind {
		case agent.TextDelta:
			if !writing {
				fmt.Fprint(w, "assistant (streaming): ")
				writing = true
			}
			fmt.Fprint(w, e.Text)
		case agent.StepDone:
			if writing {
				fmt.Fprintln(w)
				writing = false
			}
		case agent.CallReady:
			fmt.Fprintf(w, "[step %d] assistant calls %s %s\n", e.Step, e.Call.Name, e.Call.Arguments)
		case agent.CallResult:
			status := "result"
			if e.Output.IsError {
				status = "error"
			}
			fmt.Fprintf(w, "[step %d]   %s %s: %s\n", e.Step, e.Call.Name, status, strings.ReplaceAll(e.Output.Text, "\n", "\n           "))
		}
	}
}
