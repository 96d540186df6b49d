package toolbedrock

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/smithy-go/eventstream"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/adapt/adapttest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// fakeBedrock plays Bedrock's runtime API with the given replies: for
// Converse a response body, for ConverseStream its events written with
// adapttest.SSE (event name and JSON payload), which the front sends in
// the AWS event-stream framing ConverseStream speaks.
func fakeBedrock(replies ...string) *adapttest.API {
	return &adapttest.API{Replies: replies, Error: func(msg string) string {
		b, _ := json.Marshal(map[string]string{"__type": "InternalServerException", "message": msg})
		return string(b)
	}}
}

// newClient is the SDK's real client, signing its requests with static
// credentials, against api. It makes no retries, so a test sees each
// failure once.
func newClient(t *testing.T, api *adapttest.API) *bedrockruntime.Client {
	srv := httptest.NewServer(front{api})
	t.Cleanup(srv.Close)
	cfg := aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", ""),
		Retryer:     func() aws.Retryer { return aws.NopRetryer{} },
		HTTPClient:  &http.Client{Transport: readOnlyBodies{awshttp.NewBuildableClient().GetTransport()}},
	}
	return bedrockruntime.NewFromConfig(cfg, func(o *bedrockruntime.Options) { o.BaseEndpoint = aws.String(srv.URL) })
}

// readOnlyBodies hides every request body's WriteTo from the transport.
// The SDK closes a request's body as soon as the response begins, and its
// body's WriteTo then returns io.EOF, which the transport, still draining
// the body it has sent whole, takes for a write error: it closes the
// connection under the streamed response. A server that answers the
// instant it has read the request, as this one does, meets that race;
// with Read the drain sees a plain end of body.
type readOnlyBodies struct{ http.RoundTripper }

func (t readOnlyBodies) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		r = r.Clone(r.Context())
		r.Body = struct{ io.ReadCloser }{r.Body}
	}
	return t.RoundTripper.RoundTrip(r)
}

// front passes each request to the API. The shared tests count a
// request's tools at its top level, where the other providers send them,
// so the front copies toolConfig.tools there as "tools"; the rest of the
// body is as the SDK sent it. A streamed reply is framed as AWS event
// stream messages.
type front struct{ api *adapttest.API }

