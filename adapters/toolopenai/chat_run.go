package toolopenai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/adapt"
)

// ChatClient is the part of the SDK a chat run needs, the plain and the
// streaming request (agent.Options.Stream picks one):
// &client.Chat.Completions satisfies it.
type ChatClient interface {
	New(ctx context.Context, body openai.ChatCompletionNewParams, opts ...option.RequestOption) (*openai.ChatCompletion, error)
	NewStreaming(ctx context.Context, body openai.ChatCompletionNewParams, opts ...option.RequestOption) *ssestream.Stream[openai.ChatCompletionChunk]
}

// ChatRunResult is what a chat run produced, also when it ends with an
// error.
type ChatRunResult struct {
	// Messages is the transcript: the request's messages, then each
	// assistant message and the tool messages that answered it (and the
	// user message holding their media, if any).
	Messages []openai.ChatCompletionMessageParamUnion
	// Final is the last response of this call of Run; its first choice
	// holds the model's answer when the run ended without error.
	Final *openai.ChatCompletion
	// State is where the run stands, as data: resume it with Run when the
	// run returned agent.ErrPaused.
	State *agent.State
}

// Answer is the text of the final assistant message, "" if there is none.
func (r *ChatRunResult) Answer() string {
	if r.Final == nil || len(r.Final.Choices) == 0 {
		return ""
	}
	return r.Final.Choices[0].Message.Content
}

// Steps counts the model calls of the run, resumed runs included.
func (r *ChatRunResult) Steps() int { return r.State.Steps }

// chatProvider is Chat Completions' side of the agent loop.
const chatProvider = "openai.chat"

// Run is the agent loop on Chat Completions: it sends params with the
// registry's tools (params.Tools when set instead), runs every tool call of
// a turn concurrently, sends the results back in call order, and repeats
// until the model answers without calling a tool.
//
// The tools array is the run's (agent.Step.Declared), the same bytes every
// step, so that the provider's prompt cache holds across the steps. A step
// that allows fewer tools (agent.Options.PrepareStep's Only, Hide,
// OnlyTagged) sends them as tool_choice allowed_tools, in mode "auto", or
// "required" for agent.Required; a forced tool is a named function choice
// and agent.None is "none", as in a step that allows every tool.
//
// A nil or zero state starts a new run from params.Messages. A state that
// holds a transcript goes on with a run that an earlier Run paused
// (agent.ErrPaused), once the host has decided its pending calls in state:
// approved calls run, rejected ones tell the model why, answered tools run
// again with the answer; no call that ran runs twice. params are then the
// run's, and their Messages are ignored: the state's transcript replaces
// them. state may come from JSON, in another process. The result's State
// is never nil.
//
// Tool failures go back to the model as tool messages and the run goes on.
// The run ends with an error, and the transcript so far, when the client
// fails, ctx is done, the response was cut off by a token limit
// (toolreg.ErrTruncated), MaxSteps model calls did not suffice
// (toolreg.ErrMaxSteps), the model got calls wrong too often
// (toolreg.ErrTooManyRetries), or a tool returned toolreg.StopRun (the error
// matches toolreg.ErrStopRun and the tool's error; the tool messages of that
// turn are in the transcript). It returns agent.ErrPaused when calls wait
// for the host: decide them in run.State and call Run again with it.
//
// With agent.Options.Stream, Run asks through the streaming API: opts.OnEvent
// sees the model's text and tool calls as they arrive (agent.TextDelta,
// agent.CallStarted, agent.ArgumentsDelta), and a call whose arguments are
// complete starts while the model writes the next. A stream that breaks
// off ends the run with an error; no call runs on arguments that did not
// arrive whole. A run paused while streaming may resume without, and the
// other way round.
func (a *Chat) Run(ctx context.Context, client ChatClient, params openai.ChatCompletionNewParams, state *agent.State, opts agent.Options) (*ChatRunResult, error) {
	if state == nil {
		state = &agent.State{}
	}
	m, err := a.model(client, params, state)
	if err != nil {
		return m.run, err
	}
	m.streaming = opts.Stream
	loop := &adapt.Run{Registry: a.reg, Model: m, Options: opts, State: state}
	return m.run, loop.Do(ctx)
}

// Model is Chat Completions' side of a run, for a host that drives runs
// itself (package toolreg/tooltemporal asks it from an activity): it asks
// the model with params, never streaming, and keeps the conversation of
// state (a new run when state is zero, params.Messages to start with).
// Run uses the same. state must not be nil: the host holds the State it
// drives and passes the same pointer to the loop.
func (a *Chat) Model(client ChatClient, params openai.ChatCompletionNewParams, state *agent.State) (agent.Model, error) {
	return a.model(client, params, state)
}

