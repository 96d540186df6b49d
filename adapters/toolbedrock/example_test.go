package toolbedrock_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/aws/smithy-go/eventstream"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolbedrock"
	"github.com/toolreg/toolreg/agent"
)

type weatherArgs struct {
	City string `json:"city" jsonschema:"description=City name\\, e.g. Paris"`
	Days *int   `json:"days,omitempty" jsonschema:"minimum=1,maximum=7"`
}

type forecast struct {
	City   string `json:"city"`
	HighsC []int  `json:"highs_c"`
}

func registry() *toolreg.Registry {
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("get_weather", "Weather forecast for a city. Use it for weather questions only.",
		func(_ context.Context, a weatherArgs) (forecast, error) {
			return forecast{City: a.City, HighsC: []int{18}}, nil
		}),
		toolreg.MustNew("book_trip", "Books a trip to a city.", func(_ context.Context, a weatherArgs) (string, error) {
			return "booked " + a.City, nil
		}, toolreg.WithApproval()))
	return reg
}

// The definitions, for a request's ToolConfiguration.
func ExampleAdapter_Tools() {
	tools, err := toolbedrock.New(registry()).Tools()
	if err != nil {
		log.Fatal(err)
	}
	spec := tools[0].(*types.ToolMemberToolSpec).Value
	schema, _ := spec.InputSchema.(*types.ToolInputSchemaMemberJson).Value.MarshalSmithyDocument()
	fmt.Println(*spec.Name, string(schema))
	// Output:
	// get_weather {"additionalProperties":false,"properties":{"city":{"description":"City name, e.g. Paris","type":"string"},"days":{"maximum":7,"minimum":1,"type":"integer"}},"required":["city"],"type":"object"}
}

// Answer the tool uses of an assistant message, here one the SDK would
// have returned: the results go in the next user message.
func ExampleAdapter_CallAll() {
	asked := types.Message{Role: types.ConversationRoleAssistant, Content: []types.ContentBlock{
		&types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{ToolUseId: aws.String("tooluse_1"), Name: aws.String("get_weather"),
			Input: document.NewLazyDocument(map[string]any{"city": "Paris"})}},
		&types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{ToolUseId: aws.String("tooluse_2"), Name: aws.String("get_weather"),
			Input: document.NewLazyDocument(map[string]any{"city": "Rome", "days": 9})}},
	}}
	results := toolbedrock.New(registry()).CallAll(context.Background(), asked)
	for _, b := range results.Content {
		r := b.(*types.ContentBlockMemberToolResult).Value
		switch c := r.Content[0].(type) {
		case *types.ToolResultContentBlockMemberJson:
			j, _ := c.Value.MarshalSmithyDocument()
			fmt.Printf("%s json %s\n", *r.ToolUseId, j)
		case *types.ToolResultContentBlockMemberText:
			fmt.Printf("%s %s %q\n", *r.ToolUseId, r.Status, c.Value)
		}
	}
	// Output:
	// tooluse_1 json {"city":"Paris","highs_c":[18]}
	// tooluse_2 error "invalid arguments for tool \"get_weather\":\n- days: 9 is greater than the maximum 7\nFix the arguments and call the tool again."
}

// scriptedBedrock stands in for Bedrock's runtime API so that the
// examples run offline, as a test of your own code would: point the SDK
// at it with BaseEndpoint. It answers each Converse request with the next
// of replies, and each ConverseStream request with the same as AWS event
// stream messages: a reply `name {input}` (several joined by "; ") asks
// for tool uses, any other is the model's answer.
func scriptedBedrock(replies ...string) *httptest.Server {
	return httptest.NewServer(scriptedHandler(replies...))
}

