package toolopenai_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/scripted"
)

type WeatherArgs struct {
	City string `json:"city" jsonschema:"description=City name"`
	Days int    `json:"days,omitempty" jsonschema:"minimum=1,maximum=7,default=1"`
}

var getWeather = toolreg.MustNew("get_weather", "Forecast for a city. Use it for weather questions only.",
	func(_ context.Context, a WeatherArgs) (string, error) {
		return fmt.Sprintf("%s: sunny for %d day(s)", a.City, a.Days), nil
	})

// bookHotel needs the host's approval for every call: a run pauses for it.
var bookHotel = toolreg.MustNew("book_hotel", "Books a hotel room in a city.",
	func(_ context.Context, a WeatherArgs) (string, error) {
		return "booked a room in " + a.City, nil
	}, toolreg.WithApproval())

// setLabels takes an open map, which strict mode cannot express.
var setLabels = toolreg.MustNew("set_labels", "Sets labels on the open document.",
	func(_ context.Context, a struct {
		Labels map[string]string `json:"labels"`
	}) (string, error) {
		return fmt.Sprintf("%d label(s) set", len(a.Labels)), nil
	})

// scriptedModel stands in for the OpenAI API so that the examples run
// offline, as a test of your own code would (package
// toolregtest/fakemodel): it answers each request, on Chat Completions or
// on Responses, streamed when asked, with the next of replies: a reply
// `name {arguments}` (several joined by "; ") asks for tool calls, any
// other is the model's answer.
func scriptedModel(replies ...string) scripted.Model {
	return scripted.New(scripted.Turns(replies...)...)
}

// chatParams is a Chat Completions request of one user message.
func chatParams(prompt string) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{Model: "gpt-4.1-mini", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt)}}
}

// responsesParams is a Responses request of one user message.
func responsesParams(prompt string) responses.ResponseNewParams {
	return responses.ResponseNewParams{Model: "gpt-4.1-mini", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String(prompt)}}
}

// printEvents is agent.Options whose OnEvent prints each call the model
// asks for and its result.
func printEvents() agent.Options {
	return agent.Options{OnEvent: func(e agent.Event) {
		switch e.Kind {
		case agent.CallReady:
			fmt.Println(e.Call.Name, string(e.Call.Arguments))
		case agent.CallResult:
			fmt.Println("  ->", e.Output.Text)
		}
	}}
}

// One adapter serves one registry; tools added to the registry later are
// in the next definitions it makes.
func ExampleNewChat() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	adapter := toolopenai.NewChat(reg)
	reg.MustAdd(bookHotel)
	tools, err := adapter.Tools()
	for _, t := range tools {
		fmt.Println(t.OfFunction.Function.Name)
	}
	fmt.Println(err)
	// Output:
	// get_weather
	// book_hotel
	// <nil>
}

// The Responses API has a type of its own, with the same options.
func ExampleNewResponses() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	tools, err := toolopenai.NewResponses(reg, toolopenai.WithStrict()).Tools()
	for _, t := range tools {
		fmt.Println(t.OfFunction.Name, t.OfFunction.Strict.Value)
	}
	fmt.Println(err)
	// Output:
	// get_weather true
	// <nil>
}

// The definitions for ChatCompletionNewParams.Tools.
func ExampleChat_Tools() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	tools, err := toolopenai.NewChat(reg).Tools()
	if err != nil {
		panic(err)
	}
	f := tools[0].OfFunction.Function
	fmt.Println(f.Name, "-", f.Description.Value)
	params, _ := json.Marshal(f.Parameters)
	fmt.Println(string(params))
	// Output:
	// get_weather - Forecast for a city. Use it for weather questions only.
	// {"additionalProperties":false,"properties":{"city":{"type":"string","description":"City name"},"days":{"type":"integer","maximum":7,"minimum":1,"default":1}},"required":["city"],"type":"object"}
}

