// Package toolanthropic serves a toolreg.Registry to Claude models through the
// official SDK (github.com/anthropics/anthropic-sdk-go/v2): tool definitions
// for the Messages API (optionally in strict mode), the dispatch of a
// model's tool_use blocks, and the runners, which drive the whole exchange
// until the model answers. ToolsJSON and CallAllJSON speak the plain wire
// format, for other clients.
//
// Use Tools and CallAll to keep the loop in your own code. Use Adapter.Run
// to let the package run it, steered with package agent (step bounds, each
// step's tools and tool choice, events, approvals and questions that
// pause the run, Run again with its State to go on); with
// agent.Options.Stream it runs on the streaming API, reporting the text
// and tool calls as the model writes them. Every runner shares one loop
// with the other providers' runners.
//
// The package imports the SDK as the registry's only link to Anthropic: it
// converts; the registry validates and runs the calls.
package toolanthropic

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/internal/adapt"
	"github.com/toolreg/toolreg/internal/dialect"
)

// Adapter speaks the Anthropic Messages API for one registry. Definitions
// are lowered once per tool and cached; tools added to the registry later
// are picked up. An Adapter is safe for concurrent use.
type Adapter struct {
	reg          *toolreg.Registry
	defs         *adapt.Defs[*entry]
	media        *adapt.MediaRules // what a tool_result takes of the results' media
	clientSearch bool              // WithClientToolSearch
}

// entry is one tool as Anthropic sees it, built once.
type entry struct {
	tool   anthropic.ToolParam // copied out by Tools, so callers may change their copy
	strict adapt.Strict        // zero for a tool sent non-strict
	counts strictCounts        // strict tools: what counts against the request limits
}

// New returns an Adapter for reg.
func New(reg *toolreg.Registry, opts ...Option) *Adapter {
	cfg := adapt.Configure(opts, func(o Option) func(*config) { return o.set })
	defs := adapt.StrictDefs(reg, cfg.strict, dialect.AnthropicStrict, func(t toolreg.AnyTool, st adapt.Strict) (*entry, error) {
		return build(t, st, !cfg.noExamples)
	})
	return &Adapter{reg: reg, defs: defs, media: &mediaRules, clientSearch: cfg.clientSearch}
}

func build(t toolreg.AnyTool, st adapt.Strict, examples bool) (*entry, error) {
	e := &entry{strict: st}
	schema := st.Schema
	if st.On() {
		var err error
		if e.counts, err = countStrict(schema); err != nil {
			return nil, fmt.Errorf("tool %q: %w", t.Name(), err)
		}
	} else {
		lowered, err := dialect.Anthropic(t.InputSchema())
		if err != nil {
			return nil, fmt.Errorf("tool %q: %w", t.Name(), err)
		}
		schema = lowered
	}
	e.tool = anthropic.ToolParam{
		Name:        t.Name(),
		Description: anthropic.String(t.Description()),
		// The schema goes to the wire as raw JSON, byte for byte: the
		// properties keep their order, and the bytes are the same from
		// request to request, which prompt caching needs. (Properties and
		// ExtraFields would work too, but the SDK writes extra fields in
		// map order.)
		InputSchema: param.Override[anthropic.ToolInputSchemaParam](schema),
	}
	if st.On() {
		// Non-strict tools leave the field out: some deployments (older
		// models, Bedrock) reject it, and absent means false.
		e.tool.Strict = anthropic.Bool(true)
	}
	if ex, ok := t.(interface{ Examples() []json.RawMessage }); ok && examples {
		var err error
		if e.tool.InputExamples, err = inputExamples(ex.Examples()); err != nil {
			return nil, fmt.Errorf("tool %q: %w", t.Name(), err)
		}
	}
	return e, nil
}

