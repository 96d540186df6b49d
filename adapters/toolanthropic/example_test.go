package toolanthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolanthropic"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/scripted"
)

type WeatherArgs struct {
	City string `json:"city" jsonschema:"description=City name"`
}

var getWeather = toolreg.MustNew("get_weather", "Current weather for a city.",
	func(_ context.Context, a WeatherArgs) (string, error) { return "18°C, partly cloudy", nil })

// book needs the host's approval for every call: a run pauses for it.
var book = toolreg.MustNew("book", "Books a hotel in a city.",
	func(_ context.Context, a WeatherArgs) (string, error) { return "booked a room in " + a.City, nil },
	toolreg.WithApproval())

// setLabels takes an open map, which strict mode cannot express.
var setLabels = toolreg.MustNew("set_labels", "Sets labels on the open document.",
	func(_ context.Context, a struct {
		Labels map[string]string `json:"labels"`
	}) (string, error) {
		return fmt.Sprintf("%d label(s) set", len(a.Labels)), nil
	})

// scriptedClaude stands in for the Messages API so that the examples run
// offline, as a test of your own code would (package
// toolregtest/fakemodel). It answers each request with the next of
// replies, streamed when asked: a reply `name {input}` (several joined by
// "; ") asks for tool uses, any other is the model's answer.
func scriptedClaude(replies ...string) scripted.Model {
	return scripted.New(scripted.Turns(replies...)...)
}

// params is a request of one user message.
func params(prompt string) anthropic.MessageNewParams {
	return anthropic.MessageNewParams{
		Model:     anthropic.ModelClaudeSonnet4_6,
		MaxTokens: 1024,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(prompt))},
	}
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
func ExampleNew() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	adapter := toolanthropic.New(reg)
	reg.MustAdd(book)
	tools, err := adapter.Tools()
	for _, t := range tools {
		fmt.Println(t.OfTool.Name)
	}
	fmt.Println(err)
	// Output:
	// get_weather
	// book
	// <nil>
}

// The definitions for MessageNewParams.Tools; the input schema is raw
// JSON, as the SDK sends it.
func ExampleAdapter_Tools() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	tools, err := toolanthropic.New(reg).Tools()
	if err != nil {
		panic(err)
	}
	t := tools[0].OfTool
	schema, _ := t.InputSchema.Overrides()
	fmt.Println(t.Name, "-", t.Description.Value)
	fmt.Println(string(schema.(json.RawMessage)))
	// Output:
	// get_weather - Current weather for a city.
	// {"type":"object","properties":{"city":{"type":"string","description":"City name"}},"additionalProperties":false,"required":["city"]}
}

// The definitions in the wire format, for a client other than the SDK.
func ExampleAdapter_ToolsJSON() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	tools, err := toolanthropic.New(reg, toolanthropic.WithStrict()).ToolsJSON()
	fmt.Println(string(tools), err)
	// Output:
	// [{"input_schema":{"type":"object","properties":{"city":{"type":"string","description":"City name"}},"additionalProperties":false,"required":["city"]},"name":"get_weather","description":"Current weather for a city.","strict":true}] <nil>
}

// assistantMessage is an assistant message as the SDK returns it: text,
// then two tool uses, the second naming a tool that does not exist.
func assistantMessage() anthropic.Message {
	var msg anthropic.Message
	json.Unmarshal([]byte(`{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-6","stop_reason":"tool_use",
		"content":[{"type":"text","text":"Let me check."},
			{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}},
			{"type":"tool_use","id":"toolu_2","name":"get_wether","input":{"city":"Rome"}}]}`), &msg)
	return msg
}

// ToolCalls lists the tool uses of a message and runs nothing; other blocks
// are skipped.
func ExampleAdapter_ToolCalls() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	for _, c := range toolanthropic.New(reg).ToolCalls(assistantMessage()) {
		fmt.Println(c.ID, c.Name, string(c.Arguments))
	}
	// Output:
	// toolu_1 get_weather {"city":"Paris"}
	// toolu_2 get_wether {"city":"Rome"}
}

