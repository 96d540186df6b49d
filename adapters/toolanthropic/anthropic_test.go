package toolanthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"
	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/adapt/adapttest"
	"github.com/toolreg/toolreg/internal/dialect"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// fakeAnthropic plays the Messages API with the given replies.
func fakeAnthropic(replies ...string) *adapttest.API {
	return &adapttest.API{Replies: replies, Path: "/v1/messages", Error: func(msg string) string {
		return `{"type":"error","error":{"type":"api_error","message":` + msg + `}}`
	}}
}

func newClient(t *testing.T, f *adapttest.API) anthropic.Client {
	return anthropic.NewClient(option.WithBaseURL(f.Serve(t)), option.WithAPIKey("test"), option.WithMaxRetries(0))
}

// message is a Messages API response with the given content blocks.
func message(stopReason string, blocks ...any) string {
	b, _ := json.Marshal(map[string]any{"id": "msg_01", "type": "message", "role": "assistant",
		"model": "claude-sonnet-4-5", "content": blocks, "stop_reason": stopReason, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 100, "output_tokens": 50}})
	return string(b)
}

// toolUses is a response asking for calls, given as name/input pairs (the
// input a JSON object); ids are toolu_1, toolu_2, ...
func toolUses(pairs ...string) string {
	blocks := []any{map[string]any{"type": "text", "text": "Let me check."}}
	for i := 0; i < len(pairs); i += 2 {
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d", i/2+1),
			"name": pairs[i], "input": json.RawMessage(pairs[i+1])})
	}
	return message("tool_use", blocks...)
}

func answer(text string) string {
	return message("end_turn", map[string]any{"type": "text", "text": text})
}

func params(prompt string) anthropic.MessageNewParams {
	return anthropic.MessageNewParams{Model: "claude-sonnet-4-5", MaxTokens: 1024,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(prompt))}}
}

// rawField is one top-level member of a JSON object, as sent.
func rawField(t *testing.T, body []byte, key string) json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	return m[key]
}

// TestRequestTools sends the definitions through the real SDK and checks
// the tools of the request body against golden files, and ToolsJSON
// against the bytes the SDK sent.
func TestRequestTools(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []Option
	}{
		{"tools.json", nil},
		{"tools_strict.json", []Option{WithStrict()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := fakeAnthropic(answer("hi"))
			client := newClient(t, f)
			a := New(adapttest.Registry(nil), tc.opts...)
			tools, err := a.Tools()
			if err != nil {
				t.Fatal(err)
			}
			p := params("hi")
			p.Tools = tools
			if _, err := client.Messages.New(context.Background(), p); err != nil {
				t.Fatal(err)
			}
			sent := rawField(t, f.Raw[0], "tools")
			adapttest.GoldenJSON(t, tc.name, sent, *update)
			wire, err := a.ToolsJSON()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(sent, wire) {
				t.Errorf("ToolsJSON differs from what the SDK sends:\nsdk  %s\njson %s", sent, wire)
			}
		})
	}
}

// TestToolsMatchFixture checks a strict tool against the fixture below, in
// Anthropic's wire form.
func TestToolsMatchFixture(t *testing.T) {
	type args struct {
		Location string `json:"location" jsonschema:"description=City name\\, e.g. Paris"`
		Unit     string `json:"unit,omitempty" jsonschema:"enum=celsius,enum=fahrenheit,description=Temperature unit"`
		Days     *int   `json:"days,omitempty" jsonschema:"minimum=1,maximum=7,description=Forecast length in days"`
	}
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("get_weather", "Get the weather forecast for a city.", func(context.Context, args) (string, error) { return "", nil }))
	wire, err := New(reg, WithStrict()).ToolsJSON()
	if err != nil {
		t.Fatal(err)
	}
	const fixture = `[{"name": "get_weather", "description": "Get the weather forecast for a city.", "strict": true,
	 "input_schema": {
	  "type": "object",
	  "properties": {
	   "location": {"type": "string", "description": "City name, e.g. Paris"},
	   "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "description": "Temperature unit"},
	   "days": {"type": "integer", "description": "Forecast length in days\n\n{minimum: 1, maximum: 7}"}
	  },
	  "required": ["location"],
	  "additionalProperties": false}}]`
	var want, got any
	json.Unmarshal([]byte(fixture), &want)
	json.Unmarshal(wire, &got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-fixture +got):\n%s", diff)
	}
}

