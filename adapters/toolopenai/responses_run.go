package toolopenai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/adapt"
)

// ResponsesClient is the part of the SDK a Responses run needs, the plain
// and the streaming request (agent.Options.Stream picks one):
// &client.Responses satisfies it.
type ResponsesClient interface {
	New(ctx context.Context, body responses.ResponseNewParams, opts ...option.RequestOption) (*responses.Response, error)
	NewStreaming(ctx context.Context, body responses.ResponseNewParams, opts ...option.RequestOption) *ssestream.Stream[responses.ResponseStreamEventUnion]
}

// ResponsesRunResult is what a Responses run produced, also when it ends
// with an error.
type ResponsesRunResult struct {
	// Responses are the model's responses in order (of this call of Run);
	// each turn after the first continues
	// the previous one (previous_response_id) with the function_call_output
	// items of its calls.
	Responses []*responses.Response
	// Inputs are the function_call_output items sent after each response
	// that asked for tools, in the same order.
	Inputs [][]responses.ResponseInputItemUnionParam
	// Final is the last response.
	Final *responses.Response
	// State is where the run stands, as data: resume it with Run when the
	// run returned agent.ErrPaused.
	State *agent.State
}

// Answer is the text of the final response, "" if there is none.
func (r *ResponsesRunResult) Answer() string {
	if r.Final == nil {
		return ""
	}
	return r.Final.OutputText()
}

// Steps counts the model calls of the run, resumed runs included.
func (r *ResponsesRunResult) Steps() int { return r.State.Steps }

const responsesProvider = "openai.responses"

// Run is Chat.Run on the Responses API: the conversation state stays on
// the server, and each turn sends the function_call_output items of the
// previous response's calls with previous_response_id (so the request must
// not set store to false). The semantics are Chat.Run's, streaming
// (agent.Options.Stream) included; a response left incomplete by a token
// limit ends the run with toolreg.ErrTruncated. The tools array stays the
// run's, and a step's restriction is tool_choice allowed_tools, as there.
//
// Deferred tools (toolreg.WithDeferred, agent.Options.Defer) are searched
// with the API's tool_search: every tool of the registry is declared, the
// deferred ones with defer_loading, and tool_search after them, the same
// array every step; the search runs on the server, and its items stay in
// the conversation there. WithClientToolSearch searches on the client
// instead, as Chat Completions does.
//
// A nil or zero state starts a new run from params.Input. A state that an
// earlier Run paused (agent.ErrPaused) goes on once the host has decided
// its pending calls: it holds the response to continue (State.Cursor), and
// params.Input is then ignored. The result's State is never nil.
func (a *Responses) Run(ctx context.Context, client ResponsesClient, params responses.ResponseNewParams, state *agent.State, opts agent.Options) (*ResponsesRunResult, error) {
	if state == nil {
		state = &agent.State{}
	}
	m, err := a.model(client, params, state)
	if err != nil {
		return m.run, err
	}
	m.streaming = opts.Stream
	if !a.clientSearch {
		m.deferred = func(t toolreg.AnyTool) bool { return toolreg.Deferred(t) || opts.Defer != nil && opts.Defer(t) }
	}
	loop := &adapt.Run{Registry: a.reg, Model: m, Options: opts, State: state}
	return m.run, loop.Do(ctx)
}

// Model is the Responses API's side of a run, as Chat.Model is for chat:
// it never streams, and state must not be nil (the host holds the State it
// drives and passes the same pointer to the loop).
func (a *Responses) Model(client ResponsesClient, params responses.ResponseNewParams, state *agent.State) (agent.Model, error) {
	return a.model(client, params, state)
}

func (a *Responses) model(client ResponsesClient, params responses.ResponseNewParams, state *agent.State) (*responsesModel, error) {
	if state == nil {
		return nil, errors.New("openai: a Responses model without a state")
	}
	m := &responsesModel{a: a, client: client, params: params, fixedTools: len(params.Tools) > 0, hostNamespaces: hostNamespaces(params.Tools)}
	m.run = &ResponsesRunResult{State: state}
	if state.Cursor != "" {
		m.params.PreviousResponseID = openai.String(state.Cursor)
	}
	if len(state.Transcript) > 0 {
		var items []responses.ResponseInputItemUnionParam
		if err := json.Unmarshal(state.Transcript, &items); err != nil {
			return m, fmt.Errorf("openai: %w: the state's transcript is not a list of input items: %w", agent.ErrInvalidState, err)
		}
		m.params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: items}
	}
	return m, nil
}

