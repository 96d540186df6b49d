package fakemodel_test

import (
	"context"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/toolregtest/fakemodel"
)

// TestAgent is the README's "Testing an agent", as written there.
func TestAgent(t *testing.T) {
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
		t.Fatal(err)
	}
	// The calls the model made and the results it was sent, arguments compared as JSON; a failure is a diff.
	s.AssertCalls(fakemodel.Called{Name: "get_weather", Args: `{"city": "Paris"}`, Result: "18°C in Paris"})
	if run.Answer() != "It is 18°C in Paris." || run.Steps() != 2 {
		t.Errorf("answer %q in %d steps", run.Answer(), run.Steps())
	}
}
