package toolopenai

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/adapt/adapttest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// fakeOpenAI plays the API with the given replies.
func fakeOpenAI(replies ...string) *adapttest.API {
	return &adapttest.API{Replies: replies, Error: func(msg string) string { return `{"error":{"message":` + msg + `}}` }}
}

func newClient(t testing.TB, f *adapttest.API) openai.Client {
	return openai.NewClient(option.WithBaseURL(f.Serve(t)+"/v1/"), option.WithAPIKey("test"), option.WithMaxRetries(0))
}

// toolCalls is a Chat Completions reply asking for calls, given as
// name/arguments pairs; ids are call_1, call_2, ...
func toolCalls(pairs ...string) string {
	var calls []map[string]any
	for i := 0; i < len(pairs); i += 2 {
		calls = append(calls, map[string]any{"id": fmt.Sprintf("call_%d", i/2+1), "type": "function",
			"function": map[string]any{"name": pairs[i], "arguments": pairs[i+1]}})
	}
	b, _ := json.Marshal(map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "tool_calls",
			"message": map[string]any{"role": "assistant", "content": nil, "tool_calls": calls}}}})
	return string(b)
}

func answer(text string) string {
	b, _ := json.Marshal(map[string]any{"id": "chatcmpl-2", "object": "chat.completion", "created": 1, "model": "m",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": text}}}})
	return string(b)
}

// TestChatRequestTools sends the definitions through the real SDK and
// checks the tools of the request body against golden files.
func TestChatRequestTools(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []Option
	}{
		{"chat_tools.json", nil},
		{"chat_tools_strict.json", []Option{WithStrict()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := fakeOpenAI(answer("hi"))
			client := newClient(t, f)
			a := NewChat(adapttest.Registry(nil), tc.opts...)
			tools, err := a.Tools()
			if err != nil {
				t.Fatal(err)
			}
			_, err = client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
				Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}, Tools: tools})
			if err != nil {
				t.Fatal(err)
			}
			adapttest.GoldenValue(t, tc.name, f.Requests[0]["tools"], *update)
			wire, err := a.ToolsJSON()
			if err != nil {
				t.Fatal(err)
			}
			var fromWire any
			json.Unmarshal(wire, &fromWire)
			if diff := cmp.Diff(f.Requests[0]["tools"], fromWire); diff != "" {
				t.Errorf("Chat.ToolsJSON differs from what the SDK sends (-sdk +json):\n%s", diff)
			}
		})
	}
}

// TestChatToolsKeepPropertyOrder checks that the parameters reach the wire
// with the properties in declaration order, not sorted.
func TestChatToolsKeepPropertyOrder(t *testing.T) {
	wire, err := NewChat(adapttest.Registry(nil)).ToolsJSON()
	if err != nil {
		t.Fatal(err)
	}
	s := string(wire)
	if !(strings.Index(s, `"city"`) < strings.Index(s, `"days"`) && strings.Index(s, `"days"`) < strings.Index(s, `"unit"`)) {
		t.Errorf("property order lost: %s", s)
	}
}

