package fakemodel_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/toolregtest/fakemodel"
)

// recorder is a testing.TB that keeps what the server reports, so that a
// test can check it; Fatalf ends the goroutine as the testing package's
// does.
type recorder struct {
	testing.TB
	mu       sync.Mutex
	errs     []string
	cleanups []func()
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.errs) > 0
}

func (r *recorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }

// end runs the cleanups, as the end of a test does, and returns what was
// reported.
func (r *recorder) end() []string {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.errs
}

// start is fakemodel.New on rec, in a goroutine of its own so that a
// Fatalf ends only it; nil when it did.
func start(rec *recorder, script ...fakemodel.Turn) *fakemodel.Server {
	var s *fakemodel.Server
	done := make(chan struct{})
	go func() {
		defer close(done)
		s = fakemodel.New(rec, script...)
	}()
	<-done
	return s
}

// TestMalformedScript: a script that cannot be played stops the test at
// New, naming the turn and what is wrong with it.
func TestMalformedScript(t *testing.T) {
	ok := fakemodel.Text("fine")
	tests := []struct {
		name string
		turn fakemodel.Turn
		want string
	}{
		{"empty", fakemodel.Turn{}, "turn 2 of the script: the turn has no text, no calls and no error status"},
		{"args not JSON", fakemodel.Call("get_weather", `{"city":`), `turn 2 of the script: call 1 (get_weather): arguments "{\"city\":" are not a JSON object`},
		{"args an array", fakemodel.Call("get_weather", `[1]`), `call 1 (get_weather): arguments "[1]" are not a JSON object`},
		{"no name", fakemodel.Calls(fakemodel.ToolCall{Args: `{}`}), "turn 2 of the script: call 1 has no name"},
		{"same id twice", fakemodel.Calls(fakemodel.ToolCall{ID: "a", Name: "x", Args: `{}`}, fakemodel.ToolCall{ID: "a", Name: "y", Args: `{}`}),
			`call 2 (y): id "a" is used twice`},
		{"status not an error", fakemodel.Error(200, "ok"), "status 200 is not an HTTP error (400 to 599)"},
		{"error with text", fakemodel.Turn{Status: 500, Text: "hi"}, "an error turn (status 500) has no text, calls or cut"},
		{"retry-after alone", fakemodel.Turn{Text: "hi", RetryAfter: 1}, "retry-after without an error status"},
		{"unknown cut", fakemodel.Turn{Text: "hi", Cut: 9}, "unknown cut 9"},
		{"func and text", fakemodel.Truncated(fakemodel.Func(func(fakemodel.Request) fakemodel.Turn { return fakemodel.Text("x") })), "a Func turn has nothing else"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			if s := start(rec, ok, tt.turn); s != nil {
				t.Errorf("New went on")
			}
			got := rec.end()
			if len(got) != 1 || !strings.Contains(got[0], tt.want) {
				t.Errorf("reported %q, want %q", got, tt.want)
			}
		})
	}
}

