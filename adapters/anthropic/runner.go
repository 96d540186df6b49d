package anthropic

import (
	"context"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/internal/adapt"
)

// MessagesClient is the part of the SDK a run needs: &client.Messages
// satisfies it.
type MessagesClient interface {
	New(ctx context.Context, body anthropic.MessageNewParams, opts ...option.RequestOption) (*anthropic.Message, error)
}

// RunOptions bound and observe a run. The zero value is usable. To observe
// each tool call and its Output, add middleware to the registry
// (Registry.Use): it sees the calls of runs and of every other path.
type RunOptions struct {
	// MaxSteps bounds the model calls of a run; 0 means DefaultMaxSteps.
	MaxSteps int
	// OnTurn, if set, sees each model response as it arrives.
	OnTurn func(step int, msg *anthropic.Message)
}

// DefaultMaxSteps bounds a run whose RunOptions leave MaxSteps at 0.
const DefaultMaxSteps = 10

// Run is what a run produced, also when it ends with an error.
type Run struct {
	// Messages is the transcript: the request's messages, then each
	// assistant message and the user message of tool results that
	// answered it.
	Messages []anthropic.MessageParam
	// Final is the last response; it holds the model's answer when the run
	// ended without error.
	Final *anthropic.Message
	// Steps counts the model calls.
	Steps int
}

// Answer is the text of the final message, its text blocks concatenated;
// "" if there is none.
func (r *Run) Answer() string {
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

// Run is the agent loop on the Messages API: it sends params with the
// registry's tools (unless params.Tools is set), runs every tool_use block
// of a turn concurrently, sends the results back in one user message, and
// repeats while the model stops with stop_reason "tool_use".
//
// Stop reasons are handled as in the SDK's own tool runner, except that a
// cut-off response is an error here rather than a quiet end:
//   - "tool_use": the tools run and the run goes on; without tool_use
//     blocks the run ends.
//   - "pause_turn" (a long-running server tool paused the turn): the
//     message is sent back as it is so the model continues; this costs a
//     step and runs no tools.
//   - "max_tokens", "model_context_window_exceeded": the run ends with
//     toolreg.ErrTruncated; the cut-off message is in the transcript and Final,
//     and its tool_use blocks are not run.
//   - "end_turn", "stop_sequence", "refusal" and reasons unknown to this
//     package: the run ends without error; check Final.StopReason to tell
//     a refusal from an answer.
//
// Tool failures go back to the model as tool results with is_error and the
// run goes on. The run ends with an error, and the transcript so far, when
// the client fails, ctx is done, MaxSteps model calls did not suffice
// (toolreg.ErrMaxSteps), or a tool returned toolreg.StopRun (the error
// matches toolreg.ErrStopRun and the tool's error; the results of that
// turn are in the transcript).
func (a *Adapter) Run(ctx context.Context, client MessagesClient, params anthropic.MessageNewParams, ro RunOptions) (*Run, error) {
	if len(params.Tools) == 0 {
		tools, err := a.Tools()
		if err != nil {
			return nil, err
		}
		params.Tools = tools
	}
	run := &Run{Messages: append([]anthropic.MessageParam(nil), params.Messages...)}
	turn := func(ctx context.Context, step int) ([]toolreg.ToolCall, bool, error) {
		params.Messages = run.Messages
		msg, err := client.New(ctx, params)
		if err != nil {
			return nil, true, fmt.Errorf("anthropic: step %d: %w", step, err)
		}
		run.Final = msg
		if ro.OnTurn != nil {
			ro.OnTurn(step, msg)
		}
		run.Messages = append(run.Messages, msg.ToParam())
		switch msg.StopReason {
		case anthropic.StopReasonToolUse:
		case anthropic.StopReasonPauseTurn:
			return nil, false, nil // sent back as it is: the model goes on
		case anthropic.StopReasonMaxTokens, anthropic.StopReasonModelContextWindowExceeded:
			return nil, true, fmt.Errorf("anthropic: step %d: %w (stop_reason %q)", step, toolreg.ErrTruncated, msg.StopReason)
		default:
			return nil, true, nil
		}
		calls := a.Calls(*msg)
		return calls, len(calls) == 0, nil
	}
	answer := func(calls []toolreg.ToolCall, outs []toolreg.Output) {
		run.Messages = append(run.Messages, resultMessage(calls, outs))
	}
	var err error
	run.Steps, err = adapt.Loop{Registry: a.reg, MaxSteps: ro.MaxSteps, DefaultMaxSteps: DefaultMaxSteps}.Run(ctx, turn, answer)
	return run, err
}