// responsesModel is the Responses API's side of the loop, for one run. It
// is no agent.TurnReader: the calls of a paused turn are in the response
// State.Cursor names, on the server, and the loop checks the State without
// a request. The API itself refuses results for calls its previous
// response does not hold, but only once they ran; a sealed State
// (agent.Options.StateKey) is what binds the turn to the run.
type responsesModel struct {
	a          *Responses
	client     ResponsesClient
	streaming  bool // ask through client.NewStreaming
	params     responses.ResponseNewParams
	fixedTools bool
	// hostNamespaces, with fixedTools, maps the host's namespaced
	// functions to their namespace.
	hostNamespaces map[string]string
	tools          adapt.StepTools[responses.ToolUnionParam]
	// deferred, when set, is the run's deferral, searched with the API's
	// tool_search (stepTools); nil searches on the client.
	deferred func(toolreg.AnyTool) bool
	unsent   []responses.ResponseInputItemUnionParam // answered, not yet sent
	run      *ResponsesRunResult
}

func (m *responsesModel) Info() agent.RunInfo {
	return agent.RunInfo{Provider: responsesProvider, Model: string(m.params.Model)}
}

func (m *responsesModel) Ask(ctx context.Context, s *agent.Step, emit func(agent.Event), ready func(int, toolreg.ToolCall)) (agent.Reply, error) {
	emit, ready = adapt.Hooks(emit, ready)
	params := m.params
	declared, native := m.stepTools(s)
	if !m.fixedTools && native {
		tools, err := m.tools.For(declared, m.nativeToolsOf)
		if err != nil {
			return agent.Reply{}, err
		}
		params.Tools = tools
		if params.ToolChoice, err = m.nativeChoice(s, declared); err != nil {
			return agent.Reply{}, err
		}
	} else if !m.fixedTools {
		tools, err := m.tools.For(declared, m.a.toolsOf)
		if err != nil {
			return agent.Reply{}, err
		}
		params.Tools = tools
		if len(params.Tools) > 0 {
			params.ToolChoice = responsesStepChoice(s)
		}
	} else if len(params.Tools) > 0 {
		params.ToolChoice = responsesToolChoice(s.Choice)
	}
	var resp *responses.Response
	var err error
	if m.streaming {
		resp, err = m.a.stream(ctx, m.client, params, s.Number, m.callName, emit, ready)
	} else {
		resp, err = m.client.New(ctx, params)
	}
	if err != nil {
		return agent.Reply{}, fmt.Errorf("openai: step %d: %w", s.Number, err)
	}
	m.unsent = nil
	m.run.Final = resp
	m.run.Responses = append(m.run.Responses, resp)
	m.run.State.Cursor = resp.ID
	usage := agent.Usage{InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens}
	emit(agent.Event{Kind: agent.StepDone, Step: s.Number, Usage: usage, Response: resp})
	if resp.Status == "incomplete" {
		return agent.Reply{Usage: usage}, fmt.Errorf("openai: step %d: %w (%s)", s.Number, toolreg.ErrTruncated, resp.IncompleteDetails.Reason)
	}
	m.params.PreviousResponseID = openai.String(resp.ID)
	return agent.Reply{Calls: m.a.toolCalls(resp.Output, m.callName), Usage: usage}, nil
}

func (m *responsesModel) Answer(calls []toolreg.ToolCall, outs []toolreg.Output) error {
	items := m.a.functionCallOutputs(calls, outs)
	m.run.Inputs = append(m.run.Inputs, items)
	m.unsent = items
	m.params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: items}
	return nil
}

// Save keeps the response to continue (Cursor) and the items answered but
// not sent yet (Transcript); the conversation itself is on the server.
func (m *responsesModel) Save(s *agent.State) error {
	s.Transcript = nil
	if len(m.unsent) == 0 {
		return nil
	}
	b, err := json.Marshal(m.unsent)
	s.Transcript = b
	return err
}

