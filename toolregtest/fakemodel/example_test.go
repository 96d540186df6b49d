package fakemodel_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolanthropic"
	"github.com/toolreg/toolreg/adapters/toolgemini"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/toolregtest/fakemodel"
	"google.golang.org/genai"
)

// exampleT stands in for the *testing.T of a test, so that the examples
// run: it prints what would fail the test.
type exampleT struct {
	testing.TB
	cleanups []func()
}

func (t *exampleT) Helper()                           {}
func (t *exampleT) Failed() bool                      { return false }
func (t *exampleT) Cleanup(f func())                  { t.cleanups = append(t.cleanups, f) }
func (t *exampleT) Errorf(format string, args ...any) { fmt.Printf("FAIL: "+format+"\n", args...) }
func (t *exampleT) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

// end runs the cleanups, as the end of a test does.
func (t *exampleT) end() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}

var getWeather = toolreg.MustNew("get_weather", "Current weather for a city.",
	func(_ context.Context, a cityArgs) (string, error) { return "18°C in " + a.City, nil })

// A test of an agent: the model calls get_weather, then answers; the run
// goes through the real OpenAI client and the real runner, and the test
// checks the answer, the calls with their results, and what the model
// was sent.
func Example() {
	t := &exampleT{} // in a test: func TestAgent(t *testing.T)
	defer t.end()

	s := fakemodel.New(t,
		fakemodel.Call("get_weather", `{"city":"Paris"}`),
		fakemodel.Text("It is 18°C in Paris."))
	client := openai.NewClient(s.OpenAIOptions()...)
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)

	params := openai.ChatCompletionNewParams{Model: openai.ChatModelGPT5_2,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Weather in Paris?")}}
	run, err := toolopenai.NewChat(reg).Run(context.Background(), &client.Chat.Completions, params, nil, agent.Options{})
	if err != nil {
		t.Fatalf("%v", err)
	}
	fmt.Println(run.Answer(), run.Steps(), "steps")
	s.AssertCalls(fakemodel.Called{Name: "get_weather", Args: `{"city": "Paris"}`, Result: "18°C in Paris"})
	fmt.Println(s.Requests()[0].ToolNames())
	fmt.Printf("%+v\n", s.Requests()[1].ToolResults())
	// Output:
	// It is 18°C in Paris. 2 steps
	// [get_weather]
	// [{ID:call_1_1 Name: Text:18°C in Paris IsError:false}]
}

// The OpenAI options serve Chat Completions and Responses alike.
func ExampleServer_OpenAIOptions() {
	t := &exampleT{}
	defer t.end()
	s := fakemodel.New(t, fakemodel.Call("get_weather", `{"city":"Rome"}`), fakemodel.Text("Warm in Rome."))
	client := openai.NewClient(s.OpenAIOptions()...)
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)

	params := responses.ResponseNewParams{Model: openai.ChatModelGPT5_2, Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Weather in Rome?")}}
	run, err := toolopenai.NewResponses(reg).Run(context.Background(), &client.Responses, params, nil, agent.Options{Stream: true})
	fmt.Println(run.Answer(), err)
	second := s.Requests()[1]
	fmt.Println(second.Path, second.ToolResults())
	// Output:
	// Warm in Rome. <nil>
	// /v1/responses [{call_1_1  18°C in Rome false}]
}

// A failed call goes back to Claude with is_error set.
func ExampleServer_AnthropicOptions() {
	t := &exampleT{}
	defer t.end()
	s := fakemodel.New(t, fakemodel.Call("get_weather", `{"town":"Oslo"}`), fakemodel.Text("Which city?"))
	client := anthropic.NewClient(s.AnthropicOptions()...)
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)

	params := anthropic.MessageNewParams{Model: anthropic.ModelClaudeSonnet4_6, MaxTokens: 1024,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Weather in Oslo?"))}}
	run, err := toolanthropic.New(reg).Run(context.Background(), &client.Messages, params, nil, agent.Options{Stream: true})
	fmt.Println(run.Answer(), err)
	for _, c := range s.Calls() {
		fmt.Printf("%s %s error=%v:\n%s\n", c.Name, c.Args, c.IsError, c.Result)
	}
	// Output:
	// Which city? <nil>
	// get_weather {"town":"Oslo"} error=true:
	// invalid arguments for tool "get_weather":
	// - city: required field is missing; expected a string
	// - town: unknown field; allowed fields: city
	// Fix the arguments and call the tool again.
}