// The definitions in the wire format, for a client other than the SDK.
func ExampleChat_ToolsJSON() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	tools, err := toolopenai.NewChat(reg, toolopenai.WithStrict()).ToolsJSON()
	fmt.Println(string(tools), err)
	// Output:
	// [{"function":{"name":"get_weather","strict":true,"description":"Forecast for a city. Use it for weather questions only.","parameters":{"additionalProperties":false,"properties":{"city":{"type":"string","description":"City name"},"days":{"type":["integer","null"],"maximum":7,"minimum":1,"description":"{default: 1}"}},"required":["city","days"],"type":"object"}},"type":"function"}] <nil>
}

// assistantMessage is an assistant message as the SDK returns it, asking
// for two calls; the second has arguments out of bounds.
func assistantMessage() openai.ChatCompletionMessage {
	var msg openai.ChatCompletionMessage
	json.Unmarshal([]byte(`{"role":"assistant","content":null,"tool_calls":[
		{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},
		{"id":"call_2","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Rome\",\"days\":9}"}}]}`), &msg)
	return msg
}

// ToolCalls lists what the model asked for and runs nothing: to log the
// calls, or to decide which to run.
func ExampleChat_ToolCalls() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	for _, c := range toolopenai.NewChat(reg).ToolCalls(assistantMessage()) {
		fmt.Println(c.ID, c.Name, string(c.Arguments))
	}
	// Output:
	// call_1 get_weather {"city":"Paris"}
	// call_2 get_weather {"city":"Rome","days":9}
}

// CallAll runs the calls of an assistant message and returns the tool
// messages that answer them, in order; a failed call is a message the
// model can act on.
func ExampleChat_CallAll() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	for _, m := range toolopenai.NewChat(reg).CallAll(context.Background(), assistantMessage()) {
		fmt.Printf("%s: %q\n", m.OfTool.ToolCallID, m.OfTool.Content.OfString.Value)
	}
	// Output:
	// call_1: "Paris: sunny for 1 day(s)"
	// call_2: "invalid arguments for tool \"get_weather\":\n- days: 9 is greater than the maximum 7\nFix the arguments and call the tool again."
}

// CallAllJSON is CallAll for a client that speaks the wire
// format: the response's "output" array in, the next request's "input"
// items out.
func ExampleResponses_CallAllJSON() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	output := json.RawMessage(`[
		{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Let me check.","annotations":[]}]},
		{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}","status":"completed"}]`)
	input, err := toolopenai.NewResponses(reg).CallAllJSON(context.Background(), output)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(input))
	// Output:
	// [{"output":"Paris: sunny for 1 day(s)","call_id":"call_1","type":"function_call_output"}]
}

// Dispatch the tool calls of a wire-format assistant message: one tool
// message per call, in order; errors are messages the model can act on.
func ExampleChat_CallAllJSON() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	msgs, err := toolopenai.NewChat(reg).CallAllJSON(context.Background(), json.RawMessage(`[
		{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},
		{"id":"call_2","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Rome\",\"days\":9}"}}]`))
	fmt.Println(string(msgs), err)
	// Output:
	// [{"role":"tool","tool_call_id":"call_1","content":"Paris: sunny for 1 day(s)"},{"role":"tool","tool_call_id":"call_2","content":"invalid arguments for tool \"get_weather\":\n- days: 9 is greater than the maximum 7\nFix the arguments and call the tool again."}] <nil>
}