// CallAll runs the tool uses of a message and returns the one user message
// of tool_result blocks that answers them, in order; a failed call is a
// result with is_error whose text tells the model what to fix.
func ExampleAdapter_CallAll() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	answer := toolanthropic.New(reg).CallAll(context.Background(), assistantMessage())
	for _, b := range answer.OfUser.Content {
		r := b.OfToolResult
		fmt.Printf("%s is_error=%v %s\n", r.ToolUseID, r.IsError.Value, r.Content[0].OfText.Text)
	}
	// Output:
	// toolu_1 is_error=false 18°C, partly cloudy
	// toolu_2 is_error=true there is no tool named "get_wether"; available tools: get_weather
}

// The same on the wire: the "content" of an assistant message in, the
// user message to append out.
func ExampleAdapter_CallAllJSON() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	msg, err := toolanthropic.New(reg).CallAllJSON(context.Background(), json.RawMessage(`[
		{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}]`))
	fmt.Println(string(msg), err)
	// Output:
	// {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"18°C, partly cloudy"}]} <nil>
}

// A loop of your own: send the tools, answer the model's tool uses with
// CallAll, ask again, until the model stops to answer.
func Example_loop() {
	srv := scriptedClaude(`get_weather {"city":"Paris"}; get_weather {"town":"Rome"}`,
		`get_weather {"city":"Rome"}`, "Mild in both.")
	defer srv.Close()
	client := anthropic.NewClient(srv.AnthropicOptions()...) // a real program passes none
	ctx := context.Background()

	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	adapter := toolanthropic.New(reg)
	tools, err := adapter.Tools()
	if err != nil {
		panic(err)
	}
	req := params("Weather in Paris and Rome?")
	req.Tools = tools
	for range 10 { // a bound on the model calls
		msg, err := client.Messages.New(ctx, req)
		if err != nil {
			panic(err)
		}
		if msg.StopReason != anthropic.StopReasonToolUse {
			fmt.Println(msg.Content[0].Text)
			break
		}
		results := adapter.CallAll(ctx, *msg)
		for _, b := range results.OfUser.Content {
			fmt.Printf("%s: %s\n", b.OfToolResult.ToolUseID, b.OfToolResult.Content[0].OfText.Text)
		}
		req.Messages = append(req.Messages, msg.ToParam(), results)
	}
	// Output:
	// toolu_1_1: 18°C, partly cloudy
	// toolu_1_2: invalid arguments for tool "get_weather":
	// - city: required field is missing; expected a string
	// - town: unknown field; allowed fields: city
	// Fix the arguments and call the tool again.
	// toolu_2_1: 18°C, partly cloudy
	// Mild in both.
}

// The agent loop with the official client: tools go out, tool uses come
// back, results go back, until the model answers.
func ExampleAdapter_Run() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	adapter := toolanthropic.New(reg, toolanthropic.WithStrict())

	srv := scriptedClaude(`get_weather {"city":"Paris"}`, "In Paris: 18°C, partly cloudy")
	defer srv.Close()
	client := anthropic.NewClient(srv.AnthropicOptions()...) // a real program passes none

	tools, err := adapter.Tools()
	if err != nil {
		panic(err)
	}
	// Mark the tools for prompt caching; each Tools call returns fresh params.
	tools[len(tools)-1].OfTool.CacheControl = anthropic.NewCacheControlEphemeralParam()
	req := params("Weather in Paris?")
	req.Tools = tools

	run, err := adapter.Run(context.Background(), &client.Messages, req, nil, agent.Options{
		MaxSteps: 5,
		// Events show the run as it goes: here each call and its result.
		OnEvent: func(e agent.Event) {
			if e.Kind == agent.CallResult {
				fmt.Printf("%s%s -> %s\n", e.Call.Name, e.Call.Arguments, e.Output.Text)
			}
		},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(run.Answer())
	fmt.Println(run.Steps(), "steps,", len(run.Messages), "messages")
	// Output:
	// get_weather{"city":"Paris"} -> 18°C, partly cloudy
	// In Paris: 18°C, partly cloudy
	// 2 steps, 4 messages
}

// A call that needs the host's approval pauses the run; its State, kept
// as JSON for as long as the host takes, resumes it.
func ExampleAdapter_Run_resume() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(book)
	adapter := toolanthropic.New(reg)

	srv := scriptedClaude(`book {"city":"Paris"}`, "Done: booked a room in Paris.")
	defer srv.Close()
	client := anthropic.NewClient(srv.AnthropicOptions()...)
	req := params("Book me a room in Paris.")

	run, err := adapter.Run(context.Background(), &client.Messages, req, nil, agent.Options{})
	if !errors.Is(err, agent.ErrPaused) {
		panic(err)
	}
	saved, _ := json.Marshal(run.State) // to a database, a queue, a file

	var state agent.State
	json.Unmarshal(saved, &state)
	for _, c := range state.Pending() {
		fmt.Printf("approve %s %s\n", c.Name, c.Arguments)
		state.Approve(c.Key())
	}
	run, err = adapter.Run(context.Background(), &client.Messages, req, &state, printEvents())
	if err != nil {
		panic(err)
	}
	fmt.Println(run.Answer())
	// Output:
	// approve book {"city":"Paris"}
	//   -> booked a room in Paris
	// Done: booked a room in Paris.
}