// Gemini calls come without ids unless the script gives them; several
// calls in one turn are parallel calls.
func ExampleServer_GeminiConfig() {
	t := &exampleT{}
	defer t.end()
	s := fakemodel.New(t,
		fakemodel.Calls(fakemodel.ToolCall{Name: "get_weather", Args: `{"city":"Lima"}`}, fakemodel.ToolCall{Name: "get_weather", Args: `{"city":"Quito"}`}),
		fakemodel.Text("Both mild."))
	client, err := genai.NewClient(context.Background(), s.GeminiConfig())
	if err != nil {
		t.Fatalf("%v", err)
	}
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)

	run, err := toolgemini.New(reg).Run(context.Background(), client.Models, "gemini-2.5-flash", genai.Text("Lima or Quito?"), nil, nil, agent.Options{})
	fmt.Println(run.Answer(), err)
	for _, r := range s.Requests()[1].ToolResults() {
		fmt.Printf("%s: %s\n", r.Name, r.Text)
	}
	// Output:
	// Both mild. <nil>
	// get_weather: 18°C in Lima
	// get_weather: 18°C in Quito
}

// Vertex AI in express mode: the same script, on Vertex's paths.
func ExampleServer_VertexConfig() {
	t := &exampleT{}
	defer t.end()
	s := fakemodel.New(t, fakemodel.Truncated(fakemodel.Text("The weather in")))
	client, err := genai.NewClient(context.Background(), s.VertexConfig())
	if err != nil {
		t.Fatalf("%v", err)
	}
	_, err = toolgemini.New(toolreg.NewRegistry()).Run(context.Background(), client.Models, "gemini-2.5-flash", genai.Text("Weather?"), nil, nil, agent.Options{Stream: true})
	fmt.Println(errors.Is(err, toolreg.ErrTruncated), err)
	fmt.Println(s.Requests()[0].Path)
	// Output:
	// true gemini: step 1: the model's response was cut off (finishReason MAX_TOKENS)
	// /v1beta1/publishers/google/models/gemini-2.5-flash:streamGenerateContent
}

