package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/toolreg/toolreg/agent"
)

// printEvents prints a run as its events come: each tool call as the
// model asks for it, then the results of the turn in call order.
func printEvents(w io.Writer) func(agent.Event) {
	return func(e agent.Event) {
		switch e.Kind {
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
