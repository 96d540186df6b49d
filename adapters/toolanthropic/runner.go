package toolanthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/adapt"
)

// MessagesClient is the part of the SDK a run needs, plain and streaming
// (agent.Options.Stream chooses): &client.Messages satisfies it.
type MessagesClient interface {
	New(ctx context.Context, body anthropic.MessageNewParams, opts ...option.RequestOption) (*anthropic.Message, error)
	NewStreaming(ctx context.Context, body anthropic.MessageNewParams, opts ...option.RequestOption) *ssestream.Stream[anthropic.MessageStreamEventUnion]
}

// RunResult is what a run produced, also when it ends with an error.
type RunResult struct {
	// Messages is the transcript: the request's messages, then each
	// assistant message and the user message of tool results that
	// answered it.
	Messages []anthropic.MessageParam
	// Final is the last response of this call of Run; it holds the
	// model's answer when the run ended without error.
	Final *anthropic.Message
	// State is where the run stands, as data: resume it with Run when the
	// run returned agent.ErrPaused. Its Transcript is Messages as the SDK
	// encodes them. It is never nil.
	State *agent.State
}

// Answer is the text of the final message, its text blocks concatenated;
// "" if there is none.
func (r *RunResult) Answer() string {
	if r.Final == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range r.Final.Content {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// Steps counts the model calls of the run, resumed runs included.
func (r *RunResult) Steps() int { return r.State.Steps }

// provider names the Messages API's side of the loop, in the State and in
// each call's CallInfo.
const provider = "anthropic"

// Run is the agent loop on the Messages API: it sends params with the
// registry's tools (each step's, see agent.Options.PrepareStep; params.Tools
// when set instead, the same every step), runs every tool_use block of a
// turn concurrently, sends the results back in one user message of
// tool_result blocks (is_error on failures), and repeats while the model
// stops to use tools. Each step's tool choice (agent.Step.Choice) replaces
// params.ToolChoice, keeping its disable_parallel_tool_use; a step that
// offers no tool sends neither tools nor tool_choice.
//
// Deferred tools (toolreg.WithDeferred, agent.Options.Defer) are searched
// with Anthropic's tool search tool: every offered tool is declared, and
// every deferred one, offered or not, with defer_loading, and the tool
// search tool (BM25) after them, the same array every step that offers
// the same tools that are not deferred; the API loads what its search finds,
// and the server_tool_use and tool_search_tool_result blocks stay in the
// transcript, and in the State. WithClientToolSearch searches on the
// client instead, as the other providers do.
//
// The Messages API has no way to restrict the calls of a step to some of
// the tools it declares: a step that offers fewer tools (PrepareStep's
// Only, Hide, OnlyTagged) sends only those (agent.Step.Trimmed), which
// changes the tools, the start of the prompt, and so costs the prompt cache
// from there on. To keep the cache, restrict with the tool choice, or
// leave the restriction to the loop, which refuses a call of a tool the
// step does not offer whatever was declared.
//
// A nil (or zero) state starts a new run from params.Messages. A state
// that a run paused (agent.ErrPaused) resumes that run, once the host has
// decided its pending calls in it: approved calls run, rejected ones tell
// the model why (a tool_result with is_error), answered tools run again
// with the answer; no call that ran runs twice. The results of the paused
// turn go back in one user message, as in any turn. params are then the
// run's, and their Messages are ignored: the state's transcript replaces
// them.
//
// Stop reasons are handled as in the SDK's own tool runner, except that a
// cut-off response is an error here rather than a quiet end:
//   - "tool_use": the tools run and the run goes on; without tool_use
//     blocks the run ends.
//   - "pause_turn" (a long-running server tool paused the turn): the
//     message is sent back as it is so the model continues; this costs a
//     step and runs no tools.
//   - "max_tokens", "model_context_window_exceeded": the run ends with
//     toolreg.ErrTruncated; the cut-off message is in the transcript and
//     Final, and its tool_use blocks are not run.
//   - "end_turn", "stop_sequence", "refusal" and reasons unknown to this
//     package: the run ends without error; check Final.StopReason to tell
//     a refusal from an answer.
//
// Tool failures go back to the model as tool results with is_error and the
// run goes on. The run ends with an error, and the transcript so far, when
// the client fails, ctx is done, MaxSteps model calls did not suffice
// (toolreg.ErrMaxSteps), the model got calls wrong too often
// (toolreg.ErrTooManyRetries), or a tool returned toolreg.StopRun (the
// error matches toolreg.ErrStopRun and the tool's error; the results of
// that turn are in the transcript).
//
// With agent.Options.Stream, Run asks the model through the streaming
// Messages API, for showing the model's answer as it is written and which
// tools run: opts.OnEvent sees the text (agent.TextDelta), each tool_use
// block as it begins (agent.CallStarted) and its input as it arrives
// (agent.ArgumentsDelta), and a call whose input is complete (its block
// closed) starts while the model writes the next. The message is put
// together by the SDK (anthropic.Message's Accumulate), and the stop
// reasons are handled as above. A stream that breaks off (the connection
// drops, an error event, no message_stop) ends the run with an error; no
// call runs on input that did not arrive whole. The stop reason comes
// last: a call started early whose message then turns out cut off
// (max_tokens) or its turn paused (pause_turn) is cancelled if it has not
// finished, and its result is not sent. Calls that need approval never
// start early.
//
// A turn whose calls need the host pauses the run: calls of tools that
// need approval (toolreg.WithApproval) wait unrun, a tool that asks a
// question (toolreg.Interrupt) waits for the answer, and the turn's other
// calls run. Run then returns agent.ErrPaused with run.State, whose
// transcript ends with the assistant message of that turn. Decide the
// pending calls (State.Approve, Reject, Answer) and call Run again with
// the State, in this process or, after sending it through JSON, in
// another; streaming or not, whichever way the run paused.
func (a *Adapter) Run(ctx context.Context, client MessagesClient, params anthropic.MessageNewParams, state *agent.State, opts agent.Options) (*RunResult, error) {
	if state == nil {
		state = &agent.State{}
	}
	m := &model{a: a, client: client, stream: opts.Stream}
	if !a.clientSearch {
		m.deferred = func(t toolreg.AnyTool) bool { return toolreg.Deferred(t) || opts.Defer != nil && opts.Defer(t) }
	}
	return a.run(ctx, m, params, state, opts)
}

// Model is the Messages API's side of a run, for a host that drives runs
// itself (package toolreg/tooltemporal asks it from an activity): it asks the
// model with params and keeps the conversation of state (a new run when
// state is zero, params.Messages to start with). Run uses the same. Model
// never streams. It refuses a nil state: the host holds the State it
// drives and passes the same pointer to the loop.
func (a *Adapter) Model(client MessagesClient, params anthropic.MessageNewParams, state *agent.State) (agent.Model, error) {
	return a.model(&model{a: a, client: client}, params, state)
}

func (a *Adapter) run(ctx context.Context, m *model, params anthropic.MessageNewParams, state *agent.State, opts agent.Options) (*RunResult, error) {
	m, err := a.model(m, params, state)
	if err != nil {
		return m.run, err
	}
	loop := &adapt.Run{Registry: a.reg, Model: m, Options: opts, State: state}
	return m.run, loop.Do(ctx)
}

func (a *Adapter) model(m *model, params anthropic.MessageNewParams, state *agent.State) (*model, error) {
	if state == nil {
		return nil, errors.New("anthropic: a model without a state")
	}
	m.params, m.fixedTools = params, len(params.Tools) > 0
	m.run = &RunResult{State: state, Messages: slices.Clone(params.Messages)}
	// A state of another provider is refused by the loop, with a clearer
	// error than its transcript would give here.
	if len(state.Transcript) > 0 && (state.Provider == "" || state.Provider == provider) {
		msgs, err := decodeTranscript(state.Transcript)
		if err != nil {
			return m, fmt.Errorf("anthropic: %w: the state's transcript is not a list of messages: %w", agent.ErrInvalidState, err)
		}
		m.run.Messages = msgs
	}
	return m, nil
}

// decodeTranscript is the messages a State's transcript holds. The SDK
// decodes the input of a tool_use block into a map, which would encode
// with its keys sorted; each keeps the model's bytes instead, so that a
// resumed run sends the transcript it sent before, byte for byte, as
// prompt caching needs.
func decodeTranscript(b []byte) ([]anthropic.MessageParam, error) {
	var msgs []anthropic.MessageParam
	if err := json.Unmarshal(b, &msgs); err != nil {
		return nil, err
	}
	var inputs []struct {
		Content []struct {
			Input json.RawMessage `json:"input"`
		} `json:"content"`
	}
	if json.Unmarshal(b, &inputs) != nil || len(inputs) != len(msgs) {
		return msgs, nil // content as a string, written by hand: no block to keep
	}
	for i, m := range msgs {
		if m.OfAssistant == nil || len(m.OfAssistant.Content) != len(inputs[i].Content) {
			continue
		}
		for j, block := range m.OfAssistant.Content {
			if in := inputs[i].Content[j].Input; len(in) > 0 {
				if u := block.OfToolUse; u != nil {
					u.Input = in
				} else if u := block.OfServerToolUse; u != nil {
					u.Input = in
				}
			}
		}
	}
	return msgs, nil
}

// model is the Messages API's side of the loop, for one run.
type model struct {
	a          *Adapter
	client     MessagesClient
	stream     bool // ask through the streaming API
	params     anthropic.MessageNewParams
	fixedTools bool // params.Tools was set by the caller
	tools      adapt.StepTools[anthropic.ToolUnionParam]
	run        *RunResult
	// deferred, when set, is the run's deferral, searched with Anthropic's
	// tool search tool (nativeTools); nil searches on the client.
	deferred func(toolreg.AnyTool) bool
}

func (m *model) Info() agent.RunInfo {
	return agent.RunInfo{Provider: provider, Model: string(m.params.Model)}
}

func (m *model) Ask(ctx context.Context, s *agent.Step, emit func(agent.Event), ready func(int, toolreg.ToolCall)) (agent.Reply, error) {
	emit, ready = adapt.Hooks(emit, ready)
	params := m.params
	params.Messages = m.run.Messages
	if !m.fixedTools {
		declared, build := s.Trimmed(), m.a.toolsOf
		if native := m.nativeTools(s); native != nil {
			declared, build = native, m.nativeToolsOf
		}
		tools, err := m.tools.For(declared, build)
		if err != nil {
			return agent.Reply{}, fmt.Errorf("anthropic: step %d: %w", s.Number, err)
		}
		params.Tools = tools
	}
	// The API refuses a tool_choice without tools.
	params.ToolChoice = anthropic.ToolChoiceUnionParam{}
	if len(params.Tools) == 0 {
		params.Tools = nil
	} else {
		params.ToolChoice = toolChoice(s.Choice, m.params.ToolChoice.GetDisableParallelToolUse())
	}
	var msg *anthropic.Message
	var err error
	if m.stream {
		msg, err = m.a.streamMessage(ctx, m.client, params, s.Number, emit, ready)
	} else {
		msg, err = m.client.New(ctx, params)
	}
	if err != nil {
		return agent.Reply{}, fmt.Errorf("anthropic: step %d: %w", s.Number, err)
	}
	m.run.Final = msg
	// input_tokens leaves out what was written to or read from the prompt
	// cache; the sum is what the model read, as other providers count it.
	u := msg.Usage
	usage := agent.Usage{InputTokens: u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens, OutputTokens: u.OutputTokens}
	emit(agent.Event{Kind: agent.StepDone, Step: s.Number, Usage: usage, Response: msg})
	m.run.Messages = append(m.run.Messages, msg.ToParam())
	switch {
	case msg.StopReason == anthropic.StopReasonToolUse:
		return agent.Reply{Calls: m.a.ToolCalls(*msg), Usage: usage}, nil
	case msg.StopReason == anthropic.StopReasonPauseTurn:
		return agent.Reply{Again: true, Usage: usage}, nil // sent back as it is: the model goes on
	case truncated(msg.StopReason):
		// Its tool_use blocks may be half written.
		return agent.Reply{Usage: usage}, fmt.Errorf("anthropic: step %d: %w (stop_reason %q)", s.Number, toolreg.ErrTruncated, msg.StopReason)
	}
	return agent.Reply{Usage: usage}, nil
}

// nativeTools is the step's tools for Anthropic's tool search, nil when
// the run searches on the client or the step offers no deferred tool:
// the tools the step declares (the loop declares every tool of the
// registry when the model searches natively, SearchesNatively) that it
// offers, the deferred ones too. A deferred tool the step hides is not
// declared, since the search would show the model its name and
// description: the array changes when the hidden set does, which costs
// the prompt cache from the tools on, the price of hiding.
func (m *model) nativeTools(s *agent.Step) []toolreg.AnyTool {
	if m.deferred == nil {
		return nil
	}
	offered := s.Trimmed()
	if !slices.ContainsFunc(offered, m.deferred) {
		return nil
	}
	return offered
}

// SearchesNatively tells the loop that Anthropic's tool search serves the
// run's deferred tools (agent.NativeSearcher): unless WithClientToolSearch.
func (m *model) SearchesNatively() bool { return m.deferred != nil }

// nativeToolsOf is toolsOf with defer_loading on the deferred tools, and
// the tool search tool (its BM25 variant) after them.
func (m *model) nativeToolsOf(tools []toolreg.AnyTool) ([]anthropic.ToolUnionParam, error) {
	params, err := m.a.toolsOf(tools)
	if err != nil {
		return nil, err
	}
	for i, t := range tools {
		if m.deferred(t) {
			params[i].OfTool.DeferLoading = anthropic.Bool(true)
		}
	}
	search := anthropic.ToolSearchToolBm25_20251119Param{Type: anthropic.ToolSearchToolBm25_20251119TypeToolSearchToolBm25_20251119}
	return append(params, anthropic.ToolUnionParam{OfToolSearchToolBm25_20251119: &search}), nil
}

// truncated reports whether a message with this stop reason was cut off.
func truncated(r anthropic.StopReason) bool {
	return r == anthropic.StopReasonMaxTokens || r == anthropic.StopReasonModelContextWindowExceeded
}

func (m *model) Answer(calls []toolreg.ToolCall, outs []toolreg.Output) error {
	m.run.Messages = append(m.run.Messages, m.a.resultMessage(calls, outs))
	return nil
}

func (m *model) Save(s *agent.State) error {
	b, err := json.Marshal(m.run.Messages)
	s.Transcript = b
	return err
}

// toolChoice is a step's tool choice in the Messages API's form, with the
// caller's disable_parallel_tool_use (nil: not set) where the form has it.
func toolChoice(c agent.ToolChoice, disableParallel *bool) anthropic.ToolChoiceUnionParam {
	var noParallel param.Opt[bool]
	if disableParallel != nil {
		noParallel = anthropic.Bool(*disableParallel)
	}
	switch c.Mode {
	case agent.ChoiceNone:
		none := anthropic.NewToolChoiceNoneParam()
		return anthropic.ToolChoiceUnionParam{OfNone: &none}
	case agent.ChoiceRequired:
		return anthropic.ToolChoiceUnionParam{OfAny: &anthropic.ToolChoiceAnyParam{DisableParallelToolUse: noParallel}}
	case agent.ChoiceTool:
		return anthropic.ToolChoiceUnionParam{OfTool: &anthropic.ToolChoiceToolParam{Name: c.Tool, DisableParallelToolUse: noParallel}}
	}
	return anthropic.ToolChoiceUnionParam{OfAuto: &anthropic.ToolChoiceAutoParam{DisableParallelToolUse: noParallel}}
}

// TurnCalls returns the tool_use blocks of the transcript's last message,
// the assistant message a paused turn answers (agent.TurnReader).
func (m *model) TurnCalls() ([]toolreg.ToolCall, error) {
	msgs := m.run.Messages
	if len(msgs) == 0 || msgs[len(msgs)-1].OfAssistant == nil {
		return nil, errors.New("anthropic: the transcript does not end with an assistant message")
	}
	var calls []toolreg.ToolCall
	for _, b := range msgs[len(msgs)-1].OfAssistant.Content {
		if u := b.OfToolUse; u != nil {
			input, err := json.Marshal(u.Input)
			if err != nil {
				return nil, fmt.Errorf("anthropic: the input of tool_use %s: %w", u.ID, err)
			}
			calls = append(calls, m.a.toolCall(u.ID, u.Name, input))
		}
	}
	return calls, nil
}