// inputExamples are a tool's examples as input_examples. Their members
// stay raw JSON, so numbers keep their digits (through a float64, an
// int64 example would not), and the wire holds each value as declared.
func inputExamples(examples []json.RawMessage) ([]map[string]any, error) {
	if len(examples) == 0 {
		return nil, nil
	}
	out := make([]map[string]any, len(examples))
	for i, ex := range examples {
		var members map[string]json.RawMessage
		if err := json.Unmarshal(ex, &members); err != nil || members == nil {
			return nil, fmt.Errorf("example %d is not a JSON object: %s", i+1, ex)
		}
		out[i] = make(map[string]any, len(members))
		for k, v := range members {
			out[i][k] = v
		}
	}
	return out, nil
}

// Tools returns the registry's tools as Messages API tool params, in
// registration order, ready for MessageNewParams.Tools. Each call returns
// fresh params, so setting CacheControl on the last one (to cache the tool
// definitions) changes only that copy.
//
// The input_schema of each tool is raw JSON set with param.Override; read
// it with InputSchema.Overrides(). A tool's examples (toolreg.WithExamples)
// are its InputExamples, each member raw JSON; they are shared with the
// Adapter's cache and must not be modified (see WithoutInputExamples). In
// strict mode Tools also checks the per-request limits and fails with
// ErrStrictLimit, naming the tools.
func (a *Adapter) Tools() ([]anthropic.ToolUnionParam, error) {
	tools, es, err := a.defs.All()
	if err != nil {
		return nil, err
	}
	return toolParams(tools, es)
}

// toolsOf is Tools for the given tools, in their order: the strict limits
// count the tools a request carries, so a registry larger than they allow
// may still offer a few tools at a time.
func (a *Adapter) toolsOf(tools []toolreg.AnyTool) ([]anthropic.ToolUnionParam, error) {
	es, err := a.defs.Of(tools)
	if err != nil {
		return nil, err
	}
	return toolParams(tools, es)
}

// toolParams are the caller's copies of the tools' entries, once the strict
// limits are checked.
func toolParams(tools []toolreg.AnyTool, es []*entry) ([]anthropic.ToolUnionParam, error) {
	if err := checkStrictLimits(tools, es); err != nil {
		return nil, err
	}
	n := len(es)
	out := make([]anthropic.ToolUnionParam, n)
	params := make([]anthropic.ToolParam, n) // one allocation for all the copies
	for i, e := range es {
		params[i] = e.tool
		out[i] = anthropic.ToolUnionParam{OfTool: &params[i]}
	}
	return out, nil
}

// ToolsJSON is Tools as the JSON array the Messages API takes in "tools",
// for clients other than the official SDK. The bytes are those the SDK
// sends.
func (a *Adapter) ToolsJSON() (json.RawMessage, error) {
	tools, err := a.Tools()
	if err != nil {
		return nil, err
	}
	return json.Marshal(tools)
}

// Strict reports whether the named tool is sent in strict mode.
func (a *Adapter) Strict(name string) bool {
	e, ok := a.defs.Lookup(name)
	return ok && e.strict.On()
}

// NotStrict says why the named tool is sent non-strict although strict
// mode was asked for it: its schema cannot be made strict (a dynamic tool's
// or a hand-written one's, or any tool under WithNonStrictFallback). nil
// when the tool is strict, or strict mode was not asked for it.
func (a *Adapter) NotStrict(name string) error {
	e, ok := a.defs.Lookup(name)
	if !ok {
		return nil
	}
	return e.strict.Reason
}

// toolCall turns one tool_use block into a registry call: the input object
// is the arguments, and for a strict tool the nulls sent for optional
// properties are dropped so that the call validates against the canonical
// schema.
func (a *Adapter) toolCall(id, name string, input json.RawMessage) toolreg.ToolCall {
	args := input
	if e, ok := a.defs.Lookup(name); ok {
		args = e.strict.StripNulls(args)
	}
	return toolreg.ToolCall{ID: id, Name: name, Arguments: args}
}

