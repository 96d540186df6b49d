package toolbedrock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
)

// streamSend asks ConverseStream with in, its messages and tools the
// step's.
func (a *Adapter) streamSend(client ConverseClient, in *bedrockruntime.ConverseStreamInput) sendFunc {
	return func(ctx context.Context, msgs []types.Message, cfg *types.ToolConfiguration, step int, emit func(agent.Event), ready func(int, toolreg.ToolCall)) (*bedrockruntime.ConverseOutput, error) {
		req := *in
		req.Messages, req.ToolConfig = msgs, cfg
		return a.readStream(ctx, client, &req, step, emit, ready)
	}
}

// streamInput is in as ConverseStream takes it: every field the same, the
// guardrail configuration in its stream form with the default processing
// mode (synchronous).
func streamInput(in *bedrockruntime.ConverseInput) *bedrockruntime.ConverseStreamInput {
	out := &bedrockruntime.ConverseStreamInput{
		ModelId:                           in.ModelId,
		AdditionalModelRequestFields:      in.AdditionalModelRequestFields,
		AdditionalModelResponseFieldPaths: in.AdditionalModelResponseFieldPaths,
		InferenceConfig:                   in.InferenceConfig,
		Messages:                          in.Messages,
		OutputConfig:                      in.OutputConfig,
		PerformanceConfig:                 in.PerformanceConfig,
		ProjectIdentifier:                 in.ProjectIdentifier,
		PromptVariables:                   in.PromptVariables,
		RequestMetadata:                   in.RequestMetadata,
		ServiceTier:                       in.ServiceTier,
		System:                            in.System,
		ToolConfig:                        in.ToolConfig,
	}
	if g := in.GuardrailConfig; g != nil {
		out.GuardrailConfig = &types.GuardrailStreamConfiguration{
			GuardrailIdentifier: g.GuardrailIdentifier,
			GuardrailVersion:    g.GuardrailVersion,
			Trace:               g.Trace,
		}
	}
	return out
}

// readStream makes one streamed model call and builds its response from
// the events, reporting them as they come.
func (a *Adapter) readStream(ctx context.Context, client ConverseClient, in *bedrockruntime.ConverseStreamInput, step int, emit func(agent.Event), ready func(int, toolreg.ToolCall)) (*bedrockruntime.ConverseOutput, error) {
	out, err := client.ConverseStream(ctx, in)
	if err != nil {
		return nil, err
	}
	stream := out.GetStream()
	defer stream.Close()
	b := &builder{step: step, emit: emit, ready: ready, blocks: map[int32]*streamBlock{}}
	for ev := range stream.Events() {
		if err := b.add(ev); err != nil {
			return nil, err
		}
	}
	// A cancelled context shows in the stream as a read on a closed
	// connection: say it was cancelled.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := stream.Err(); err != nil {
		return nil, err
	}
	return b.output()
}

// builder rebuilds a response from the events of its stream.
type builder struct {
	step   int
	emit   func(agent.Event)
	ready  func(int, toolreg.ToolCall)
	role   types.ConversationRole
	blocks map[int32]*streamBlock // by contentBlockIndex
	calls  int                    // the tool uses begun, server tools' aside
	stop   *types.MessageStopEvent
	meta   *types.ConverseStreamMetadataEvent
}

// streamBlock is one content block as its events build it.
type streamBlock struct {
	text      strings.Builder // text, or reasoning text
	reasoning bool
	signature string
	redacted  []byte
	use       *types.ToolUseBlockStart // a tool use
	call      int                      // a tool use's index among the turn's calls; -1 for a server tool's
	input     strings.Builder
}

func (b *builder) block(i *int32) *streamBlock {
	k := aws.ToInt32(i)
	blk := b.blocks[k]
	if blk == nil {
		blk = &streamBlock{call: -1}
		b.blocks[k] = blk
	}
	return blk
}