// A streamed run shows the answer as it is written and each call as the
// model asks for it.
func ExampleAdapter_Run_stream() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)

	srv := scriptedClaude(`get_weather {"city":"Paris"}`, "In Paris: 18°C, partly cloudy")
	defer srv.Close()
	client := anthropic.NewClient(srv.AnthropicOptions()...)

	_, err := toolanthropic.New(reg).Run(context.Background(), &client.Messages, params("Weather in Paris?"), nil, agent.Options{Stream: true, OnEvent: func(e agent.Event) {
		switch e.Kind {
		case agent.CallStarted:
			fmt.Printf("[%s ", e.Call.Name)
		case agent.ArgumentsDelta:
			fmt.Print(e.Delta)
		case agent.CallReady:
			fmt.Println("]")
		case agent.TextDelta:
			fmt.Print(e.Text)
		}
	}})
	fmt.Println()
	if err != nil {
		panic(err)
	}
	// Output:
	// [get_weather {"city":"Paris"}]
	// In Paris: 18°C, partly cloudy
}

// A streamed run that pauses goes on as any other, with Run and its
// State; a State that a plain run left resumes streamed as well.
func ExampleAdapter_Run_resumeStream() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(book)
	adapter := toolanthropic.New(reg)
	srv := scriptedClaude(`book {"city":"Paris"}`, "Then I will not book it.")
	defer srv.Close()
	client := anthropic.NewClient(srv.AnthropicOptions()...)
	req := params("Book me a room in Paris.")
	printText := agent.Options{Stream: true, OnEvent: func(e agent.Event) {
		if e.Kind == agent.TextDelta {
			fmt.Print(e.Text)
		}
	}}
	run, err := adapter.Run(context.Background(), &client.Messages, req, nil, printText)
	for errors.Is(err, agent.ErrPaused) {
		for _, c := range run.State.Pending() {
			run.State.Reject(c.Key(), "the user books rooms themselves")
		}
		run, err = adapter.Run(context.Background(), &client.Messages, req, run.State, printText)
	}
	fmt.Println()
	fmt.Println(err)
	// Output:
	// Then I will not book it.
	// <nil>
}

// Answer is the text of the model's last message; Final holds the whole
// message, and its stop reason tells an answer from a refusal.
func ExampleRunResult_Answer() {
	srv := scriptedClaude("Hello! Ask me about the weather.")
	defer srv.Close()
	client := anthropic.NewClient(srv.AnthropicOptions()...)
	run, err := toolanthropic.New(toolreg.NewRegistry()).Run(context.Background(), &client.Messages, params("Hi"), nil, agent.Options{})
	fmt.Println(run.Answer(), err)
	fmt.Println(run.Final.StopReason)
	// Output:
	// Hello! Ask me about the weather. <nil>
	// end_turn
}