// A loop of your own on Chat Completions: send the tools, answer the
// model's calls with CallAll, ask again, until the model answers.
func Example_chatLoop() {
	srv := scriptedModel(`get_weather {"city":"Paris"}; get_weather {"city":"Rome","days":9}`,
		`get_weather {"city":"Rome","days":7}`, "Sunny in both.")
	defer srv.Close()
	client := openai.NewClient(srv.OpenAIOptions()...) // a real program passes none
	ctx := context.Background()

	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	adapter := toolopenai.NewChat(reg)
	tools, err := adapter.Tools()
	if err != nil {
		panic(err)
	}
	params := openai.ChatCompletionNewParams{
		Model:    "gpt-4.1-mini",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Weather in Paris and Rome?")},
		Tools:    tools,
	}
	for range 10 { // a bound on the model calls
		completion, err := client.Chat.Completions.New(ctx, params)
		if err != nil {
			panic(err)
		}
		msg := completion.Choices[0].Message
		if len(msg.ToolCalls) == 0 {
			fmt.Println(msg.Content)
			break
		}
		results := adapter.CallAll(ctx, msg)
		for _, r := range results {
			fmt.Printf("%s: %s\n", r.OfTool.ToolCallID, r.OfTool.Content.OfString.Value)
		}
		params.Messages = append(params.Messages, msg.ToParam())
		params.Messages = append(params.Messages, results...)
	}
	// Output:
	// call_1_1: Paris: sunny for 1 day(s)
	// call_1_2: invalid arguments for tool "get_weather":
	// - days: 9 is greater than the maximum 7
	// Fix the arguments and call the tool again.
	// call_2_1: Rome: sunny for 7 day(s)
	// Sunny in both.
}

// The agent loop with the official client: tools go out, calls come back,
// results go back, until the model answers.
func ExampleChat_Run() {
	srv := scriptedModel(`get_weather {"city":"Paris"}`, "Sunny in Paris.")
	defer srv.Close()
	client := openai.NewClient(srv.OpenAIOptions()...) // openai.NewClient() reads OPENAI_API_KEY

	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	opts := printEvents()
	opts.MaxSteps = 5
	run, err := toolopenai.NewChat(reg).Run(context.Background(), &client.Chat.Completions, chatParams("Weather in Paris?"), nil, opts)
	if err != nil {
		panic(err)
	}
	fmt.Println(run.Answer())
	fmt.Println(len(run.Messages), "messages")
	// Output:
	// get_weather {"city":"Paris"}
	//   -> Paris: sunny for 1 day(s)
	// Sunny in Paris.
	// 4 messages
}

// A call that needs approval pauses the run; its State, kept as JSON for
// as long as the host takes, resumes it. The weather call of the same turn
// ran before the pause; the turn's results go back together, in call
// order, when the run resumes.
func ExampleChat_Run_resume() {
	srv := scriptedModel(`get_weather {"city":"Lima"}; book_hotel {"city":"Lima"}`, "Booked, and sunny in Lima.")
	defer srv.Close()
	client := openai.NewClient(srv.OpenAIOptions()...)
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather, bookHotel)
	adapter := toolopenai.NewChat(reg)
	params := chatParams("Book me a room in Lima if it is sunny.")

	run, err := adapter.Run(context.Background(), &client.Chat.Completions, params, nil, printEvents())
	fmt.Println(errors.Is(err, agent.ErrPaused))
	saved, _ := json.Marshal(run.State) // to a database, a queue, a file

	var state agent.State
	json.Unmarshal(saved, &state)
	for _, c := range state.Pending() {
		fmt.Println("approve", c.Name, string(c.Arguments))
		state.Approve(c.Key())
	}
	run, err = adapter.Run(context.Background(), &client.Chat.Completions, params, &state, printEvents())
	fmt.Println(run.Answer(), err)
	// Output:
	// get_weather {"city":"Lima"}
	// book_hotel {"city":"Lima"}
	// true
	// approve book_hotel {"city":"Lima"}
	//   -> Lima: sunny for 1 day(s)
	//   -> booked a room in Lima
	// Booked, and sunny in Lima. <nil>
}

// A streamed run shows each call as the model writes it, and the answer.
func ExampleChat_Run_stream() {
	srv := scriptedModel(`get_weather {"city":"Paris"}`, "Sunny in Paris.")
	defer srv.Close()
	client := openai.NewClient(srv.OpenAIOptions()...)
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	_, err := toolopenai.NewChat(reg).Run(context.Background(), &client.Chat.Completions, chatParams("Weather in Paris?"), nil,
		agent.Options{Stream: true, OnEvent: func(e agent.Event) {
			switch e.Kind {
			case agent.CallStarted:
				fmt.Print("[", e.Call.Name, " ")
			case agent.ArgumentsDelta:
				fmt.Print(e.Delta)
			case agent.CallReady:
				fmt.Println("]")
			case agent.TextDelta:
				fmt.Print(e.Text)
			}
		}})
	fmt.Println()
	fmt.Println(err)
	// Output:
	// [get_weather {"city":"Paris"}]
	// Sunny in Paris.
	// <nil>
}

