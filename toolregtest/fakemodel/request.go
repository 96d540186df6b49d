package fakemodel

import (
	"encoding/base64"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
)

// Request is a request the server received, as sent, minus the headers
// that carry credentials (Authorization, x-api-key, x-goog-api-key,
// api-key, x-amz-security-token). Its methods read what the model was
// sent, alike for every provider.
type Request struct {
	Method string
	Path   string
	Query  string
	Header http.Header
	// Body is the body as sent: JSON for every API this server plays.
	Body json.RawMessage

	dialect dialect
	fields  map[string]any
}

// Tool is a tool declared to the model: its name, description and
// parameters (the JSON Schema as sent).
type Tool struct {
	Name        string
	Description string
	Parameters  json.RawMessage
}

// ToolResult is the result of a call as the model reads it: the call's
// id (empty for a Gemini call without one), the tool's name where the
// provider sends it, its text (the text parts joined with newlines) and
// whether it is marked as an error (Anthropic's is_error, Gemini's
// "error" response; OpenAI marks none).
type ToolResult struct {
	ID      string
	Name    string
	Text    string
	IsError bool
}

// Media is an image, document or sound the model was sent: its MIME type
// (as sent, or read from a data URL) and its bytes, or its URL when it
// was sent by reference.
type Media struct {
	MIMEType string
	Data     []byte
	URL      string
}

// Tools are the tools the request declares, in order.
func (r Request) Tools() []Tool {
	if r.dialect == nil {
		return nil
	}
	return r.dialect.tools(r.fields)
}

// ToolNames are the names of the tools the request declares, in order.
func (r Request) ToolNames() []string {
	var names []string
	for _, t := range r.Tools() {
		names = append(names, t.Name)
	}
	return names
}

// ToolResults are the results the request sends back for the model's
// last turn (the whole transcript goes with most requests: the results
// of earlier turns are in earlier requests).
func (r Request) ToolResults() []ToolResult {
	if r.dialect == nil {
		return nil
	}
	return r.dialect.results(r.fields)
}

// Media are the media sent since the model's last turn, with the tool
// results or in a message after them, in order.
func (r Request) Media() []Media {
	if r.dialect == nil {
		return nil
	}
	var out []Media
	for _, v := range r.dialect.last(r.fields) {
		findMedia(v, &out)
	}
	return out
}

// findMedia walks v for the parts each provider sends media in: OpenAI's
// image_url, input_image, file and input_file; Anthropic's image and
// document sources; Gemini's inlineData and fileData.
func findMedia(v any, out *[]Media) {
	switch v := v.(type) {
	case []any:
		for _, x := range v {
			findMedia(x, out)
		}
	case map[string]any:
		if m, ok := mediaOf(v); ok {
			*out = append(*out, m)
			return
		}
		for _, k := range slices.Sorted(maps.Keys(v)) { // a stable order
			findMedia(v[k], out)
		}
	}
}

func mediaOf(p map[string]any) (Media, bool) {
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	obj := func(m map[string]any, k string) map[string]any { o, _ := m[k].(map[string]any); return o }
	switch {
	case obj(p, "inlineData") != nil:
		d := obj(p, "inlineData")
		return Media{MIMEType: str(d, "mimeType"), Data: decode(str(d, "data"))}, true
	case obj(p, "fileData") != nil:
		d := obj(p, "fileData")
		return Media{MIMEType: str(d, "mimeType"), URL: str(d, "fileUri")}, true
	}
	if m, ok := converseMedia(p); ok {
		return m, true
	}
	switch str(p, "type") {
	case "image_url":
		return fromURL(str(obj(p, "image_url"), "url")), true
	case "input_image":
		return fromURL(str(p, "image_url")), true
	case "file":
		return fromURL(str(obj(p, "file"), "file_data")), true
	case "input_file":
		if u := str(p, "file_url"); u != "" {
			return Media{URL: u}, true
		}
		return fromURL(str(p, "file_data")), true
	case "input_audio":
		a := obj(p, "input_audio")
		return Media{MIMEType: "audio/" + str(a, "format"), Data: decode(str(a, "data"))}, true
	case "image", "document":
		src := obj(p, "source")
		switch str(src, "type") {
		case "base64":
			return Media{MIMEType: str(src, "media_type"), Data: decode(str(src, "data"))}, true
		case "text":
			return Media{MIMEType: str(src, "media_type"), Data: []byte(str(src, "data"))}, true
		case "url":
			return Media{URL: str(src, "url")}, true
		}
	}
	return Media{}, false
}

// decode reads base64, standard or URL-safe, padded or not: nil when it
// is not base64.
func decode(s string) []byte {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b
		}
	}
	return nil
}

// fromURL reads a data URL, or keeps any other URL as it is.
func fromURL(u string) Media {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return Media{URL: u}
	}
	typ, data, _ := strings.Cut(rest, ",")
	typ, b64 := strings.CutSuffix(typ, ";base64")
	if b64 {
		return Media{MIMEType: typ, Data: decode(data)}
	}
	return Media{MIMEType: typ, Data: []byte(data)}
}

// Helpers reading the JSON of a request.

func list(v any) []any            { l, _ := v.([]any); return l }
func object(v any) map[string]any { o, _ := v.(map[string]any); return o }
func text(v any) string           { s, _ := v.(string); return s }
func raw(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	b, _ := json.Marshal(v)
	return b
}

// joinText is the text of content given as a string or as parts with a
// "text" field, joined with newlines.
func joinText(content any) string {
	if s, ok := content.(string); ok {
		return s
	}
	var texts []string
	for _, p := range list(content) {
		if t, ok := object(p)["text"].(string); ok {
			texts = append(texts, t)
		}
	}
	return strings.Join(texts, "\n")
}
