package toolopenai

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/internal/adapt"
)

// Limits of the OpenAI API on the media of tool results:
//   - images: PNG, JPEG, WebP and non-animated GIF, "up to 50 MB total
//     payload size per request" (the images and vision guide,
//     https://platform.openai.com/docs/guides/images-vision, until April
//     2026; it now reads 512 MB);
//   - files: "You can upload multiple files, each less than 50 MB. The
//     total content limit across all files in a single API request is
//     50 MB" (the file inputs guide,
//     https://platform.openai.com/docs/guides/pdf-files);
//
// so the media of one turn are held to 50 MB, and each item with them.
const maxTurnBytes = 50 * 1000 * 1000

var imageTypes = []string{"image/png", "image/jpeg", "image/webp", "image/gif"}

// fileTypes are the files input_file takes (the file inputs guide's
// "Accepted file types": PDFs, text and code, rich documents,
// presentations, spreadsheets), each with the extension of the name it is
// sent under when it has none: the API reads a file's type from its name.
var fileTypes = map[string]string{
	"application/pdf":           ".pdf",
	"text/plain":                ".txt",
	"text/markdown":             ".md",
	"text/csv":                  ".csv",
	"text/tab-separated-values": ".tsv",
	"text/html":                 ".html",
	"text/xml":                  ".xml",
	"application/xml":           ".xml",
	"application/json":          ".json",
	"application/rtf":           ".rtf",
	"application/msword":        ".doc",
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document":   ".docx",
	"application/vnd.oasis.opendocument.text":                                   ".odt",
	"application/vnd.ms-powerpoint":                                             ".ppt",
	"application/vnd.openxmlformats-officedocument.presentationml.presentation": ".pptx",
	"application/vnd.ms-excel":                                                  ".xls",
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet":         ".xlsx",
}

// responsesMedia are what a function_call_output takes: input_image and
// input_file items; there is no audio item.
var responsesMedia = adapt.MediaRules{
	Provider: "OpenAI",
	Where:    "in tool results",
	Kinds: map[string]adapt.MediaRule{
		"image": {Types: imageTypes, Max: maxTurnBytes},
		"file":  {Types: sortedKeys(fileTypes), Max: maxTurnBytes},
	},
	Total: maxTurnBytes,
}

// chatMedia are what Chat Completions takes of the media of tool results.
// A tool message holds text only (ChatCompletionToolMessageParam: a
// string or text parts), so the media go in a user message after the
// turn's tool messages, which takes image_url parts and file parts, these
// for PDFs only (the file inputs guide). Its input_audio parts are for
// audio models, and any other refuses the whole request: audio is left
// out.
var chatMedia = adapt.MediaRules{
	Provider: "OpenAI Chat Completions",
	Where:    "in tool results",
	Kinds: map[string]adapt.MediaRule{
		"image": {Types: imageTypes, Max: maxTurnBytes},
		"file":  {Types: []string{"application/pdf"}, Max: maxTurnBytes},
	},
	Total: maxTurnBytes,
}

