package toolbedrock

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/adapt"
)

// ConverseClient is the part of the SDK a run needs, Converse and, for a
// run with agent.Options.Stream, ConverseStream: *bedrockruntime.Client
// satisfies it.
type ConverseClient interface {
	Converse(ctx context.Context, params *bedrockruntime.ConverseInput, optFns ...func(*bedrockruntime.Options)) (*bedrockruntime.ConverseOutput, error)
	ConverseStream(ctx context.Context, params *bedrockruntime.ConverseStreamInput, optFns ...func(*bedrockruntime.Options)) (*bedrockruntime.ConverseStreamOutput, error)
}

// RunResult is what a run produced, also when it ends with an error.
type RunResult struct {
	// Messages is the transcript: the input's messages, then each
	// assistant message and the user message of tool results that
	// answered it.
	Messages []types.Message
	// Final is the last response of this call of Run (for a streamed step,
	// the response as the stream built it); its message holds the model's
	// answer when the run ended without error.
	Final *bedrockruntime.ConverseOutput
	// State is where the run stands, as data: pass it to Run again to
	// resume the run when it returned agent.ErrPaused.
	State *agent.State
}

// Answer is the text of the final message, its text blocks concatenated;
// "" if there is none.
func (r *RunResult) Answer() string {
	if r.Final == nil {
		return ""
	}
	msg, ok := r.Final.Output.(*types.ConverseOutputMemberMessage)
	if !ok {
		return ""
	}
	var b strings.Builder
	for _, c := range msg.Value.Content {
		if t, ok := c.(*types.ContentBlockMemberText); ok {
			b.WriteString(t.Value)
		}
	}
	return b.String()
}

// Steps counts the model calls of the run, resumed runs included.
func (r *RunResult) Steps() int { return r.State.Steps }

// ErrBlocked: a guardrail intervened (stopReason guardrail_intervened), or
// the model's content filter stopped the response (content_filtered). The
// run's last message is what the model or the guardrail said instead.
var ErrBlocked = errors.New("the response was blocked")

// provider is the run's name in the State and in each call's CallInfo.
const provider = "bedrock"

// Run is the agent loop on Converse: it sends input with the registry's
// tools (each step's, see agent.Options.PrepareStep; input.ToolConfig when
// it names tools instead, the same every step, with its tool choice unless
// the step sets one), runs every tool call of a turn concurrently, sends
// the results back in call order, and repeats until the model answers
// without calling a tool. input is not changed.
//
// Each step's tool choice is sent in Converse's form: agent.Required as
// "any", agent.Force as "tool", agent.Auto as no choice, which Converse
// reads as auto. Not every model takes "any" and "tool" (Meta's Llama
// models refuse "tool"); Converse then answers with a validation error.
// Converse has no "none": for agent.None, or a step that offers no tool,
// no tools are sent; once the transcript holds toolUse or toolResult
// blocks, though, Converse requires a tool configuration, so the request
// then offers only a placeholder tool whose description says no tool may
// be called. A model that calls it anyway reads that the tool does not
// exist.
//
// Converse has no way to restrict the calls of a step to some of the tools
// it declares: a step that offers fewer tools (PrepareStep's Only, Hide,
// OnlyTagged) sends only those (agent.Step.Trimmed), which changes the
// tools and so costs a prompt cache point placed after them. The loop
// refuses a call of a tool the step does not offer whatever was declared.
//
// Tool failures go back to the model as results with status "error" and
// the run goes on. The run ends with an error, and the transcript so far,
// when the client fails, ctx is done, the response was cut off by a token
// limit or the context window (toolreg.ErrTruncated), a guardrail or
// content filter blocked it (ErrBlocked), MaxSteps model calls did not
// suffice (toolreg.ErrMaxSteps), the model got calls wrong too often
// (toolreg.ErrTooManyRetries), or a tool returned toolreg.StopRun (the
// error matches toolreg.ErrStopRun and the tool's error; the results of
// that turn are in the transcript). It returns agent.ErrPaused when calls
// wait for the host: decide them in run.State and call Run again with it.
//
// state is nil (or zero) for a new run, which starts from input.Messages;
// a State that a run returned goes on with that run, once the host has
// decided its pending calls: approved calls run, rejected ones tell the
// model why, answered tools run again with the answer; no call that ran
// runs twice. input is then the run's, and its Messages are replaced by
// the state's transcript. state may come from JSON, in another process.
// The returned run's State is never nil.
//
// With opts.Stream, each step is asked on ConverseStream, with a
// ConverseStreamInput made of input field by field (its guardrail
// configuration with the default stream processing mode): opts.OnEvent
// sees the model's text and tool uses as they arrive (agent.TextDelta,
// agent.CallStarted, agent.ArgumentsDelta), and a call whose input is
// complete starts while the model writes the next. A stream that breaks
// off ends the run with an error; no call runs on an input that did not
// arrive whole. RunResult.Final is then the response as the stream built
// it: the message (text, tool uses, reasoning), the stop reason, the usage
// and the latency. The stream's blocks rebuilt are those a tool run meets:
// text, toolUse and reasoningContent; a stream with others (citations,
// images, the results of server tools) ends the run with an error: run
// without Stream for those. A run paused while streaming may resume
// without, and the other way round.
func (a *Adapter) Run(ctx context.Context, client ConverseClient, input *bedrockruntime.ConverseInput, state *agent.State, opts agent.Options) (*RunResult, error) {
	if state == nil {
		state = &agent.State{}
	}
	if input == nil {
		return &RunResult{State: state}, errors.New("bedrock: no input")
	}
	send := a.converseSend(client, input)
	if opts.Stream {
		send = a.streamSend(client, streamInput(input))
	}
	m := &converse{model: aws.ToString(input.ModelId), send: send}
	if err := a.init(m, input.Messages, input.ToolConfig, state); err != nil {
		return &RunResult{State: state}, err
	}
	loop := &adapt.Run{Registry: a.reg, Model: m, Options: opts, State: state}
	return m.run, loop.Do(ctx)
}

