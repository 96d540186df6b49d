package toolgemini_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolgemini"
)

type pageArgs struct {
	URL string `json:"url" jsonschema:"format=uri"`
}

// captureRegistry holds a tool that returns media beside its text: a
// screenshot, and a spoken summary.
func captureRegistry() *toolreg.Registry {
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("capture", "Captures a web page: a screenshot and a spoken summary.",
		func(_ context.Context, a pageArgs) (toolreg.Output, error) {
			return toolreg.Output{Text: "Captured " + a.URL, Media: []toolreg.Media{
				{MIMEType: "image/png", Data: []byte("\x89PNG..."), Name: "page.png"},
				{MIMEType: "audio/wav", Data: []byte("RIFF...."), Name: "summary.wav"},
			}}, nil
		}))
	return reg
}

// A result's media go inside its functionResponse, as Gemini 3 takes
// them, with the mimeType and data that Google's API defines; the note
// names the file, and says that the audio, which a function response does
// not take, is left out.
func ExampleAdapter_CallAllJSON_media() {
	out, err := toolgemini.New(captureRegistry()).CallAllJSON(context.Background(), json.RawMessage(`{"role":"model","parts":[
		{"functionCall":{"id":"fc-1","name":"capture","args":{"url":"https://example.com"}}}]}`))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(out))
	// Output:
	// {"role":"user","parts":[{"functionResponse":{"id":"fc-1","name":"capture","response":{"note":"[an image \"page.png\" (image/png, 7 bytes) is in this response's parts]\n[an audio clip \"summary.wav\" (audio/wav, 8 bytes) was left out: Gemini takes no audio in function responses]","output":"Captured https://example.com"},"parts":[{"inlineData":{"mimeType":"image/png","data":"iVBORy4uLg=="}}]}}]}
}

// For a model before Gemini 3, the media go as parts of their own after
// the function responses, audio included.
func ExampleWithMediaBesideResponses() {
	a := toolgemini.New(captureRegistry(), toolgemini.WithMediaBesideResponses())
	out, err := a.CallAllJSON(context.Background(), json.RawMessage(`{"role":"model","parts":[
		{"functionCall":{"id":"fc-1","name":"capture","args":{"url":"https://example.com"}}}]}`))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(out))
	// Output:
	// {"role":"user","parts":[{"functionResponse":{"id":"fc-1","name":"capture","response":{"note":"[an image \"page.png\" (image/png, 7 bytes) follows the function responses]\n[an audio clip \"summary.wav\" (audio/wav, 8 bytes) follows the function responses]","output":"Captured https://example.com"}}},{"text":"Media of the result of capture (call fc-1):"},{"inlineData":{"data":"iVBORy4uLg==","mimeType":"image/png"}},{"inlineData":{"data":"UklGRi4uLi4=","mimeType":"audio/wav"}}]}
}
