package toolgemini

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/toolreg/toolreg"
	"google.golang.org/genai"
)

// ToolCalls lists the function calls of a model turn as registry calls, in the
// order of its parts; other parts (text, thoughts) are skipped. A call
// Vertex AI streamed in pieces (streamFunctionCallArguments) is one call,
// its arguments put together from its parts' partialArgs. A call's
// ID is the functionCall id, "" when the model gave none. Args are encoded
// as the JSON object the registry validates; missing args are {}.
//
// Args that cannot be encoded as JSON (only possible in content built by
// hand, e.g. a NaN) give Arguments that are not JSON, which the registry
// refuses as invalid arguments rather than calling the tool without them.
func (a *Adapter) ToolCalls(content *genai.Content) []toolreg.ToolCall {
	if content == nil {
		return nil
	}
	var calls []toolreg.ToolCall
	var cur *pieces
	skip := false // the rest of a call whose pieces did not fit
	for _, p := range content.Parts {
		if p == nil || p.FunctionCall == nil {
			continue
		}
		fc := p.FunctionCall
		switch {
		case skip:
			skip = fc.WillContinue != nil && *fc.WillContinue
			continue
		case cur == nil && !isPiece(fc):
			calls = append(calls, toolCall(fc))
			continue
		case cur == nil:
			cur = newPieces(fc)
		}
		_, done, err := cur.add(fc)
		switch {
		case err != nil:
			calls = append(calls, toolreg.ToolCall{ID: cur.id, Name: cur.name, Arguments: []byte("arguments whose pieces do not fit together: " + err.Error())})
			cur, skip = nil, fc.WillContinue != nil && *fc.WillContinue
		case done:
			calls = append(calls, toolreg.ToolCall{ID: cur.id, Name: cur.name, Arguments: cur.text})
			cur = nil
		}
	}
	if cur != nil {
		calls = append(calls, toolreg.ToolCall{ID: cur.id, Name: cur.name, Arguments: []byte("arguments that were never complete")})
	}
	return calls
}

// toolCall is one function call as the registry runs it.
func toolCall(fc *genai.FunctionCall) toolreg.ToolCall {
	args := json.RawMessage("{}")
	if fc.Args != nil {
		b, err := json.Marshal(fc.Args)
		if err != nil {
			b = []byte("unencodable arguments: " + err.Error())
		}
		args = b
	}
	return toolreg.ToolCall{ID: fc.ID, Name: fc.Name, Arguments: args}
}

// CallAll runs the function calls of a model turn concurrently and returns
// the content that answers them: role "user", one functionResponse part
// per call, in the order of the calls; nil when the turn has no calls.
//
// Each functionResponse echoes the call's id and name. Its response is
// {"output": result} on success, the result being the tool's structured
// JSON (held as a json.RawMessage) or else its text, and {"error": text}
// on failure (unknown tool, invalid arguments, a tool's error or panic), a
// text that tells the model what to fix. A call without an id is answered
// by position: its response has no id and sits at the call's index, which
// is how Gemini matches them.
//
// A result's media (toolreg.Output.Media) go inline in its
// functionResponse's parts, as Gemini 3 takes them: PNG, JPEG and WebP
// images, PDFs (up to 50 MB) and plain text. Audio, other types, and media
// past 75 MB for the turn (100 MB as base64) are left out, and the
// response's "note" says what and why. For older models see
// WithMediaBesideResponses.
//
// CallAll does not touch content. Append content itself to the history, then
// the returned content: its thoughtSignature parts must go back unchanged.
func (a *Adapter) CallAll(ctx context.Context, content *genai.Content) *genai.Content {
	calls := a.ToolCalls(content)
	if len(calls) == 0 {
		return nil
	}
	return a.results(calls, a.reg.CallAll(ctx, calls))
}

// response is the functionResponse.response object: Gemini asks for an
// "output" key for the result and an "error" key for error details.
func response(out toolreg.Output) map[string]any {
	switch {
	case out.IsError:
		return map[string]any{"error": out.Text}
	case out.Structured != nil:
		return map[string]any{"output": out.Structured}
	default:
		return map[string]any{"output": out.Text}
	}
}

// wireContent is the user content CallAllJSON writes.
type wireContent struct {
	Role  string     `json:"role,omitempty"`
	Parts []wirePart `json:"parts"`
}

type wirePart struct {
	FunctionResponse *wireResponse `json:"functionResponse,omitempty"`
	Text             string        `json:"text,omitempty"`
	InlineData       *genai.Blob   `json:"inlineData,omitempty"`
}

type wireCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type wireResponse struct {
	ID       string                        `json:"id,omitempty"`
	Name     string                        `json:"name"`
	Response map[string]any                `json:"response"`
	Parts    []*genai.FunctionResponsePart `json:"parts,omitempty"`
}

// CallAllJSON is CallAll on the wire format: it takes the model's content as the
// JSON of generateContent ({"role":"model","parts":[...]}) and returns the
// user content to append after it, or null when the turn has no function
// calls; results' media go as CallAll sends them, their data in base64.
// Arguments reach the registry as the bytes the model sent, so large
// integers keep their precision. The model content must still be appended
// as it came, with its thoughtSignature.
func (a *Adapter) CallAllJSON(ctx context.Context, content json.RawMessage) (json.RawMessage, error) {
	var in struct {
		Parts []struct {
			FunctionCall *wireCall `json:"functionCall"`
		} `json:"parts"`
	}
	if err := json.Unmarshal(content, &in); err != nil {
		return nil, fmt.Errorf("gemini: content is not a JSON content object: %w", err)
	}
	var calls []toolreg.ToolCall
	for _, p := range in.Parts {
		if fc := p.FunctionCall; fc != nil {
			calls = append(calls, toolreg.ToolCall{ID: fc.ID, Name: fc.Name, Arguments: fc.Args})
		}
	}
	if len(calls) == 0 {
		return json.RawMessage("null"), nil
	}
	results := a.results(calls, a.reg.CallAll(ctx, calls))
	out := wireContent{Role: results.Role, Parts: make([]wirePart, len(results.Parts))}
	for i, p := range results.Parts {
		if fr := p.FunctionResponse; fr != nil {
			out.Parts[i] = wirePart{FunctionResponse: &wireResponse{ID: fr.ID, Name: fr.Name, Response: fr.Response, Parts: fr.Parts}}
			continue
		}
		out.Parts[i] = wirePart{Text: p.Text, InlineData: p.InlineData}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // as the registry encodes results
	if err := enc.Encode(out); err != nil {
		return nil, fmt.Errorf("gemini: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