// ToolCalls lists the tool_use blocks of an assistant message as registry
// calls, in order. Other blocks (text, thinking, server tools) are skipped.
func (a *Adapter) ToolCalls(msg anthropic.Message) []toolreg.ToolCall {
	var calls []toolreg.ToolCall
	for _, b := range msg.Content {
		if b.Type == "tool_use" {
			calls = append(calls, a.toolCall(b.ID, b.Name, b.Input))
		}
	}
	return calls
}

// CallAll runs the tool_use blocks of an assistant message concurrently and
// returns the user message that answers them: one tool_result block per
// tool_use, in the same order, with is_error set on failures (unknown
// tool, invalid input, a tool's error or panic), whose text tells the
// model what to fix. Append it right after the assistant message; add
// any text of your own after the results.
//
// A result's media (toolreg.Output.Media) follow its text in the
// tool_result: images as image blocks (JPEG, PNG, GIF, WebP, up to 3.9 MB
// each), PDFs and text files as document blocks. Audio, other types, and
// media past the bounds (24 MB in all for one turn, within the API's 32 MB
// request) are left out, each replaced by a line of text that says what
// and why.
//
// A message without tool_use blocks runs nothing, and CallAll returns the
// zero MessageParam.
func (a *Adapter) CallAll(ctx context.Context, msg anthropic.Message) anthropic.MessageParam {
	calls := a.ToolCalls(msg)
	if len(calls) == 0 {
		return anthropic.MessageParam{}
	}
	return a.resultMessage(calls, a.reg.CallAll(ctx, calls))
}

// resultMessage is the user message holding the results of calls.
func (a *Adapter) resultMessage(calls []toolreg.ToolCall, outs []toolreg.Output) anthropic.MessageParam {
	blocks := make([]anthropic.ContentBlockParamUnion, len(calls))
	turn := a.media.Turn()
	for i, c := range calls {
		r := &anthropic.ToolResultBlockParam{ToolUseID: c.ID, Content: resultContent(outs[i], turn)}
		if outs[i].IsError {
			r.IsError = anthropic.Bool(true)
		}
		blocks[i] = anthropic.ContentBlockParamUnion{OfToolResult: r}
	}
	return anthropic.NewUserMessage(blocks...)
}

type wireMessage struct {
	Role    string       `json:"role"`
	Content []wireResult `json:"content"`
}

type wireResult struct {
	Type      string `json:"type"`
	ToolUseID string `json:"tool_use_id"`
	Content   any    `json:"content,omitempty"` // a string, or blocks when media go with it
	IsError   bool   `json:"is_error,omitempty"`
}

// CallAllJSON is CallAll on the wire format: it takes the "content" array of an
// assistant message and returns the JSON of the user message to append to
// "messages", its tool_result blocks in the order of the tool_use blocks.
// A result's content is its text as a string, or a list of blocks when it
// carries media, as CallAll sends them. Without tool_use blocks it runs
// nothing and returns nil.
func (a *Adapter) CallAllJSON(ctx context.Context, content json.RawMessage) (json.RawMessage, error) {
	var blocks []struct {
		Type  string          `json:"type"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(content, &blocks); err != nil {
		return nil, fmt.Errorf("anthropic: content is not a JSON array of blocks: %w", err)
	}
	var calls []toolreg.ToolCall
	for _, b := range blocks {
		if b.Type == "tool_use" {
			calls = append(calls, a.toolCall(b.ID, b.Name, b.Input))
		}
	}
	if len(calls) == 0 {
		return nil, nil
	}
	outs := a.reg.CallAll(ctx, calls)
	msg := wireMessage{Role: "user", Content: make([]wireResult, len(calls))}
	turn := a.media.Turn()
	for i, c := range calls {
		r := wireResult{Type: "tool_result", ToolUseID: c.ID, IsError: outs[i].IsError}
		switch content := resultContent(outs[i], turn); {
		case len(content) == 1 && content[0].OfText != nil:
			r.Content = content[0].OfText.Text
		case len(content) > 0:
			r.Content = content
		}
		msg.Content[i] = r
	}
	return json.Marshal(msg)
}