func (a *Chat) model(client ChatClient, params openai.ChatCompletionNewParams, state *agent.State) (*chatModel, error) {
	if state == nil {
		return nil, errors.New("openai: a chat model without a state")
	}
	m := &chatModel{a: a, client: client, params: params, fixedTools: len(params.Tools) > 0}
	m.run = &ChatRunResult{State: state, Messages: slices.Clone(params.Messages)}
	if len(state.Transcript) > 0 {
		if err := json.Unmarshal(state.Transcript, &m.run.Messages); err != nil {
			return m, fmt.Errorf("openai: %w: the state's transcript is not a list of chat messages: %w", agent.ErrInvalidState, err)
		}
	}
	return m, nil
}

// chatModel is Chat Completions' side of the loop, for one run.
type chatModel struct {
	a          *Chat
	client     ChatClient
	streaming  bool // ask through client.NewStreaming
	params     openai.ChatCompletionNewParams
	fixedTools bool // params.Tools was set by the caller
	tools      adapt.StepTools[openai.ChatCompletionToolUnionParam]
	run        *ChatRunResult
}

func (m *chatModel) Info() agent.RunInfo {
	return agent.RunInfo{Provider: chatProvider, Model: string(m.params.Model)}
}

func (m *chatModel) Ask(ctx context.Context, s *agent.Step, emit func(agent.Event), ready func(int, toolreg.ToolCall)) (agent.Reply, error) {
	emit, ready = adapt.Hooks(emit, ready)
	params := m.params
	params.Messages = m.run.Messages
	if !m.fixedTools {
		tools, err := m.tools.For(s.Declared(), m.a.toolsOf)
		if err != nil {
			return agent.Reply{}, err
		}
		params.Tools = tools
		if len(params.Tools) > 0 {
			params.ToolChoice = chatStepChoice(s)
		}
	} else if len(params.Tools) > 0 {
		params.ToolChoice = chatToolChoice(s.Choice)
	}
	var resp *openai.ChatCompletion
	var err error
	if m.streaming {
		resp, err = m.a.stream(ctx, m.client, params, s.Number, emit, ready)
	} else {
		resp, err = m.client.New(ctx, params)
	}
	if err != nil {
		return agent.Reply{}, fmt.Errorf("openai: step %d: %w", s.Number, err)
	}
	m.run.Final = resp
	usage := agent.Usage{InputTokens: resp.Usage.PromptTokens, OutputTokens: resp.Usage.CompletionTokens}
	emit(agent.Event{Kind: agent.StepDone, Step: s.Number, Usage: usage, Response: resp})
	if len(resp.Choices) == 0 {
		return agent.Reply{}, fmt.Errorf("openai: step %d: the response has no choices", s.Number)
	}
	msg := resp.Choices[0].Message
	m.run.Messages = append(m.run.Messages, msg.ToParam())
	if resp.Choices[0].FinishReason == "length" {
		// Cut off by a token limit: its tool calls may be half written.
		return agent.Reply{Usage: usage}, fmt.Errorf("openai: step %d: %w (finish_reason length)", s.Number, toolreg.ErrTruncated)
	}
	return agent.Reply{Calls: m.a.ToolCalls(msg), Usage: usage}, nil
}

func (m *chatModel) Answer(calls []toolreg.ToolCall, outs []toolreg.Output) error {
	m.run.Messages = append(m.run.Messages, m.a.chatMessages(calls, outs)...)
	return nil
}

func (m *chatModel) Save(s *agent.State) error {
	b, err := json.Marshal(m.run.Messages)
	s.Transcript = b
	return err
}

// toolsOf is Tools for the given tools, in their order.
func (a *Chat) toolsOf(tools []toolreg.AnyTool) ([]openai.ChatCompletionToolUnionParam, error) {
	es, err := a.defs.Of(tools)
	if err != nil {
		return nil, err
	}
	return chatTools(es), nil
}

// chatStepChoice is a step's tool choice in Chat Completions' form, with
// the step's restriction: the array declares the run's tools, the same
// every step, and a step that allows fewer names them in allowed_tools
// (none allowed: "none"). A forced tool is a named choice, as without
// restriction.
func chatStepChoice(s *agent.Step) openai.ChatCompletionToolChoiceOptionUnionParam {
	allowed, required, restricted := restriction(s)
	if !restricted {
		return chatToolChoice(s.Choice)
	}
	if len(allowed) == 0 {
		return chatToolChoice(agent.None)
	}
	mode := openai.ChatCompletionAllowedToolsModeAuto
	if required {
		mode = openai.ChatCompletionAllowedToolsModeRequired
	}
	tools := make([]map[string]any, len(allowed))
	for i, n := range allowed {
		tools[i] = map[string]any{"type": "function", "function": map[string]any{"name": n}}
	}
	return openai.ToolChoiceOptionAllowedTools(openai.ChatCompletionAllowedToolsParam{Mode: mode, Tools: tools})
}