func (b *builder) add(ev types.ConverseStreamOutput) error {
	switch ev := ev.(type) {
	case *types.ConverseStreamOutputMemberMessageStart:
		b.role = ev.Value.Role
	case *types.ConverseStreamOutputMemberContentBlockStart:
		start, ok := ev.Value.Start.(*types.ContentBlockStartMemberToolUse)
		if !ok {
			return unrebuilt(ev.Value.Start)
		}
		blk := b.block(ev.Value.ContentBlockIndex)
		blk.use = &start.Value
		if start.Value.Type != types.ToolUseTypeServerToolUse {
			blk.call = b.calls
			b.calls++
			b.emit(agent.Event{Kind: agent.CallStarted, Step: b.step, Call: blk.toolCall(nil)})
		}
	case *types.ConverseStreamOutputMemberContentBlockDelta:
		blk := b.block(ev.Value.ContentBlockIndex)
		switch d := ev.Value.Delta.(type) {
		case *types.ContentBlockDeltaMemberText:
			blk.text.WriteString(d.Value)
			b.emit(agent.Event{Kind: agent.TextDelta, Step: b.step, Text: d.Value})
		case *types.ContentBlockDeltaMemberToolUse:
			if blk.use == nil {
				return errors.New("the stream sent a tool use's input before the tool use began")
			}
			piece := aws.ToString(d.Value.Input)
			blk.input.WriteString(piece)
			if blk.call >= 0 && piece != "" {
				b.emit(agent.Event{Kind: agent.ArgumentsDelta, Step: b.step, Call: blk.toolCall(nil), Delta: piece})
			}
		case *types.ContentBlockDeltaMemberReasoningContent:
			blk.reasoning = true
			switch r := d.Value.(type) {
			case *types.ReasoningContentBlockDeltaMemberText:
				blk.text.WriteString(r.Value)
			case *types.ReasoningContentBlockDeltaMemberSignature:
				blk.signature += r.Value
			case *types.ReasoningContentBlockDeltaMemberRedactedContent:
				blk.redacted = append(blk.redacted, r.Value...)
			}
		default:
			return unrebuilt(d)
		}
	case *types.ConverseStreamOutputMemberContentBlockStop:
		blk := b.block(ev.Value.ContentBlockIndex)
		if blk.call >= 0 {
			// The input is whole: the call may start while the model
			// writes the next. An input that is not JSON runs nothing
			// here; the turn ends with the error output reports.
			if args := blk.arguments(); json.Valid(args) {
				b.ready(blk.call, blk.toolCall(args))
			}
		}
	case *types.ConverseStreamOutputMemberMessageStop:
		b.stop = &ev.Value
	case *types.ConverseStreamOutputMemberMetadata:
		b.meta = &ev.Value
	}
	return nil
}

// unrebuilt is the error of a block a streamed run does not rebuild.
func unrebuilt(v any) error {
	return fmt.Errorf("the stream holds a block a streamed run does not rebuild (%T); run without agent.Options.Stream", v)
}

// toolCall is the block's tool use as a call with the given arguments
// (none while they stream).
func (blk *streamBlock) toolCall(args json.RawMessage) toolreg.ToolCall {
	return toolreg.ToolCall{ID: aws.ToString(blk.use.ToolUseId), Name: aws.ToString(blk.use.Name), Arguments: args}
}

// arguments is a tool use's input as streamed: the empty object when the
// model sent none.
func (blk *streamBlock) arguments() []byte {
	if strings.TrimSpace(blk.input.String()) == "" {
		return []byte("{}")
	}
	return []byte(blk.input.String())
}

// output is the response the events built, as Converse would have
// returned it.
func (b *builder) output() (*bedrockruntime.ConverseOutput, error) {
	if b.stop == nil {
		// The stream ended without saying why the model stopped: it was
		// cut off, and its last tool use may be half written.
		return nil, fmt.Errorf("%w: the stream ended before the response was complete", toolreg.ErrTruncated)
	}
	msg := types.Message{Role: b.role, Content: []types.ContentBlock{}}
	if msg.Role == "" {
		msg.Role = types.ConversationRoleAssistant
	}
	for _, k := range slices.Sorted(maps.Keys(b.blocks)) {
		blk := b.blocks[k]
		switch {
		case blk.use != nil:
			input, err := documentValue(blk.arguments())
			if err != nil {
				return nil, fmt.Errorf("%w: the input of tool use %s is not whole: %w", toolreg.ErrTruncated, aws.ToString(blk.use.ToolUseId), err)
			}
			msg.Content = append(msg.Content, &types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{
				ToolUseId: blk.use.ToolUseId, Name: blk.use.Name, Type: blk.use.Type, Input: document.NewLazyDocument(input),
			}})
		case blk.redacted != nil:
			msg.Content = append(msg.Content, &types.ContentBlockMemberReasoningContent{Value: &types.ReasoningContentBlockMemberRedactedContent{Value: blk.redacted}})
		case blk.reasoning:
			r := types.ReasoningTextBlock{Text: aws.String(blk.text.String())}
			if blk.signature != "" {
				r.Signature = aws.String(blk.signature)
			}
			msg.Content = append(msg.Content, &types.ContentBlockMemberReasoningContent{Value: &types.ReasoningContentBlockMemberReasoningText{Value: r}})
		case blk.text.Len() > 0:
			// A block that had only its stop is left out: Converse
			// refuses an empty text block in the next request.
			msg.Content = append(msg.Content, &types.ContentBlockMemberText{Value: blk.text.String()})
		}
	}
	out := &bedrockruntime.ConverseOutput{
		Output:                        &types.ConverseOutputMemberMessage{Value: msg},
		StopReason:                    b.stop.StopReason,
		AdditionalModelResponseFields: b.stop.AdditionalModelResponseFields,
		Metrics:                       &types.ConverseMetrics{},
	}
	if b.meta != nil {
		out.Usage = b.meta.Usage
		if b.meta.Metrics != nil {
			out.Metrics.LatencyMs = b.meta.Metrics.LatencyMs
		}
	}
	return out, nil
}
