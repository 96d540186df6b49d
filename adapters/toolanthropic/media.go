package toolanthropic

import (
	"encoding/base64"
	"unicode/utf8"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/internal/adapt"
)

// Limits of the Messages API on what a tool_result carries:
//   - images go as image blocks of type image/jpeg, image/png, image/gif
//     or image/webp (Base64ImageSourceParam), each at most 5 MB as base64:
//     the API refuses more ("image exceeds 5 MB maximum: ... > 5242880
//     bytes"; https://platform.claude.com/docs/en/build-with-claude/vision),
//     which is 3,932,160 bytes before base64;
//   - files go as document blocks: a PDF as base64
//     (https://platform.claude.com/docs/en/build-with-claude/pdf-support),
//     text as a text/plain source;
//   - audio has no block, so it never goes;
//   - a request is at most 32 MB (the PDF guide's "Maximum request size";
//     https://platform.claude.com/docs/en/api/overview), so the media of
//     one turn are held to 24 MB before base64, and a PDF with them.
const (
	maxImageBytes = 5 * 1024 * 1024 / 4 * 3
	maxTurnBytes  = 32 * 1000 * 1000 / 4 * 3
)

// mediaRules are what a tool_result takes.
var mediaRules = adapt.MediaRules{
	Provider: "Anthropic",
	Where:    "in tool results",
	Kinds: map[string]adapt.MediaRule{
		"image": {Types: []string{"image/jpeg", "image/png", "image/gif", "image/webp"}, Max: maxImageBytes},
		"file":  {Types: []string{"application/pdf", "text/plain", "text/csv", "text/markdown"}, Max: maxTurnBytes},
	},
	Total: maxTurnBytes,
}

// resultContent is the content of one call's tool_result: its text, then
// each of its media as an image or document block, or as the line of text
// that says why it was left out.
func resultContent(out toolreg.Output, turn *adapt.Turn) []anthropic.ToolResultBlockParamContentUnion {
	var content []anthropic.ToolResultBlockParamContentUnion
	text := func(s string) {
		content = append(content, anthropic.ToolResultBlockParamContentUnion{OfText: &anthropic.TextBlockParam{Text: s}})
	}
	// The API refuses an empty text block; a result without content is
	// how it takes an empty result.
	if out.Text != "" {
		text(out.Text)
	}
	for _, p := range turn.Take(out.Media) {
		if p.Media == nil {
			text(p.Note)
			continue
		}
		m := *p.Media
		switch {
		case m.Kind() == "image":
			content = append(content, anthropic.ToolResultBlockParamContentUnion{OfImage: &anthropic.ImageBlockParam{
				Source: anthropic.ImageBlockParamSourceUnion{OfBase64: &anthropic.Base64ImageSourceParam{
					Data: base64.StdEncoding.EncodeToString(m.Data), MediaType: anthropic.Base64ImageSourceMediaType(m.MIMEType),
				}},
			}})
		case m.MIMEType == "application/pdf":
			content = append(content, document(m, anthropic.DocumentBlockParamSourceUnion{OfBase64: &anthropic.Base64PDFSourceParam{
				Data: base64.StdEncoding.EncodeToString(m.Data),
			}}))
		case !utf8.Valid(m.Data):
			text(adapt.LeftOut(m, "it is not UTF-8 text, and Anthropic takes text files only as text"))
		default:
			content = append(content, document(m, anthropic.DocumentBlockParamSourceUnion{OfText: &anthropic.PlainTextSourceParam{
				Data: string(m.Data),
			}}))
		}
	}
	return content
}

// document is a document block of source, titled with the file's name.
func document(m toolreg.Media, source anthropic.DocumentBlockParamSourceUnion) anthropic.ToolResultBlockParamContentUnion {
	d := &anthropic.DocumentBlockParam{Source: source}
	if m.Name != "" {
		d.Title = anthropic.String(m.Name)
	}
	return anthropic.ToolResultBlockParamContentUnion{OfDocument: d}
}