func TestResponsesRequestTools(t *testing.T) {
	f := fakeOpenAI(`{"id":"resp_1","object":"response","created_at":1,"model":"m","status":"completed","output":[]}`)
	client := newClient(t, f)
	tools, err := NewResponses(adapttest.Registry(nil)).Tools()
	if err != nil {
		t.Fatal(err)
	}
	_, err = client.Responses.New(context.Background(), responses.ResponseNewParams{Model: "m", Tools: tools,
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	adapttest.GoldenValue(t, "responses_tools.json", f.Requests[0]["tools"], *update)
}

// TestRunChat drives a whole run: parallel calls with success, a tool
// error, invalid arguments, an unknown tool and a no-argument tool, then
// checks the follow-up request carries every result in call order and in
// the provider's shape.
// TestRunChatLoop: one turn of every outcome, the step bound, a tool's
// StopRun and cancellation, as in every runner.
func TestRunChatLoop(t *testing.T) {
	adapttest.RunnerTests(t, adapttest.Runner{
		API:    fakeOpenAI,
		Calls:  toolCalls,
		Answer: answer,
		NoArgs: "", // Chat Completions allows an empty string for no arguments
		Run: func(ctx context.Context, api *adapttest.API, reg *toolreg.Registry, maxSteps int) (adapttest.Outcome, error) {
			client := newClient(t, api)
			var turns int
			run, err := NewChat(reg).Run(ctx, &client.Chat.Completions, openai.ChatCompletionNewParams{
				Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("plan my week")},
			}, nil, agent.Options{MaxSteps: maxSteps, OnEvent: func(e agent.Event) {
				if e.Kind == agent.StepDone {
					turns++
				}
			}})
			return adapttest.Outcome{Steps: run.Steps(), Turns: turns, Transcript: len(run.Messages), Answer: run.Answer()}, err
		},
		Results:    chatResults,
		Transcript: 8, // the user's message, the assistant's with 5 calls, 5 tool messages, the answer
	})
}

// chatResults reads the results of a turn from the request after it:
// the user's message, the assistant's message with its calls, then one
// tool message per call, in call order, and nothing else.
func chatResults(t *testing.T, request map[string]any) []adapttest.Result {
	t.Helper()
	msgs := request["messages"].([]any)
	asst := msgs[1].(map[string]any)
	calls, _ := asst["tool_calls"].([]any)
	if asst["role"] != "assistant" || len(msgs) != 2+len(calls) {
		t.Fatalf("not the assistant's calls then one tool message per call:\n%v", msgs)
	}
	var got []adapttest.Result
	for i, m := range msgs[2:] {
		m := m.(map[string]any)
		if len(m) != 3 || m["role"] != "tool" || m["tool_call_id"] != fmt.Sprintf("call_%d", i+1) {
			t.Errorf("tool message %d: %v", i, m)
		}
		got = append(got, adapttest.Result{Text: m["content"].(string)})
	}
	return got
}

// TestStrictNullsDropped: in strict mode the model sends null for the
// optional fields it leaves out; the call must still validate, and the
// default apply.
func TestStrictNullsDropped(t *testing.T) {
	f := fakeOpenAI(toolCalls("get_weather", `{"city":"Paris","days":null,"unit":null}`), answer("ok"))
	client := newClient(t, f)
	var received adapttest.Received
	a := NewChat(adapttest.Registry(&received), WithStrict())
	if !a.Strict("get_weather") {
		t.Fatal("get_weather not strict")
	}
	if _, err := a.Run(context.Background(), &client.Chat.Completions, openai.ChatCompletionNewParams{
		Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
	}, nil, agent.Options{}); err != nil {
		t.Fatal(err)
	}
	msgs := f.Requests[1]["messages"].([]any)
	if got := msgs[2].(map[string]any)["content"]; got != `{"city":"Paris","days":1,"unit":"celsius"}` {
		t.Errorf("tool result = %v", got)
	}
	if diff := cmp.Diff([]adapttest.WeatherArgs{{City: "Paris", Unit: "celsius"}}, received.Args()); diff != "" {
		t.Errorf("tool received (-want +got):\n%s", diff)
	}
}

func TestStrictRefusesOpenMaps(t *testing.T) {
	reg := toolreg.NewRegistry()
	reg.MustAdd(adapttest.Tag)
	_, err := NewChat(reg, WithStrict()).Tools()
	adapttest.WantUnsupported(t, err, "tag", "labels")
	tools, err := NewChat(reg, WithStrict(), WithNonStrictFallback()).Tools()
	if err != nil || tools[0].OfFunction.Function.Strict.Value {
		t.Errorf("fallback: err %v, strict %v", err, tools[0].OfFunction.Function.Strict)
	}
}

func TestResponsesCallAll(t *testing.T) {
	var resp responses.Response
	err := json.Unmarshal([]byte(`{"id":"resp_1","object":"response","created_at":1,"model":"m","status":"completed","output":[
		{"type":"reasoning","id":"rs_1","summary":[]},
		{"type":"function_call","id":"fc_1","call_id":"call_a","name":"get_weather","arguments":"{\"city\":\"Oslo\"}","status":"completed"},
		{"type":"function_call","id":"fc_2","call_id":"call_b","name":"get_weather","arguments":"{\"city\":","status":"completed"}]}`), &resp)
	if err != nil {
		t.Fatal(err)
	}
	items := NewResponses(adapttest.Registry(nil)).CallAll(context.Background(), resp.Output)
	b, _ := json.Marshal(items)
	var got []map[string]any
	json.Unmarshal(b, &got)
	want := []map[string]any{
		{"type": "function_call_output", "call_id": "call_a", "output": `{"city":"Oslo","days":1,"unit":"celsius"}`},
		{"type": "function_call_output", "call_id": "call_b", "output": "invalid arguments for tool \"get_weather\":\n- not valid JSON: the input ends early (8 bytes); send one complete JSON object\nFix the arguments and call the tool again."},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestChatCallAllJSON(t *testing.T) {
	a := NewChat(adapttest.Registry(nil))
	out, err := a.CallAllJSON(context.Background(), json.RawMessage(`[
		{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Lima\"}"}},
		{"id":"c2","type":"function","function":{"name":"get_weather","arguments":{"city":"Quito","days":3}}}]`))
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"role":"tool","tool_call_id":"c1","content":"{\"city\":\"Lima\",\"days\":1,\"unit\":\"celsius\"}"},{"role":"tool","tool_call_id":"c2","content":"{\"city\":\"Quito\",\"days\":3,\"unit\":\"celsius\"}"}]`
	if string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
	if _, err := a.CallAllJSON(context.Background(), json.RawMessage(`{}`)); err == nil {
		t.Error("a non-array was accepted")
	}
}

func TestResponsesCallAllJSON(t *testing.T) {
	a := NewResponses(adapttest.Registry(nil))
	out, err := a.CallAllJSON(context.Background(), json.RawMessage(`[
		{"type":"reasoning","id":"rs_1","summary":[]},
		{"type":"function_call","id":"fc_1","call_id":"c1","name":"get_weather","arguments":"{\"city\":\"Lima\"}","status":"completed"},
		{"type":"function_call","id":"fc_2","call_id":"c2","name":"get_weather","arguments":"{\"city\":","status":"completed"}]`))
	if err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{
		{"type": "function_call_output", "call_id": "c1", "output": `{"city":"Lima","days":1,"unit":"celsius"}`},
		{"type": "function_call_output", "call_id": "c2", "output": "invalid arguments for tool \"get_weather\":\n- not valid JSON: the input ends early (8 bytes); send one complete JSON object\nFix the arguments and call the tool again."},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := a.CallAllJSON(context.Background(), json.RawMessage(`{}`)); err == nil {
		t.Error("a non-array was accepted")
	}
}

func TestRunChatTruncated(t *testing.T) {
	reply := strings.Replace(toolCalls("get_time", `{`), `"finish_reason":"tool_calls"`, `"finish_reason":"length"`, 1)
	f := fakeOpenAI(reply)
	client := newClient(t, f)
	run, err := NewChat(adapttest.Registry(nil)).Run(context.Background(), &client.Chat.Completions, openai.ChatCompletionNewParams{
		Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
	}, nil, agent.Options{})
	if !errors.Is(err, toolreg.ErrTruncated) || len(run.Messages) != 2 {
		t.Errorf("err = %v, transcript %d", err, len(run.Messages))
	}
}

func TestHandWrittenTool(t *testing.T) {
	reg := toolreg.NewRegistry()
	// A tool holding a slice is not comparable: the cache must not need it.
	reg.MustAdd(adapttest.RawTool{ToolName: "raw", Input: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)})
	a := NewChat(reg)
	tools, err := a.Tools()
	if err != nil || len(tools) != 1 {
		t.Fatalf("%v %v", tools, err)
	}
	tools[0].OfFunction.Function.Name = "changed"
	again, _ := a.Tools()
	if again[0].OfFunction.Function.Name != "raw" {
		t.Error("a caller's change leaked into the cache")
	}
}

// TestResponsesRun: parallel function calls answered with
// function_call_output items in call order, on the previous response.
func TestResponsesRun(t *testing.T) {
	f := fakeOpenAI(
		`{"id":"resp_1","object":"response","created_at":1,"model":"m","status":"completed","output":[
			{"type":"function_call","id":"fc_1","call_id":"call_a","name":"get_weather","arguments":"{\"city\":\"Oslo\",\"days\":2}","status":"completed"},
			{"type":"function_call","id":"fc_2","call_id":"call_b","name":"get_weather","arguments":"{\"city\":\"Atlantis\"}","status":"completed"}]}`,
		`{"id":"resp_2","object":"response","created_at":2,"model":"m","status":"completed","output":[
			{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Oslo: 2 days.","annotations":[]}]}]}`,
	)
	client := newClient(t, f)
	reg := adapttest.Registry(nil)
	calls := adapttest.CountCalls(reg)
	var responsesSeen int
	run, err := NewResponses(reg).Run(context.Background(), &client.Responses, responses.ResponseNewParams{
		Model: "m", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("weather?")},
	}, nil, agent.Options{OnEvent: func(e agent.Event) {
		if _, ok := e.Response.(*responses.Response); ok && e.Kind == agent.StepDone {
			responsesSeen++
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if run.Answer() != "Oslo: 2 days." || run.Steps() != 2 || responsesSeen != 2 || calls.Load() != 2 {
		t.Errorf("answer %q, steps %d, responses %d, calls %d", run.Answer(), run.Steps(), responsesSeen, calls.Load())
	}
	second := f.Requests[1]
	if second["previous_response_id"] != "resp_1" {
		t.Errorf("previous_response_id = %v", second["previous_response_id"])
	}
	if len(second["tools"].([]any)) != 2 {
		t.Errorf("tools not sent again: %v", second["tools"])
	}
	want := []any{
		map[string]any{"type": "function_call_output", "call_id": "call_a", "output": `{"city":"Oslo","days":2,"unit":"celsius"}`},
		map[string]any{"type": "function_call_output", "call_id": "call_b", "output": adapttest.ErrNoStation.Error()},
	}
	if diff := cmp.Diff(want, second["input"]); diff != "" {
		t.Errorf("input (-want +got):\n%s", diff)
	}
}

func TestRunResponsesIncomplete(t *testing.T) {
	f := fakeOpenAI(`{"id":"resp_1","object":"response","created_at":1,"model":"m","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[]}`)
	client := newClient(t, f)
	_, err := NewResponses(adapttest.Registry(nil)).Run(context.Background(), &client.Responses, responses.ResponseNewParams{
		Model: "m", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("hi")},
	}, nil, agent.Options{})
	if !errors.Is(err, toolreg.ErrTruncated) || !strings.Contains(err.Error(), "max_output_tokens") {
		t.Errorf("err = %v", err)
	}
}

// TestOmittedBoundsStillChecked sends calls that cross what the definition
// leaves out (the int64 limits, the RFC 3339 grammar beside format
// date-time), plain and strict: each gets the validator's message naming
// the limit or the form, and the tool is not called.
func TestOmittedBoundsStillChecked(t *testing.T) {
	type args struct {
		ID    int64      `json:"id"`
		Since *time.Time `json:"since,omitempty"`
	}
	called := false
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("find_issue", "Finds one issue by number.", func(context.Context, args) (string, error) {
		called = true
		return "found", nil
	}))
	tests := []struct {
		name, args, want string
	}{
		{"above int64", `{"id":9223372036854775808}`, "- id: 9223372036854775808 is greater than the maximum 9223372036854775807\n"},
		{"below int64", `{"id":-1e19}`, "- id: -1e19 is less than the minimum -9223372036854775808\n"},
		{"lower-case t and z", `{"id":1,"since":"2025-01-31t15:04:05z"}`, `- since: "2025-01-31t15:04:05z" is not an RFC 3339 date-time; write e.g. "2025-01-31T15:04:05Z"`},
		{"a date only", `{"id":1,"since":"2025-01-31"}`, `- since: "2025-01-31" is not a valid date-time`},
	}
	for _, opts := range [][]Option{nil, {WithStrict()}} {
		a := NewChat(reg, opts...)
		tools, err := a.ToolsJSON()
		if err != nil {
			t.Fatal(err)
		}
		for _, shown := range []string{"9223372036854775807", "9223372036854775808", "[0-5][0-9]"} {
			if strings.Contains(string(tools), shown) {
				t.Fatalf("strict %v: the definition shows %s: %s", a.Strict("find_issue"), shown, tools)
			}
		}
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/strict=%v", tt.name, a.Strict("find_issue")), func(t *testing.T) {
				called = false
				calls, _ := json.Marshal([]map[string]any{{"id": "c1", "type": "function", "function": map[string]any{"name": "find_issue", "arguments": tt.args}}})
				out, err := a.CallAllJSON(context.Background(), calls)
				if err != nil {
					t.Fatal(err)
				}
				var msgs []wireToolMessage
				if err := json.Unmarshal(out, &msgs); err != nil || len(msgs) != 1 {
					t.Fatalf("%s: %v", out, err)
				}
				if !strings.Contains(msgs[0].Content, tt.want) || !strings.HasPrefix(msgs[0].Content, `invalid arguments for tool "find_issue"`) {
					t.Errorf("the model reads\n%s\nwant it to contain\n%s", msgs[0].Content, tt.want)
				}
				if called {
					t.Error("the tool was called")
				}
			})
		}
	}
}

func chatParams() openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("plan my week")}}
}

