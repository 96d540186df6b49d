package toolanthropic_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolanthropic"
)

type pageArgs struct {
	URL string `json:"url" jsonschema:"format=uri"`
}

// capture is a tool that returns media beside its text: a screenshot, and
// a spoken summary no tool_result can carry.
var capture = toolreg.MustNew("capture", "Captures a web page: a screenshot and a spoken summary.",
	func(_ context.Context, a pageArgs) (toolreg.Output, error) {
		return toolreg.Output{Text: "Captured " + a.URL, Media: []toolreg.Media{
			{MIMEType: "image/png", Data: []byte("\x89PNG..."), Name: "page.png"},
			{MIMEType: "audio/wav", Data: []byte("RIFF...."), Name: "summary.wav"},
		}}, nil
	})

// A result's media go in its tool_result: the image as an image block,
// and in place of the audio, which the Messages API does not take, a line
// of text that says so.
func ExampleAdapter_CallAllJSON_media() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(capture)
	msg, err := toolanthropic.New(reg).CallAllJSON(context.Background(), json.RawMessage(`[
		{"type":"tool_use","id":"toolu_1","name":"capture","input":{"url":"https://example.com"}}]`))
	fmt.Println(string(msg), err)
	// Output:
	// {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"text":"Captured https://example.com","type":"text"},{"source":{"data":"iVBORy4uLg==","media_type":"image/png","type":"base64"},"type":"image"},{"text":"[an audio clip \"summary.wav\" (audio/wav, 8 bytes) was left out: Anthropic takes no audio in tool results]","type":"text"}]}]} <nil>
}

type transferArgs struct {
	Account string `json:"account" jsonschema:"pattern=^[A-Z]{2}[0-9]{6}$"`
	Cents   int64  `json:"cents" jsonschema:"minimum=1"`
}

// A tool's examples are sent as its input_examples: a model shown a few
// good calls makes fewer bad ones.
func ExampleAdapter_ToolsJSON_inputExamples() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("transfer", "Moves money between accounts.",
		func(context.Context, transferArgs) (string, error) { return "done", nil },
		toolreg.WithExamples(transferArgs{Account: "DE123456", Cents: 1250})))
	tools, err := toolanthropic.New(reg).ToolsJSON()
	fmt.Println(string(tools), err)
	// Output:
	// [{"input_schema":{"type":"object","properties":{"account":{"type":"string","pattern":"^[A-Z]{2}[0-9]{6}$"},"cents":{"type":"integer","minimum":1}},"additionalProperties":false,"required":["account","cents"]},"name":"transfer","description":"Moves money between accounts.","input_examples":[{"account":"DE123456","cents":1250}]}] <nil>
}

// Without the examples, for an endpoint that refuses input_examples.
func ExampleWithoutInputExamples() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("transfer", "Moves money between accounts.",
		func(context.Context, transferArgs) (string, error) { return "done", nil },
		toolreg.WithExamples(transferArgs{Account: "DE123456", Cents: 1250})))
	tools, err := toolanthropic.New(reg, toolanthropic.WithoutInputExamples()).ToolsJSON()
	fmt.Println(string(tools), err)
	// Output:
	// [{"input_schema":{"type":"object","properties":{"account":{"type":"string","pattern":"^[A-Z]{2}[0-9]{6}$"},"cents":{"type":"integer","minimum":1}},"additionalProperties":false,"required":["account","cents"]},"name":"transfer","description":"Moves money between accounts."}] <nil>
}
