package toolgemini

// Option configures an Adapter.
type Option struct{ set func(*config) }

type config struct {
	legacy     bool
	noResponse bool
	beside     bool
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