func (f front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req map[string]json.RawMessage
	if json.Unmarshal(body, &req) == nil && req["toolConfig"] != nil {
		var cfg struct {
			Tools json.RawMessage `json:"tools"`
		}
		json.Unmarshal(req["toolConfig"], &cfg)
		req["tools"] = cfg.Tools
		body, _ = json.Marshal(req)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if strings.HasSuffix(r.URL.Path, "/converse-stream") {
		w = &eventStreamWriter{ResponseWriter: w}
	}
	f.api.ServeHTTP(w, r)
}

// eventStreamWriter turns the server-sent events the API writes into AWS
// event-stream messages, one per event: the event's name as its
// :event-type, its data as the JSON payload. An event named
// "exception:<type>" is an exception message of that type. Anything
// written that is not an event stream (an error response) passes as it
// is.
type eventStreamWriter struct {
	http.ResponseWriter
	sse bool
	buf bytes.Buffer
}

func (w *eventStreamWriter) WriteHeader(code int) {
	if w.Header().Get("Content-Type") == "text/event-stream" {
		w.sse = true
		w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *eventStreamWriter) Write(p []byte) (int, error) {
	if !w.sse {
		return w.ResponseWriter.Write(p)
	}
	w.buf.Write(p)
	for {
		i := bytes.Index(w.buf.Bytes(), []byte("\n\n"))
		if i < 0 {
			return len(p), nil
		}
		event := string(w.buf.Next(i + 2))
		if err := writeEvent(w.ResponseWriter, event); err != nil {
			return 0, err
		}
	}
}

func (w *eventStreamWriter) Flush() { w.ResponseWriter.(http.Flusher).Flush() }

func (w *eventStreamWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return w.ResponseWriter.(http.Hijacker).Hijack()
}

// writeEvent writes one server-sent event as an event-stream message.
func writeEvent(w io.Writer, event string) error {
	var name, data string
	for _, line := range strings.Split(strings.TrimSpace(event), "\n") {
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			name = v
		} else if v, ok := strings.CutPrefix(line, "data: "); ok {
			data = v
		}
	}
	headers := eventstream.Headers{
		{Name: ":message-type", Value: eventstream.StringValue("event")},
		{Name: ":event-type", Value: eventstream.StringValue(name)},
		{Name: ":content-type", Value: eventstream.StringValue("application/json")},
	}
	if typ, ok := strings.CutPrefix(name, "exception:"); ok {
		headers = eventstream.Headers{
			{Name: ":message-type", Value: eventstream.StringValue("exception")},
			{Name: ":exception-type", Value: eventstream.StringValue(typ)},
			{Name: ":content-type", Value: eventstream.StringValue("application/json")},
		}
	}
	return eventstream.NewEncoder().Encode(w, eventstream.Message{Headers: headers, Payload: []byte(data)})
}

// toolUses is a Converse response asking for calls, given as
// name/input pairs; ids are tooluse_1, tooluse_2, ...
func toolUses(pairs ...string) string {
	var content []any
	for i := 0; i < len(pairs); i += 2 {
		content = append(content, map[string]any{"toolUse": map[string]any{
			"toolUseId": fmt.Sprintf("tooluse_%d", i/2+1), "name": pairs[i], "input": json.RawMessage(pairs[i+1])}})
	}
	return response(content, "tool_use")
}

// answer is a Converse response with a final text.
func answer(text string) string {
	return response([]any{map[string]any{"text": text}}, "end_turn")
}

func response(content []any, stop string) string {
	b, err := json.Marshal(map[string]any{
		"output":     map[string]any{"message": map[string]any{"role": "assistant", "content": content}},
		"stopReason": stop,
		"usage":      map[string]any{"inputTokens": 12, "outputTokens": 7, "totalTokens": 19},
		"metrics":    map[string]any{"latencyMs": 100},
	})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// converseInput is the run's input: a model and one user message.
func converseInput() *bedrockruntime.ConverseInput {
	return &bedrockruntime.ConverseInput{ModelId: aws.String("anthropic.claude-test"), Messages: userMessage("plan my week")}
}

// requestMessages returns the "messages" of a request body, each as a
// map.
func requestMessages(t *testing.T, request map[string]any) []map[string]any {
	t.Helper()
	var out []map[string]any
	msgs, _ := request["messages"].([]any)
	for _, m := range msgs {
		out = append(out, m.(map[string]any))
	}
	return out
}

// converseResults reads the results of a turn from the request after it:
// the user's message, the assistant's message with its tool uses, then
// one user message of toolResult blocks answering them, in call order,
// and nothing else. A json block reads as its compact JSON (its keys
// sorted, as Go writes a map), the only content of a structured result.
func converseResults(t *testing.T, request map[string]any) []adapttest.Result {
	t.Helper()
	msgs := requestMessages(t, request)
	if len(msgs) != 3 || msgs[1]["role"] != "assistant" || msgs[2]["role"] != "user" {
		t.Fatalf("not the user's message, the assistant's tool uses, then one message of results:\n%v", msgs)
	}
	uses, results := msgs[1]["content"].([]any), msgs[2]["content"].([]any)
	if len(uses) != len(results) {
		t.Fatalf("%d tool uses, %d results", len(uses), len(results))
	}
	var got []adapttest.Result
	for i, b := range results {
		r, ok := b.(map[string]any)["toolResult"].(map[string]any)
		want := fmt.Sprintf("tooluse_%d", i+1)
		if !ok || r["toolUseId"] != want {
			t.Fatalf("block %d is not the result of %s: %v", i, want, b)
		}
		content := r["content"].([]any)
		if len(content) != 1 {
			t.Errorf("result %d: %d content blocks, want 1", i, len(content))
		}
		var text string
		switch c := content[0].(map[string]any); {
		case c["text"] != nil:
			text = c["text"].(string)
		case c["json"] != nil:
			b, _ := json.Marshal(c["json"])
			text = string(b)
		}
		switch r["status"] {
		case nil, "error":
		default:
			t.Errorf("result %d: status %v", i, r["status"])
		}
		got = append(got, adapttest.Result{Text: text, IsError: r["status"] == "error"})
	}
	return got
}

// converseTools lists the names of the tools a request offers.
func converseTools(t *testing.T, request map[string]any) []string {
	cfg, _ := request["toolConfig"].(map[string]any)
	tools, _ := cfg["tools"].([]any)
	var names []string
	for _, tool := range tools {
		names = append(names, tool.(map[string]any)["toolSpec"].(map[string]any)["name"].(string))
	}
	return names
}

// converseChoice reads a request's tool choice in Converse's form: no
// tools, or only the placeholder, is None; no toolChoice is Auto; "any"
// is Required; "tool" is Force.
func converseChoice(t *testing.T, request map[string]any) agent.ToolChoice {
	if tools := converseTools(t, request); len(tools) == 0 || len(tools) == 1 && tools[0] == placeholderName {
		return agent.None
	}
	c, ok := request["toolConfig"].(map[string]any)["toolChoice"].(map[string]any)
	switch {
	case !ok:
		return agent.Auto
	case c["any"] != nil:
		return agent.Required
	case c["tool"] != nil:
		return agent.Force(c["tool"].(map[string]any)["name"].(string))
	}
	t.Fatalf("toolChoice %v", c)
	return agent.ToolChoice{}
}
