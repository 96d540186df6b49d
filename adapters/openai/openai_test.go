package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/toolreg/toolreg"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

type weatherArgs struct {
	City string `json:"city" jsonschema:"description=City name"`
	Days *int   `json:"days,omitempty" jsonschema:"minimum=1,maximum=7"`
	Unit string `json:"unit,omitempty" jsonschema:"enum=celsius,enum=fahrenheit,default=celsius"`
}

type forecast struct {
	City string `json:"city"`
	Days int    `json:"days"`
	Unit string `json:"unit"`
}

var errNoStation = errors.New("no weather station in Atlantis; try a real city")

// received records what the weather tool was called with.
var received = struct {
	sync.Mutex
	args []weatherArgs
}{}

func testRegistry(t *testing.T) *toolreg.Registry {
	t.Helper()
	weather := toolreg.MustNew("get_weather", "Forecast for a city.", func(_ context.Context, a weatherArgs) (forecast, error) {
		received.Lock()
		received.args = append(received.args, a)
		received.Unlock()
		if a.City == "Atlantis" {
			return forecast{}, errNoStation
		}
		days := 1
		if a.Days != nil {
			days = *a.Days
		}
		return forecast{City: a.City, Days: days, Unit: a.Unit}, nil
	})
	now := toolreg.MustNew("get_time", "The current time, for questions about time.", func(context.Context, struct{}) (string, error) {
		return "2026-12-02T10:00:00Z", nil
	})
	reg := toolreg.NewRegistry()
	reg.MustAdd(weather, now)
	return reg
}

// fakeOpenAI plays the API: it records each request body and answers with
// the next scripted reply.
type fakeOpenAI struct {
	mu       sync.Mutex
	replies  []string
	requests []map[string]any
	block    chan struct{} // when set, requests wait for it or for cancellation
}

func (f *fakeOpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	if f.block != nil {
		select {
		case <-f.block:
		case <-r.Context().Done():
			return
		}
	}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	if len(f.replies) == 0 {
		f.mu.Unlock()
		http.Error(w, `{"error":{"message":"no more replies"}}`, http.StatusInternalServerError)
		return
	}
	reply := f.replies[0]
	f.replies = f.replies[1:]
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, reply)
}

// countCalls counts the calls reg runs, as a host's middleware sees them.
func countCalls(reg *toolreg.Registry) *atomic.Int64 {
	var n atomic.Int64
	reg.Use(func(next toolreg.Handler) toolreg.Handler {
		return toolreg.HandlerFunc(func(ctx context.Context, c toolreg.ToolCall) toolreg.Output {
			n.Add(1)
			return next.HandleCall(ctx, c)
		})
	})
	return &n
}

func newClient(t *testing.T, f *fakeOpenAI) openai.Client {
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return openai.NewClient(option.WithBaseURL(srv.URL+"/v1/"), option.WithAPIKey("test"), option.WithMaxRetries(0))
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

func golden(t *testing.T, name string, got any) {
	t.Helper()
	b, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(bytes.TrimSpace(want)), string(b)); diff != "" {
		t.Errorf("%s changed (-want +got):\n%s", path, diff)
	}
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
			f := &fakeOpenAI{replies: []string{answer("hi")}}
			client := newClient(t, f)
			a := New(testRegistry(t), tc.opts...)
			tools, err := a.ChatTools()
			if err != nil {
				t.Fatal(err)
			}
			_, err = client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
				Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}, Tools: tools})
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name, f.requests[0]["tools"])
			wire, err := a.ChatToolsJSON()
			if err != nil {
				t.Fatal(err)
			}
			var fromWire any
			json.Unmarshal(wire, &fromWire)
			if diff := cmp.Diff(f.requests[0]["tools"], fromWire); diff != "" {
				t.Errorf("ChatToolsJSON differs from what the SDK sends (-sdk +json):\n%s", diff)
			}
		})
	}
}

// TestChatToolsKeepPropertyOrder checks that the parameters reach the wire
// with the properties in declaration order, not sorted.
func TestChatToolsKeepPropertyOrder(t *testing.T) {
	wire, err := New(testRegistry(t)).ChatToolsJSON()
	if err != nil {
		t.Fatal(err)
	}
	s := string(wire)
	if !(strings.Index(s, `"city"`) < strings.Index(s, `"days"`) && strings.Index(s, `"days"`) < strings.Index(s, `"unit"`)) {
		t.Errorf("property order lost: %s", s)
	}
}

