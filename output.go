package toolreg

import (
	"encoding/json"
	"strings"
)

// Output is the result of one call, ready for any provider: Text is what
// the model reads, Structured the same result as JSON, and Err what the
// host needs to know. A call never returns a Go error instead of an
// Output: failures are results the model can act on.
type Output struct {
	// Text is what the model reads: a string result verbatim, any other
	// result as JSON, or an error message that says what went wrong and
	// what to do.
	Text string
	// Structured is the result as JSON, for providers and MCP clients that
	// take structured results. Nil for string results and for errors.
	Structured json.RawMessage
	// Media are images, sounds or files the result carries beside its text
	// (a screenshot, a chart, a PDF). A tool sets them by returning an
	// Output. Each adapter sends them in its provider's own form; one its
	// provider cannot carry, or larger than it takes, reaches the model as
	// a line of text saying so, never silently dropped.
	Media []Media
	// IsError marks a failed call: invalid arguments, unknown tool, a tool
	// error, a panic, a cancelled context.
	IsError bool
	// Err is the host's view of the failure, nil on success. It wraps one
	// of the sentinels (ErrInvalidArguments, ErrUnknownTool, ErrToolPanic,
	// ...) or the tool's own error, and may hold details (a panic's stack)
	// that never reach the model.
	Err error
	// Cut is set when the registry held the result to its limit
	// (WithMaxResultBytes, WithDefaultMaxResultBytes): what the model was
	// not given. A cut result is not a failure; nil when nothing was cut.
	Cut *ResultCut
}

// ToolCall is one call a model asked for: the provider's call ID, the tool
// name and the arguments as raw JSON. Adapters turn provider messages into
// ToolCalls.
type ToolCall struct {
	ID        string
	Name      string
	Arguments json.RawMessage
}

// Media is an image, a sound or a file in an Output.
type Media struct {
	// MIMEType says what Data is: "image/png", "audio/wav",
	// "application/pdf", ...
	MIMEType string `json:"mime_type"`
	Data     []byte `json:"data"`
	// Name is a file's name, for providers that show one; may be "".
	Name string `json:"name,omitempty"`
}

// Kind is "image", "audio" or "file", from the MIME type.
func (m Media) Kind() string {
	switch {
	case strings.HasPrefix(m.MIMEType, "image/"):
		return "image"
	case strings.HasPrefix(m.MIMEType, "audio/"):
		return "audio"
	}
	return "file"
}