type node struct {
	Name string `json:"name"`
	Kids []node `json:"kids,omitempty"`
}

// TestToolsSchemaVerbatim checks that input_schema reaches the wire as the
// dialect lowered it, byte for byte (property order, $defs and all), and
// that the bytes do not change from call to call: prompt caching keys on
// them.
func TestToolsSchemaVerbatim(t *testing.T) {
	type tree struct {
		Root node   `json:"root"`
		Zone string `json:"zone"`
		Alt  int    `json:"alt,omitempty"`
	}
	tool := toolreg.MustNew("plant", "Plants a tree.", func(context.Context, tree) (string, error) { return "", nil })
	reg := toolreg.NewRegistry()
	reg.MustAdd(tool)
	want, err := dialect.Anthropic(tool.InputSchema())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(want, []byte(`"$defs"`)) {
		t.Fatalf("the test needs a schema with $defs: %s", want)
	}
	a := New(reg)
	first, err := a.ToolsJSON()
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		again, _ := a.ToolsJSON()
		if !bytes.Equal(first, again) {
			t.Fatalf("ToolsJSON changed between calls:\n%s\n%s", first, again)
		}
	}
	var tools []map[string]json.RawMessage
	if err := json.Unmarshal(first, &tools); err != nil {
		t.Fatal(err)
	}
	if got := tools[0]["input_schema"]; !bytes.Equal(got, want) {
		t.Errorf("input_schema rewritten:\ngot  %s\nwant %s", got, want)
	}
	s := string(first)
	if !(strings.Index(s, `"root"`) < strings.Index(s, `"zone"`) && strings.Index(s, `"zone"`) < strings.Index(s, `"alt"`)) {
		t.Errorf("property order lost: %s", s)
	}
	if _, ok := tools[0]["strict"]; ok {
		t.Errorf("a non-strict tool carries strict: %s", s)
	}
}

// TestToolsAreCopies: a caller marking the last tool for prompt caching
// must not change the adapter's cached definitions.
func TestToolsAreCopies(t *testing.T) {
	reg := adapttest.Registry(nil)
	a := New(reg)
	tools, err := a.Tools()
	if err != nil {
		t.Fatal(err)
	}
	tools[1].OfTool.CacheControl = anthropic.NewCacheControlEphemeralParam()
	tools[1].OfTool.Name = "changed"
	again, _ := a.Tools()
	if again[1].OfTool.Name != "get_time" || !param.IsOmitted(again[1].OfTool.CacheControl) {
		t.Errorf("Tools returned shared params: %+v", again[1].OfTool)
	}
	// A tool added later is picked up.
	reg.MustAdd(toolreg.MustNew("late", "Added after the first Tools call.", func(context.Context, struct{}) (string, error) { return "", nil }))
	again, err = a.Tools()
	if err != nil || len(again) != 3 || again[2].OfTool.Name != "late" {
		t.Errorf("late tool not picked up: %v, %d tools", err, len(again))
	}
}

// toolResult is a tool_result block as the API receives it.
type toolResult struct {
	ToolUseID string
	Text      string // the text of the single text block; "" without content
	IsError   bool
}

func toolResults(t *testing.T, msg map[string]any) []toolResult {
	t.Helper()
	if msg["role"] != "user" {
		t.Fatalf("results in a %v message", msg["role"])
	}
	var got []toolResult
	for _, b := range msg["content"].([]any) {
		b := b.(map[string]any)
		if b["type"] != "tool_result" {
			t.Fatalf("block of type %v among the results: %v", b["type"], b)
		}
		r := toolResult{ToolUseID: b["tool_use_id"].(string)}
		if c, ok := b["content"]; ok {
			blocks := c.([]any)
			if len(blocks) != 1 || blocks[0].(map[string]any)["type"] != "text" {
				t.Fatalf("content is not one text block: %v", c)
			}
			r.Text = blocks[0].(map[string]any)["text"].(string)
		}
		if e, ok := b["is_error"]; ok {
			if e != true {
				t.Errorf("is_error sent as %v", e)
			}
			r.IsError = true
		}
		for k := range b {
			switch k {
			case "type", "tool_use_id", "content", "is_error":
			default:
				t.Errorf("tool_result has an extra key %q: %v", k, b)
			}
		}
		got = append(got, r)
	}
	return got
}