// Steps counts the model calls, those before a pause included.
func ExampleRunResult_Steps() {
	srv := scriptedClaude(`get_weather {"city":"Lima"}`, `book {"city":"Lima"}`, "Booked.")
	defer srv.Close()
	client := anthropic.NewClient(srv.AnthropicOptions()...)
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather, book)
	adapter := toolanthropic.New(reg)
	run, _ := adapter.Run(context.Background(), &client.Messages, params("Book Lima."), nil, agent.Options{})
	fmt.Println("paused after", run.Steps(), "steps")
	run.State.Approve(run.State.Pending()[0].Key())
	run, _ = adapter.Run(context.Background(), &client.Messages, params("Book Lima."), run.State, agent.Options{})
	fmt.Println("done after", run.Steps(), "steps")
	// Output:
	// paused after 2 steps
	// done after 3 steps
}

// A host that drives the run itself (a durable workflow, say) asks the
// model through Model, one step at a time, and runs the calls where it
// likes.
func ExampleAdapter_Model() {
	srv := scriptedClaude(`get_weather {"city":"Paris"}`, "Mild in Paris.")
	defer srv.Close()
	client := anthropic.NewClient(srv.AnthropicOptions()...)
	ctx := context.Background()
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)

	var state agent.State
	model, err := toolanthropic.New(reg).Model(&client.Messages, params("Weather in Paris?"), &state)
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
	var transcript []json.RawMessage
	json.Unmarshal(state.Transcript, &transcript)
	fmt.Println(len(transcript), "messages")
	// Output:
	// {anthropic claude-sonnet-4-6}
	// get_weather -> 18°C, partly cloudy
	// 4 messages
}

// Strict tool use: the model's input always matches the schema. A tool
// strict mode cannot express is refused, naming the tool and the field,
// rather than sent with a weaker schema.
func ExampleWithStrict() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather, setLabels)
	_, err := toolanthropic.New(reg, toolanthropic.WithStrict()).Tools()
	fmt.Println(errors.Is(err, toolreg.ErrUnsupportedSchema))
	fmt.Println(err)
	// Output:
	// true
	// tool cannot be sent in strict mode: tool "set_labels": schema at labels: Anthropic strict mode cannot express an open map or free-form object (additionalProperties other than false): use a struct, or a list of {key, value} objects
}

// Only the named tools go strict: strict mode has per-request limits
// (MaxStrictTools and the others) a large registry may pass.
func ExampleWithStrictTools() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather, setLabels)
	tools, err := toolanthropic.New(reg, toolanthropic.WithStrictTools("get_weather")).Tools()
	for _, t := range tools {
		fmt.Println(t.OfTool.Name, t.OfTool.Strict.Value)
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
	adapter := toolanthropic.New(reg, toolanthropic.WithStrict(), toolanthropic.WithNonStrictFallback())
	_, err := adapter.Tools()
	fmt.Println(err)
	fmt.Println(adapter.NotStrict("set_labels"))
	// Output:
	// <nil>
	// tool cannot be sent in strict mode: tool "set_labels": schema at labels: Anthropic strict mode cannot express an open map or free-form object (additionalProperties other than false): use a struct, or a list of {key, value} objects
}

// Strict reports which tools go in strict mode, for logs or tests.
func ExampleAdapter_Strict() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather, setLabels)
	plain, strict := toolanthropic.New(reg), toolanthropic.New(reg, toolanthropic.WithStrictTools("get_weather"))
	fmt.Println(plain.Strict("get_weather"), strict.Strict("get_weather"), strict.Strict("set_labels"))
	// Output:
	// false true false
}

// A dynamic tool (here an MCP server's, say) whose schema strict mode
// cannot express is sent non-strict rather than refused; NotStrict says
// why.
func ExampleAdapter_NotStrict() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather, toolreg.MustNewDynamic("search", "Searches the documents.",
		json.RawMessage(`{"type":"object","properties":{"filters":{"type":"object","additionalProperties":{"type":"string"}}}}`),
		func(context.Context, json.RawMessage) (string, error) { return "", nil }))
	adapter := toolanthropic.New(reg, toolanthropic.WithStrict())
	fmt.Println(adapter.NotStrict("get_weather"))
	fmt.Println(adapter.NotStrict("search"))
	// Output:
	// <nil>
	// tool cannot be sent in strict mode: tool "search": schema at filters: Anthropic strict mode cannot express an open map or free-form object (additionalProperties other than false): use a struct, or a list of {key, value} objects
}
