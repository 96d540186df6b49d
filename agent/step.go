package agent

import (
	"fmt"
	"slices"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/internal/nameset"
)

// Step is one model call of a run, as PrepareStep sees it: which tools the
// model is offered, and whether it must, may or must not call one. Every
// change is checked against the registry: naming a tool it does not hold is
// an error here, not a request the provider refuses.
type Step struct {
	// Number counts the model calls of the run, from 1.
	Number int
	// Choice says whether the model may call tools; the zero value is
	// Auto.
	Choice ToolChoice

	reg   *toolreg.Registry
	tools []string // offered, in the registry's order
}

// NewStep is the step number of a run over reg, offering every tool: the
// runners make it before each model call.
func NewStep(number int, reg *toolreg.Registry) *Step {
	tools := reg.Tools()
	s := &Step{Number: number, reg: reg, tools: make([]string, len(tools))}
	for i, t := range tools {
		s.tools[i] = t.Name()
	}
	return s
}

// Tools lists the names of the tools offered in this step.
func (s *Step) Tools() []string { return slices.Clone(s.tools) }

// Only offers just the named tools.
func (s *Step) Only(names ...string) error {
	if err := s.known(names); err != nil {
		return err
	}
	s.tools = s.filter(nameset.Of(names))
	return nil
}

// Hide stops offering the named tools.
func (s *Step) Hide(names ...string) error {
	if err := s.known(names); err != nil {
		return err
	}
	s.tools = slices.DeleteFunc(s.tools, nameset.Of(names))
	return nil
}

// Add offers the named tools again.
func (s *Step) Add(names ...string) error {
	if err := s.known(names); err != nil {
		return err
	}
	offered := nameset.Of(append(slices.Clone(s.tools), names...))
	s.tools = s.filter(offered)
	return nil
}

// OnlyTagged offers just the tools that carry one of tags
// (toolreg.WithTags).
func (s *Step) OnlyTagged(tags ...string) {
	keep := toolreg.Tagged(tags...)
	offered := nameset.Of(s.tools)
	s.tools = s.filter(func(n string) bool {
		t, _ := s.reg.Lookup(n)
		return offered(n) && keep(t)
	})
}

// filter lists the registry's tools that keep accepts, in its order.
func (s *Step) filter(keep func(string) bool) []string {
	var out []string
	for _, t := range s.reg.Tools() {
		if keep(t.Name()) {
			out = append(out, t.Name())
		}
	}
	return out
}

func (s *Step) known(names []string) error {
	for _, n := range names {
		if _, ok := s.reg.Lookup(n); !ok {
			return fmt.Errorf("%w: step %d: the registry has no tool %q", ErrInvalidStep, s.Number, n)
		}
	}
	return nil
}

// Check reports a tool choice the step cannot honour: a forced tool that is
// not offered, or a call required while no tool is.
func (s *Step) Check() error {
	switch s.Choice.Mode {
	case ChoiceTool:
		if !slices.Contains(s.tools, s.Choice.Tool) {
			return fmt.Errorf("%w: step %d: the tool choice names %q, which the step does not offer (it offers %v)", ErrInvalidStep, s.Number, s.Choice.Tool, s.tools)
		}
	case ChoiceRequired:
		if len(s.tools) == 0 {
			return fmt.Errorf("%w: step %d: a tool call is required but no tool is offered", ErrInvalidStep, s.Number)
		}
	}
	return nil
}

// ChoiceMode is how a step lets the model call tools.
type ChoiceMode uint8

// The modes of ToolChoice.
const (
	ChoiceAuto     ChoiceMode = iota // the model decides
	ChoiceNone                       // no tool call
	ChoiceRequired                   // at least one tool call
	ChoiceTool                       // a call of one named tool
)

// ToolChoice says whether the model may, must or must not call a tool in a
// step; each runner sends it in its provider's form.
type ToolChoice struct {
	Mode ChoiceMode
	Tool string // ChoiceTool: the tool
}

// Auto lets the model decide; None forbids tool calls; Required demands
// one; Force demands a call of the named tool.
var (
	Auto     = ToolChoice{Mode: ChoiceAuto}
	None     = ToolChoice{Mode: ChoiceNone}
	Required = ToolChoice{Mode: ChoiceRequired}
)

// Force demands a call of the named tool.
func Force(tool string) ToolChoice { return ToolChoice{Mode: ChoiceTool, Tool: tool} }

// Allows reports whether the model may call the named tool in this step:
// the step offers it and the tool choice does not rule it out (None rules
// every call out; Force, every call of another tool). The runners refuse
// any other call, whatever the model sends: agent.ErrNotOffered.
func (s *Step) Allows(name string) bool {
	switch s.Choice.Mode {
	case ChoiceNone:
		return false
	case ChoiceTool:
		return name == s.Choice.Tool && slices.Contains(s.tools, name)
	}
	return slices.Contains(s.tools, name)
}

// Allowed lists the tools the model may call in this step (Allows).
func (s *Step) Allowed() []string {
	switch s.Choice.Mode {
	case ChoiceNone:
		return nil
	case ChoiceTool:
		if slices.Contains(s.tools, s.Choice.Tool) {
			return []string{s.Choice.Tool}
		}
		return nil
	}
	if len(s.tools) == 0 {
		return nil
	}
	return slices.Clone(s.tools)
}