// scriptedHandler is scriptedBedrock's handler.
func scriptedHandler(replies ...string) http.Handler {
	var n atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1))
		reply := replies[i-1]
		content := []any{map[string]any{"text": reply}}
		stop := "end_turn"
		if strings.Contains(reply, "{") {
			content, stop = nil, "tool_use"
			for j, c := range strings.Split(reply, "; ") {
				name, input, _ := strings.Cut(c, " ")
				content = append(content, map[string]any{"toolUse": map[string]any{
					"toolUseId": fmt.Sprintf("tooluse_%d_%d", i, j+1), "name": name, "input": json.RawMessage(input)}})
			}
		}
		usage := map[string]int{"inputTokens": 12, "outputTokens": 7, "totalTokens": 19}
		if !strings.HasSuffix(r.URL.Path, "/converse-stream") {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{"output": map[string]any{"message": map[string]any{"role": "assistant", "content": content}},
				"stopReason": stop, "usage": usage, "metrics": map[string]int{"latencyMs": 100}})
			return
		}
		w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
		send := func(event string, payload any) {
			b, _ := json.Marshal(payload)
			eventstream.NewEncoder().Encode(w, eventstream.Message{Headers: eventstream.Headers{
				{Name: ":message-type", Value: eventstream.StringValue("event")},
				{Name: ":event-type", Value: eventstream.StringValue(event)},
				{Name: ":content-type", Value: eventstream.StringValue("application/json")},
			}, Payload: b})
		}
		send("messageStart", map[string]any{"role": "assistant"})
		for j, block := range content {
			delta := map[string]any{"text": reply} // a text block has no start event
			if use, ok := block.(map[string]any)["toolUse"].(map[string]any); ok {
				send("contentBlockStart", map[string]any{"contentBlockIndex": j, "start": map[string]any{
					"toolUse": map[string]any{"toolUseId": use["toolUseId"], "name": use["name"]}}})
				delta = map[string]any{"toolUse": map[string]any{"input": string(use["input"].(json.RawMessage))}}
			}
			send("contentBlockDelta", map[string]any{"contentBlockIndex": j, "delta": delta})
			send("contentBlockStop", map[string]any{"contentBlockIndex": j})
		}
		send("messageStop", map[string]any{"stopReason": stop})
		send("metadata", map[string]any{"usage": usage, "metrics": map[string]int{"latencyMs": 100}})
	})
}

// offlineClient is the SDK's client of srv, as Example_loop makes it.
func offlineClient(srv *httptest.Server) *bedrockruntime.Client {
	cfg, err := config.LoadDefaultConfig(context.Background(), config.WithRegion("us-east-1"),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("offline", "offline", "")))
	if err != nil {
		log.Fatal(err)
	}
	return bedrockruntime.NewFromConfig(cfg, func(o *bedrockruntime.Options) { o.BaseEndpoint = aws.String(srv.URL) })
}

// userMessage is a conversation of one user message.
func userMessage(text string) []types.Message {
	return []types.Message{{Role: types.ConversationRoleUser, Content: []types.ContentBlock{&types.ContentBlockMemberText{Value: text}}}}
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
	adapter := toolbedrock.New(reg)
	reg.MustAdd(toolreg.MustNew("get_time", "The current time in a city.", func(context.Context, weatherArgs) (string, error) {
		return "10:00", nil
	}))
	tools, err := adapter.Tools()
	fmt.Println(len(tools), *tools[0].(*types.ToolMemberToolSpec).Value.Name, err)
	// Output:
	// 1 get_time <nil>
}

// ToolCalls lists the tool uses of an assistant message and runs nothing;
// text and reasoning are skipped.
func ExampleAdapter_ToolCalls() {
	asked := types.Message{Role: types.ConversationRoleAssistant, Content: []types.ContentBlock{
		&types.ContentBlockMemberText{Value: "Let me check."},
		&types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{ToolUseId: aws.String("tooluse_1"), Name: aws.String("get_weather"),
			Input: document.NewLazyDocument(map[string]any{"city": "Paris"})}},
	}}
	for _, c := range toolbedrock.New(registry()).ToolCalls(asked) {
		fmt.Println(c.ID, c.Name, string(c.Arguments))
	}
	// Output:
	// tooluse_1 get_weather {"city":"Paris"}
}