// responsesToolChoice is a step's tool choice in the Responses API's form.
func responsesToolChoice(c agent.ToolChoice) responses.ResponseNewParamsToolChoiceUnion {
	mode := func(o responses.ToolChoiceOptions) responses.ResponseNewParamsToolChoiceUnion {
		return responses.ResponseNewParamsToolChoiceUnion{OfToolChoiceMode: param.NewOpt(o)}
	}
	switch c.Mode {
	case agent.ChoiceNone:
		return mode(responses.ToolChoiceOptionsNone)
	case agent.ChoiceRequired:
		return mode(responses.ToolChoiceOptionsRequired)
	case agent.ChoiceTool:
		return responses.ResponseNewParamsToolChoiceUnion{OfFunctionTool: &responses.ToolChoiceFunctionParam{Name: c.Tool}}
	}
	return mode(responses.ToolChoiceOptionsAuto)
}

// stream reads one streamed response: text and function calls
// are reported as they arrive, each call handed to ready when its item is
// done, and the response is the one the response.completed event carries
// (the API's own accumulation: no partial JSON is parsed here).
//
// callName maps a call's name and namespace to the registry's name.
func (a *Responses) stream(ctx context.Context, client ResponsesClient, params responses.ResponseNewParams, step int, callName func(name, namespace string) string, emit func(agent.Event), ready func(int, toolreg.ToolCall)) (*responses.Response, error) {
	stream := client.NewStreaming(ctx, params)
	defer stream.Close()
	calls := map[string]toolreg.ToolCall{} // function_call items, by item id
	index := map[string]int{}              // their place among the calls
	for stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "response.output_text.delta":
			emit(agent.Event{Kind: agent.TextDelta, Step: step, Text: ev.Delta})
		case "response.output_item.added":
			if ev.Item.Type == "function_call" {
				fc := ev.Item.AsFunctionCall()
				call := toolreg.ToolCall{ID: fc.CallID, Name: callName(fc.Name, fc.Namespace)}
				calls[ev.Item.ID], index[ev.Item.ID] = call, len(index)
				emit(agent.Event{Kind: agent.CallStarted, Step: step, Call: call})
			}
		case "response.function_call_arguments.delta":
			emit(agent.Event{Kind: agent.ArgumentsDelta, Step: step, Call: calls[ev.ItemID], Delta: ev.Delta})
		case "response.output_item.done":
			if ev.Item.Type == "function_call" {
				fc := ev.Item.AsFunctionCall()
				ready(index[ev.Item.ID], a.toolCall(fc.CallID, callName(fc.Name, fc.Namespace), fc.Arguments))
			}
		case "response.completed", "response.incomplete":
			resp := ev.Response
			return &resp, stream.Err()
		case "response.failed":
			return nil, fmt.Errorf("the response failed: %s", ev.Response.Error.Message)
		case "error":
			return nil, fmt.Errorf("the stream reported an error: %s (%s)", ev.Message, ev.Code)
		}
	}
	if err := stream.Err(); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("%w: the stream ended before the response was complete", toolreg.ErrTruncated)
}

// toolsOf is Tools for the given tools, in their order.
func (a *Responses) toolsOf(tools []toolreg.AnyTool) ([]responses.ToolUnionParam, error) {
	es, err := a.defs.Of(tools)
	if err != nil {
		return nil, err
	}
	return responsesTools(es), nil
}

// stepTools is the tools a step declares, and whether the API's
// tool_search serves them (native): when the run searches on the client,
// or defers no tool, the tools the step declares; when the model searches
// natively (SearchesNatively), the loop declares every tool of the
// registry, deferred ones sent with defer_loading for the API to load
// what its search finds, in the run's order, without the loop's own
// search, a step's restriction going in tool_choice. A deferred tool the
// step hides is not declared, since the search would show the model its
// name and description: the array changes when the hidden set does,
// which costs the prompt cache from the tools on, the price of hiding.
func (m *responsesModel) stepTools(s *agent.Step) ([]toolreg.AnyTool, bool) {
	tools := s.Declared()
	if m.deferred == nil {
		return tools, false
	}
	tools = slices.DeleteFunc(tools, func(t toolreg.AnyTool) bool { return m.deferred(t) && !s.Allows(t.Name()) })
	return tools, slices.ContainsFunc(tools, m.deferred)
}

