package toolgemini

import (
	"context"
	"errors"
	"fmt"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
	"google.golang.org/genai"
)

// streamContent reads one streamed response: text and function calls are
// reported as their parts arrive, and the response is put together from
// the chunks. Gemini sends a functionCall part whole, handed to ready at
// once; Vertex AI with streamFunctionCallArguments sends a call in pieces
// (see pieces), reported as ArgumentsDelta events and handed to ready when
// the last piece comes.
func streamContent(ctx context.Context, client ModelsClient, model string, contents []*genai.Content, config *genai.GenerateContentConfig, step int, emit func(agent.Event), ready func(int, toolreg.ToolCall)) (*genai.GenerateContentResponse, error) {
	var acc assembly
	for chunk, err := range client.GenerateContentStream(ctx, model, contents, config) {
		if err != nil {
			// The SDK reports a cancelled read as the transport saw it.
			if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
				err = fmt.Errorf("%w: %w", cerr, err)
			}
			return nil, err
		}
		for _, p := range acc.add(chunk) {
			switch {
			case p.FunctionCall != nil:
				if err := acc.call(p.FunctionCall, step, emit, ready); err != nil {
					return nil, fmt.Errorf("%w: %w", agent.ErrBrokenStream, err)
				}
			case p.Text != "" && !p.Thought:
				emit(agent.Event{Kind: agent.TextDelta, Step: step, Text: p.Text})
			}
		}
	}
	if acc.piecing != nil && acc.finish != "" {
		return nil, fmt.Errorf("%w: %w: the response ended before call %q was complete", agent.ErrBrokenStream, errPieces, acc.piecing.name)
	}
	return acc.response()
}

// assembly puts a streamed response together. The SDK has no accumulator
// for a stream (its Chat keeps the content of each chunk as a content of
// its own), so the model content here is the parts of the chunks' first
// candidate concatenated in order, each part kept as it came, none merged:
// a thoughtSignature may come on a part of its own (an empty text at the
// end), and must go back in its place.
type assembly struct {
	last     *genai.GenerateContentResponse // the latest chunk: response id, model version
	cand     *genai.Candidate               // the latest first candidate: its other fields
	role     string
	parts    []*genai.Part
	finish   genai.FinishReason // the last one given, with its message
	message  string
	usage    *genai.GenerateContentResponseUsageMetadata // running totals: the latest counts
	feedback *genai.GenerateContentResponsePromptFeedback
	calls    int     // the function calls so far
	piecing  *pieces // the call coming in pieces, until its last
}

// call takes in a functionCall part of the stream.
func (s *assembly) call(fc *genai.FunctionCall, step int, emit func(agent.Event), ready func(int, toolreg.ToolCall)) error {
	if s.piecing == nil && !isPiece(fc) {
		if fc.Name == "" && fc.ID == "" && fc.Args == nil {
			return fmt.Errorf("%w: the end of a call that was never begun", errPieces)
		}
		call := toolCall(fc)
		emit(agent.Event{Kind: agent.CallStarted, Step: step, Call: toolreg.ToolCall{ID: call.ID, Name: call.Name}})
		ready(s.calls, call)
		s.calls++
		return nil
	}
	if s.piecing == nil {
		if fc.Name == "" {
			return fmt.Errorf("%w: a piece of a call that was never begun (no name)", errPieces)
		}
		s.piecing = newPieces(fc)
		emit(agent.Event{Kind: agent.CallStarted, Step: step, Call: toolreg.ToolCall{ID: fc.ID, Name: fc.Name}})
		emit(agent.Event{Kind: agent.ArgumentsDelta, Step: step, Call: toolreg.ToolCall{ID: fc.ID, Name: fc.Name}, Delta: "{"})
	}
	p := s.piecing
	delta, done, err := p.add(fc)
	if err != nil {
		return err
	}
	if len(delta) > 0 {
		emit(agent.Event{Kind: agent.ArgumentsDelta, Step: step, Call: toolreg.ToolCall{ID: p.id, Name: p.name}, Delta: string(delta)})
	}
	if done {
		s.piecing = nil
		ready(s.calls, toolreg.ToolCall{ID: p.id, Name: p.name, Arguments: p.text})
		s.calls++
	}
	return nil
}

// add takes in a chunk and returns the parts it brought.
func (s *assembly) add(chunk *genai.GenerateContentResponse) []*genai.Part {
	if chunk == nil {
		return nil
	}
	s.last = chunk
	if chunk.UsageMetadata != nil {
		s.usage = chunk.UsageMetadata
	}
	if chunk.PromptFeedback != nil {
		s.feedback = chunk.PromptFeedback
	}
	if len(chunk.Candidates) == 0 || chunk.Candidates[0] == nil {
		return nil
	}
	c := chunk.Candidates[0]
	s.cand = c
	if c.FinishReason != "" && c.FinishReason != genai.FinishReasonUnspecified {
		s.finish, s.message = c.FinishReason, c.FinishMessage
	}
	if c.Content == nil {
		return nil
	}
	if c.Content.Role != "" {
		s.role = c.Content.Role
	}
	n := len(s.parts)
	for _, p := range c.Content.Parts {
		if p != nil {
			s.parts = append(s.parts, p)
		}
	}
	return s.parts[n:]
}

// response is the streamed response whole: the last chunk, with the
// candidate's content put together. A stream that ended without saying
// why the model stopped (and without blocking the prompt) was cut off.
func (s *assembly) response() (*genai.GenerateContentResponse, error) {
	blocked := s.feedback != nil && s.feedback.BlockReason != "" && s.feedback.BlockReason != genai.BlockedReasonUnspecified
	if s.finish == "" && !blocked {
		return nil, fmt.Errorf("%w: the stream ended before the response was complete", toolreg.ErrTruncated)
	}
	resp := *s.last
	resp.UsageMetadata, resp.PromptFeedback, resp.Candidates = s.usage, s.feedback, nil
	if s.cand != nil {
		c := *s.cand
		c.FinishReason, c.FinishMessage = s.finish, s.message
		role := s.role
		if role == "" {
			role = genai.RoleModel
		}
		c.Content = &genai.Content{Role: role, Parts: s.parts}
		resp.Candidates = []*genai.Candidate{&c}
	}
	return &resp, nil
}