// A loop of your own on Converse: send the tools, answer the model's tool
// uses with CallAll, ask again, until the model answers.
func Example_loop() {
	srv := scriptedBedrock(`get_weather {"city":"Paris"}; get_weather {"city":"Rome","days":9}`, "Sunny in Paris; Rome I could not check.")
	defer srv.Close()
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx, config.WithRegion("us-east-1"),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("offline", "offline", ""))) // a real program reads them
	if err != nil {
		log.Fatal(err)
	}
	client := bedrockruntime.NewFromConfig(cfg, func(o *bedrockruntime.Options) { o.BaseEndpoint = aws.String(srv.URL) })

	adapter := toolbedrock.New(registry())
	tools, err := adapter.Tools()
	if err != nil {
		log.Fatal(err)
	}
	input := &bedrockruntime.ConverseInput{
		ModelId:    aws.String("us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
		Messages:   userMessage("Weather in Paris and in Rome?"),
		ToolConfig: &types.ToolConfiguration{Tools: tools},
	}
	for range 10 { // a bound on the model calls
		out, err := client.Converse(ctx, input)
		if err != nil {
			log.Fatal(err)
		}
		msg := out.Output.(*types.ConverseOutputMemberMessage).Value
		if out.StopReason != types.StopReasonToolUse {
			fmt.Println(msg.Content[0].(*types.ContentBlockMemberText).Value)
			break
		}
		results := adapter.CallAll(ctx, msg)
		for _, b := range results.Content {
			r := b.(*types.ContentBlockMemberToolResult).Value
			fmt.Printf("%s status=%q\n", *r.ToolUseId, r.Status)
		}
		input.Messages = append(input.Messages, msg, results)
	}
	// Output:
	// tooluse_1_1 status=""
	// tooluse_1_2 status="error"
	// Sunny in Paris; Rome I could not check.
}