// TestUnexpectedRequests: a request the script cannot answer fails the
// test, naming the request, and is answered at once with a 500 in the
// provider's shape (or one every provider's client reads).
func TestUnexpectedRequests(t *testing.T) {
	post := func(t *testing.T, url, body string) (int, string) {
		resp, err := http.Post(url, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	tests := []struct {
		name, path, body string
		want, answer     string
	}{
		{"wrong path", "/v1/embeddings", `{}`, "request 1 (POST /v1/embeddings): not an API this server plays",
			`{"error":{"code":500,"message":"fakemodel: request 1 (POST /v1/embeddings): not an API`},
		{"not JSON", "/v1/messages", `{"model":`, "request 1 (Anthropic Messages): the body is not a JSON object",
			`{"error":{"message":"fakemodel: request 1 (Anthropic Messages): the body is not a JSON object: unexpected end of JSON input","type":"api_error"},"type":"error"}`},
		{"unknown call id", "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"},
			{"role":"assistant","tool_calls":[{"id":"call_9","type":"function","function":{"name":"f","arguments":"{}"}}]},
			{"role":"tool","tool_call_id":"call_9","content":"done"}]}`,
			`request 1 (OpenAI Chat): a tool result for call "call_9", which no turn of the script made`,
			`{"error":{"code":null,"message":"fakemodel: request 1 (OpenAI Chat): a tool result for call \"call_9\", which no turn of the script made","param":null,"type":"server_error"}}`},
		{"unknown previous response", "/v1/responses", `{"model":"m","previous_response_id":"resp_1x","input":"hi"}`,
			`request 1 (OpenAI Responses): previous_response_id "resp_1x" is no response this server gave`, `"type":"server_error"`},
		{"unknown Gemini call", "/v1beta/models/g:generateContent", `{"contents":[{"role":"user","parts":[{"text":"hi"}]},
			{"role":"model","parts":[{"functionCall":{"name":"f"}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"output":"x"}}}]}]}`,
			`request 1 (Gemini): a tool result for f without a call id, which no turn of the script made`, `"status":"INTERNAL"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			s := start(rec, fakemodel.Text("never asked for"))
			status, body := post(t, s.URL()+tt.path, tt.body)
			got := rec.end()
			if status != 500 || !strings.Contains(body, tt.answer) {
				t.Errorf("answer %d %s, want 500 %s", status, body, tt.answer)
			}
			// The refusal only: the turn never asked for is not reported
			// once the test failed.
			if len(got) != 1 || !strings.Contains(got[0], tt.want) {
				t.Errorf("reported %q, want %q", got, tt.want)
			}
			if n := len(s.Requests()); n != 1 {
				t.Errorf("%d requests recorded", n)
			}
		})
	}
}

// TestScriptRunsOut: a run that asks for more turns than the script has
// fails the test naming the request, and the runner ends with the
// provider's 500 at once.
func TestScriptRunsOut(t *testing.T) {
	rec := &recorder{}
	s := start(rec, fakemodel.Call("get_weather", `{"city":"Paris"}`))
	chat := providers()[0]
	_, steps, err := chat.run(timeout(t), s, registry(), agent.Options{})
	if err == nil || !strings.Contains(err.Error(), "500") || steps != 2 {
		t.Errorf("err = %v, steps %d", err, steps)
	}
	want := []string{"fakemodel: request 2 (OpenAI Chat): the script has no turn left: its 1 turns were answered"}
	if diff := cmp.Diff(want, rec.end()); diff != "" {
		t.Errorf("reported (-want +got):\n%s", diff)
	}
}

// TestTurnsLeft: turns the client never asked for fail the test as it
// ends, unless it failed already.
func TestTurnsLeft(t *testing.T) {
	rec := &recorder{}
	s := start(rec, fakemodel.Text("one"), fakemodel.Text("two"), fakemodel.Text("three"))
	client := openai.NewClient(s.OpenAIOptions()...)
	if _, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: "m",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}}); err != nil {
		t.Fatal(err)
	}
	want := []string{"fakemodel: 2 of the script's 3 turns were never asked for (the client sent 1 requests)"}
	if diff := cmp.Diff(want, rec.end()); diff != "" {
		t.Errorf("reported (-want +got):\n%s", diff)
	}
}

// TestAssertCallsDiff: calls other than the ones wanted fail the test
// with a diff that shows what differs; the same JSON written otherwise
// does not.
func TestAssertCallsDiff(t *testing.T) {
	rec := &recorder{}
	s := start(rec, fakemodel.Call("get_weather", `{"city":"Paris"}`), fakemodel.Text("ok"))
	chat := providers()[0]
	if _, _, err := chat.run(timeout(t), s, registry(), agent.Options{}); err != nil {
		t.Fatal(err)
	}
	s.AssertCalls(fakemodel.Called{Name: "get_weather", Args: "{ \"city\" :\n\"Paris\" }", Result: "18°C in Paris"})
	if got := rec.end(); len(got) != 0 {
		t.Fatalf("reported %q", got)
	}
	rec = &recorder{}
	s = start(rec, fakemodel.Call("get_weather", `{"city":"Paris"}`), fakemodel.Text("ok"))
	if _, _, err := chat.run(timeout(t), s, registry(), agent.Options{}); err != nil {
		t.Fatal(err)
	}
	s.AssertCalls(fakemodel.Called{Name: "get_weather", Args: `{"city":"Rome"}`, Result: "18°C in Paris"})
	got := rec.end()
	if len(got) != 1 || !strings.Contains(got[0], "calls and results (-want +got)") ||
		!strings.Contains(got[0], `"city": string("Rome")`) || !strings.Contains(got[0], `"city": string("Paris")`) {
		t.Errorf("reported %q", got)
	}
}

