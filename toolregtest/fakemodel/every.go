package fakemodel

import (
	"fmt"
	"strings"
	"testing"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/toolregtest"
)

// EveryOption changes the script EveryTool writes.
type EveryOption func(*everyOptions)

type everyOptions struct {
	seed       uint64
	seeded     bool
	onePerTurn bool
	invalid    bool
}

// OneCallPerTurn makes EveryTool call one tool per turn, instead of every
// tool at once in one turn of parallel calls: for a runner or a tool that
// must be tested one call at a time. The run then takes a step per call:
// set agent.Options.MaxSteps to the length of the script.
func OneCallPerTurn() EveryOption { return func(o *everyOptions) { o.onePerTurn = true } }

// WithInvalidCalls makes EveryTool also call each tool with the arguments
// of toolregtest.InvalidArguments (a required field left out, a field of
// the wrong type, a field out of its bounds), after the valid calls, to
// show what the model reads when it gets a call wrong. AssertEveryTool then
// checks that each was refused with a message naming its field. The
// runner counts the refused calls against its retry bounds: set
// agent.Options.MaxRunRetries to -1.
func WithInvalidCalls() EveryOption { return func(o *everyOptions) { o.invalid = true } }

// WithSeed makes EveryTool's arguments with toolregtest.ArgumentsSeed and
// seed, from the schemas alone; without it they are toolregtest.Arguments,
// the tools' own examples first. Another seed makes other arguments, the
// same seed the same ones.
func WithSeed(seed uint64) EveryOption {
	return func(o *everyOptions) { o.seed, o.seeded = seed, true }
}

// expectation is what a call of EveryTool should get back: success, or
// for invalid arguments a refusal that names field.
type expectation struct {
	every bool
	kind  toolregtest.InvalidKind
	field string
}

// EveryTool is a script in which the model calls every tool of reg once,
// with arguments made from the tool's own schema (toolregtest.Arguments:
// required fields, enums, bounds, formats, patterns, recursive types) and
// accepted by the tool's own validator, all in one turn of parallel calls,
// then answers with a line of text. It is the smoke test of a registry
// through the whole path a model's calls take: the SDK client, the
// adapter's definitions and decoding, the runner, the registry and back:
//
//	s := fakemodel.New(t, fakemodel.EveryTool(t, reg)...)
//	client := openai.NewClient(s.OpenAIOptions()...)
//	_, err := toolopenai.NewChat(reg).Run(ctx, &client.Chat.Completions, params, nil, agent.Options{})
//	s.AssertEveryTool()
//
// A tool no arguments can be made for (its schema cannot be satisfied:
// contradictory bounds, an enum with no value of its type) fails t with
// t.Errorf naming the tool and why, and is left out of the script. The
// script is the same on every run of the test, so a failure reproduces.
// A tool declared toolreg.WithApproval pauses the run as a model's call
// would. OneCallPerTurn, WithInvalidCalls and WithSeed change the script.
func EveryTool(t testing.TB, reg *toolreg.Registry, opts ...EveryOption) []Turn {
	t.Helper()
	var o everyOptions
	for _, opt := range opts {
		opt(&o)
	}
	var valid, invalid []ToolCall
	var validWant, invalidWant []expectation
	tools := 0
	for _, tool := range reg.Tools() {
		args, err := toolregtest.Arguments(tool)
		if o.seeded {
			args, err = toolregtest.ArgumentsSeed(tool, o.seed)
		}
		if err != nil {
			t.Errorf("fakemodel: EveryTool: %v", err)
			continue
		}
		tools++
		valid = append(valid, ToolCall{Name: tool.Name(), Args: string(args)})
		validWant = append(validWant, expectation{every: true})
		if !o.invalid {
			continue
		}
		bad, err := toolregtest.InvalidArguments(tool, o.seed)
		if err != nil {
			t.Errorf("fakemodel: EveryTool: %v", err)
			continue
		}
		for _, b := range bad {
			invalid = append(invalid, ToolCall{Name: tool.Name(), Args: string(b.Args)})
			invalidWant = append(invalidWant, expectation{every: true, kind: b.Kind, field: b.Field})
		}
	}
	var turns []Turn
	add := func(calls []ToolCall, want []expectation) {
		if len(calls) == 0 {
			return
		}
		if !o.onePerTurn {
			turns = append(turns, Turn{Calls: calls, expect: want})
			return
		}
		for i := range calls {
			turns = append(turns, Turn{Calls: calls[i : i+1], expect: want[i : i+1]})
		}
	}
	add(valid, validWant)
	add(invalid, invalidWant)
	if tools == 0 && len(reg.Tools()) == 0 {
		t.Errorf("fakemodel: EveryTool: the registry has no tools to call")
	}
	return append(turns, Text(fmt.Sprintf("Called %d tools.", tools)))
}

// AssertEveryTool fails the test for each call of an EveryTool script
// whose result is not what it should be, naming the tool, the arguments
// and what the model read: a valid call that failed, an invalid one that
// was not refused or whose message does not name the field to fix, or a
// call whose result was never sent back (the run stopped before it). It
// fails, too, when the script made no call of EveryTool.
//
// OpenAI's APIs carry no error flag with a result: there a valid call
// counts as failed when the model read toolreg's refusal of its arguments,
// and an error the tool itself returned is seen only by the host
// (agent.Options.OnEvent, the CallResult events' Output).
func (s *Server) AssertEveryTool() {
	if s.t == nil {
		panic("fakemodel: AssertEveryTool fails a test, and a server of Start has none: check Calls instead")
	}
	s.t.Helper()
	calls, how := s.called()
	s.mu.Lock()
	made := append([]madeCall(nil), s.made...)
	s.mu.Unlock()
	n := 0
	for i, m := range made {
		if !m.expect.every {
			continue
		}
		n++
		c, h := calls[i], how[i]
		refused := c.IsError || strings.Contains(c.Result, fmt.Sprintf("invalid arguments for tool %q", c.Name))
		switch {
		case !h.found:
			s.t.Errorf("fakemodel: %s called with %s: no result was sent back for the call", c.Name, c.Args)
		case m.expect.kind == "" && refused:
			s.t.Errorf("fakemodel: %s called with %s, arguments its validator accepts, failed; the model read:\n%s", c.Name, c.Args, c.Result)
		case m.expect.kind != "" && (!refused || (h.marks && !c.IsError) || !strings.Contains(c.Result, m.expect.field)):
			s.t.Errorf("fakemodel: %s called with %s (%s: %s) was not refused with a message naming %q; the model read (error %v):\n%s",
				c.Name, c.Args, m.expect.kind, m.expect.field, m.expect.field, c.IsError, c.Result)
		}
	}
	if n == 0 {
		s.t.Errorf("fakemodel: AssertEveryTool: the script made no call of EveryTool")
	}
}