// Model is Converse's side of a run, for a host that drives runs itself
// (package toolreg/tooltemporal asks it from an activity): it asks the model
// with input and keeps the conversation of state (a new run when state is
// zero, input.Messages to start with). Run uses the same. Model never
// streams, and refuses a nil state: the host holds the State it drives and
// passes the same one to its loop.
func (a *Adapter) Model(client ConverseClient, input *bedrockruntime.ConverseInput, state *agent.State) (agent.Model, error) {
	if input == nil {
		return nil, errors.New("bedrock: no input")
	}
	m := &converse{model: aws.ToString(input.ModelId), send: a.converseSend(client, input)}
	if err := a.init(m, input.Messages, input.ToolConfig, state); err != nil {
		return nil, err
	}
	return m, nil
}

// converseSend asks Converse with input, its messages and tools the step's.
func (a *Adapter) converseSend(client ConverseClient, input *bedrockruntime.ConverseInput) sendFunc {
	return func(ctx context.Context, msgs []types.Message, cfg *types.ToolConfiguration, _ int, _ func(agent.Event), _ func(int, toolreg.ToolCall)) (*bedrockruntime.ConverseOutput, error) {
		in := *input
		in.Messages, in.ToolConfig = msgs, cfg
		return client.Converse(ctx, &in)
	}
}

// init sets m up for a run: the messages to start with, or the state's.
func (a *Adapter) init(m *converse, msgs []types.Message, cfg *types.ToolConfiguration, state *agent.State) error {
	if state == nil {
		return errors.New("bedrock: resuming without a state")
	}
	m.a, m.run = a, &RunResult{State: state, Messages: slices.Clone(msgs)}
	if cfg != nil && len(cfg.Tools) > 0 {
		m.fixed = cfg
	}
	if len(state.Transcript) > 0 {
		msgs, err := decodeMessages(state.Transcript)
		if err != nil {
			return fmt.Errorf("bedrock: %w: the state's transcript is not a list of Converse messages: %w", agent.ErrInvalidState, err)
		}
		m.run.Messages = msgs
	}
	return nil
}

// sendFunc makes one model call, streamed or not, and returns the response
// (for a stream, as the stream built it).
type sendFunc func(ctx context.Context, msgs []types.Message, cfg *types.ToolConfiguration, step int, emit func(agent.Event), ready func(int, toolreg.ToolCall)) (*bedrockruntime.ConverseOutput, error)

// converse is Converse's side of the agent loop, for one run.
type converse struct {
	a     *Adapter
	model string
	send  sendFunc
	fixed *types.ToolConfiguration // the input's, when it names tools
	run   *RunResult
}

func (m *converse) Info() agent.RunInfo { return agent.RunInfo{Provider: provider, Model: m.model} }

func (m *converse) Ask(ctx context.Context, s *agent.Step, emit func(agent.Event), ready func(int, toolreg.ToolCall)) (agent.Reply, error) {
	emit, ready = adapt.Hooks(emit, ready)
	cfg, err := m.toolConfig(s)
	if err != nil {
		return agent.Reply{}, fmt.Errorf("bedrock: step %d: %w", s.Number, err)
	}
	out, err := m.send(ctx, m.run.Messages, cfg, s.Number, emit, ready)
	if err != nil {
		return agent.Reply{}, fmt.Errorf("bedrock: step %d: %w", s.Number, err)
	}
	m.run.Final = out
	usage := usageOf(out.Usage)
	emit(agent.Event{Kind: agent.StepDone, Step: s.Number, Usage: usage, Response: out})
	msg, ok := out.Output.(*types.ConverseOutputMemberMessage)
	if !ok {
		return agent.Reply{Usage: usage}, fmt.Errorf("bedrock: step %d: the response holds no message (stopReason %s)", s.Number, out.StopReason)
	}
	m.run.Messages = append(m.run.Messages, msg.Value)
	if err := stopped(out.StopReason); err != nil {
		return agent.Reply{Usage: usage}, fmt.Errorf("bedrock: step %d: %w (stopReason %s)", s.Number, err, out.StopReason)
	}
	return agent.Reply{Calls: m.a.ToolCalls(msg.Value), Usage: usage}, nil
}

