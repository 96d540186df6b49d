package toolgemini

// Option configures an Adapter.
type Option struct{ set func(*config) }

type config struct {
	legacy     bool
	noResponse bool
	beside     bool
	trim       bool
}

// WithLegacySchema declares the parameters in the older `parameters` field
// (a genai.Schema, an OpenAPI 3.0 subset) instead of
// `parametersJsonSchema`. Use it only for a model or an API path that does
// not take parametersJsonSchema: the Schema form cannot express maps,
// "any" values, recursive types or values of several types, and a tool
// that needs one makes Tools fail with toolreg.ErrUnsupportedSchema,
// naming the tool and the field.
//
// In this mode no response schema is declared: Google's own SDKs refuse
// the `response` field for the Gemini Developer API.
func WithLegacySchema() Option { return Option{func(c *config) { c.legacy = true }} }

// WithoutResponseSchema leaves out responseJsonSchema, which is otherwise
// declared for every tool with a structured result. Use it for a model or
// an endpoint that refuses the field.
func WithoutResponseSchema() Option { return Option{func(c *config) { c.noResponse = true }} }

// WithMediaBesideResponses sends the media of results (toolreg.Output.Media)
// as inline parts of their own after the function responses of a turn,
// each result's after a line naming its call, instead of inside each
// functionResponse. Use it for models before Gemini 3, which refuse media
// inside a function response ("Multimodal function responses are not
// supported for this model"). It also lets audio through, which a
// functionResponse does not take; a response's "note" says which media
// follow.
func WithMediaBesideResponses() Option { return Option{func(c *config) { c.beside = true }} }

// WithTrimmedTools declares, on each step, only the tools the step offers
// (agent.Step.Trimmed), with the mode of its tool choice alone (AUTO,
// ANY, NONE, or ANY with the forced function), as the Anthropic and
// Bedrock runs do. Without it, a run declares the same functions every
// step and holds a restricted step (PrepareStep's Only, Hide, OnlyTagged)
// to its tools with allowedFunctionNames and mode VALIDATED, or ANY when a
// call is required.
//
// Use it for a model or an API version that refuses VALIDATED. Google
// documents VALIDATED as a preview: its v1beta references (Gemini API
// v1beta, Vertex AI v1beta1) list it, while the v1 references list only
// AUTO, ANY and NONE, and say allowedFunctionNames goes with ANY; the
// genai SDK sends v1 to the Gemini API by default from v1.78 on
// (HTTPOptions.APIVersion "v1beta" picks the other). Trimming costs the
// prompt cache from the tools on whenever a step offers other tools than
// the step before; the loop refuses calls of tools a step does not offer
// either way.
func WithTrimmedTools() Option { return Option{func(c *config) { c.trim = true }} }
