// Package toolgemini serves a toolreg.Registry to Gemini models through the
// official SDK (google.golang.org/genai): function declarations, the
// dispatch of a model turn's function calls, and the agent loop on
// generateContent or streamGenerateContent (Run, which also resumes a
// paused run), steered with package agent. CallAllJSON speaks the plain
// wire format of generateContent, for clients other than the SDK.
//
// The package imports the SDK as the registry's only link to Gemini: it
// converts; the registry validates and runs the calls.
//
// By hand, without Run, a turn goes like this: send Tools in
// GenerateContentConfig.Tools; append the model's content to the history
// exactly as it came (resp.Candidates[0].Content), then the content CallAll
// returns, and ask again. Keep the model's content whole: its parts carry
// the thoughtSignature that Gemini 3 requires back ("Function call is
// missing a thought_signature"), which a content rebuilt from
// resp.FunctionCalls() would lose.
//
// The SDK asks the Gemini Developer API's v1 by default since genai v1.78
// (v1beta before; HTTPOptions.APIVersion chooses). The adapter sends the
// same request to both, byte for byte (a test holds them equal):
// parametersJsonSchema and responseJsonSchema on each declaration,
// functionCallingConfig with allowedFunctionNames, and functionResponse
// parts. Google's API-versions page lists function calling and structured
// output on v1; if an endpoint refuses the JSON Schema fields, WithLegacySchema
// sends the OpenAPI-subset parameters field instead, or the client can ask
// v1beta.
package toolgemini

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/internal/adapt"
	"github.com/toolreg/toolreg/internal/dialect"
	"google.golang.org/genai"
)

// errUnsupported marks a tool whose arguments the chosen schema form
// cannot express; it matches toolreg.ErrUnsupportedSchema.
var errUnsupported = adapt.Unsupported("tool schema cannot be expressed for Gemini")

// Adapter speaks Gemini for one registry. Declarations are lowered once per
// tool and cached; tools added to the registry later are picked up. An
// Adapter is safe for concurrent use.
type Adapter struct {
	reg   *toolreg.Registry
	cfg   config
	defs  *adapt.Defs[*genai.FunctionDeclaration] // each tool as Gemini sees it, built once
	media *adapt.MediaRules                       // what a turn's results take of their media
}

// New returns an Adapter for reg. By default the parameters are declared
// as parametersJsonSchema (see WithLegacySchema).
func New(reg *toolreg.Registry, opts ...Option) *Adapter {
	a := &Adapter{reg: reg, cfg: adapt.Configure(opts, func(o Option) func(*config) { return o.set })}
	a.defs = adapt.NewDefs(reg, a.build)
	a.media = &nestedMedia
	if a.cfg.beside {
		a.media = &besideMedia
	}
	return a
}

func (a *Adapter) build(t toolreg.AnyTool) (*genai.FunctionDeclaration, error) {
	decl := &genai.FunctionDeclaration{Name: t.Name(), Description: t.Description()}
	if a.cfg.legacy {
		lowered, err := dialect.GeminiSchema(t.InputSchema())
		if err != nil {
			return nil, fmt.Errorf("%w: tool %q: %w", errUnsupported, t.Name(), err)
		}
		if decl.Parameters, err = decodeSchema(lowered); err != nil {
			return nil, fmt.Errorf("%w: tool %q: %w", errUnsupported, t.Name(), err)
		}
		return decl, nil
	}
	lowered, err := dialect.GeminiJSONSchema(t.InputSchema())
	if err != nil {
		return nil, fmt.Errorf("%w: tool %q: %w", errUnsupported, t.Name(), err)
	}
	// Raw JSON marshals verbatim, so ToolsJSON keeps the property order.
	// (The SDK itself re-encodes the request through map[string]any.)
	decl.ParametersJsonSchema = lowered
	if out := t.OutputSchema(); out != nil && !a.cfg.noResponse {
		// The response schema only informs the model, and the result is
		// never checked against it: a result the dialect cannot express
		// (a non-object root, a recursive type) is left undeclared.
		if resp, err := dialect.GeminiJSONSchema(out); err == nil {
			decl.ResponseJsonSchema = resp
		}
	}
	return decl, nil
}

// decodeSchema reads the legacy form into a genai.Schema. A key the Schema
// has no field for would be dropped without a word, leaving a weaker
// schema; it is an error instead.
func decodeSchema(lowered json.RawMessage) (*genai.Schema, error) {
	dec := json.NewDecoder(bytes.NewReader(lowered))
	dec.DisallowUnknownFields()
	var s genai.Schema
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("genai.Schema cannot hold the lowered schema: %w", err)
	}
	return &s, nil
}

// Tools returns the registry's tools as one genai.Tool holding a function
// declaration per tool, in registration order, ready for
// GenerateContentConfig.Tools; nil when the registry is empty. Tools the
// schema form cannot express make it fail with an error matching
// toolreg.ErrUnsupportedSchema for each, naming the tool and the field.
//
// The declarations are the caller's, but their schemas are shared with
// the Adapter's cache: do not modify them.
func (a *Adapter) Tools() ([]*genai.Tool, error) {
	_, decls, err := a.defs.All()
	if err != nil {
		return nil, err
	}
	if len(decls) == 0 {
		return nil, nil
	}
	// The caller's copies of the cached declarations, in one allocation;
	// decls, a fresh slice, is turned to point at them.
	copies := make([]genai.FunctionDeclaration, len(decls))
	for i, d := range decls {
		copies[i] = *d
		decls[i] = &copies[i]
	}
	return []*genai.Tool{{FunctionDeclarations: decls}}, nil
}

// ToolsJSON is Tools as the JSON array a generateContent request takes in
// "tools", for clients other than the SDK: [] when the registry is empty.
func (a *Adapter) ToolsJSON() (json.RawMessage, error) {
	tools, err := a.Tools()
	if err != nil {
		return nil, err
	}
	if tools == nil {
		return json.RawMessage("[]"), nil
	}
	return json.Marshal(tools)
}