func TestResponsesRequestTools(t *testing.T) {
	f := &fakeOpenAI{replies: []string{`{"id":"resp_1","object":"response","created_at":1,"model":"m","status":"completed","output":[]}`}}
	client := newClient(t, f)
	tools, err := New(testRegistry(t)).ResponsesTools()
	if err != nil {
		t.Fatal(err)
	}
	_, err = client.Responses.New(context.Background(), responses.ResponseNewParams{Model: "m", Tools: tools,
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "responses_tools.json", f.requests[0]["tools"])
}

// TestRunChat drives a whole run: parallel calls with success, a tool
// error, invalid arguments, an unknown tool and a no-argument tool, then
// checks the follow-up request carries every result in call order and in
// the provider's shape.
func TestRunChat(t *testing.T) {
	received.Lock()
	received.args = nil
	received.Unlock()
	f := &fakeOpenAI{replies: []string{
		toolCalls(
			"get_weather", `{"city":"Paris","days":2}`,
			"get_weather", `{"city":"Atlantis"}`,
			"get_weather", `{"city":"Rome","days":"two"}`,
			"get_wether", `{"city":"Oslo"}`,
			"get_time", ``,
		),
		answer("Paris: 2 days. The time is 10:00."),
	}}
	client := newClient(t, f)
	reg := testRegistry(t)
	calls := countCalls(reg)
	a := New(reg)
	var turns int
	run, err := a.RunChat(context.Background(), &client.Chat.Completions, openai.ChatCompletionNewParams{
		Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("plan my week")},
	}, RunOptions{
		OnTurn: func(int, *openai.ChatCompletion) { turns++ },
	})
	if err != nil {
		t.Fatal(err)
	}
	if run.Answer() != "Paris: 2 days. The time is 10:00." || run.Steps != 2 || turns != 2 || calls.Load() != 5 {
		t.Errorf("answer %q, steps %d, turns %d, calls %d", run.Answer(), run.Steps, turns, calls.Load())
	}
	if len(f.requests) != 2 {
		t.Fatalf("%d requests", len(f.requests))
	}
	msgs := f.requests[1]["messages"].([]any)
	// user, assistant with 5 calls, then 5 tool messages in call order.
	if len(msgs) != 7 {
		t.Fatalf("follow-up has %d messages:\n%v", len(msgs), msgs)
	}
	type toolMsg struct{ Role, ToolCallID, Content string }
	var got []toolMsg
	for _, m := range msgs[2:] {
		m := m.(map[string]any)
		if len(m) != 3 {
			t.Errorf("tool message has extra keys: %v", m)
		}
		got = append(got, toolMsg{m["role"].(string), m["tool_call_id"].(string), m["content"].(string)})
	}
	want := []toolMsg{
		{"tool", "call_1", `{"city":"Paris","days":2,"unit":"celsius"}`},
		{"tool", "call_2", errNoStation.Error()},
		{"tool", "call_3", "invalid arguments for tool \"get_weather\":\n- days: expected integer, got \"two\"\nFix the arguments and call the tool again."},
		{"tool", "call_4", `there is no tool named "get_wether"; available tools: get_weather, get_time`},
		{"tool", "call_5", "2026-12-02T10:00:00Z"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tool messages (-want +got):\n%s", diff)
	}
	asst := msgs[1].(map[string]any)
	if asst["role"] != "assistant" || len(asst["tool_calls"].([]any)) != 5 {
		t.Errorf("assistant message not echoed back: %v", asst)
	}
	if len(run.Messages) != 8 {
		t.Errorf("transcript has %d messages, want 8 (user, assistant, 5 tools, answer)", len(run.Messages))
	}
}

func TestRunChatMaxSteps(t *testing.T) {
	f := &fakeOpenAI{replies: []string{
		toolCalls("get_time", `{}`), toolCalls("get_time", `{}`), toolCalls("get_time", `{}`),
	}}
	client := newClient(t, f)
	run, err := New(testRegistry(t)).RunChat(context.Background(), &client.Chat.Completions, openai.ChatCompletionNewParams{
		Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("loop")},
	}, RunOptions{MaxSteps: 2})
	if !errors.Is(err, toolreg.ErrMaxSteps) {
		t.Fatalf("err = %v, want ErrMaxSteps", err)
	}
	if run.Steps != 2 || len(run.Messages) != 5 || len(f.requests) != 2 {
		t.Errorf("steps %d, transcript %d, requests %d", run.Steps, len(run.Messages), len(f.requests))
	}
}

