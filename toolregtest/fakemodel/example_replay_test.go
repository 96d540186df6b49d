package fakemodel_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/openai/openai-go/v3"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/toolregtest/fakemodel"
)

// A test replaying a recorded run: no provider, no key, no network
// (TestAgentReplay, in the README, is the whole test). Calls and Requests
// read the recorded run as a scripted one. With TOOLREG_RECORD=1 and
// OPENAI_API_KEY set, the same test records the file again from OpenAI.
func ExampleReplay() {
	t := &exampleT{} // in a test: func TestAgent(t *testing.T)
	defer t.end()

	s := fakemodel.Replay(t, "testdata/weather_chat_stream.json")
	fmt.Println(weatherIn(s, openai.ChatModelGPT5_2, "Paris")) // a run of toolopenai.Chat, streamed, on s
	fmt.Printf("%+v\n", s.Calls())
	fmt.Println(s.Requests()[0].ToolNames(), s.Requests()[1].Path)
	// Output:
	// It is 18°C in Paris. <nil>
	// [{Name:get_weather Args:{"city":"Paris"} Result:18°C in Paris IsError:false}]
	// [get_weather] /v1/chat/completions
}

// A request that is not the recorded one fails the test with a diff,
// and the client gets a 500 at once; IgnoreFields leaves out what varies,
// here the question.
func ExampleIgnoreFields() {
	t := &exampleT{}
	defer t.end()
	s := fakemodel.Replay(t, "testdata/weather_chat_stream.json", fakemodel.IgnoreFields("messages.0.content"))
	fmt.Println(weatherIn(s, openai.ChatModelGPT5_2, "Oslo"))
	// Output:
	// It is 18°C in Paris. <nil>
}

// Recording from a stand-in for the provider, as this package's own
// tests do: Upstream points the recording at it, Record turns recording
// on without TOOLREG_RECORD, and Secrets names one more value to leave
// out.
func ExampleRecord() {
	t := recordingT{&exampleT{}} // in a test: func TestHello(t *testing.T)
	live := fakemodel.New(t, fakemodel.Text("Hello."))
	dir, _ := os.MkdirTemp("", "")
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "hello.json")

	s := fakemodel.Replay(t, file, fakemodel.Record(), fakemodel.Upstream(fakemodel.OpenAI, live.URL()), fakemodel.Secrets("my-project-1234"))
	client := openai.NewClient(s.OpenAIOptions()...)
	resp, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: "my-project-1234",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Hi")}})
	fmt.Println(resp.Choices[0].Message.Content, err)
	t.end() // the test ends: the file is written
	data, _ := os.ReadFile(file)
	fmt.Println(strings.Count(string(data), "REDACTED"), strings.Contains(string(data), "my-project-1234"))
	// Output:
	// Hello. <nil>
	// 2 false
}

// CompareBodies takes go-cmp options for what varies in a way no field
// path says: here the model, wherever it is named.
func ExampleCompareBodies() {
	t := &exampleT{}
	defer t.end()
	s := fakemodel.Replay(t, "testdata/weather_chat_stream.json",
		fakemodel.CompareBodies(cmpopts.IgnoreMapEntries(func(k string, _ any) bool { return k == "model" })))
	fmt.Println(weatherIn(s, openai.ChatModelGPT4_1, "Paris"))
	// Output:
	// It is 18°C in Paris. <nil>
}

// weatherIn is the run the recording was made of, with another model or
// question.
func weatherIn(s *fakemodel.Server, model, city string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // a test that hangs fails
	defer cancel()
	client := openai.NewClient(s.OpenAIOptions()...)
	reg := registryOf()
	params := openai.ChatCompletionNewParams{Model: model,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Weather in " + city + "?")}}
	run, err := toolopenai.NewChat(reg).Run(ctx, &client.Chat.Completions, params, nil, agent.Options{Stream: true})
	return run.Answer(), err
}

func registryOf(tools ...toolreg.AnyTool) *toolreg.Registry {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	reg.MustAdd(tools...)
	return reg
}

// recordingT is an exampleT that drops what a recording logs.
type recordingT struct{ *exampleT }

func (recordingT) Logf(string, ...any) {}