// restriction is what allowed_tools says of a step, in either API:
// restricted is false when the step's tool choice goes as it is (it
// allows every declared tool, forces one, or allows none with None);
// otherwise allowed lists the tools it allows (none: "none"), and
// required says that a call is.
func restriction(s *agent.Step) (allowed []string, required, restricted bool) {
	if s.Choice.Mode == agent.ChoiceTool || s.Choice.Mode == agent.ChoiceNone {
		return nil, false, false
	}
	allowed, restricted = s.Restriction()
	return allowed, s.Choice.Mode == agent.ChoiceRequired, restricted
}

// chatToolChoice is a step's tool choice in Chat Completions' form.
func chatToolChoice(c agent.ToolChoice) openai.ChatCompletionToolChoiceOptionUnionParam {
	switch c.Mode {
	case agent.ChoiceNone:
		return openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String("none")}
	case agent.ChoiceRequired:
		return openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String("required")}
	case agent.ChoiceTool:
		return openai.ToolChoiceOptionFunctionToolChoice(openai.ChatCompletionNamedToolChoiceFunctionParam{Name: c.Tool})
	}
	return openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String("auto")}
}

// stream reads one streamed response with the SDK's accumulator,
// reporting text and tool calls as they arrive, and handing each call to
// ready once the accumulator says its arguments are complete.
func (a *Chat) stream(ctx context.Context, client ChatClient, params openai.ChatCompletionNewParams, step int, emit func(agent.Event), ready func(int, toolreg.ToolCall)) (*openai.ChatCompletion, error) {
	params.StreamOptions.IncludeUsage = openai.Bool(true)
	stream := client.NewStreaming(ctx, params)
	defer stream.Close()
	var acc openai.ChatCompletionAccumulator
	started := map[int64]toolreg.ToolCall{} // by the chunks' tool call index
	readied := map[int]bool{}
	for stream.Next() {
		chunk := stream.Current()
		if !acc.AddChunk(chunk) {
			return nil, errors.New("the stream's chunks do not fit together")
		}
		for _, choice := range chunk.Choices {
			if choice.Index != 0 {
				continue
			}
			if d := choice.Delta.Content; d != "" {
				emit(agent.Event{Kind: agent.TextDelta, Step: step, Text: d})
			}
			for _, tc := range choice.Delta.ToolCalls {
				call, ok := started[tc.Index]
				if !ok {
					call = toolreg.ToolCall{ID: tc.ID, Name: tc.Function.Name}
					started[tc.Index] = call
					emit(agent.Event{Kind: agent.CallStarted, Step: step, Call: call})
				}
				if d := tc.Function.Arguments; d != "" {
					emit(agent.Event{Kind: agent.ArgumentsDelta, Step: step, Call: call, Delta: d})
				}
			}
		}
		// The accumulator says a call is finished when the stream moves on
		// to another; calls whose deltas interleave move on and come back,
		// so a call starts only once its arguments are whole JSON.
		if tc, ok := acc.JustFinishedToolCall(); ok && !readied[tc.Index] && jsontext.Value(tc.Arguments).IsValid() {
			readied[tc.Index] = true
			ready(tc.Index, a.toolCall(tc.ID, tc.Name, tc.Arguments))
		}
	}
	if err := stream.Err(); err != nil {
		return nil, err
	}
	if len(acc.Choices) == 0 || acc.Choices[0].FinishReason == "" {
		// The stream ended without saying why the model stopped: it was
		// cut off, and its last call may be half written.
		return nil, fmt.Errorf("%w: the stream ended before the response was complete", toolreg.ErrTruncated)
	}
	return &acc.ChatCompletion, nil
}

// TurnCalls returns the tool calls of the transcript's last message, the
// assistant message a paused turn answers (agent.TurnReader).
func (m *chatModel) TurnCalls() ([]toolreg.ToolCall, error) {
	msgs := m.run.Messages
	if len(msgs) == 0 || msgs[len(msgs)-1].OfAssistant == nil {
		return nil, errors.New("openai: the transcript does not end with an assistant message")
	}
	var calls []toolreg.ToolCall
	for _, tc := range msgs[len(msgs)-1].OfAssistant.ToolCalls {
		switch {
		case tc.OfFunction != nil:
			calls = append(calls, m.a.toolCall(tc.OfFunction.ID, tc.OfFunction.Function.Name, tc.OfFunction.Function.Arguments))
		case tc.OfCustom != nil:
			calls = append(calls, m.a.toolCall(tc.OfCustom.ID, tc.OfCustom.Custom.Name, tc.OfCustom.Custom.Input))
		default:
			return nil, errors.New("openai: a tool call of the last assistant message is neither a function nor a custom tool call")
		}
	}
	return calls, nil
}