func TestRunChatStopRun(t *testing.T) {
	spent := errors.New("budget spent")
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("pay", "Pays.", func(context.Context, struct{}) (string, error) { return "", toolreg.StopRun(spent) }))
	f := &fakeOpenAI{replies: []string{toolCalls("pay", `{}`), answer("never sent")}}
	client := newClient(t, f)
	run, err := New(reg).RunChat(context.Background(), &client.Chat.Completions, openai.ChatCompletionNewParams{
		Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("pay")},
	}, RunOptions{})
	if !errors.Is(err, toolreg.ErrStopRun) || !errors.Is(err, spent) {
		t.Fatalf("err = %v", err)
	}
	if len(f.requests) != 1 || len(run.Messages) != 3 {
		t.Errorf("requests %d, transcript %d: the run went on after the stop", len(f.requests), len(run.Messages))
	}
}

func TestRunChatCancellation(t *testing.T) {
	f := &fakeOpenAI{replies: []string{answer("late")}, block: make(chan struct{})}
	defer close(f.block)
	client := newClient(t, f)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := New(testRegistry(t)).RunChat(ctx, &client.Chat.Completions, openai.ChatCompletionNewParams{
		Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
	}, RunOptions{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("cancellation took %v", d)
	}
}

// TestStrictNullsDropped: in strict mode the model sends null for the
// optional fields it leaves out; the call must still validate, and the
// default apply.
func TestStrictNullsDropped(t *testing.T) {
	received.Lock()
	received.args = nil
	received.Unlock()
	f := &fakeOpenAI{replies: []string{toolCalls("get_weather", `{"city":"Paris","days":null,"unit":null}`), answer("ok")}}
	client := newClient(t, f)
	a := New(testRegistry(t), WithStrict())
	if !a.Strict("get_weather") {
		t.Fatal("get_weather not strict")
	}
	if _, err := a.RunChat(context.Background(), &client.Chat.Completions, openai.ChatCompletionNewParams{
		Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
	}, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	msgs := f.requests[1]["messages"].([]any)
	if got := msgs[2].(map[string]any)["content"]; got != `{"city":"Paris","days":1,"unit":"celsius"}` {
		t.Errorf("tool result = %v", got)
	}
	if diff := cmp.Diff([]weatherArgs{{City: "Paris", Unit: "celsius"}}, received.args); diff != "" {
		t.Errorf("tool received (-want +got):\n%s", diff)
	}
}

func TestStrictRefusesOpenMaps(t *testing.T) {
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("tag", "Tags.", func(context.Context, struct {
		Labels map[string]string `json:"labels"`
	}) (string, error) {
		return "", nil
	}))
	_, err := New(reg, WithStrict()).ChatTools()
	if !errors.Is(err, toolreg.ErrUnsupportedSchema) || !strings.Contains(err.Error(), `"tag"`) || !strings.Contains(err.Error(), "labels") {
		t.Errorf("err = %v", err)
	}
	tools, err := New(reg, WithStrict(), WithNonStrictFallback()).ChatTools()
	if err != nil || tools[0].OfFunction.Function.Strict.Value {
		t.Errorf("fallback: err %v, strict %v", err, tools[0].OfFunction.Function.Strict)
	}
}

func TestCallResponses(t *testing.T) {
	var resp responses.Response
	err := json.Unmarshal([]byte(`{"id":"resp_1","object":"response","created_at":1,"model":"m","status":"completed","output":[
		{"type":"reasoning","id":"rs_1","summary":[]},
		{"type":"function_call","id":"fc_1","call_id":"call_a","name":"get_weather","arguments":"{\"city\":\"Oslo\"}","status":"completed"},
		{"type":"function_call","id":"fc_2","call_id":"call_b","name":"get_weather","arguments":"{\"city\":","status":"completed"}]}`), &resp)
	if err != nil {
		t.Fatal(err)
	}
	items := New(testRegistry(t)).CallResponses(context.Background(), resp.Output)
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

func TestCallChatJSON(t *testing.T) {
	a := New(testRegistry(t))
	out, err := a.CallChatJSON(context.Background(), json.RawMessage(`[
		{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Lima\"}"}},
		{"id":"c2","type":"function","function":{"name":"get_weather","arguments":{"city":"Quito","days":3}}}]`))
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"role":"tool","tool_call_id":"c1","content":"{\"city\":\"Lima\",\"days\":1,\"unit\":\"celsius\"}"},{"role":"tool","tool_call_id":"c2","content":"{\"city\":\"Quito\",\"days\":3,\"unit\":\"celsius\"}"}]`
	if string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
	if _, err := a.CallChatJSON(context.Background(), json.RawMessage(`{}`)); err == nil {
		t.Error("a non-array was accepted")
	}
}

func TestRunChatTruncated(t *testing.T) {
	reply := strings.Replace(toolCalls("get_time", `{`), `"finish_reason":"tool_calls"`, `"finish_reason":"length"`, 1)
	f := &fakeOpenAI{replies: []string{reply}}
	client := newClient(t, f)
	run, err := New(testRegistry(t)).RunChat(context.Background(), &client.Chat.Completions, openai.ChatCompletionNewParams{
		Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
	}, RunOptions{})
	if !errors.Is(err, toolreg.ErrTruncated) || len(run.Messages) != 2 {
		t.Errorf("err = %v, transcript %d", err, len(run.Messages))
	}
}

// rawTool is a hand-written AnyTool holding a slice: not hashable.
type rawTool struct{ schema json.RawMessage }

func (r rawTool) Name() string                  { return "raw" }
func (r rawTool) Description() string           { return "A hand-written tool." }
func (r rawTool) InputSchema() json.RawMessage  { return r.schema }
func (r rawTool) OutputSchema() json.RawMessage { return nil }
func (r rawTool) Invoke(context.Context, json.RawMessage) toolreg.Output {
	return toolreg.Output{Text: "ok"}
}

func TestHandWrittenTool(t *testing.T) {
	reg := toolreg.NewRegistry()
	reg.MustAdd(rawTool{json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)})
	a := New(reg)
	tools, err := a.ChatTools()
	if err != nil || len(tools) != 1 {
		t.Fatalf("%v %v", tools, err)
	}
	tools[0].OfFunction.Function.Name = "changed"
	again, _ := a.ChatTools()
	if again[0].OfFunction.Function.Name != "raw" {
		t.Error("a caller's change leaked into the cache")
	}
}

// TestRunResponses: parallel function calls answered with
// function_call_output items in call order, on the previous response.
func TestRunResponses(t *testing.T) {
	f := &fakeOpenAI{replies: []string{
		`{"id":"resp_1","object":"response","created_at":1,"model":"m","status":"completed","output":[
			{"type":"function_call","id":"fc_1","call_id":"call_a","name":"get_weather","arguments":"{\"city\":\"Oslo\",\"days\":2}","status":"completed"},
			{"type":"function_call","id":"fc_2","call_id":"call_b","name":"get_weather","arguments":"{\"city\":\"Atlantis\"}","status":"completed"}]}`,
		`{"id":"resp_2","object":"response","created_at":2,"model":"m","status":"completed","output":[
			{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Oslo: 2 days.","annotations":[]}]}]}`,
	}}
	client := newClient(t, f)
	reg := testRegistry(t)
	calls := countCalls(reg)
	var responsesSeen int
	run, err := New(reg).RunResponses(context.Background(), &client.Responses, responses.ResponseNewParams{
		Model: "m", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("weather?")},
	}, RunOptions{
		OnResponse: func(int, *responses.Response) { responsesSeen++ },
	})
	if err != nil {
		t.Fatal(err)
	}
	if run.Answer() != "Oslo: 2 days." || run.Steps != 2 || responsesSeen != 2 || calls.Load() != 2 {
		t.Errorf("answer %q, steps %d, responses %d, calls %d", run.Answer(), run.Steps, responsesSeen, calls.Load())
	}
	second := f.requests[1]
	if second["previous_response_id"] != "resp_1" {
		t.Errorf("previous_response_id = %v", second["previous_response_id"])
	}
	if len(second["tools"].([]any)) != 2 {
		t.Errorf("tools not sent again: %v", second["tools"])
	}
	want := []any{
		map[string]any{"type": "function_call_output", "call_id": "call_a", "output": `{"city":"Oslo","days":2,"unit":"celsius"}`},
		map[string]any{"type": "function_call_output", "call_id": "call_b", "output": errNoStation.Error()},
	}
	if diff := cmp.Diff(want, second["input"]); diff != "" {
		t.Errorf("input (-want +got):\n%s", diff)
	}
}

func TestRunResponsesIncomplete(t *testing.T) {
	f := &fakeOpenAI{replies: []string{`{"id":"resp_1","object":"response","created_at":1,"model":"m","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[]}`}}
	client := newClient(t, f)
	_, err := New(testRegistry(t)).RunResponses(context.Background(), &client.Responses, responses.ResponseNewParams{
		Model: "m", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("hi")},
	}, RunOptions{})
	if !errors.Is(err, toolreg.ErrTruncated) || !strings.Contains(err.Error(), "max_output_tokens") {
		t.Errorf("err = %v", err)
	}
}
