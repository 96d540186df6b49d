package toolgemini

import (
	"fmt"
	"strings"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/internal/adapt"
	"google.golang.org/genai"
)

// Limits of the Gemini API on the media of function responses:
//   - inside a functionResponse (its parts, "multimodal function
//     responses", Gemini 3 and later): images as image/png, image/jpeg or
//     image/webp and documents as application/pdf or text/plain
//     (https://ai.google.dev/gemini-api/docs/function-calling#multimodal);
//   - as parts of their own beside the responses (WithMediaBesideResponses):
//     what a prompt takes inline, images (PNG, JPEG, WebP, HEIC, HEIF;
//     /docs/image-understanding), audio (WAV, MP3, AIFF, AAC, OGG, FLAC;
//     /docs/audio) and documents (PDF and text; /docs/document-processing);
//   - "PDF files up to 50MB or 1000 pages" (/docs/document-processing);
//   - inline data up to 100 MB per request, base64 encoded ("Increased file
//     size limits and expanded inputs support in Gemini API", Google, January
//     2026), so the media of one turn are held to 75 MB before base64.
const (
	maxTurnBytes = 100 * 1000 * 1000 / 4 * 3
	maxPDFBytes  = 50 * 1000 * 1000
)

// nestedMedia are what a functionResponse takes in its parts.
var nestedMedia = adapt.MediaRules{
	Provider: "Gemini",
	Where:    "in function responses",
	Kinds: map[string]adapt.MediaRule{
		"image": {Types: []string{"image/png", "image/jpeg", "image/webp"}, Max: maxTurnBytes},
		"file":  {Types: []string{"application/pdf", "text/plain"}, Max: maxPDFBytes},
	},
	Total: maxTurnBytes,
}

// besideMedia are what a user content takes inline, beside the function
// responses.
var besideMedia = adapt.MediaRules{
	Provider: "Gemini",
	Where:    "inline",
	Kinds: map[string]adapt.MediaRule{
		"image": {Types: []string{"image/png", "image/jpeg", "image/webp", "image/heic", "image/heif"}, Max: maxTurnBytes},
		"audio": {Types: []string{"audio/wav", "audio/mp3", "audio/mpeg", "audio/aiff", "audio/aac", "audio/ogg", "audio/flac"}, Max: maxTurnBytes},
		"file":  {Types: []string{"application/pdf", "text/plain", "text/html", "text/csv", "text/xml"}, Max: maxPDFBytes},
	},
	Total: maxTurnBytes,
}

// results is the user content that answers calls with outs: one
// functionResponse part per call, in call order, each echoing the call's
// id (none when the call had none) and name. A result's media go in its
// functionResponse's parts or, with WithMediaBesideResponses, as parts of
// their own after all the responses; a response whose media were left out
// says which and why under "note".
func (a *Adapter) results(calls []toolreg.ToolCall, outs []toolreg.Output) *genai.Content {
	turn := a.media.Turn()
	parts := make([]*genai.Part, len(calls))
	var beside []*genai.Part
	for i, c := range calls {
		fr := &genai.FunctionResponse{ID: c.ID, Name: c.Name, Response: response(outs[i])}
		var notes []string
		introduced := false
		for _, p := range turn.Take(outs[i].Media) {
			m := p.Media
			switch {
			case m == nil:
				notes = append(notes, p.Note)
			case a.cfg.beside:
				notes = append(notes, "["+adapt.Describe(*m)+" follows the function responses]")
				if !introduced {
					beside = append(beside, genai.NewPartFromText(introduction(c, i)))
					introduced = true
				}
				// No displayName: the Gemini API has refused it in a
				// prompt's inline data, and the note names the file.
				beside = append(beside, &genai.Part{InlineData: &genai.Blob{MIMEType: m.MIMEType, Data: m.Data}})
			default:
				// Google's published FunctionResponseBlob holds mimeType
				// and data alone (the SDK's displayName is not in it): the
				// note names the file instead.
				if m.Name != "" {
					notes = append(notes, "["+adapt.Describe(*m)+" is in this response's parts]")
				}
				fr.Parts = append(fr.Parts, &genai.FunctionResponsePart{InlineData: &genai.FunctionResponseBlob{
					MIMEType: m.MIMEType, Data: m.Data,
				}})
			}
		}
		if len(notes) > 0 {
			fr.Response["note"] = strings.Join(notes, "\n")
		}
		parts[i] = &genai.Part{FunctionResponse: fr}
	}
	return &genai.Content{Role: genai.RoleUser, Parts: append(parts, beside...)}
}

// introduction is the text before the media of call c, the i-th of its
// turn, beside the function responses.
func introduction(c toolreg.ToolCall, i int) string {
	if c.ID != "" {
		return fmt.Sprintf("Media of the result of %s (call %s):", c.Name, c.ID)
	}
	return fmt.Sprintf("Media of the result of %s (call %d of the turn):", c.Name, i+1)
}
