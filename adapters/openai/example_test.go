package openai_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/toolreg/toolreg"
	tooloai "github.com/toolreg/toolreg/adapters/openai"
	"github.com/toolreg/toolreg/agent"
)

type WeatherArgs struct {
	City string `json:"city" jsonschema:"description=City name"`
	Days int    `json:"days,omitempty" jsonschema:"minimum=1,maximum=7,default=1"`
}

var getWeather = toolreg.MustNew("get_weather", "Forecast for a city. Use it for weather questions only.",
	func(_ context.Context, a WeatherArgs) (string, error) {
		return fmt.Sprintf("%s: sunny for %d day(s)", a.City, a.Days), nil
	})

// The definitions in the wire format, for a client other than the SDK.
func ExampleAdapter_ChatToolsJSON() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	tools, err := tooloai.New(reg, tooloai.WithStrict()).ChatToolsJSON()
	fmt.Println(string(tools), err)
	// Output:
	// [{"function":{"name":"get_weather","strict":true,"description":"Forecast for a city. Use it for weather questions only.","parameters":{"additionalProperties":false,"properties":{"city":{"type":"string","description":"City name"},"days":{"type":["integer","null"],"maximum":7,"minimum":1,"description":"{default: 1}"}},"required":["city","days"],"type":"object"}},"type":"function"}] <nil>
}

// Dispatch the tool calls of a wire-format assistant message: one tool
// message per call, in order; errors are messages the model can act on.
func ExampleAdapter_CallChatJSON() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	msgs, err := tooloai.New(reg).CallChatJSON(context.Background(), json.RawMessage(`[
		{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},
		{"id":"call_2","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Rome\",\"days\":9}"}}]`))
	fmt.Println(string(msgs), err)
	// Output:
	// [{"role":"tool","tool_call_id":"call_1","content":"Paris: sunny for 1 day(s)"},{"role":"tool","tool_call_id":"call_2","content":"invalid arguments for tool \"get_weather\":\n- days: 9 is greater than the maximum 7\nFix the arguments and call the tool again."}] <nil>
}

// The agent loop with the official client: tools go out, calls come back,
// results go back, until the model answers.
func ExampleAdapter_RunChat() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	client := openai.NewClient() // reads OPENAI_API_KEY
	run, err := tooloai.New(reg).RunChat(context.Background(), &client.Chat.Completions, openai.ChatCompletionNewParams{
		Model:    "gpt-4.1-mini",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Weather in Paris?")},
	}, agent.Options{MaxSteps: 5})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(run.Answer())
}