// TestChatControl: approvals, interrupts, retries and per-step tools
// through Chat.Run, started and resumed, as in every runner.
func TestChatControl(t *testing.T) {
	adapttest.ControlTests(t, adapttest.Control{
		Runner: adapttest.Runner{API: fakeOpenAI, Calls: toolCalls, Answer: answer, Results: chatResults},
		Start: func(ctx context.Context, api *adapttest.API, reg *toolreg.Registry, opts agent.Options) (*agent.State, error) {
			client := newClient(t, api)
			run, err := NewChat(reg).Run(ctx, &client.Chat.Completions, chatParams(), nil, opts)
			return run.State, err
		},
		Resume: func(ctx context.Context, api *adapttest.API, reg *toolreg.Registry, st *agent.State, opts agent.Options) (*agent.State, error) {
			client := newClient(t, api)
			run, err := NewChat(reg).Run(ctx, &client.Chat.Completions, chatParams(), st, opts)
			return run.State, err
		},
		Tools:   chatToolNames,
		Choice:  chatChoiceOf,
		Allowed: chatAllowedOf,
	})
}

func chatToolNames(t *testing.T, request map[string]any) []string {
	var names []string
	tools, _ := request["tools"].([]any)
	for _, tool := range tools {
		names = append(names, tool.(map[string]any)["function"].(map[string]any)["name"].(string))
	}
	return names
}

