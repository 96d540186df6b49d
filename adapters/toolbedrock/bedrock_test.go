package toolbedrock

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/adapt/adapttest"
)

func userMessage(text string) []types.Message {
	return []types.Message{{Role: types.ConversationRoleUser, Content: []types.ContentBlock{&types.ContentBlockMemberText{Value: text}}}}
}

// TestRequestTools sends the definitions through the SDK's client and
// checks the tools of the request body against a golden file.
func TestRequestTools(t *testing.T) {
	api := fakeBedrock(answer("hi"))
	tools, err := New(adapttest.Registry(nil)).Tools()
	if err != nil {
		t.Fatal(err)
	}
	in := converseInput()
	in.ToolConfig = &types.ToolConfiguration{Tools: tools}
	if _, err := newClient(t, api).Converse(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	adapttest.GoldenValue(t, "tools.json", api.Requests[0]["toolConfig"], *update)
}

// TestToolsCached: the definitions are built once per tool, and each call
// of Tools hands out copies.
func TestToolsCached(t *testing.T) {
	a := New(adapttest.Registry(nil))
	first, err := a.Tools()
	if err != nil {
		t.Fatal(err)
	}
	first[0].(*types.ToolMemberToolSpec).Value.Name = aws.String("changed")
	second, _ := a.Tools()
	s1, s2 := first[1].(*types.ToolMemberToolSpec).Value, second[1].(*types.ToolMemberToolSpec).Value
	if got := aws.ToString(second[0].(*types.ToolMemberToolSpec).Value.Name); got != "get_weather" {
		t.Errorf("a caller's change reached the cache: %q", got)
	}
	if s1.InputSchema.(*types.ToolInputSchemaMemberJson).Value != s2.InputSchema.(*types.ToolInputSchemaMemberJson).Value {
		t.Error("the schema document was built again")
	}
}

// TestUnsupportedSchema: a schema Converse cannot take is an error naming
// the tool and the field, for Tools and for a run offering the tool.
func TestUnsupportedSchema(t *testing.T) {
	type node struct {
		Name string `json:"name"`
		Kids []node `json:"kids,omitempty"`
	}
	reg := adapttest.Registry(nil)
	reg.MustAdd(toolreg.MustNew("tree", "Takes a tree.", func(context.Context, struct {
		Root node `json:"root"`
	}) (string, error) {
		return "", nil
	}))
	_, err := New(reg).Tools()
	adapttest.WantUnsupported(t, err, "tree", "root.kids")

	api := fakeBedrock(answer("never sent"))
	_, err = New(reg).Run(context.Background(), newClient(t, api), converseInput(), nil, agent.Options{})
	adapttest.WantUnsupported(t, err, "tree", "root.kids")
	if len(api.Requests) != 0 {
		t.Errorf("%d requests sent", len(api.Requests))
	}
}

// TestCall: the toolUse blocks of an assistant message become calls, and
// their results one user message, in order, in Converse's shapes.
func TestCall(t *testing.T) {
	use := func(id, name string, input any) types.ContentBlock {
		return &types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{ToolUseId: aws.String(id), Name: aws.String(name), Input: document.NewLazyDocument(input)}}
	}
	text := func(s string) types.ToolResultContentBlock { return &types.ToolResultContentBlockMemberText{Value: s} }
	reg := adapttest.Registry(nil)
	reg.MustAdd(toolreg.MustNew("list", "Lists cities.", func(context.Context, struct{}) ([]string, error) { return []string{"Oslo"}, nil }),
		toolreg.MustNew("nothing", "Says nothing.", func(context.Context, struct{}) (string, error) { return "", nil }))
	msg := types.Message{Role: types.ConversationRoleAssistant, Content: []types.ContentBlock{
		&types.ContentBlockMemberText{Value: "Let me look."},
		use("t1", "get_weather", map[string]any{"city": "Oslo", "days": 2}),
		use("t2", "get_weather", map[string]any{"city": "Atlantis"}),
		&types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{ToolUseId: aws.String("s1"), Name: aws.String("web_grounding"), Type: types.ToolUseTypeServerToolUse}},
		use("t3", "list", map[string]any{}),
		use("t4", "nothing", nil),
		use("t5", "get_wether", map[string]any{"city": "Oslo"}),
	}}
	a := New(reg)
	wantCalls := []toolreg.ToolCall{
		{ID: "t1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Oslo","days":2}`)},
		{ID: "t2", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Atlantis"}`)},
		{ID: "t3", Name: "list", Arguments: json.RawMessage(`{}`)},
		{ID: "t4", Name: "nothing", Arguments: json.RawMessage(`null`)},
		{ID: "t5", Name: "get_wether", Arguments: json.RawMessage(`{"city":"Oslo"}`)},
	}
	if diff := cmp.Diff(wantCalls, a.ToolCalls(msg)); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	got := a.CallAll(context.Background(), msg)
	want := []types.ToolResultBlock{
		{ToolUseId: aws.String("t1"), Content: []types.ToolResultContentBlock{jsonBlock(`{"city":"Oslo","days":2,"unit":"celsius"}`)}},
		{ToolUseId: aws.String("t2"), Status: types.ToolResultStatusError, Content: []types.ToolResultContentBlock{text(adapttest.ErrNoStation.Error())}},
		{ToolUseId: aws.String("t3"), Content: []types.ToolResultContentBlock{text(`["Oslo"]`)}}, // JSON, but no object: text
		// Converse refuses an empty text block.
		{ToolUseId: aws.String("t4"), Content: []types.ToolResultContentBlock{text(emptyResult)}},
		{ToolUseId: aws.String("t5"), Status: types.ToolResultStatusError, Content: []types.ToolResultContentBlock{text(`there is no tool named "get_wether"; available tools: get_weather, get_time, list, nothing`)}},
	}
	if got.Role != types.ConversationRoleUser {
		t.Errorf("role %q", got.Role)
	}
	var results []types.ToolResultBlock
	for _, b := range got.Content {
		results = append(results, b.(*types.ContentBlockMemberToolResult).Value)
	}
	if diff := cmp.Diff(want, results, resultOptions...); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}

	if got := a.CallAll(context.Background(), types.Message{Role: types.ConversationRoleAssistant}); got.Role != "" || got.Content != nil {
		t.Errorf("a message without tool uses: %+v", got)
	}
}

// jsonBlock is a json result block of the given JSON.
func jsonBlock(s string) types.ToolResultContentBlock {
	v, err := documentValue([]byte(s))
	if err != nil {
		panic(err)
	}
	return &types.ToolResultContentBlockMemberJson{Value: document.NewLazyDocument(v)}
}

// resultOptions compare the SDK's result types: documents as the JSON
// they write, and no unexported fields.
var resultOptions = []cmp.Option{
	cmp.Comparer(func(a, b document.Interface) bool {
		return string(documentJSON(a)) == string(documentJSON(b))
	}),
	cmp.Exporter(func(reflect.Type) bool { return true }),
}