// The agent loop with the SDK's client: tools go out, tool uses come back,
// results go back, until the model answers.
func ExampleAdapter_Run() {
	srv := scriptedBedrock(`get_weather {"city":"Paris"}`, "Sunny in Paris, 18°C.")
	defer srv.Close()
	client := offlineClient(srv)
	run, err := toolbedrock.New(registry()).Run(context.Background(), client, &bedrockruntime.ConverseInput{
		ModelId:  aws.String("us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
		Messages: userMessage("Weather in Paris?"),
	}, nil, printEvents())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(run.Answer())
	fmt.Println(len(run.Messages), "messages,", *run.Final.Usage.TotalTokens, "tokens in the last step")
	// Output:
	// get_weather {"city":"Paris"}
	//   -> {"city":"Paris","highs_c":[18]}
	// Sunny in Paris, 18°C.
	// 4 messages, 19 tokens in the last step
}

// A call that needs approval pauses the run; the host decides, and the
// run goes on from its State, which may have been stored as JSON: Run
// again with it.
func ExampleAdapter_Run_resume() {
	srv := scriptedBedrock(`book_trip {"city":"Oslo"}`, "Your trip to Oslo is booked.")
	defer srv.Close()
	client := offlineClient(srv)
	a := toolbedrock.New(registry())
	input := &bedrockruntime.ConverseInput{ModelId: aws.String("us.amazon.nova-pro-v1:0"), Messages: userMessage("Book me a trip to Oslo.")}
	run, err := a.Run(context.Background(), client, input, nil, agent.Options{})
	for errors.Is(err, agent.ErrPaused) {
		for _, c := range run.State.Pending() {
			fmt.Printf("allow %s %s? yes\n", c.Name, c.Arguments)
			run.State.Approve(c.Key())
		}
		run, err = a.Run(context.Background(), client, input, run.State, agent.Options{})
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(run.Answer())
	// Output:
	// allow book_trip {"city":"Oslo"}? yes
	// Your trip to Oslo is booked.
}

// The agent loop on ConverseStream (agent.Options.Stream): the answer
// prints as the model writes it, and each tool starts as soon as its input
// is complete.
func ExampleAdapter_Run_stream() {
	srv := scriptedBedrock(`get_weather {"city":"Paris"}; get_weather {"city":"Rome"}`, "Sunny in both.")
	defer srv.Close()
	client := offlineClient(srv)
	_, err := toolbedrock.New(registry()).Run(context.Background(), client, &bedrockruntime.ConverseInput{
		ModelId:  aws.String("us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
		Messages: userMessage("Weather in Paris and in Rome?"),
	}, nil, agent.Options{Stream: true, OnEvent: func(e agent.Event) {
		switch e.Kind {
		case agent.TextDelta:
			fmt.Print(e.Text)
		case agent.CallResult:
			fmt.Printf("[%s %s]\n", e.Call.Name, e.Output.Text)
		}
	}})
	fmt.Println()
	fmt.Println(err)
	// Output:
	// [get_weather {"city":"Paris","highs_c":[18]}]
	// [get_weather {"city":"Rome","highs_c":[18]}]
	// Sunny in both.
	// <nil>
}

// A run paused on ConverseStream goes on there, or without streaming: the
// State is the same.
func ExampleAdapter_Run_resumeStream() {
	srv := scriptedBedrock(`book_trip {"city":"Oslo"}`, "I will not book it, then.")
	defer srv.Close()
	client := offlineClient(srv)
	a := toolbedrock.New(registry())
	input := &bedrockruntime.ConverseInput{ModelId: aws.String("us.amazon.nova-pro-v1:0"), Messages: userMessage("Book me a trip to Oslo.")}
	run, err := a.Run(context.Background(), client, input, nil, agent.Options{Stream: true})
	fmt.Println(err)
	for _, c := range run.State.Pending() {
		run.State.Reject(c.Key(), "the user cancelled the trip")
	}
	opts := printEvents()
	opts.Stream = true
	run, err = a.Run(context.Background(), client, input, run.State, opts)
	fmt.Println(run.Answer(), err)
	// Output:
	// the run is waiting for the host
	//   -> the host did not allow this call of "book_trip": the user cancelled the trip
	// I will not book it, then. <nil>
}

// Answer is the text of the model's last message; Final holds the whole
// response, its stop reason and usage.
func ExampleRunResult_Answer() {
	srv := scriptedBedrock("Hello! Ask me about the weather.")
	defer srv.Close()
	run, err := toolbedrock.New(registry()).Run(context.Background(), offlineClient(srv),
		&bedrockruntime.ConverseInput{ModelId: aws.String("us.amazon.nova-pro-v1:0"), Messages: userMessage("Hi")}, nil, agent.Options{})
	fmt.Println(run.Answer(), err)
	fmt.Println(run.Final.StopReason)
	// Output:
	// Hello! Ask me about the weather. <nil>
	// end_turn
}

// Steps counts the model calls, those before a pause included.
func ExampleRunResult_Steps() {
	srv := scriptedBedrock(`get_weather {"city":"Lima"}`, `book_trip {"city":"Lima"}`, "Booked.")
	defer srv.Close()
	client := offlineClient(srv)
	a := toolbedrock.New(registry())
	input := &bedrockruntime.ConverseInput{ModelId: aws.String("us.amazon.nova-pro-v1:0"), Messages: userMessage("Book Lima.")}
	run, _ := a.Run(context.Background(), client, input, nil, agent.Options{})
	fmt.Println("paused after", run.Steps(), "steps")
	run.State.Approve(run.State.Pending()[0].Key())
	run, _ = a.Run(context.Background(), client, input, run.State, agent.Options{})
	fmt.Println("done after", run.Steps(), "steps")
	// Output:
	// paused after 2 steps
	// done after 3 steps
}

// A host that drives the run itself (a durable workflow, say) asks the
// model through Model, one step at a time, and runs the calls where it
// likes.
func ExampleAdapter_Model() {
	srv := scriptedBedrock(`get_weather {"city":"Paris"}`, "Mild in Paris.")
	defer srv.Close()
	client := offlineClient(srv)
	ctx := context.Background()
	reg := registry()

	var state agent.State
	model, err := toolbedrock.New(reg).Model(client, &bedrockruntime.ConverseInput{
		ModelId: aws.String("us.amazon.nova-pro-v1:0"), Messages: userMessage("Weather in Paris?")}, &state)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(model.Info())
	for step := 1; ; step++ {
		reply, err := model.Ask(ctx, agent.NewStep(step, reg), nil, nil)
		if err != nil {
			log.Fatal(err)
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
	// {bedrock us.amazon.nova-pro-v1:0}
	// get_weather -> {"city":"Paris","highs_c":[18]}
	// 4 messages
}
