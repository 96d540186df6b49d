package toolopenai_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/openai/openai-go/v3/responses"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolopenai"
)

type pageArgs struct {
	URL string `json:"url" jsonschema:"format=uri"`
}

// capture is a tool that returns media beside its text: a screenshot, and
// a spoken summary no tool result of OpenAI's can carry.
var capture = toolreg.MustNew("capture", "Captures a web page: a screenshot and a spoken summary.",
	func(_ context.Context, a pageArgs) (toolreg.Output, error) {
		return toolreg.Output{Text: "Captured " + a.URL, Media: []toolreg.Media{
			{MIMEType: "image/png", Data: []byte("\x89PNG..."), Name: "page.png"},
			{MIMEType: "audio/wav", Data: []byte("RIFF...."), Name: "summary.wav"},
		}}, nil
	})

// Chat Completions takes text only in a tool message: the screenshot goes
// in a user message after the tool messages, which the tool message
// announces, and the audio is left out with a line that says why.
func ExampleChat_CallAllJSON_media() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(capture)
	msgs, err := toolopenai.NewChat(reg).CallAllJSON(context.Background(), json.RawMessage(`[
		{"id":"call_1","type":"function","function":{"name":"capture","arguments":"{\"url\":\"https://example.com\"}"}}]`))
	fmt.Println(string(msgs), err)
	// Output:
	// [{"role":"tool","tool_call_id":"call_1","content":"Captured https://example.com\n[an image \"page.png\" (image/png, 7 bytes) follows in the next user message]\n[an audio clip \"summary.wav\" (audio/wav, 8 bytes) was left out: OpenAI Chat Completions takes no audio in tool results]"},{"content":[{"text":"Media of the result of capture (call call_1):","type":"text"},{"image_url":{"url":"data:image/png;base64,iVBORy4uLg=="},"type":"image_url"}],"role":"user"}] <nil>
}

// The Responses API takes the screenshot in the function_call_output
// itself, as an input_image.
func ExampleResponses_CallAll_media() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(capture)
	var output []responses.ResponseOutputItemUnion
	json.Unmarshal([]byte(`[{"type":"function_call","id":"fc_1","call_id":"call_1","name":"capture",
		"arguments":"{\"url\":\"https://example.com\"}","status":"completed"}]`), &output)
	items := toolopenai.NewResponses(reg).CallAll(context.Background(), output)
	b, err := json.Marshal(items)
	fmt.Println(string(b), err)
	// Output:
	// [{"output":[{"text":"Captured https://example.com","type":"input_text"},{"image_url":"data:image/png;base64,iVBORy4uLg==","type":"input_image"},{"text":"[an audio clip \"summary.wav\" (audio/wav, 8 bytes) was left out: OpenAI takes no audio in tool results]","type":"input_text"}],"call_id":"call_1","type":"function_call_output"}] <nil>
}