// chatChoiceOf reads tool_choice in the Chat Completions form: "auto",
// "none", "required", or {"type":"function","function":{"name":...}}.
func chatChoiceOf(t *testing.T, request map[string]any) agent.ToolChoice {
	switch c := request["tool_choice"].(type) {
	case string:
		return map[string]agent.ToolChoice{"auto": agent.Auto, "none": agent.None, "required": agent.Required}[c]
	case map[string]any:
		if c["type"] == "function" {
			return agent.Force(c["function"].(map[string]any)["name"].(string))
		}
		if c["type"] == "allowed_tools" {
			return map[string]agent.ToolChoice{"auto": agent.Auto, "required": agent.Required}[c["allowed_tools"].(map[string]any)["mode"].(string)]
		}
	}
	t.Fatalf("tool_choice %v", request["tool_choice"])
	return agent.ToolChoice{}
}

// responsesCalls is a Responses reply asking for calls, given as
// name/arguments pairs; call ids are call_1, call_2, ...
func responsesCalls(pairs ...string) string {
	var items []map[string]any
	for i := 0; i < len(pairs); i += 2 {
		items = append(items, map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d", i/2+1), "call_id": fmt.Sprintf("call_%d", i/2+1),
			"name": pairs[i], "arguments": pairs[i+1], "status": "completed"})
	}
	b, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("resp_%d", len(pairs)), "object": "response", "created_at": 1, "model": "m", "status": "completed", "output": items})
	return string(b)
}