// functionCallOutputs are the function_call_output items that answer
// calls with outs, in call order. A result without media has its text as
// the output; one with media, a list: its text, then each image as an
// input_image and each file as an input_file, or the line of text that
// says why it was left out.
func (a *Responses) functionCallOutputs(calls []toolreg.ToolCall, outs []toolreg.Output) []responses.ResponseInputItemUnionParam {
	turn := a.media.Turn()
	items := make([]responses.ResponseInputItemUnionParam, len(calls))
	for i, c := range calls {
		pieces := turn.Take(outs[i].Media)
		if len(pieces) == 0 {
			items[i] = functionCallOutput(c.ID, outs[i].Text)
			continue
		}
		var list responses.ResponseFunctionCallOutputItemListParam
		text := func(s string) { list = append(list, responses.ResponseFunctionCallOutputItemParamOfInputText(s)) }
		if outs[i].Text != "" {
			text(outs[i].Text)
		}
		for _, p := range pieces {
			switch m := p.Media; {
			case m == nil:
				text(p.Note)
			case m.Kind() == "image":
				list = append(list, responses.ResponseFunctionCallOutputItemUnionParam{OfInputImage: &responses.ResponseInputImageContentParam{
					ImageURL: openai.String(dataURL(*m)),
				}})
			default:
				list = append(list, responses.ResponseFunctionCallOutputItemUnionParam{OfInputFile: &responses.ResponseInputFileContentParam{
					FileData: openai.String(dataURL(*m)),
					Filename: openai.String(filename(*m)),
				}})
			}
		}
		items[i] = responses.ResponseInputItemUnionParam{OfFunctionCallOutput: &responses.ResponseInputItemFunctionCallOutputParam{
			CallID: openai.String(c.ID),
			Output: responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfResponseFunctionCallOutputItemArray: list},
		}}
	}
	return items
}

func functionCallOutput(callID, text string) responses.ResponseInputItemUnionParam {
	item := responses.ResponseInputItemParamOfFunctionCallOutput(text)
	item.OfFunctionCallOutput.CallID = openai.String(callID)
	return item
}

// chatResults are what Chat Completions gets for the results of calls:
// the text of each call's tool message, in call order, and, when results
// carry media it takes, the user message that holds them, to follow the
// tool messages. A tool message's text says which of its media follow,
// and which were left out and why.
func (a *Chat) chatResults(calls []toolreg.ToolCall, outs []toolreg.Output) (texts []string, media *openai.ChatCompletionMessageParamUnion) {
	turn := a.media.Turn()
	texts = make([]string, len(calls))
	var parts []openai.ChatCompletionContentPartUnionParam
	for i, c := range calls {
		lines := []string{outs[i].Text}
		if outs[i].Text == "" {
			lines = nil
		}
		introduced := false
		for _, p := range turn.Take(outs[i].Media) {
			m := p.Media
			if m == nil {
				lines = append(lines, p.Note)
				continue
			}
			lines = append(lines, "["+adapt.Describe(*m)+" follows in the next user message]")
			if !introduced {
				parts = append(parts, openai.TextContentPart(fmt.Sprintf("Media of the result of %s (call %s):", c.Name, c.ID)))
				introduced = true
			}
			if m.Kind() == "image" {
				parts = append(parts, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: dataURL(*m)}))
			} else {
				parts = append(parts, openai.FileContentPart(openai.ChatCompletionContentPartFileFileParam{
					FileData: openai.String(dataURL(*m)),
					Filename: openai.String(filename(*m)),
				}))
			}
		}
		texts[i] = strings.Join(lines, "\n")
	}
	if len(parts) > 0 {
		msg := openai.UserMessage(parts)
		media = &msg
	}
	return texts, media
}

// chatMessages are the messages that answer calls with outs: one tool
// message per call, in call order, then the user message holding their
// media, if any.
func (a *Chat) chatMessages(calls []toolreg.ToolCall, outs []toolreg.Output) []openai.ChatCompletionMessageParamUnion {
	texts, media := a.chatResults(calls, outs)
	msgs := make([]openai.ChatCompletionMessageParamUnion, len(calls), len(calls)+1)
	for i, c := range calls {
		msgs[i] = openai.ToolMessage(texts[i], c.ID)
	}
	if media != nil {
		msgs = append(msgs, *media)
	}
	return msgs
}

// dataURL is m as a data URL, the form in which the API takes inline
// images and files.
func dataURL(m toolreg.Media) string {
	return "data:" + m.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(m.Data)
}

// filename is the name a file is sent under: its own, or "file" and the
// extension of its type.
func filename(m toolreg.Media) string {
	if m.Name != "" {
		return m.Name
	}
	return "file" + fileTypes[m.MIMEType]
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
