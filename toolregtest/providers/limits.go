package providers

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolanthropic"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/internal/dialect"
	"github.com/toolreg/toolreg/toolregtest"
)

// The rules Limits adds to toolregtest.Lint: definitions a provider would
// refuse for their size. toolregtest.Ignore takes them, to skip the limits
// of a mode you do not use.
const (
	// RuleOpenAITools: the registry has more tools than OpenAI accepts in
	// one request (toolopenai.MaxTools).
	RuleOpenAITools toolregtest.Rule = "openai-tools"
	// RuleOpenAIStrictProperties: a tool's schema has more object
	// properties in all than OpenAI strict mode accepts (5000).
	RuleOpenAIStrictProperties toolregtest.Rule = "openai-strict-properties"
	// RuleOpenAIStrictDepth: a tool's objects nest deeper than OpenAI
	// strict mode accepts (10 levels). The root object is level 1 and a
	// $ref counts as its definition.
	RuleOpenAIStrictDepth toolregtest.Rule = "openai-strict-depth"
	// RuleAnthropicStrictTools: more tools can be sent in Anthropic strict
	// mode than one request may carry (toolanthropic.MaxStrictTools).
	RuleAnthropicStrictTools toolregtest.Rule = "anthropic-strict-tools"
	// RuleAnthropicStrictOptional: the tools that can be sent in Anthropic
	// strict mode have more optional parameters in all, at any depth, than
	// one request may carry (toolanthropic.MaxStrictOptional); or one tool has
	// more by itself, and cannot be sent strict.
	RuleAnthropicStrictOptional toolregtest.Rule = "anthropic-strict-optional"
	// RuleAnthropicStrictUnions: the tools that can be sent in Anthropic
	// strict mode have more parameters using anyOf or a type array
	// (nullable fields) in all than one request may carry
	// (toolanthropic.MaxStrictUnions); or one tool has more by itself.
	RuleAnthropicStrictUnions toolregtest.Rule = "anthropic-strict-unions"
)

// Limits adds the providers' limits to toolregtest.Lint and LintT, so that
// a test fails before a provider refuses the request:
//
//	toolregtest.LintT(t, reg, providers.Limits())
//
// The limits are the adapters' own: each tool's schema is lowered for
// strict mode as the openai and anthropic adapters lower it, and a refusal
// for a limit is a finding that reads as the adapter's error (the adapter
// refuses a typed tool over a limit, and sends a dynamic or hand-written
// one non-strict); the tools Anthropic strict mode can express are counted
// as the adapter counts them and summed against toolanthropic.MaxStrictTools,
// MaxStrictOptional and MaxStrictUnions; the registry's size is held
// against toolopenai.MaxTools, which the API enforces. A refusal for anything
// else (an open map in strict mode, say) is no finding: Snapshot records
// it.
//
// The strict-mode rules apply whether or not you send tools strict:
// toolregtest.Ignore those of a mode you do not use.
func Limits() toolregtest.LintOption { return toolregtest.Check(limits) }

// strictLimits are the limits a strict dialect refuses one tool for, with
// the rule each breaks.
var strictLimits = []struct {
	err  error
	rule toolregtest.Rule
}{
	{dialect.ErrOpenAIProperties, RuleOpenAIStrictProperties},
	{dialect.ErrOpenAIDepth, RuleOpenAIStrictDepth},
	{dialect.ErrAnthropicOptional, RuleAnthropicStrictOptional},
	{dialect.ErrAnthropicUnions, RuleAnthropicStrictUnions},
}

func limits(reg *toolreg.Registry) []toolregtest.Finding {
	tools := reg.Tools()
	var out []toolregtest.Finding
	var strict []strictLoad // the tools Anthropic strict mode can express
	for _, t := range tools {
		if _, err := dialect.OpenAIStrict(t.InputSchema()); err != nil {
			out = append(out, overLimit(t, err)...)
		}
		lowered, err := dialect.AnthropicStrict(t.InputSchema())
		if err != nil {
			out = append(out, overLimit(t, err)...)
			continue
		}
		if optional, unions, err := dialect.AnthropicStrictCounts(lowered); err == nil { // else the snapshot shows what the adapter emits
			strict = append(strict, strictLoad{tool: t.Name(), optional: optional, unions: unions})
		}
	}
	if len(tools) > toolopenai.MaxTools {
		out = append(out, toolregtest.Finding{Rule: RuleOpenAITools,
			Message: fmt.Sprintf("%d tools; OpenAI accepts at most %d in one request: send a subset per request", len(tools), toolopenai.MaxTools)})
	}
	return append(out, anthropicRequest(strict)...)
}

// overLimit is the finding for a strict dialect's refusal of tool when the
// refusal is for a limit; none for a refusal of another kind.
func overLimit(tool toolreg.AnyTool, err error) []toolregtest.Finding {
	var de *dialect.Error
	if !errors.As(err, &de) {
		return nil
	}
	for _, l := range strictLimits {
		if errors.Is(err, l.err) {
			return []toolregtest.Finding{{Tool: tool.Name(), Field: de.Path, Rule: l.rule, Message: de.Reason}}
		}
	}
	return nil
}

// strictLoad is what one tool sent strict counts against the per-request
// limits of Anthropic strict mode.
type strictLoad struct {
	tool             string
	optional, unions int
}

// anthropicRequest sums the tools Anthropic strict mode can express
// against the limits of one request.
func anthropicRequest(tools []strictLoad) []toolregtest.Finding {
	var out []toolregtest.Finding
	if len(tools) > toolanthropic.MaxStrictTools {
		names := make([]string, len(tools))
		for i, s := range tools {
			names[i] = s.tool
		}
		out = append(out, toolregtest.Finding{Rule: RuleAnthropicStrictTools,
			Message: fmt.Sprintf("%d tools can be sent in Anthropic strict mode, and one request may carry at most %d strict tools: choose them with toolanthropic.WithStrictTools (%s)",
				len(tools), toolanthropic.MaxStrictTools, strings.Join(names, ", "))})
	}
	if n, parts := sum(tools, func(s strictLoad) int { return s.optional }); n > toolanthropic.MaxStrictOptional {
		out = append(out, toolregtest.Finding{Rule: RuleAnthropicStrictOptional,
			Message: fmt.Sprintf("the tools that Anthropic strict mode can express have %d optional parameters, and a request may carry at most %d (%s): make some required, or send fewer tools strict (toolanthropic.WithStrictTools)",
				n, toolanthropic.MaxStrictOptional, parts)})
	}
	if n, parts := sum(tools, func(s strictLoad) int { return s.unions }); n > toolanthropic.MaxStrictUnions {
		out = append(out, toolregtest.Finding{Rule: RuleAnthropicStrictUnions,
			Message: fmt.Sprintf("the tools that Anthropic strict mode can express have %d parameters using anyOf or a type array (nullable fields), and a request may carry at most %d (%s): send fewer tools strict (toolanthropic.WithStrictTools)",
				n, toolanthropic.MaxStrictUnions, parts)})
	}
	return out
}

// sum totals count over tools, and lists the tools that count, the
// largest first: "t_4 6, t_0 5".
func sum(tools []strictLoad, count func(strictLoad) int) (int, string) {
	total := 0
	var parts []string
	sorted := append([]strictLoad(nil), tools...)
	sort.SliceStable(sorted, func(i, j int) bool { return count(sorted[i]) > count(sorted[j]) })
	for _, s := range sorted {
		if n := count(s); n > 0 {
			total += n
			parts = append(parts, fmt.Sprintf("%s %d", s.tool, n))
		}
	}
	return total, strings.Join(parts, ", ")
}
