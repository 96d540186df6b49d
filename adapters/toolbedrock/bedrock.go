// Package toolbedrock serves a toolreg.Registry to the models of Amazon Bedrock
// through the Converse API of the official SDK
// (github.com/aws/aws-sdk-go-v2/service/bedrockruntime): tool definitions
// (Tools), the calls of a reply (ToolCalls), the dispatch of a turn's
// toolUse blocks (CallAll), and an agent loop on Converse, or ConverseStream
// with agent.Options.Stream (Adapter.Run).
//
// The package is a module of its own, so that the core's users never get
// the AWS SDK's dependencies:
//
//	go get github.com/toolreg/toolreg/adapters/toolbedrock
//
// It imports the SDK as the registry's only link to Bedrock: it converts;
// the registry validates and runs the calls.
package toolbedrock

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/internal/adapt"
	"github.com/toolreg/toolreg/internal/dialect"
)

// errUnsupported marks a tool whose arguments Converse cannot take; it
// matches toolreg.ErrUnsupportedSchema.
var errUnsupported = adapt.Unsupported("tool schema cannot be expressed for Bedrock")

// Adapter speaks Bedrock's Converse API for one registry. Definitions are
// lowered once per tool and cached; tools added to the registry later are
// picked up. An Adapter is safe for concurrent use.
type Adapter struct {
	reg  *toolreg.Registry
	defs *adapt.Defs[types.ToolSpecification]
}

// New returns an Adapter for reg.
func New(reg *toolreg.Registry) *Adapter {
	return &Adapter{reg: reg, defs: adapt.NewDefs(reg, build)}
}

// build makes a tool's specification: its input schema lowered for
// Converse (see dialect.Bedrock), held as a document of plain Go values.
func build(t toolreg.AnyTool) (types.ToolSpecification, error) {
	lowered, err := dialect.Bedrock(t.InputSchema())
	if err != nil {
		return types.ToolSpecification{}, fmt.Errorf("%w: tool %q: %w", errUnsupported, t.Name(), err)
	}
	schema, err := documentValue(lowered)
	if err != nil {
		return types.ToolSpecification{}, fmt.Errorf("tool %q: %w", t.Name(), err)
	}
	return types.ToolSpecification{
		Name:        aws.String(t.Name()),
		Description: aws.String(t.Description()),
		InputSchema: &types.ToolInputSchemaMemberJson{Value: document.NewLazyDocument(schema)},
	}, nil
}

// Tools returns the registry's tools as Converse tools, in registration
// order, ready for ToolConfiguration.Tools. Each call returns fresh
// values, so appending a cache point or changing a copy leaves the
// Adapter's alone; the schema documents are shared and must not be
// changed. Tools Converse cannot take (a recursive type, allOf of several
// schemas) make it fail with an error matching
// toolreg.ErrUnsupportedSchema for each, naming the tool and the field.
//
// The SDK writes a schema's objects with their keys sorted: its document
// encoder knows no other order.
func (a *Adapter) Tools() ([]types.Tool, error) {
	_, specs, err := a.defs.All()
	if err != nil {
		return nil, err
	}
	return toolsOf(specs), nil
}

// toolsFor is Tools for the given tools only, in their order.
func (a *Adapter) toolsFor(tools []toolreg.AnyTool) ([]types.Tool, error) {
	specs, err := a.defs.Of(tools)
	if err != nil {
		return nil, err
	}
	return toolsOf(specs), nil
}

func toolsOf(specs []types.ToolSpecification) []types.Tool {
	out := make([]types.Tool, len(specs))
	members := make([]types.ToolMemberToolSpec, len(specs)) // one allocation for all the copies
	for i, s := range specs {
		members[i].Value = s
		out[i] = &members[i]
	}
	return out
}

// ToolCalls lists the toolUse blocks of an assistant message as registry
// calls, in order: ToolUseId, name, and the input document as the JSON
// object the registry validates. Other blocks (text, reasoning) and the
// uses of server tools, which Bedrock runs itself, are skipped.
//
// An input that cannot be encoded as JSON (only possible in a message
// built by hand) gives Arguments that are not JSON, which the registry
// refuses as invalid arguments rather than calling the tool without them.
func (a *Adapter) ToolCalls(msg types.Message) []toolreg.ToolCall {
	var calls []toolreg.ToolCall
	for _, b := range msg.Content {
		use, ok := b.(*types.ContentBlockMemberToolUse)
		if !ok || use.Value.Type == types.ToolUseTypeServerToolUse {
			continue
		}
		calls = append(calls, toolreg.ToolCall{
			ID:        aws.ToString(use.Value.ToolUseId),
			Name:      aws.ToString(use.Value.Name),
			Arguments: documentJSON(use.Value.Input),
		})
	}
	return calls
}

// CallAll runs the toolUse blocks of an assistant message concurrently and
// returns the user message that answers them: one toolResult block per
// toolUse, in the same order. A result is the tool's structured JSON as a
// json block when it is an object (Converse takes no other JSON there),
// and its text otherwise; a failed call (unknown tool, invalid input, a
// tool's error or panic) has status "error" and a text that tells the
// model what to fix. Append the assistant message to the conversation,
// then this one.
//
// Converse documents status for Amazon Nova and Anthropic Claude models
// only; it is sent only on failures.
//
// A message without toolUse blocks runs nothing, and CallAll returns the
// zero Message.
func (a *Adapter) CallAll(ctx context.Context, msg types.Message) types.Message {
	calls := a.ToolCalls(msg)
	if len(calls) == 0 {
		return types.Message{}
	}
	return resultMessage(calls, a.reg.CallAll(ctx, calls))
}

// emptyResult is the text of a result with no text: Converse refuses an
// empty text block, and a toolResult needs content.
const emptyResult = "(no output)"

// resultMessage is the user message holding the results of calls.
func resultMessage(calls []toolreg.ToolCall, outs []toolreg.Output) types.Message {
	blocks := make([]types.ContentBlock, len(calls))
	for i, c := range calls {
		r := types.ToolResultBlock{ToolUseId: aws.String(c.ID), Content: []types.ToolResultContentBlock{resultContent(outs[i])}}
		if outs[i].IsError {
			r.Status = types.ToolResultStatusError
		}
		blocks[i] = &types.ContentBlockMemberToolResult{Value: r}
	}
	return types.Message{Role: types.ConversationRoleUser, Content: blocks}
}

// resultContent is what the model reads of one output.
func resultContent(out toolreg.Output) types.ToolResultContentBlock {
	if !out.IsError && isObject(out.Structured) {
		if v, err := documentValue(out.Structured); err == nil {
			return &types.ToolResultContentBlockMemberJson{Value: document.NewLazyDocument(v)}
		}
	}
	if out.Text == "" {
		return &types.ToolResultContentBlockMemberText{Value: emptyResult}
	}
	return &types.ToolResultContentBlockMemberText{Value: out.Text}
}