// stopped is the error a stop reason ends the run with; nil for a turn
// whose calls, or answer, are whole.
func stopped(r types.StopReason) error {
	switch r {
	case types.StopReasonMaxTokens, types.StopReasonModelContextWindowExceeded:
		// Cut off: its tool uses may be half written.
		return toolreg.ErrTruncated
	case types.StopReasonGuardrailIntervened, types.StopReasonContentFiltered:
		return ErrBlocked
	case types.StopReasonMalformedModelOutput, types.StopReasonMalformedToolUse:
		return errors.New("the model's output was malformed")
	}
	return nil
}

func usageOf(u *types.TokenUsage) agent.Usage {
	if u == nil {
		return agent.Usage{}
	}
	return agent.Usage{InputTokens: int64(aws.ToInt32(u.InputTokens)), OutputTokens: int64(aws.ToInt32(u.OutputTokens))}
}

// toolConfig is the step's tools and tool choice in Converse's form (see
// Adapter.Run).
func (m *converse) toolConfig(s *agent.Step) (*types.ToolConfiguration, error) {
	cfg := &types.ToolConfiguration{}
	if m.fixed != nil {
		*cfg = *m.fixed
	} else {
		tools, err := m.a.toolsFor(s.Trimmed())
		if err != nil {
			return nil, err
		}
		cfg.Tools = tools
	}
	if s.Choice.Mode == agent.ChoiceNone || len(cfg.Tools) == 0 {
		if !holdsToolBlocks(m.run.Messages) {
			return nil, nil
		}
		return &types.ToolConfiguration{Tools: []types.Tool{m.a.placeholder()}}, nil
	}
	switch s.Choice.Mode {
	case agent.ChoiceRequired:
		cfg.ToolChoice = &types.ToolChoiceMemberAny{}
	case agent.ChoiceTool:
		cfg.ToolChoice = &types.ToolChoiceMemberTool{Value: types.SpecificToolChoice{Name: aws.String(s.Choice.Tool)}}
	}
	return cfg, nil
}

// holdsToolBlocks reports whether msgs hold a toolUse or toolResult block,
// with which Converse requires a tool configuration.
func holdsToolBlocks(msgs []types.Message) bool {
	for _, m := range msgs {
		for _, b := range m.Content {
			switch b.(type) {
			case *types.ContentBlockMemberToolUse, *types.ContentBlockMemberToolResult:
				return true
			}
		}
	}
	return false
}

// placeholderName names the tool a request offers when no tool may be
// called but Converse requires a tool configuration (see Adapter.Run).
const placeholderName = "no_tool_available"

// placeholder is the placeholder tool, named so that no registry tool
// answers a call of it.
func (a *Adapter) placeholder() types.Tool {
	name := placeholderName
	for {
		if _, taken := a.reg.Lookup(name); !taken {
			break
		}
		name += "_"
	}
	return &types.ToolMemberToolSpec{Value: types.ToolSpecification{
		Name:        aws.String(name),
		Description: aws.String("Not a tool: no tool may be called at this point of the conversation. Answer in text."),
		InputSchema: &types.ToolInputSchemaMemberJson{Value: document.NewLazyDocument(map[string]any{"type": "object", "properties": map[string]any{}})},
	}}
}

func (m *converse) Answer(calls []toolreg.ToolCall, outs []toolreg.Output) error {
	m.run.Messages = append(m.run.Messages, resultMessage(calls, outs))
	return nil
}

func (m *converse) Save(s *agent.State) error {
	b, err := encodeMessages(m.run.Messages)
	if err != nil {
		return err
	}
	s.Transcript = b
	return nil
}

// TurnCalls returns the toolUse blocks of the transcript's last message,
// the assistant message a paused turn answers (agent.TurnReader).
func (m *converse) TurnCalls() ([]toolreg.ToolCall, error) {
	msgs := m.run.Messages
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != types.ConversationRoleAssistant {
		return nil, errors.New("bedrock: the transcript does not end with an assistant message")
	}
	return m.a.ToolCalls(msgs[len(msgs)-1]), nil
}
