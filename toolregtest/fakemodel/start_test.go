package fakemodel_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/toolregtest/fakemodel"
)

// A program's offline mode: the scripted model without a test.
func ExampleStart() {
	s, err := fakemodel.Start(fakemodel.Call("get_weather", `{"city":"Paris"}`), fakemodel.Text("It is 18°C in Paris."))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	client := openai.NewClient(s.OpenAIOptions()...)
	params := openai.ChatCompletionNewParams{Model: "offline", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Weather in Paris?")}}
	run, err := toolopenai.NewChat(registryOf()).Run(context.Background(), &client.Chat.Completions, params, nil, agent.Options{})
	fmt.Println(run.Answer(), err)
	fmt.Printf("%+v\n", s.Calls())
	// Output:
	// It is 18°C in Paris. <nil>
	// [{Name:get_weather Args:{"city":"Paris"} Result:18°C in Paris IsError:false}]
}

// TestStartBadInput: a malformed script is an error; a request after the
// last turn gets a 500 saying so, and nothing panics for want of a test.
func TestStartBadInput(t *testing.T) {
	if _, err := fakemodel.Start(fakemodel.Text("ok"), fakemodel.Call("x", "[1]")); err == nil || !strings.Contains(err.Error(), `turn 2 of the script: call 1 (x): arguments "[1]" are not a JSON object`) {
		t.Errorf("err = %v", err)
	}
	s, err := fakemodel.Start(fakemodel.Text("ok"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	client := openai.NewClient(s.OpenAIOptions()...)
	params := openai.ChatCompletionNewParams{Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}}
	if _, err := client.Chat.Completions.New(timeout(t), params); err != nil {
		t.Fatal(err)
	}
	_, err = client.Chat.Completions.New(timeout(t), params)
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 500 || !strings.Contains(apiErr.Message, "request 2 (OpenAI Chat): the script has no turn left") {
		t.Errorf("err = %v", err)
	}
}

// TestStartAssertEveryTool: the assertions that fail a test say, on a
// server of Start, that it has none, rather than panic on a nil pointer.
func TestStartAssertEveryTool(t *testing.T) {
	s, err := fakemodel.Start(fakemodel.Text("ok"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for name, assert := range map[string]func(){"AssertCalls": func() { s.AssertCalls() }, "AssertEveryTool": s.AssertEveryTool} {
		func() {
			defer func() {
				if msg := fmt.Sprint(recover()); !strings.Contains(msg, name+" fails a test, and a server of Start has none") {
					t.Errorf("%s on a server of Start panicked with %q", name, msg)
				}
			}()
			assert()
		}()
	}
}
