// Package trust lets the loop admit and seal an agent.State with what
// package agent keeps unexported: the host's decisions made in this
// process, and a seal that vouches for a State without checking it first,
// which no host should call. Package agent sets the funcs when it loads.
package trust

import "github.com/toolreg/toolreg"

var (
	// Admit checks an *agent.State before a run resumes it: the State's
	// own validity, the seal when key is set, the host's decisions, and,
	// when read, the paused turn against turn, the calls of the
	// transcript's last message.
	Admit func(state any, turn []toolreg.ToolCall, read bool, key []byte) error
	// Seal seals an *agent.State with key, as it is.
	Seal func(state any, key []byte) error
	// Asked returns an *agent.Call as an agent.Call the model asked for
	// and that has not run: StatusAsked, with the model's arguments (not
	// those of a host's decision made in this process).
	Asked func(call any) any
)