// Run with Stream goes on with a paused run on the streaming API; the
// State may come from any chat runner.
func ExampleChat_Run_resumeStream() {
	srv := scriptedModel(`book_hotel {"city":"Oslo"}`, "I did not book Oslo.")
	defer srv.Close()
	client := openai.NewClient(srv.OpenAIOptions()...)
	reg := toolreg.NewRegistry()
	reg.MustAdd(bookHotel)
	adapter := toolopenai.NewChat(reg)
	params := chatParams("Book me a room in Oslo.")
	streamEvents := printEvents()
	streamEvents.Stream = true

	run, err := adapter.Run(context.Background(), &client.Chat.Completions, params, nil, streamEvents)
	for errors.Is(err, agent.ErrPaused) {
		for _, c := range run.State.Pending() {
			run.State.Reject(c.Key(), "the user books rooms themselves")
		}
		run, err = adapter.Run(context.Background(), &client.Chat.Completions, params, run.State, streamEvents)
	}
	fmt.Println(run.Answer(), err)
	// Output:
	// book_hotel {"city":"Oslo"}
	//   -> the host did not allow this call of "book_hotel": the user books rooms themselves
	// I did not book Oslo. <nil>
}

// Answer is the model's last text; Final holds the whole response.
func ExampleChatRunResult_Answer() {
	srv := scriptedModel("Hello! Ask me about the weather.")
	defer srv.Close()
	client := openai.NewClient(srv.OpenAIOptions()...)
	run, err := toolopenai.NewChat(toolreg.NewRegistry()).Run(context.Background(), &client.Chat.Completions, chatParams("Hi"), nil, agent.Options{})
	fmt.Println(run.Answer(), err)
	fmt.Println(run.Final.Choices[0].FinishReason)
	// Output:
	// Hello! Ask me about the weather. <nil>
	// stop
}

// Steps counts the model calls, those before a pause included.
func ExampleChatRunResult_Steps() {
	srv := scriptedModel(`get_weather {"city":"Lima"}`, `book_hotel {"city":"Lima"}`, "Booked.")
	defer srv.Close()
	client := openai.NewClient(srv.OpenAIOptions()...)
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather, bookHotel)
	adapter := toolopenai.NewChat(reg)
	params := chatParams("Book Lima.")
	run, _ := adapter.Run(context.Background(), &client.Chat.Completions, params, nil, agent.Options{})
	fmt.Println("paused after", run.Steps(), "steps")
	run.State.Approve(run.State.Pending()[0].Key())
	run, _ = adapter.Run(context.Background(), &client.Chat.Completions, params, run.State, agent.Options{})
	fmt.Println("done after", run.Steps(), "steps")
	// Output:
	// paused after 2 steps
	// done after 3 steps
}

// A host that drives the run itself (a durable workflow, say) asks the
// model through Model, one step at a time, and runs the calls where it
// likes.
func ExampleChat_Model() {
	srv := scriptedModel(`get_weather {"city":"Paris"}`, "Sunny in Paris.")
	defer srv.Close()
	client := openai.NewClient(srv.OpenAIOptions()...)
	ctx := context.Background()
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)

	var state agent.State
	model, err := toolopenai.NewChat(reg).Model(&client.Chat.Completions, chatParams("Weather in Paris?"), &state)
	if err != nil {
		panic(err)
	}
	fmt.Println(model.Info())
	for step := 1; ; step++ {
		reply, err := model.Ask(ctx, agent.NewStep(step, reg), nil, nil)
		if err != nil {
			panic(err)
		}
		if len(reply.Calls) == 0 {
			break
		}
		outs := reg.CallAll(ctx, reply.Calls) // or each in an activity of its own
		fmt.Println(reply.Calls[0].Name, "->", outs[0].Text)
		model.Answer(reply.Calls, outs)
	}
	model.Save(&state) // the transcript, as JSON, to resume from
	var transcript []map[string]any
	json.Unmarshal(state.Transcript, &transcript)
	fmt.Println(len(transcript), "messages, the last:", transcript[len(transcript)-1]["content"])
	// Output:
	// {openai.chat gpt-4.1-mini}
	// get_weather -> Paris: sunny for 1 day(s)
	// 4 messages, the last: Sunny in Paris.
}

