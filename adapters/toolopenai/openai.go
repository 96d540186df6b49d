// Package toolopenai serves a toolreg.Registry to OpenAI models through the
// official SDK (github.com/openai/openai-go/v3): tool definitions for Chat
// Completions and Responses (optionally in strict mode), the dispatch of a
// model's tool calls, and agent loops (Chat.Run, Responses.Run). The *JSON
// functions speak the plain wire format, for other clients and
// OpenAI-compatible servers (Ollama, vLLM, llama.cpp).
//
// The package imports the SDK as the registry's only link to OpenAI: it
// converts; the registry validates and runs the calls.
package toolopenai

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/internal/adapt"
	"github.com/toolreg/toolreg/internal/dialect"
)

// Chat speaks OpenAI's Chat Completions API for one registry.
// Definitions are lowered once per tool and cached; tools added to the
// registry later are picked up. A Chat is safe for concurrent use.
//
// A tool's parameters are its input schema less what only restates its Go
// types (a bound at the limit of int64, the RFC 3339 pattern of a
// time.Time beside format date-time), lowered for strict mode where it is
// on. Calls are still checked against the full input schema, so a model
// that crosses an omitted bound is told which.
type Chat struct {
	toolSet
	media *adapt.MediaRules // what Chat Completions takes of the results' media
}

// Responses speaks OpenAI's Responses API for one registry, as Chat does
// for Chat Completions: the same definitions, strict mode and checks. A
// Responses is safe for concurrent use.
type Responses struct {
	toolSet
	media *adapt.MediaRules // what the Responses API takes of the results' media
}

// toolSet is what Chat and Responses share: the registry, its definitions
// lowered once per tool, and the strict mode of each.
type toolSet struct {
	reg          *toolreg.Registry
	defs         *adapt.Defs[*entry]
	clientSearch bool          // WithClientToolSearch
	namespaces   NamespaceRule // WithNamespaces; nil for none
}

// entry is one tool as OpenAI sees it, built once.
type entry struct {
	params map[string]any // the parameters schema, its values kept as raw JSON
	chat   openai.ChatCompletionToolUnionParam
	resp   responses.ToolUnionParam
	strict adapt.Strict // zero for a tool sent non-strict
}

// NewChat returns a Chat for reg.
func NewChat(reg *toolreg.Registry, opts ...Option) *Chat {
	return &Chat{toolSet: newToolSet(reg, opts), media: &chatMedia}
}

// NewResponses returns a Responses for reg.
func NewResponses(reg *toolreg.Registry, opts ...Option) *Responses {
	return &Responses{toolSet: newToolSet(reg, opts), media: &responsesMedia}
}

func newToolSet(reg *toolreg.Registry, opts []Option) toolSet {
	cfg := adapt.Configure(opts, func(o Option) func(*config) { return o.set })
	return toolSet{reg: reg, defs: adapt.StrictDefs(reg, cfg.strict, dialect.OpenAIStrict, build), clientSearch: cfg.clientSearch, namespaces: cfg.namespaces}
}

func build(t toolreg.AnyTool, st adapt.Strict) (*entry, error) {
	e := &entry{strict: st}
	schema := st.Schema
	if !st.On() {
		var err error
		if schema, err = dialect.Compact(t.InputSchema()); err != nil {
			return nil, fmt.Errorf("tool %q: %w", t.Name(), err)
		}
	}
	params, err := rawObject(schema)
	if err != nil {
		return nil, fmt.Errorf("tool %q: %w", t.Name(), err)
	}
	e.params = params
	fn := shared.FunctionDefinitionParam{
		Name:        t.Name(),
		Description: openai.String(t.Description()),
		Parameters:  params,
		Strict:      openai.Bool(st.On()),
	}
	e.chat = openai.ChatCompletionFunctionTool(fn)
	e.resp = responses.ToolUnionParam{OfFunction: &responses.FunctionToolParam{
		Name:        t.Name(),
		Description: openai.String(t.Description()),
		Parameters:  params,
		Strict:      openai.Bool(st.On()),
	}}
	// A Responses function tool may say what JSON its output string holds
	// (output_schema): a typed tool's output is its Result as JSON, which
	// the schema describes. A failed call's output, or one cut to the
	// registry's result budget, is text the schema does not describe; the
	// model reads those as any output. Chat Completions has no such field.
	if out := t.OutputSchema(); out != nil {
		compact, err := dialect.Compact(out)
		if err != nil {
			return nil, fmt.Errorf("tool %q: output schema: %w", t.Name(), err)
		}
		if e.resp.OfFunction.OutputSchema, err = rawObject(compact); err != nil {
			return nil, fmt.Errorf("tool %q: output schema: %w", t.Name(), err)
		}
	}
	return e, nil
}