// SearchesNatively tells the loop that the API's tool_search serves the
// run's deferred tools (agent.NativeSearcher): unless WithClientToolSearch.
func (m *responsesModel) SearchesNatively() bool { return m.deferred != nil }

// nativeToolsOf is toolsOf with defer_loading on the deferred tools,
// those of a namespace (WithNamespaces) grouped in it, and the tool_search
// tool after them.
func (m *responsesModel) nativeToolsOf(tools []toolreg.AnyTool) ([]responses.ToolUnionParam, error) {
	params, err := m.a.toolsOf(tools)
	if err != nil {
		return nil, err
	}
	for i, t := range tools {
		if m.deferred(t) {
			params[i].OfFunction.DeferLoading = openai.Bool(true)
		}
	}
	if m.a.namespaces != nil {
		if params, err = m.grouped(tools, params); err != nil {
			return nil, err
		}
	}
	return append(params, responses.ToolUnionParam{OfToolSearch: &responses.ToolSearchToolParam{}}), nil
}

// nativeChoice is responsesStepChoice over the tools of stepTools: a
// step that allows fewer of them names those (a namespaced one with its
// namespace), and the tool search, in allowed_tools. The API reference
// lists hosted tools there by their type alone ({"type":
// "image_generation"}), the form the tool search takes here; it shows no
// example of tool_search itself. A forced tool that sits in a namespace
// is an error (agent.ErrInvalidStep): the API's tool_choice function has
// no namespace member, and the call it forces would come back without
// its namespace, refused.
func (m *responsesModel) nativeChoice(s *agent.Step, tools []toolreg.AnyTool) (responses.ResponseNewParamsToolChoiceUnion, error) {
	if s.Choice.Mode == agent.ChoiceTool {
		if t, ok := m.a.reg.Lookup(s.Choice.Tool); ok {
			if ns, ok := m.namespaceOf(t); ok {
				return responses.ResponseNewParamsToolChoiceUnion{}, fmt.Errorf("openai: step %d: %w: tool %q is forced but sits in namespace %q, and the Responses API cannot force a function of a namespace; force a tool the NamespaceRule leaves out, or restrict the step to it (agent.Required with Only)", s.Number, agent.ErrInvalidStep, s.Choice.Tool, ns.Name)
			}
		}
	}
	if s.Choice.Mode == agent.ChoiceTool || s.Choice.Mode == agent.ChoiceNone {
		return responsesToolChoice(s.Choice), nil
	}
	var allowed []map[string]any
	for _, t := range tools {
		if !s.Allows(t.Name()) {
			continue
		}
		entry := map[string]any{"type": "function", "name": t.Name()}
		if ns, ok := m.namespaceOf(t); ok {
			entry["namespace"] = ns.Name
		}
		allowed = append(allowed, entry)
	}
	if len(allowed) == len(tools) {
		return responsesToolChoice(s.Choice), nil
	}
	if len(allowed) == 0 {
		return responsesToolChoice(agent.None), nil
	}
	mode := responses.ToolChoiceAllowedModeAuto
	if s.Choice.Mode == agent.ChoiceRequired {
		mode = responses.ToolChoiceAllowedModeRequired
	}
	allowed = append(allowed, map[string]any{"type": "tool_search"})
	return responses.ResponseNewParamsToolChoiceUnion{OfAllowedTools: &responses.ToolChoiceAllowedParam{Mode: mode, Tools: allowed}}, nil
}

// responsesStepChoice is chatStepChoice in the Responses API's form.
func responsesStepChoice(s *agent.Step) responses.ResponseNewParamsToolChoiceUnion {
	allowed, required, restricted := restriction(s)
	if !restricted {
		return responsesToolChoice(s.Choice)
	}
	if len(allowed) == 0 {
		return responsesToolChoice(agent.None)
	}
	mode := responses.ToolChoiceAllowedModeAuto
	if required {
		mode = responses.ToolChoiceAllowedModeRequired
	}
	tools := make([]map[string]any, len(allowed))
	for i, n := range allowed {
		tools[i] = map[string]any{"type": "function", "name": n}
	}
	return responses.ResponseNewParamsToolChoiceUnion{OfAllowedTools: &responses.ToolChoiceAllowedParam{Mode: mode, Tools: tools}}
}