// The definitions for responses.ResponseNewParams.Tools.
func ExampleResponses_Tools() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	tools, err := toolopenai.NewResponses(reg, toolopenai.WithStrict()).Tools()
	if err != nil {
		panic(err)
	}
	f := tools[0].OfFunction
	fmt.Println(f.Name, "strict:", f.Strict.Value)
	// Output:
	// get_weather strict: true
}

// A tool whose Result is a type, not a string, tells the Responses API
// what JSON its output holds: output_schema, the schema of the Result.
func ExampleResponses_Tools_outputSchema() {
	type forecast struct {
		City  string `json:"city"`
		HighC int    `json:"high_c"`
	}
	type args struct {
		City string `json:"city"`
	}
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("forecast", "Forecast for a city.",
		func(_ context.Context, a args) (forecast, error) { return forecast{City: a.City, HighC: 21}, nil }))
	tools, err := toolopenai.NewResponses(reg).Tools()
	if err != nil {
		panic(err)
	}
	out, _ := json.Marshal(tools[0].OfFunction.OutputSchema)
	fmt.Println(string(out))
	// Output:
	// {"additionalProperties":false,"properties":{"city":{"type":"string"},"high_c":{"type":"integer"}},"required":["city","high_c"],"type":"object"}
}

// The Responses definitions in the wire format: flat, without Chat's
// "function" wrapper.
func ExampleResponses_ToolsJSON() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	tools, err := toolopenai.NewResponses(reg).ToolsJSON()
	fmt.Println(string(tools), err)
	// Output:
	// [{"strict":false,"parameters":{"additionalProperties":false,"properties":{"city":{"type":"string","description":"City name"},"days":{"type":"integer","maximum":7,"minimum":1,"default":1}},"required":["city"],"type":"object"},"name":"get_weather","description":"Forecast for a city. Use it for weather questions only.","type":"function"}] <nil>
}

// responseOutput is the output of a response as the SDK returns it: a
// message, then two calls, the second with arguments out of bounds.
func responseOutput() []responses.ResponseOutputItemUnion {
	var output []responses.ResponseOutputItemUnion
	json.Unmarshal([]byte(`[
		{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Let me check.","annotations":[]}]},
		{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}","status":"completed"},
		{"type":"function_call","id":"fc_2","call_id":"call_2","name":"get_weather","arguments":"{\"city\":\"Rome\",\"days\":9}","status":"completed"}]`), &output)
	return output
}

// ToolCalls lists the function calls of a response's output, keyed
// by call_id, and runs nothing; other items (messages, reasoning) are
// skipped.
func ExampleResponses_ToolCalls() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	for _, c := range toolopenai.NewResponses(reg).ToolCalls(responseOutput()) {
		fmt.Println(c.ID, c.Name, string(c.Arguments))
	}
	// Output:
	// call_1 get_weather {"city":"Paris"}
	// call_2 get_weather {"city":"Rome","days":9}
}

// CallAll runs the function calls of a response's output and
// returns the function_call_output items that answer them, for the next
// request's input.
func ExampleResponses_CallAll() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	for _, item := range toolopenai.NewResponses(reg).CallAll(context.Background(), responseOutput()) {
		out := item.OfFunctionCallOutput
		fmt.Printf("%s: %q\n", out.CallID, out.Output.OfString.Value)
	}
	// Output:
	// call_1: "Paris: sunny for 1 day(s)"
	// call_2: "invalid arguments for tool \"get_weather\":\n- days: 9 is greater than the maximum 7\nFix the arguments and call the tool again."
}

