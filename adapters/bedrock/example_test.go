package bedrock_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/bedrock"
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
	tools, err := bedrock.New(registry()).Tools()
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
func ExampleAdapter_Call() {
	asked := types.Message{Role: types.ConversationRoleAssistant, Content: []types.ContentBlock{
		&types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{ToolUseId: aws.String("tooluse_1"), Name: aws.String("get_weather"),
			Input: document.NewLazyDocument(map[string]any{"city": "Paris"})}},
		&types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{ToolUseId: aws.String("tooluse_2"), Name: aws.String("get_weather"),
			Input: document.NewLazyDocument(map[string]any{"city": "Rome", "days": 9})}},
	}}
	results := bedrock.New(registry()).Call(context.Background(), asked)
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

// The agent loop with the SDK's client: tools go out, tool uses come back,
// results go back, until the model answers. It needs AWS credentials and
// access to the model.
func ExampleAdapter_Run() {
	cfg, err := config.LoadDefaultConfig(context.Background(), config.WithRegion("us-east-1"))
	if err != nil {
		log.Fatal(err)
	}
	client := bedrockruntime.NewFromConfig(cfg)
	run, err := bedrock.New(registry()).Run(context.Background(), client, &bedrockruntime.ConverseInput{
		ModelId: aws.String("us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
		Messages: []types.Message{{Role: types.ConversationRoleUser, Content: []types.ContentBlock{
			&types.ContentBlockMemberText{Value: "Weather in Paris?"},
		}}},
	}, agent.Options{MaxSteps: 5})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(run.Answer())
}

// A call that needs approval pauses the run; the host decides, and the
// run goes on from its State, which may have been stored as JSON.
func ExampleAdapter_Resume() {
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	client := bedrockruntime.NewFromConfig(cfg)
	a := bedrock.New(registry())
	input := &bedrockruntime.ConverseInput{
		ModelId: aws.String("us.amazon.nova-pro-v1:0"),
		Messages: []types.Message{{Role: types.ConversationRoleUser, Content: []types.ContentBlock{
			&types.ContentBlockMemberText{Value: "Book me a trip to Oslo."},
		}}},
	}
	run, err := a.Run(context.Background(), client, input, agent.Options{})
	for errors.Is(err, agent.ErrPaused) {
		for _, c := range run.State.Pending() {
			fmt.Printf("allow %s %s? yes\n", c.Name, c.Arguments)
			run.State.Approve(c.Key())
		}
		run, err = a.Resume(context.Background(), client, input, run.State, agent.Options{})
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(run.Answer())
}

// The agent loop on ConverseStream: the answer prints as the model writes
// it, and each tool starts as soon as its input is complete.
func ExampleAdapter_Stream() {
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	client := bedrockruntime.NewFromConfig(cfg)
	_, err = bedrock.New(registry()).Stream(context.Background(), client, &bedrockruntime.ConverseStreamInput{
		ModelId: aws.String("us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
		Messages: []types.Message{{Role: types.ConversationRoleUser, Content: []types.ContentBlock{
			&types.ContentBlockMemberText{Value: "Weather in Paris and in Rome?"},
		}}},
	}, agent.Options{OnEvent: func(e agent.Event) {
		switch e.Kind {
		case agent.TextDelta:
			fmt.Print(e.Text)
		case agent.CallResult:
			fmt.Printf("\n[%s %s]\n", e.Call.Name, e.Output.Text)
		}
	}})
	if err != nil {
		log.Fatal(err)
	}
}