func responsesAnswer(text string) string {
	b, _ := json.Marshal(map[string]any{"id": "resp_answer", "object": "response", "created_at": 1, "model": "m", "status": "completed",
		"output": []any{map[string]any{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}}})
	return string(b)
}

// responsesResults reads the results of a turn from the request after it:
// one function_call_output item per call, in call order, on the previous
// response.
func responsesResults(t *testing.T, request map[string]any) []adapttest.Result {
	t.Helper()
	if request["previous_response_id"] == nil {
		t.Errorf("no previous_response_id")
	}
	var got []adapttest.Result
	for i, item := range request["input"].([]any) {
		item := item.(map[string]any)
		if item["type"] != "function_call_output" || item["call_id"] != fmt.Sprintf("call_%d", i+1) {
			t.Errorf("input item %d: %v", i, item)
		}
		got = append(got, adapttest.Result{Text: item["output"].(string)})
	}
	return got
}

func responsesParams() responses.ResponseNewParams {
	return responses.ResponseNewParams{Model: "m", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("plan my week")}}
}

// TestResponsesControl is TestChatControl on the Responses API.
func TestResponsesControl(t *testing.T) {
	adapttest.ControlTests(t, responsesControl(t, false, WithClientToolSearch()))
}

// TestResponsesNativeControl: the loop follows the API's own tool_search,
// plain and streaming (adapttest.NativeTests).
func TestResponsesNativeControl(t *testing.T) {
	t.Run("Run", func(t *testing.T) { adapttest.NativeTests(t, responsesControl(t, false)) })
	t.Run("Stream", func(t *testing.T) { adapttest.NativeTests(t, responsesControl(t, true)) })
}

