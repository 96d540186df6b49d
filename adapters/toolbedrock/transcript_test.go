package toolbedrock

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
)

// TestTranscriptRoundTrip: messages of every kind a tool run meets go
// through the State's JSON and come back the same, documents and bytes
// included, and write the same JSON again.
func TestTranscriptRoundTrip(t *testing.T) {
	lazy := func(s string) document.Interface {
		v, err := documentValue([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return document.NewLazyDocument(v)
	}
	msgs := []types.Message{
		{Role: types.ConversationRoleUser, Content: []types.ContentBlock{
			&types.ContentBlockMemberText{Value: "What is in this picture? ✓"},
			&types.ContentBlockMemberImage{Value: types.ImageBlock{Format: types.ImageFormatPng, Source: &types.ImageSourceMemberBytes{Value: []byte{0x89, 'P', 'N', 'G', 0}}}},
			&types.ContentBlockMemberDocument{Value: types.DocumentBlock{Name: aws.String("notes"), Format: types.DocumentFormatTxt, Source: &types.DocumentSourceMemberText{Value: "a note"}}},
			&types.ContentBlockMemberCachePoint{Value: types.CachePointBlock{Type: types.CachePointTypeDefault}},
		}},
		{Role: types.ConversationRoleAssistant, Content: []types.ContentBlock{
			&types.ContentBlockMemberReasoningContent{Value: &types.ReasoningContentBlockMemberReasoningText{Value: types.ReasoningTextBlock{Text: aws.String("Look it up."), Signature: aws.String("c2ln")}}},
			&types.ContentBlockMemberReasoningContent{Value: &types.ReasoningContentBlockMemberRedactedContent{Value: []byte("hidden")}},
			&types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{ToolUseId: aws.String("t1"), Name: aws.String("lookup"),
				Input: lazy(`{"id":12345678901234567890,"ratio":1.50,"tags":["a",null,true],"nested":{"empty":{}}}`)}},
		}},
		{Role: types.ConversationRoleUser, Content: []types.ContentBlock{
			&types.ContentBlockMemberToolResult{Value: types.ToolResultBlock{ToolUseId: aws.String("t1"), Status: types.ToolResultStatusError,
				Content: []types.ToolResultContentBlock{&types.ToolResultContentBlockMemberText{Value: "no such id"}}}},
			&types.ContentBlockMemberToolResult{Value: types.ToolResultBlock{ToolUseId: aws.String("t2"),
				Content: []types.ToolResultContentBlock{&types.ToolResultContentBlockMemberJson{Value: lazy(`{"x":1e400}`)}}}},
		}},
	}
	first, err := encodeMessages(msgs)
	if err != nil {
		t.Fatal(err)
	}
	back, err := decodeMessages(first)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(msgs, back, resultOptions...); diff != "" {
		t.Errorf("messages changed on the way (-sent +read):\n%s", diff)
	}
	again, err := encodeMessages(back)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, again) {
		t.Errorf("written again differently:\n%s\n%s", first, again)
	}
	for _, want := range []string{`"id":12345678901234567890`, `"ratio":1.50`, `"x":1e400`, `"bytes":"iVBORwA="`, `"signature":"c2ln"`} {
		if !bytes.Contains(first, []byte(want)) {
			t.Errorf("the JSON lacks %s:\n%s", want, first)
		}
	}

	for _, bad := range []string{`{`, `{"role":"user"}`, `[{"content":"text"}]`} {
		if _, err := decodeMessages(json.RawMessage(bad)); err == nil {
			t.Errorf("decodeMessages(%s): no error", bad)
		}
	}
	if empty, err := encodeMessages(nil); err != nil || string(empty) != "[]" {
		t.Errorf("no messages: %s, %v", empty, err)
	}
}

// TestFixtures: the payloads of testdata/fixtures, written by hand from
// Bedrock's documentation, are
// what the adapter reads and writes.
func TestFixtures(t *testing.T) {
	read := func(name string) json.RawMessage {
		b, err := os.ReadFile(filepath.Join("testdata", "fixtures", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	type weatherArgs struct {
		Location string `json:"location" jsonschema:"description=City name\\, e.g. Paris"`
		Unit     string `json:"unit,omitempty" jsonschema:"enum=celsius,enum=fahrenheit,description=Temperature unit"`
		Days     *int   `json:"days,omitempty" jsonschema:"minimum=1,maximum=7,description=Forecast length in days"`
	}
	type forecast struct {
		TemperatureC int    `json:"temperature_c"`
		Conditions   string `json:"conditions"`
	}
	var got []weatherArgs
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("get_weather", "Get the weather forecast for a city.", func(_ context.Context, a weatherArgs) (forecast, error) {
		got = append(got, a)
		return forecast{18, "partly cloudy"}, nil
	}))
	a := New(reg)

	// The definition: the fixture's, and additionalProperties false, which
	// the canonical schema has and Bedrock takes.
	tools, err := a.Tools()
	if err != nil {
		t.Fatal(err)
	}
	api := fakeBedrock(answer("ok"))
	in := converseInput()
	in.ToolConfig = &types.ToolConfiguration{Tools: tools}
	if _, err := newClient(t, api).Converse(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	want := decode(t, read("bedrock.tool.json"))
	want.(map[string]any)["toolSpec"].(map[string]any)["inputSchema"].(map[string]any)["json"].(map[string]any)["additionalProperties"] = false
	if diff := cmp.Diff(want, api.Requests[0]["toolConfig"].(map[string]any)["tools"].([]any)[0]); diff != "" {
		t.Errorf("the tool differs from bedrock.tool.json (-fixture +sent):\n%s", diff)
	}

	// The call and its result; status success is what no status means,
	// and is not sent.
	msgs, err := decodeMessages(json.RawMessage("[" + string(read("bedrock.call.json")) + "]"))
	if err != nil {
		t.Fatal(err)
	}
	result, err := encodeMessages([]types.Message{a.CallAll(context.Background(), msgs[0])})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]weatherArgs{{Location: "Paris", Unit: "celsius"}}, got); diff != "" {
		t.Errorf("the call's arguments (-want +got):\n%s", diff)
	}
	wantResult := decode(t, read("bedrock.result.json"))
	delete(wantResult.(map[string]any)["content"].([]any)[0].(map[string]any)["toolResult"].(map[string]any), "status")
	if diff := cmp.Diff([]any{wantResult}, decode(t, result)); diff != "" {
		t.Errorf("the result differs from bedrock.result.json (-fixture +sent):\n%s", diff)
	}
}

func decode(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}