// A loop of your own on the Responses API: the conversation stays on the
// server, so each request sends only the results, on the previous
// response.
func Example_responsesLoop() {
	srv := scriptedModel(`get_weather {"city":"Paris"}`, "Sunny in Paris.")
	defer srv.Close()
	client := openai.NewClient(srv.OpenAIOptions()...) // a real program passes none
	ctx := context.Background()

	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	adapter := toolopenai.NewResponses(reg)
	tools, err := adapter.Tools()
	if err != nil {
		panic(err)
	}
	params := responsesParams("Weather in Paris?")
	params.Tools = tools
	for range 10 { // a bound on the model calls
		resp, err := client.Responses.New(ctx, params)
		if err != nil {
			panic(err)
		}
		results := adapter.CallAll(ctx, resp.Output)
		if len(results) == 0 {
			fmt.Println(resp.OutputText())
			break
		}
		for _, r := range results {
			fmt.Printf("%s: %s\n", r.OfFunctionCallOutput.CallID, r.OfFunctionCallOutput.Output.OfString.Value)
		}
		params.PreviousResponseID = openai.String(resp.ID)
		params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: results}
	}
	// Output:
	// call_1_1: Paris: sunny for 1 day(s)
	// Sunny in Paris.
}

// The agent loop on the Responses API.
func ExampleResponses_Run() {
	srv := scriptedModel(`get_weather {"city":"Paris"}; get_weather {"city":"Rome"}`, "Sunny in both.")
	defer srv.Close()
	client := openai.NewClient(srv.OpenAIOptions()...)
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	run, err := toolopenai.NewResponses(reg).Run(context.Background(), &client.Responses, responsesParams("Paris or Rome?"), nil, printEvents())
	if err != nil {
		panic(err)
	}
	fmt.Println(run.Answer())
	fmt.Println(len(run.Responses), "responses;", len(run.Inputs[0]), "results sent on", run.Responses[0].ID)
	// Output:
	// get_weather {"city":"Paris"}
	// get_weather {"city":"Rome"}
	//   -> Paris: sunny for 1 day(s)
	//   -> Rome: sunny for 1 day(s)
	// Sunny in both.
	// 2 responses; 2 results sent on resp_1
}

// A paused Responses run keeps the response to continue in its State.
func ExampleResponses_Run_resume() {
	srv := scriptedModel(`book_hotel {"city":"Lima"}`, "Booked.")
	defer srv.Close()
	client := openai.NewClient(srv.OpenAIOptions()...)
	reg := toolreg.NewRegistry()
	reg.MustAdd(bookHotel)
	adapter := toolopenai.NewResponses(reg)
	params := responsesParams("Book Lima.")

	run, err := adapter.Run(context.Background(), &client.Responses, params, nil, agent.Options{})
	fmt.Println(errors.Is(err, agent.ErrPaused), "continuing", run.State.Cursor)
	run.State.ApproveWith(run.State.Pending()[0].Key(), json.RawMessage(`{"city":"Lima","days":2}`))
	run, err = adapter.Run(context.Background(), &client.Responses, params, run.State, printEvents())
	fmt.Println(run.Answer(), err)
	// Output:
	// true continuing resp_1
	//   -> booked a room in Lima
	// Booked. <nil>
}

// Run with Stream reports the answer as the model writes it, and each
// result as its call has run.
func ExampleResponses_Run_stream() {
	srv := scriptedModel(`get_weather {"city":"Paris"}`, "Sunny in Paris.")
	defer srv.Close()
	client := openai.NewClient(srv.OpenAIOptions()...)
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	_, err := toolopenai.NewResponses(reg).Run(context.Background(), &client.Responses, responsesParams("Weather in Paris?"), nil,
		agent.Options{Stream: true, OnEvent: func(e agent.Event) {
			if e.Kind == agent.TextDelta {
				fmt.Print(e.Text)
			}
			if e.Kind == agent.CallResult {
				fmt.Printf("(%s: %s)\n", e.Call.Name, e.Output.Text)
			}
		}})
	fmt.Println()
	fmt.Println(err)
	// Output:
	// (get_weather: Paris: sunny for 1 day(s))
	// Sunny in Paris.
	// <nil>
}