// responsesControl is a Responses run, streaming or not, its adapter made
// with opts, as the shared tests drive it.
func responsesControl(t *testing.T, stream bool, opts ...Option) adapttest.Control {
	runner := adapttest.Runner{API: fakeOpenAI, Calls: responsesCalls, Answer: responsesAnswer, Results: responsesResults}
	if stream {
		runner.Calls = func(pairs ...string) string { return streamedResponse(responsesCalls(pairs...)) }
		runner.Answer = func(text string) string { return streamedResponse(responsesAnswer(text)) }
	}
	return adapttest.Control{
		Runner: runner,
		Start: func(ctx context.Context, api *adapttest.API, reg *toolreg.Registry, o agent.Options) (*agent.State, error) {
			client := newClient(t, api)
			o.Stream = o.Stream || stream
			run, err := NewResponses(reg, opts...).Run(ctx, &client.Responses, responsesParams(), nil, o)
			return run.State, err
		},
		Resume: func(ctx context.Context, api *adapttest.API, reg *toolreg.Registry, st *agent.State, o agent.Options) (*agent.State, error) {
			client := newClient(t, api)
			o.Stream = o.Stream || stream
			run, err := NewResponses(reg, opts...).Run(ctx, &client.Responses, responsesParams(), st, o)
			return run.State, err
		},
		Tools:   responsesToolNames,
		Choice:  responsesChoiceOf,
		Allowed: responsesAllowedOf,
		Cursor:  true,
	}
}

