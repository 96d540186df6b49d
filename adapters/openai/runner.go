package openai

import (
	"context"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/internal/adapt"
)

// ChatClient is the part of the SDK a chat run needs:
// &client.Chat.Completions satisfies it.
type ChatClient interface {
	New(ctx context.Context, body openai.ChatCompletionNewParams, opts ...option.RequestOption) (*openai.ChatCompletion, error)
}

// RunOptions bound and observe a run. The zero value is usable. To observe
// each tool call and its Output, add middleware to the registry
// (Registry.Use): it sees the calls of runs and of every other path.
type RunOptions struct {
	// MaxSteps bounds the model calls of a run; 0 means DefaultMaxSteps.
	MaxSteps int
	// OnTurn, if set, sees each response of RunChat as it arrives.
	OnTurn func(step int, resp *openai.ChatCompletion)
	// OnResponse, if set, sees each response of RunResponses.
	OnResponse func(step int, resp *responses.Response)
}

// DefaultMaxSteps bounds a run whose RunOptions leave MaxSteps at 0.
const DefaultMaxSteps = 10

// ChatRun is what a run produced, also when it ends with an error.
type ChatRun struct {
	// Messages is the transcript: the request's messages, then each
	// assistant message and the tool messages that answered it.
	Messages []openai.ChatCompletionMessageParamUnion
	// Final is the last response; its first choice holds the model's answer
	// when the run ended without error.
	Final *openai.ChatCompletion
	// Steps counts the model calls.
	Steps int
}

// Answer is the text of the final assistant message, "" if there is none.
func (r *ChatRun) Answer() string {
	if r.Final == nil || len(r.Final.Choices) == 0 {
		return ""
	}
	return r.Final.Choices[0].Message.Content
}

// RunChat is the agent loop on Chat Completions: it sends params with the
// registry's tools (unless params.Tools is set), runs every tool call of a
// turn concurrently, sends the results back in call order, and repeats
// until the model answers without calling a tool.
//
// Tool failures go back to the model as tool messages and the run goes on.
// The run ends with an error, and the transcript so far, when the client
// fails, ctx is done, the response was cut off by a token limit
// (toolreg.ErrTruncated), MaxSteps model calls did not suffice (toolreg.ErrMaxSteps), or
// a tool returned toolreg.StopRun (the error matches toolreg.ErrStopRun and
// the tool's error; the tool messages of that turn are in the transcript).
func (a *Adapter) RunChat(ctx context.Context, client ChatClient, params openai.ChatCompletionNewParams, ro RunOptions) (*ChatRun, error) {
	if len(params.Tools) == 0 {
		tools, err := a.ChatTools()
		if err != nil {
			return nil, err
		}
		params.Tools = tools
	}
	run := &ChatRun{Messages: append([]openai.ChatCompletionMessageParamUnion(nil), params.Messages...)}
	turn := func(ctx context.Context, step int) ([]toolreg.ToolCall, bool, error) {
		params.Messages = run.Messages
		resp, err := client.New(ctx, params)
		if err != nil {
			return nil, true, fmt.Errorf("openai: step %d: %w", step, err)
		}
		run.Final = resp
		if ro.OnTurn != nil {
			ro.OnTurn(step, resp)
		}
		if len(resp.Choices) == 0 {
			return nil, true, fmt.Errorf("openai: step %d: the response has no choices", step)
		}
		msg := resp.Choices[0].Message
		run.Messages = append(run.Messages, msg.ToParam())
		if resp.Choices[0].FinishReason == "length" {
			// Cut off by a token limit: its tool calls may be half written.
			return nil, true, fmt.Errorf("openai: step %d: %w (finish_reason length)", step, toolreg.ErrTruncated)
		}
		calls := a.ChatCalls(msg)
		return calls, len(calls) == 0, nil
	}
	answer := func(calls []toolreg.ToolCall, outs []toolreg.Output) {
		for i, c := range calls {
			run.Messages = append(run.Messages, openai.ToolMessage(outs[i].Text, c.ID))
		}
	}
	var err error
	run.Steps, err = ro.loop(a.reg).Run(ctx, turn, answer)
	return run, err
}

// loop is the shared skeleton of a run, bounded and observed as ro says.
func (ro RunOptions) loop(reg *toolreg.Registry) adapt.Loop {
	return adapt.Loop{Registry: reg, MaxSteps: ro.MaxSteps, DefaultMaxSteps: DefaultMaxSteps}
}

// ResponsesClient is the part of the SDK a Responses run needs:
// &client.Responses satisfies it.
type ResponsesClient interface {
	New(ctx context.Context, body responses.ResponseNewParams, opts ...option.RequestOption) (*responses.Response, error)
}

// ResponsesRun is what a Responses run produced, also when it ends with an
// error.
type ResponsesRun struct {
	// Responses are the model's responses in order; each turn after the
	// first continues the previous one (previous_response_id) with the
	// function_call_output items of its calls.
	Responses []*responses.Response
	// Inputs are the function_call_output items sent after each response
	// that asked for tools, in the same order.
	Inputs [][]responses.ResponseInputItemUnionParam
	// Final is the last response.
	Final *responses.Response
	// Steps counts the model calls.
	Steps int
}

// Answer is the text of the final response, "" if there is none.
func (r *ResponsesRun) Answer() string {
	if r.Final == nil {
		return ""
	}
	return r.Final.OutputText()
}

// RunResponses is RunChat on the Responses API: the conversation state
// stays on the server, and each turn sends the function_call_output items
// of the previous response's calls with previous_response_id (so the
// request must not set store to false). The semantics are RunChat's; a
// response left incomplete by a token limit ends the run with
// toolreg.ErrTruncated. ro.OnResponse sees each response.
func (a *Adapter) RunResponses(ctx context.Context, client ResponsesClient, params responses.ResponseNewParams, ro RunOptions) (*ResponsesRun, error) {
	if len(params.Tools) == 0 {
		tools, err := a.ResponsesTools()
		if err != nil {
			return nil, err
		}
		params.Tools = tools
	}
	run := &ResponsesRun{}
	turn := func(ctx context.Context, step int) ([]toolreg.ToolCall, bool, error) {
		resp, err := client.New(ctx, params)
		if err != nil {
			return nil, true, fmt.Errorf("openai: step %d: %w", step, err)
		}
		run.Final = resp
		run.Responses = append(run.Responses, resp)
		if ro.OnResponse != nil {
			ro.OnResponse(step, resp)
		}
		if resp.Status == "incomplete" {
			return nil, true, fmt.Errorf("openai: step %d: %w (%s)", step, toolreg.ErrTruncated, resp.IncompleteDetails.Reason)
		}
		params.PreviousResponseID = openai.String(resp.ID)
		calls := a.ResponsesCalls(resp.Output)
		return calls, len(calls) == 0, nil
	}
	answer := func(calls []toolreg.ToolCall, outs []toolreg.Output) {
		items := make([]responses.ResponseInputItemUnionParam, len(calls))
		for i, c := range calls {
			items[i] = functionCallOutput(c.ID, outs[i].Text)
		}
		run.Inputs = append(run.Inputs, items)
		params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: items}
	}
	var err error
	run.Steps, err = ro.loop(a.reg).Run(ctx, turn, answer)
	return run, err
}