// rawObject splits a JSON object into its members, each kept as raw JSON:
// the SDK's parameter maps then marshal the schema with its property order
// intact.
func rawObject(schema json.RawMessage) (map[string]any, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(schema, &m); err != nil {
		return nil, fmt.Errorf("schema is not a JSON object: %w", err)
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out, nil
}

// Tools returns the registry's tools as Chat Completions tool params,
// in registration order, ready for ChatCompletionNewParams.Tools. The
// params are the caller's; their Parameters maps are shared and must not
// be modified.
func (a *Chat) Tools() ([]openai.ChatCompletionToolUnionParam, error) {
	_, es, err := a.defs.All()
	if err != nil {
		return nil, err
	}
	return chatTools(es), nil
}

// chatTools are the caller's copies of the entries' Chat Completions
// params.
func chatTools(es []*entry) []openai.ChatCompletionToolUnionParam {
	out := make([]openai.ChatCompletionToolUnionParam, len(es))
	fns := make([]openai.ChatCompletionFunctionToolParam, len(es)) // copies: the caller may set fields
	for i, e := range es {
		fns[i] = *e.chat.OfFunction
		out[i] = openai.ChatCompletionToolUnionParam{OfFunction: &fns[i]}
	}
	return out
}

// Tools returns the registry's tools as Responses API tool params,
// ready for responses.ResponseNewParams.Tools.
func (a *Responses) Tools() ([]responses.ToolUnionParam, error) {
	_, es, err := a.defs.All()
	if err != nil {
		return nil, err
	}
	return responsesTools(es), nil
}

// responsesTools are the caller's copies of the entries' Responses API
// params.
func responsesTools(es []*entry) []responses.ToolUnionParam {
	out := make([]responses.ToolUnionParam, len(es))
	fns := make([]responses.FunctionToolParam, len(es))
	for i, e := range es {
		fns[i] = *e.resp.OfFunction
		out[i] = responses.ToolUnionParam{OfFunction: &fns[i]}
	}
	return out
}

// ToolsJSON is Tools as the JSON array the Chat Completions API
// takes in "tools", for clients other than the official SDK.
func (a *Chat) ToolsJSON() (json.RawMessage, error) {
	tools, err := a.Tools()
	if err != nil {
		return nil, err
	}
	return json.Marshal(tools)
}

// ToolsJSON is Tools as the JSON array the Responses API
// takes in "tools".
func (a *Responses) ToolsJSON() (json.RawMessage, error) {
	tools, err := a.Tools()
	if err != nil {
		return nil, err
	}
	return json.Marshal(tools)
}

// Strict reports whether the named tool is sent in strict mode.
func (a *toolSet) Strict(name string) bool {
	e, ok := a.defs.Lookup(name)
	return ok && e.strict.On()
}

// NotStrict says why the named tool is sent non-strict although strict
// mode was asked for it: its schema cannot be made strict (a dynamic tool's
// or a hand-written one's, or any tool under WithNonStrictFallback). nil
// when the tool is strict, or strict mode was not asked for it.
func (a *toolSet) NotStrict(name string) error {
	e, ok := a.defs.Lookup(name)
	if !ok {
		return nil
	}
	return e.strict.Reason
}

// toolCall turns one provider call into a registry call: the arguments
// string is the JSON, and a strict tool's placeholder nulls are dropped so
// that the call validates against the canonical schema.
func (a *toolSet) toolCall(id, name, arguments string) toolreg.ToolCall {
	args := []byte(arguments)
	if e, ok := a.defs.Lookup(name); ok {
		args = e.strict.StripNulls(args)
	}
	return toolreg.ToolCall{ID: id, Name: name, Arguments: args}
}

// ToolCalls lists the tool calls of an assistant message as registry calls.
func (a *Chat) ToolCalls(msg openai.ChatCompletionMessage) []toolreg.ToolCall {
	calls := make([]toolreg.ToolCall, len(msg.ToolCalls))
	for i, tc := range msg.ToolCalls {
		name, args := tc.Function.Name, tc.Function.Arguments
		if tc.Type == "custom" {
			name, args = tc.Custom.Name, tc.Custom.Input
		}
		calls[i] = a.toolCall(tc.ID, name, args)
	}
	return calls
}

// CallAll runs the tool calls of an assistant message concurrently and
// returns one tool message per call, in the order of the calls. Failures
// (unknown tool, invalid arguments, a tool's error or panic) are tool
// messages too, whose text tells the model what to fix.
//
// A tool message holds text only, so results' media (toolreg.Output.Media)
// follow in one user message after the tool messages: each result's
// images (PNG, JPEG, WebP, GIF) as image_url parts and PDFs as file parts,
// after a line naming the call, and the tool message's text says they
// follow. Audio, other types, and media past 50 MB for the turn are left
// out, each replaced in the tool message by a line of text that says what
// and why. Append every message returned, in order.
func (a *Chat) CallAll(ctx context.Context, msg openai.ChatCompletionMessage) []openai.ChatCompletionMessageParamUnion {
	calls := a.ToolCalls(msg)
	return a.chatMessages(calls, a.reg.CallAll(ctx, calls))
}

// ToolCalls lists the function_call items of a response's output as
// registry calls, keyed by call_id.
//
// A call with a namespace names no registry tool here: outside a run,
// nothing is declared in a namespace (WithNamespaces applies to runs), so
// its name is the namespace, a dot and the function's name, which the
// registry refuses as unknown.
func (a *Responses) ToolCalls(output []responses.ResponseOutputItemUnion) []toolreg.ToolCall {
	return a.toolCalls(output, func(name, namespace string) string {
		if namespace != "" {
			return namespace + "." + name
		}
		return name
	})
}

// toolCalls is ToolCalls with callName mapping each call's name and
// namespace to the registry's name.
func (a *Responses) toolCalls(output []responses.ResponseOutputItemUnion, callName func(name, namespace string) string) []toolreg.ToolCall {
	var calls []toolreg.ToolCall
	for _, item := range output {
		if item.Type != "function_call" {
			continue
		}
		fc := item.AsFunctionCall()
		calls = append(calls, a.toolCall(fc.CallID, callName(fc.Name, fc.Namespace), fc.Arguments))
	}
	return calls
}

// CallAll runs the function_call items of a response's output and
// returns one function_call_output input item per call, in order.
//
// A result with media (toolreg.Output.Media) has a list as its output:
// its text as input_text, then images (PNG, JPEG, WebP, GIF) as
// input_image and files (PDFs, text, office documents) as input_file, all
// inline. Audio, other types, and media past 50 MB for the turn are left
// out, each replaced by a line of text that says what and why.
func (a *Responses) CallAll(ctx context.Context, output []responses.ResponseOutputItemUnion) []responses.ResponseInputItemUnionParam {
	calls := a.ToolCalls(output)
	return a.functionCallOutputs(calls, a.reg.CallAll(ctx, calls))
}

// CallAllJSON is CallAll on the wire format, for clients
// other than the official SDK: it takes the "output" array of a response
// and returns the JSON array of function_call_output items to send in the
// next request's "input", the bytes the SDK would send.
func (a *Responses) CallAllJSON(ctx context.Context, output json.RawMessage) (json.RawMessage, error) {
	var items []responses.ResponseOutputItemUnion
	if err := json.Unmarshal(output, &items); err != nil {
		return nil, fmt.Errorf("openai: output is not a JSON array of response output items: %w", err)
	}
	return json.Marshal(a.CallAll(ctx, items))
}

type wireToolMessage struct {
	Role       string `json:"role"`
	ToolCallID string `json:"tool_call_id"`
	Content    string `json:"content"`
}

// CallAllJSON is CallAll on the wire format: it takes the "tool_calls"
// array of an assistant message and returns the JSON array of tool
// messages to append to "messages", followed by the user message that
// holds their media, if any, as CallAll makes it. Arguments may also be
// given as a JSON object instead of a string, as Ollama's native API does.
func (a *Chat) CallAllJSON(ctx context.Context, toolCalls json.RawMessage) (json.RawMessage, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(toolCalls, &raw); err != nil {
		return nil, fmt.Errorf("openai: tool_calls is not a JSON array: %w", err)
	}
	calls := make([]toolreg.ToolCall, len(raw))
	for i, r := range raw {
		var tc struct {
			ID       string `json:"id"`
			Function struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"function"`
		}
		if err := json.Unmarshal(r, &tc); err != nil {
			return nil, fmt.Errorf("openai: tool call %d: %w", i, err)
		}
		args := string(tc.Function.Arguments)
		var s string
		if json.Unmarshal(tc.Function.Arguments, &s) == nil {
			args = s // the usual form: the arguments object as a JSON string
		}
		calls[i] = a.toolCall(tc.ID, tc.Function.Name, args)
	}
	texts, media := a.chatResults(calls, a.reg.CallAll(ctx, calls))
	msgs := make([]any, len(calls), len(calls)+1)
	for i, c := range calls {
		msgs[i] = wireToolMessage{Role: "tool", ToolCallID: c.ID, Content: texts[i]}
	}
	if media != nil {
		msgs = append(msgs, media)
	}
	return json.Marshal(msgs)
}