// TestConverseMedia: the media of a Converse request's last turn, as
// Bedrock's image and document blocks carry them, and its results.
func TestConverseMedia(t *testing.T) {
	s := fakemodel.New(t, fakemodel.Calls(fakemodel.ToolCall{ID: "c1", Name: "snapshot", Args: `{}`}), fakemodel.Text("ok"))
	first := `{"messages":[{"role":"user","content":[{"text":"hi"}]}]}`
	second := `{"messages":[{"role":"user","content":[{"text":"hi"}]},
		{"role":"assistant","content":[{"toolUse":{"toolUseId":"c1","name":"snapshot","input":{}}}]},
		{"role":"user","content":[{"toolResult":{"toolUseId":"c1","status":"error","content":[{"text":"a sky"},{"json":{"a":1}},
			{"image":{"format":"png","source":{"bytes":"iVBORw=="}}}]}},
			{"document":{"format":"pdf","name":"d","source":{"bytes":"JVBERg=="}}}]}]}`
	for _, body := range []string{first, second} {
		resp, err := http.Post(s.URL()+"/model/m/converse", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	r := s.Requests()[1]
	want := []fakemodel.Media{{MIMEType: "image/png", Data: []byte("\x89PNG")}, {MIMEType: "application/pdf", Data: []byte("%PDF")}}
	if diff := cmp.Diff(want, r.Media()); diff != "" {
		t.Errorf("media (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]fakemodel.ToolResult{{ID: "c1", Text: "a sky\n{\"a\":1}", IsError: true}}, r.ToolResults()); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
}

// TestFunc: a Func turn answers from what was sent; one that makes a
// malformed turn or panics fails the test, naming the request, and is
// answered with a 500.
func TestFunc(t *testing.T) {
	echo := fakemodel.Func(func(r fakemodel.Request) fakemodel.Turn {
		var texts []string
		for _, res := range r.ToolResults() {
			texts = append(texts, res.Text)
		}
		return fakemodel.Text(strings.Join(texts, "; "))
	})
	each(t, func(t *testing.T, p provider, opts agent.Options) {
		s := fakemodel.New(t, fakemodel.Func(func(r fakemodel.Request) fakemodel.Turn {
			var calls []fakemodel.ToolCall
			for _, tool := range r.Tools() { // every tool declared
				calls = append(calls, fakemodel.ToolCall{Name: tool.Name, Args: `{"city":"Oslo"}`})
			}
			return fakemodel.Calls(calls...)
		}), echo)
		answer, _, err := p.run(timeout(t), s, registry(), opts)
		if err != nil || answer != "18°C in Oslo; the sky over Oslo"+p.mediaNote {
			t.Errorf("answer %q, err %v", answer, err)
		}
	})
	for _, tt := range []struct {
		name string
		fn   func(fakemodel.Request) fakemodel.Turn
		want string
	}{
		{"malformed", func(fakemodel.Request) fakemodel.Turn { return fakemodel.Call("f", "x") },
			`request 1 (Anthropic Messages): the turn its function made: call 1 (f): arguments "x" are not a JSON object`},
		{"panics", func(r fakemodel.Request) fakemodel.Turn { return fakemodel.Text(r.ToolResults()[0].Text) },
			"request 1 (Anthropic Messages): the turn its function made: it panicked: runtime error: index out of range [0] with length 0"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			s := start(rec, fakemodel.Func(tt.fn))
			resp, err := http.Post(s.URL()+"/v1/messages", "application/json", strings.NewReader(`{"messages":[]}`))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := rec.end(); resp.StatusCode != 500 || len(got) != 1 || !strings.Contains(got[0], tt.want) {
				t.Errorf("status %d, reported %q, want %q", resp.StatusCode, got, tt.want)
			}
		})
	}
}
