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

	reg      *toolreg.Registry
	tools    []string          // offered, in the registry's order, then the loop's own
	declared []toolreg.AnyTool // the request's tools array
	own      []toolreg.AnyTool // the loop's own tools (the tool search), offered too
}

// NewStep is the step number of a run over reg, offering and declaring
// every tool of the registry.
func NewStep(number int, reg *toolreg.Registry) *Step {
	return NewDeclaredStep(number, reg, reg.Tools())
}

// NewDeclaredStep is NewStep for a run whose requests declare declared, in
// that order: the run's tools array, which stays the same from step to
// step so that the provider's prompt cache holds (deferred tools are left
// out until found, Options.Defer). Those of them the registry does not
// hold are the loop's own (the tool search, SearchToolName): offered like
// the registry's, and answered by the loop. The runners make it before
// each model call.
func NewDeclaredStep(number int, reg *toolreg.Registry, declared []toolreg.AnyTool) *Step {
	tools := reg.Tools()
	s := &Step{Number: number, reg: reg, tools: make([]string, len(tools)), declared: declared}
	for i, t := range tools {
		s.tools[i] = t.Name()
	}
	for _, t := range declared {
		if _, ok := reg.Lookup(t.Name()); !ok {
			s.own = append(s.own, t)
			s.tools = append(s.tools, t.Name())
		}
	}
	return s
}

// Declared lists the tools the step's request declares, in the run's
// order: every tool of the registry, less the deferred ones not yet found
// (Options.Defer), and the tool search while some are; every tool of the
// registry, and no search of the loop's, when the provider searches the
// deferred tools natively (NativeSearcher). It does not follow
// Only, Hide or OnlyTagged: a runner whose provider can restrict the calls
// by name sends Declared as the array and the restriction
// (Restriction) beside it, so that the array, the prefix of every
// request, stays the same across the run's steps.
func (s *Step) Declared() []toolreg.AnyTool { return slices.Clone(s.declared) }

// Restriction lists the declared tools the step allows (Allows), in the
// declared order, and reports whether they are fewer than the declared
// ones: then a runner restricts the model's calls to them (OpenAI's
// allowed_tools, Gemini's allowedFunctionNames), or, for a provider that
// cannot, sends them alone (Trimmed).
func (s *Step) Restriction() ([]string, bool) {
	var allowed []string
	switch s.Choice.Mode {
	case ChoiceNone:
	case ChoiceTool:
		if slices.ContainsFunc(s.declared, func(t toolreg.AnyTool) bool { return t.Name() == s.Choice.Tool }) && s.Allows(s.Choice.Tool) {
			allowed = []string{s.Choice.Tool}
		}
	default:
		for _, t := range s.Trimmed() {
			allowed = append(allowed, t.Name())
		}
	}
	return allowed, len(allowed) < len(s.declared)
}

// Trimmed is Declared less the tools the step does not offer: the array
// of a provider with no way to restrict calls by name (Anthropic,
// Bedrock), which changes, and costs the prompt cache from the tools on,
// whenever a step offers other tools than the last.
func (s *Step) Trimmed() []toolreg.AnyTool {
	offered := make(map[string]bool, len(s.tools))
	for _, n := range s.tools {
		offered[n] = true
	}
	var out []toolreg.AnyTool
	for _, t := range s.declared {
		if offered[t.Name()] {
			out = append(out, t)
		}
	}
	return out
}

// Tools lists the names of the tools offered in this step.
func (s *Step) Tools() []string { return slices.Clone(s.tools) }

// Only offers just the named tools, and the loop's own (the tool search)
// while the step offers them: a deferred tool the model has not found yet
// is reached through the search, which finds only the tools the step
// offers. Hide hides the search too.
func (s *Step) Only(names ...string) error {
	if err := s.known(names); err != nil {
		return err
	}
	named := nameset.Of(names)
	offered := nameset.Of(s.tools)
	s.tools = s.filter(func(n string) bool {
		return named(n) || (offered(n) && slices.ContainsFunc(s.own, func(t toolreg.AnyTool) bool { return t.Name() == n }))
	})
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
		t, ok := s.reg.Lookup(n)
		// The loop's own tools stay: the tool search finds tagged tools
		// too.
		return offered(n) && (!ok || keep(t))
	})
}

// filter lists the registry's tools that keep accepts, in its order, then
// the loop's own that it accepts.
func (s *Step) filter(keep func(string) bool) []string {
	var out []string
	for _, t := range s.reg.Tools() {
		if keep(t.Name()) {
			out = append(out, t.Name())
		}
	}
	for _, t := range s.own {
		if keep(t.Name()) {
			out = append(out, t.Name())
		}
	}
	return out
}

func (s *Step) known(names []string) error {
	for _, n := range names {
		if _, ok := s.reg.Lookup(n); !ok && !slices.ContainsFunc(s.own, func(t toolreg.AnyTool) bool { return t.Name() == n }) {
			return fmt.Errorf("%w: step %d: the registry has no tool %q", ErrInvalidStep, s.Number, n)
		}
	}
	return nil
}

// Check reports a tool choice the step cannot honour: a forced tool that is
// not offered or not declared (deferred, and not found yet), or a call
// required while no tool is offered.
func (s *Step) Check() error {
	switch s.Choice.Mode {
	case ChoiceTool:
		if !slices.Contains(s.tools, s.Choice.Tool) {
			return fmt.Errorf("%w: step %d: the tool choice names %q, which the step does not offer (it offers %v)", ErrInvalidStep, s.Number, s.Choice.Tool, s.tools)
		}
		if !slices.ContainsFunc(s.declared, func(t toolreg.AnyTool) bool { return t.Name() == s.Choice.Tool }) {
			return fmt.Errorf("%w: step %d: the tool choice names %q, a deferred tool the model has not found: the request does not declare it", ErrInvalidStep, s.Number, s.Choice.Tool)
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