func responsesToolNames(t *testing.T, request map[string]any) []string {
	var names []string
	for _, tool := range request["tools"].([]any) {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	return names
}

// responsesChoiceOf reads tool_choice in the Responses form: "auto",
// "none", "required", or {"type":"function","name":...}.
func responsesChoiceOf(t *testing.T, request map[string]any) agent.ToolChoice {
	switch c := request["tool_choice"].(type) {
	case string:
		return map[string]agent.ToolChoice{"auto": agent.Auto, "none": agent.None, "required": agent.Required}[c]
	case map[string]any:
		if c["type"] == "function" {
			return agent.Force(c["name"].(string))
		}
		if c["type"] == "allowed_tools" {
			return map[string]agent.ToolChoice{"auto": agent.Auto, "required": agent.Required}[c["mode"].(string)]
		}
	}
	t.Fatalf("tool_choice %v", request["tool_choice"])
	return agent.ToolChoice{}
}

// TestDynamicToolFallsBackToNonStrict: a schema from outside (here a
// dynamic tool's open map) that strict mode cannot express goes non-strict
// with the reason reported, where a typed tool's is an error to fix.
func TestDynamicToolFallsBackToNonStrict(t *testing.T) {
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNewDynamic("labels", "Sets labels.", json.RawMessage(`{"type":"object","properties":{"labels":{"type":"object","additionalProperties":{"type":"string"}}},"required":["labels"]}`),
		func(context.Context, json.RawMessage) (string, error) { return "ok", nil }))
	reg.MustAdd(adapttest.Registry(nil).Tools()...)
	a := NewChat(reg, WithStrict())
	tools, err := a.Tools()
	if err != nil {
		t.Fatal(err)
	}
	if tools[0].OfFunction.Function.Strict.Value || !a.Strict("get_weather") {
		t.Errorf("labels strict %v, get_weather strict %v", tools[0].OfFunction.Function.Strict.Value, a.Strict("get_weather"))
	}
	if err := a.NotStrict("labels"); !errors.Is(err, toolreg.ErrUnsupportedSchema) || !strings.Contains(err.Error(), "labels") {
		t.Errorf("NotStrict(labels) = %v", err)
	}
	if err := a.NotStrict("get_weather"); err != nil {
		t.Errorf("NotStrict(get_weather) = %v", err)
	}
	reg.MustAdd(adapttest.Tag) // a typed open map: the author can fix it
	if _, err := a.Tools(); !errors.Is(err, toolreg.ErrUnsupportedSchema) {
		t.Errorf("a typed tool strict mode cannot express: %v", err)
	}
}

// chatAllowedOf reads the names of tool_choice's allowed_tools, nil for
// another tool choice.
func chatAllowedOf(t *testing.T, request map[string]any) []string {
	c, ok := request["tool_choice"].(map[string]any)
	if !ok || c["type"] != "allowed_tools" {
		return nil
	}
	var names []string
	for _, tool := range c["allowed_tools"].(map[string]any)["tools"].([]any) {
		names = append(names, tool.(map[string]any)["function"].(map[string]any)["name"].(string))
	}
	return names
}

// responsesAllowedOf is chatAllowedOf in the Responses form.
func responsesAllowedOf(t *testing.T, request map[string]any) []string {
	c, ok := request["tool_choice"].(map[string]any)
	if !ok || c["type"] != "allowed_tools" {
		return nil
	}
	var names []string
	for _, tool := range c["tools"].([]any) {
		name, ok := tool.(map[string]any)["name"].(string)
		if !ok {
			name = tool.(map[string]any)["type"].(string) // tool_search
		}
		names = append(names, name)
	}
	return names
}