// Run with Stream goes on with a paused Responses run on the
// streaming API, once the host has approved its calls.
func ExampleResponses_Run_resumeStream() {
	srv := scriptedModel(`book_hotel {"city":"Oslo"}`, "Booked in Oslo.")
	defer srv.Close()
	client := openai.NewClient(srv.OpenAIOptions()...)
	reg := toolreg.NewRegistry()
	reg.MustAdd(bookHotel)
	adapter := toolopenai.NewResponses(reg)
	params := responsesParams("Book me a room in Oslo.")

	run, err := adapter.Run(context.Background(), &client.Responses, params, nil, agent.Options{Stream: true})
	fmt.Println(err)
	for _, c := range run.State.Pending() {
		run.State.Approve(c.Key())
	}
	streamEvents := printEvents()
	streamEvents.Stream = true
	run, err = adapter.Run(context.Background(), &client.Responses, params, run.State, streamEvents)
	fmt.Println(run.Answer(), err)
	// Output:
	// the run is waiting for the host
	//   -> booked a room in Oslo
	// Booked in Oslo. <nil>
}

// Answer is the text of the final response.
func ExampleResponsesRunResult_Answer() {
	srv := scriptedModel("Hello! Ask me about the weather.")
	defer srv.Close()
	client := openai.NewClient(srv.OpenAIOptions()...)
	run, err := toolopenai.NewResponses(toolreg.NewRegistry()).Run(context.Background(), &client.Responses, responsesParams("Hi"), nil, agent.Options{})
	fmt.Println(run.Answer(), err)
	fmt.Println(run.Final.Status)
	// Output:
	// Hello! Ask me about the weather. <nil>
	// completed
}

// Steps counts the model calls of a Responses run.
func ExampleResponsesRunResult_Steps() {
	srv := scriptedModel(`get_weather {"city":"Oslo"}`, `get_weather {"city":"Oslo","days":3}`, "Cold.")
	defer srv.Close()
	client := openai.NewClient(srv.OpenAIOptions()...)
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	run, err := toolopenai.NewResponses(reg).Run(context.Background(), &client.Responses, responsesParams("Oslo?"), nil, agent.Options{})
	fmt.Println(run.Steps(), "steps", err)
	// Output:
	// 3 steps <nil>
}

// Model is the Responses API's side of a run, for a host that
// drives runs itself.
func ExampleResponses_Model() {
	srv := scriptedModel(`get_weather {"city":"Paris"}`)
	defer srv.Close()
	client := openai.NewClient(srv.OpenAIOptions()...)
	ctx := context.Background()
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)

	var state agent.State
	model, err := toolopenai.NewResponses(reg).Model(&client.Responses, responsesParams("Weather in Paris?"), &state)
	if err != nil {
		panic(err)
	}
	reply, _ := model.Ask(ctx, agent.NewStep(1, reg), nil, nil)
	model.Answer(reply.Calls, reg.CallAll(ctx, reply.Calls))
	model.Save(&state) // the results are not sent yet: they wait in the transcript
	fmt.Println(model.Info().Provider, "continues", state.Cursor, "with", string(state.Transcript))
	// Output:
	// openai.responses continues resp_1 with [{"output":"Paris: sunny for 1 day(s)","call_id":"call_1_1","type":"function_call_output"}]
}

