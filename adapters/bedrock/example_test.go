package bedrock_test

import (
	"context"
	"fmt"
	"log"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/bedrock"
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
