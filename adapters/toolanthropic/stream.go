package toolanthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
)

// streamMessage reads one streamed message, accumulated by the SDK,
// reporting text and tool_use blocks as they arrive and handing each
// tool_use to ready when its block closes, with its place among the
// message's tool_use blocks (the order of ToolCalls).
func (a *Adapter) streamMessage(ctx context.Context, client MessagesClient, params anthropic.MessageNewParams, step int, emit func(agent.Event), ready func(int, toolreg.ToolCall)) (*anthropic.Message, error) {
	stream := client.NewStreaming(ctx, params)
	defer stream.Close()
	var msg anthropic.Message
	calls := map[int64]toolreg.ToolCall{} // tool_use blocks, by content block index
	order := map[int64]int{}              // their place among the tool_use blocks
	readied := map[int64]bool{}
	for stream.Next() {
		ev := stream.Current()
		_, isCall := calls[ev.Index]
		// The accumulator empties an input that is not whole JSON when its
		// block closes: read it before. A block closed twice is handed over
		// twice, and the loop ends the stream (agent.ErrBrokenStream).
		whole := ev.Type == "content_block_stop" && isCall && int(ev.Index) < len(msg.Content) && json.Valid(msg.Content[ev.Index].Input)
		if err := msg.Accumulate(ev); err != nil {
			return nil, fmt.Errorf("the stream's events do not fit together: %w", err)
		}
		switch ev.Type {
		case "content_block_start":
			if b := ev.ContentBlock; b.Type == "tool_use" {
				call := toolreg.ToolCall{ID: b.ID, Name: b.Name}
				calls[ev.Index], order[ev.Index] = call, len(order)
				emit(agent.Event{Kind: agent.CallStarted, Step: step, Call: call})
			}
		case "content_block_delta":
			switch d := ev.Delta; {
			case d.Type == "text_delta" && d.Text != "":
				emit(agent.Event{Kind: agent.TextDelta, Step: step, Text: d.Text})
			case d.Type == "input_json_delta" && d.PartialJSON != "" && isCall:
				emit(agent.Event{Kind: agent.ArgumentsDelta, Step: step, Call: calls[ev.Index], Delta: d.PartialJSON})
			}
		case "content_block_stop":
			if whole {
				readied[ev.Index] = true
				c := calls[ev.Index]
				ready(order[ev.Index], a.toolCall(c.ID, c.Name, msg.Content[ev.Index].Input))
			}
		case "message_stop":
			if truncated(msg.StopReason) {
				return &msg, nil // cut off: no call runs, and the caller says why
			}
			var broken []string
			for i := range int64(len(msg.Content)) {
				if c, ok := calls[i]; ok && !readied[i] {
					broken = append(broken, c.ID)
				}
			}
			if len(broken) > 0 {
				return nil, fmt.Errorf("the input of tool_use %s did not arrive as whole JSON", strings.Join(broken, ", "))
			}
			return &msg, nil
		}
	}
	if err := stream.Err(); err != nil {
		return nil, fmt.Errorf("reading the stream: %w", err)
	}
	// The stream ended without message_stop: it was cut off, and its last
	// tool_use may be half written.
	return nil, fmt.Errorf("%w: the stream ended before the message was complete", toolreg.ErrTruncated)
}