// Strict mode (Structured Outputs): the model's arguments always match
// the schema. A tool strict mode cannot express is refused, naming the
// tool and the field, rather than sent with a weaker schema.
func ExampleWithStrict() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather, setLabels)
	_, err := toolopenai.NewChat(reg, toolopenai.WithStrict()).Tools()
	fmt.Println(errors.Is(err, toolreg.ErrUnsupportedSchema))
	fmt.Println(err)
	// Output:
	// true
	// tool cannot be sent in strict mode: tool "set_labels": schema at labels: OpenAI strict mode cannot express an open map or free-form object (additionalProperties other than false): use a struct, or a list of {key, value} objects
}

// Only the named tools go strict; the others are sent as they are.
func ExampleWithStrictTools() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather, setLabels)
	adapter := toolopenai.NewChat(reg, toolopenai.WithStrictTools("get_weather"))
	tools, err := adapter.Tools()
	for _, t := range tools {
		fmt.Println(t.OfFunction.Function.Name, t.OfFunction.Function.Strict.Value)
	}
	fmt.Println(err)
	// Output:
	// get_weather true
	// set_labels false
	// <nil>
}

// With the fallback a tool strict mode cannot express is sent non-strict,
// and NotStrict says why.
func ExampleWithNonStrictFallback() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather, setLabels)
	adapter := toolopenai.NewChat(reg, toolopenai.WithStrict(), toolopenai.WithNonStrictFallback())
	_, err := adapter.Tools()
	fmt.Println(err)
	fmt.Println(adapter.Strict("get_weather"), adapter.Strict("set_labels"))
	// Output:
	// <nil>
	// true false
}

// Strict reports which tools go in strict mode, for logs or tests.
func ExampleChat_Strict() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather, setLabels)
	plain, strict := toolopenai.NewChat(reg), toolopenai.NewChat(reg, toolopenai.WithStrictTools("get_weather"))
	fmt.Println(plain.Strict("get_weather"), strict.Strict("get_weather"), strict.Strict("set_labels"))
	// Output:
	// false true false
}

// A dynamic tool (here an MCP server's, say) whose schema strict mode
// cannot express is sent non-strict rather than refused; NotStrict says
// why.
func ExampleChat_NotStrict() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather, toolreg.MustNewDynamic("search", "Searches the documents.",
		json.RawMessage(`{"type":"object","properties":{"filters":{"type":"object","additionalProperties":{"type":"string"}}}}`),
		func(context.Context, json.RawMessage) (string, error) { return "", nil }))
	adapter := toolopenai.NewChat(reg, toolopenai.WithStrict())
	fmt.Println(adapter.NotStrict("get_weather"))
	fmt.Println(adapter.NotStrict("search"))
	// Output:
	// <nil>
	// tool cannot be sent in strict mode: tool "search": schema at filters: OpenAI strict mode cannot express an open map or free-form object (additionalProperties other than false): use a struct, or a list of {key, value} objects
}

// NotStrict says why a tool goes out non-strict on the Responses API too.
func ExampleResponses_NotStrict() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather, toolreg.MustNewDynamic("search", "Searches the documents.",
		json.RawMessage(`{"type":"object","properties":{"filters":{"type":"object","additionalProperties":{"type":"string"}}}}`),
		func(context.Context, json.RawMessage) (string, error) { return "", nil }))
	adapter := toolopenai.NewResponses(reg, toolopenai.WithStrict(), toolopenai.WithNonStrictFallback())
	fmt.Println(adapter.NotStrict("get_weather"))
	fmt.Println(adapter.NotStrict("search"))
	// Output:
	// <nil>
	// tool cannot be sent in strict mode: tool "search": schema at filters: OpenAI strict mode cannot express an open map or free-form object (additionalProperties other than false): use a struct, or a list of {key, value} objects
}

// Responses has the same strict mode as Chat, under the same options.
func ExampleResponses_Strict() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather, setLabels)
	adapter := toolopenai.NewResponses(reg, toolopenai.WithStrict(), toolopenai.WithNonStrictFallback())
	fmt.Println(adapter.Strict("get_weather"), adapter.Strict("set_labels"))
	fmt.Println(adapter.NotStrict("set_labels") != nil)
	// Output:
	// true false
	// true
}