// TestStrictNullsDropped: a strict-mode model may send null for an
// optional property it leaves out; the call must still validate, and the
// default apply.
func TestStrictNullsDropped(t *testing.T) {
	var received adapttest.Received
	f := fakeAnthropic(toolUses("get_weather", `{"city":"Paris","days":null,"unit":null}`), answer("ok"))
	client := newClient(t, f)
	a := New(adapttest.Registry(&received), WithStrict())
	if !a.Strict("get_weather") || a.Strict("nope") {
		t.Fatal("Strict is wrong")
	}
	if _, err := a.Run(context.Background(), &client.Messages, params("hi"), nil, agent.Options{}); err != nil {
		t.Fatal(err)
	}
	got := toolResults(t, f.Requests[1]["messages"].([]any)[2].(map[string]any))
	if diff := cmp.Diff([]toolResult{{"toolu_1", `{"city":"Paris","days":1,"unit":"celsius"}`, false}}, got); diff != "" {
		t.Errorf("tool result (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]adapttest.WeatherArgs{{City: "Paris", Unit: "celsius"}}, received.Args()); diff != "" {
		t.Errorf("tool received (-want +got):\n%s", diff)
	}
	// Without strict mode the null is the model's mistake, reported to it.
	out := New(adapttest.Registry(nil)).CallAll(context.Background(), mustMessage(t, toolUses("get_weather", `{"city":"Paris","days":null}`)))
	if !out.OfUser.Content[0].OfToolResult.IsError.Value {
		t.Error("a non-strict null was dropped")
	}
}

func TestStrictRefusesOpenMaps(t *testing.T) {
	reg := toolreg.NewRegistry()
	reg.MustAdd(adapttest.Tag)
	_, err := New(reg, WithStrict()).Tools()
	adapttest.WantUnsupported(t, err, "tag", "labels")
	a := New(reg, WithStrict(), WithNonStrictFallback())
	tools, err := a.Tools()
	if err != nil || tools[0].OfTool.Strict.Valid() || a.Strict("tag") {
		t.Errorf("fallback: err %v, strict %v", err, tools[0].OfTool.Strict)
	}
}

// objectSchema is a schema of n properties, each the given schema,
// required or not.
func objectSchema(n int, prop string, required bool) json.RawMessage {
	var props, req []string
	for i := range n {
		props = append(props, fmt.Sprintf(`"p%d":%s`, i, prop))
		req = append(req, fmt.Sprintf(`"p%d"`, i))
	}
	s := `{"type":"object","properties":{` + strings.Join(props, ",") + `},"additionalProperties":false`
	if required {
		s += `,"required":[` + strings.Join(req, ",") + `]`
	}
	return json.RawMessage(s + "}")
}

func TestStrictLimits(t *testing.T) {
	tools := func(n int, schema json.RawMessage) []toolreg.AnyTool {
		var ts []toolreg.AnyTool
		for i := range n {
			ts = append(ts, adapttest.RawTool{ToolName: fmt.Sprintf("tool_%02d", i), Input: schema})
		}
		return ts
	}
	for _, tc := range []struct {
		name  string
		tools []toolreg.AnyTool
		opts  []Option
		want  []string // in the error; none means no error
	}{
		{"20 strict tools", tools(20, objectSchema(1, `{"type":"string"}`, true)), nil, nil},
		{"21 strict tools", tools(21, objectSchema(1, `{"type":"string"}`, true)), nil,
			[]string{"at most 20 strict tools", "21 are strict", "tool_00", "tool_20"}},
		{"21 tools, 2 strict", tools(21, objectSchema(1, `{"type":"string"}`, true)), []Option{WithStrictTools("tool_03", "tool_07")}, nil},
		{"24 optional", tools(3, objectSchema(8, `{"type":"string"}`, false)), nil, nil},
		{"27 optional", tools(3, objectSchema(9, `{"type":"string"}`, false)), nil,
			[]string{"at most 24 optional parameters", "they have 27", "tool_00 9, tool_01 9, tool_02 9"}},
		{"nested optional count", tools(2, json.RawMessage(`{"type":"object","properties":{"a":`+string(objectSchema(12, `{"type":"string"}`, false))+`},"required":["a"],"additionalProperties":false}`)), nil,
			nil},
		{"nested optional over", tools(3, json.RawMessage(`{"type":"object","properties":{"a":`+string(objectSchema(8, `{"type":"string"}`, false))+`},"additionalProperties":false}`)), nil,
			[]string{"they have 27", "tool_00 9"}},
		{"16 unions", tools(2, objectSchema(8, `{"type":["string","null"]}`, true)), nil, nil},
		{"18 unions", tools(2, objectSchema(9, `{"anyOf":[{"type":"string"},{"type":"integer"}]}`, true)), nil,
			[]string{"at most 16 parameters using anyOf or type arrays", "they have 18", "tool_00 9, tool_01 9"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := toolreg.NewRegistry()
			reg.MustAdd(tc.tools...)
			opts := tc.opts
			if opts == nil {
				opts = []Option{WithStrict()}
			}
			tools, err := New(reg, opts...).Tools()
			if len(tc.want) == 0 {
				if err != nil || len(tools) != len(tc.tools) {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if !errors.Is(err, ErrStrictLimit) {
				t.Fatalf("err = %v, want ErrStrictLimit", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
			// Without strict mode the same tools are fine.
			if _, err := New(reg).Tools(); err != nil {
				t.Errorf("non-strict: %v", err)
			}
		})
	}
}

func mustMessage(t *testing.T, s string) anthropic.Message {
	t.Helper()
	var m anthropic.Message
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestCallAll(t *testing.T) {
	reg := adapttest.Registry(nil)
	reg.MustAdd(toolreg.MustNew("noop", "Returns nothing.", func(context.Context, struct{}) (string, error) { return "", nil }))
	a := New(reg)
	msg := mustMessage(t, message("tool_use",
		map[string]any{"type": "thinking", "thinking": "two calls", "signature": "sig"},
		map[string]any{"type": "tool_use", "id": "toolu_a", "name": "noop", "input": map[string]any{}},
		map[string]any{"type": "text", "text": "and"},
		map[string]any{"type": "tool_use", "id": "toolu_b", "name": "get_weather", "input": map[string]any{"city": "Oslo"}}))
	if diff := cmp.Diff([]toolreg.ToolCall{
		{ID: "toolu_a", Name: "noop", Arguments: json.RawMessage(`{}`)},
		{ID: "toolu_b", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Oslo"}`)},
	}, a.ToolCalls(msg)); diff != "" {
		t.Errorf("ToolCalls (-want +got):\n%s", diff)
	}
	b, err := json.Marshal(a.CallAll(context.Background(), msg))
	if err != nil {
		t.Fatal(err)
	}
	// The empty result goes without content: the API refuses empty text.
	want := `{"content":[{"tool_use_id":"toolu_a","type":"tool_result"},{"tool_use_id":"toolu_b","content":[{"text":"{\"city\":\"Oslo\",\"days\":1,\"unit\":\"celsius\"}","type":"text"}],"type":"tool_result"}],"role":"user"}`
	if diff := cmp.Diff(want, string(b)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := a.CallAll(context.Background(), mustMessage(t, answer("no tools"))); got.OfUser != nil || got.OfAssistant != nil {
		t.Errorf("a message without tool_use gave %+v", got)
	}
}

func TestCallAllJSON(t *testing.T) {
	a := New(adapttest.Registry(nil))
	// A hand-written assistant turn, as Anthropic's wire format has it, one more call.
	out, err := a.CallAllJSON(context.Background(), json.RawMessage(`[
		{"type": "text", "text": "Checking the forecast."},
		{"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "get_weather", "input": {"city": "Paris", "unit": "celsius"}},
		{"type": "tool_use", "id": "toolu_02", "name": "get_weather", "input": {"city": "Atlantis"}}]`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"role":"user","content":[` +
		`{"type":"tool_result","tool_use_id":"toolu_01A09q90qw90lq917835lq9","content":"{\"city\":\"Paris\",\"days\":1,\"unit\":\"celsius\"}"},` +
		`{"type":"tool_result","tool_use_id":"toolu_02","content":"no weather station in Atlantis; try a real city","is_error":true}]}`
	if diff := cmp.Diff(want, string(out)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := a.CallAllJSON(context.Background(), json.RawMessage(`{"content":[]}`)); err == nil {
		t.Error("a non-array was accepted")
	}
	if out, err := a.CallAllJSON(context.Background(), json.RawMessage(`[{"type":"text","text":"done"}]`)); out != nil || err != nil {
		t.Errorf("no tool_use: %s, %v", out, err)
	}
}