// Calls reads with cmp: EquateJSON compares arguments and results as
// JSON, so that the diff shows what differs, not how it is written.
func ExampleEquateJSON() {
	t := &exampleT{}
	defer t.end()
	s := fakemodel.New(t, fakemodel.Call("get_weather", `{"city":"Paris"}`), fakemodel.Text("Done."))
	client := openai.NewClient(s.OpenAIOptions()...)
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	params := openai.ChatCompletionNewParams{Model: openai.ChatModelGPT5_2, Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Paris?")}}
	if _, err := toolopenai.NewChat(reg).Run(context.Background(), &client.Chat.Completions, params, nil, agent.Options{}); err != nil {
		t.Fatalf("%v", err)
	}
	want := []fakemodel.Called{{Name: "get_weather", Args: `{ "city": "Paris" }`, Result: "18°C in Paris"}}
	fmt.Println(cmp.Diff(want, s.Calls(), fakemodel.EquateJSON()) == "")
	// Output:
	// true
}

// A rate limit answers 429 with retry-after; the client gives up at once
// (the options set no retries) and the run ends with the error.
func ExampleRateLimit() {
	t := &exampleT{}
	defer t.end()
	s := fakemodel.New(t, fakemodel.RateLimit(2e9))
	client := anthropic.NewClient(s.AnthropicOptions()...)
	params := anthropic.MessageNewParams{Model: anthropic.ModelClaudeSonnet4_6, MaxTokens: 1024,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Hi"))}}
	_, err := client.Messages.New(context.Background(), params)
	fmt.Println(err != nil)
	fmt.Println(s.Requests()[0].Header.Get("X-Api-Key") == "") // never recorded
	// Output:
	// true
	// true
}

// A turn made from the request: the model calls every tool it was
// offered, then repeats what the tools returned.
func ExampleFunc() {
	t := &exampleT{}
	defer t.end()
	s := fakemodel.New(t,
		fakemodel.Func(func(r fakemodel.Request) fakemodel.Turn {
			var calls []fakemodel.ToolCall
			for _, name := range r.ToolNames() {
				calls = append(calls, fakemodel.ToolCall{Name: name, Args: `{"city":"Oslo"}`})
			}
			return fakemodel.Calls(calls...)
		}),
		fakemodel.Func(func(r fakemodel.Request) fakemodel.Turn {
			return fakemodel.Text("The tools say: " + r.ToolResults()[0].Text)
		}))
	client := anthropic.NewClient(s.AnthropicOptions()...)
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	params := anthropic.MessageNewParams{Model: anthropic.ModelClaudeSonnet4_6, MaxTokens: 1024,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Weather?"))}}
	run, err := toolanthropic.New(reg).Run(context.Background(), &client.Messages, params, nil, agent.Options{})
	fmt.Println(run.Answer(), err)
	// Output:
	// The tools say: 18°C in Oslo <nil>
}

// A model that calls every tool of the registry at once, with arguments
// made from each tool's schema, through the real client and runner: the
// smoke test of a registry. AssertEveryTool fails the test for a call
// that did not get what it should.
func ExampleEveryTool() {
	t := &exampleT{}
	defer t.end()
	type orderArgs struct {
		ID  string `json:"id" jsonschema:"pattern=^ORD-[0-9]{6}$"`
		Qty int    `json:"qty" jsonschema:"minimum=1,maximum=99"`
	}
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather, toolreg.MustNew("cancel_order", "Cancel an order by its id.",
		func(_ context.Context, a orderArgs) (string, error) { return "cancelled " + a.ID, nil }))

	s := fakemodel.New(t, fakemodel.EveryTool(t, reg)...)
	client := openai.NewClient(s.OpenAIOptions()...)
	params := openai.ChatCompletionNewParams{Model: openai.ChatModelGPT5_2,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Try every tool.")}}
	run, err := toolopenai.NewChat(reg).Run(context.Background(), &client.Chat.Completions, params, nil, agent.Options{})
	fmt.Println(run.Answer(), err)
	s.AssertEveryTool()
	for _, c := range s.Calls() {
		fmt.Println(c.Name, c.Args, "->", c.Result)
	}
	// Output:
	// Called 2 tools. <nil>
	// get_weather {"city":"alpha"} -> 18°C in alpha
	// cancel_order {"id":"ORD-773275","qty":9} -> cancelled ORD-773275
}

// With invalid calls too, the test shows what the model reads for each
// mistake, and AssertEveryTool checks that each message names the field
// to fix. One call per turn, seeded: another seed, other arguments.
func ExampleWithInvalidCalls() {
	t := &exampleT{}
	defer t.end()
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)

	script := fakemodel.EveryTool(t, reg, fakemodel.WithInvalidCalls(), fakemodel.OneCallPerTurn(), fakemodel.WithSeed(7))
	s := fakemodel.New(t, script...)
	client := anthropic.NewClient(s.AnthropicOptions()...)
	params := anthropic.MessageNewParams{Model: anthropic.ModelClaudeSonnet4_6, MaxTokens: 1024,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Try every tool."))}}
	run, err := toolanthropic.New(reg).Run(context.Background(), &client.Messages, params, nil,
		agent.Options{MaxSteps: len(script), MaxRunRetries: -1})
	fmt.Println(run.Steps(), "steps", err)
	s.AssertEveryTool()
	for _, c := range s.Calls() {
		fmt.Printf("%s error=%v:\n%s\n", c.Args, c.IsError, c.Result)
	}
	// Output:
	// 4 steps <nil>
	// {"city":"hotel"} error=false:
	// 18°C in hotel
	// {} error=true:
	// invalid arguments for tool "get_weather":
	// - city: required field is missing; expected a string
	// Fix the arguments and call the tool again.
	// {"city":12345} error=true:
	// invalid arguments for tool "get_weather":
	// - city: expected string, got 12345
	// Fix the arguments and call the tool again.
}
