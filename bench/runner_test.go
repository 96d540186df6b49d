package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/agent"
)

// cannedTransport is an http.RoundTripper that answers each request with
// the next of its bodies, in process: no network, no server. It reads the
// request body to its end, as a transport that sends it would.
type cannedTransport struct {
	bodies []string // the replies of one run, in order
	next   int
	sse    bool // the bodies are server-sent events
}

func (t *cannedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	if t.next >= len(t.bodies) {
		return nil, errors.New("no more canned replies")
	}
	body := t.bodies[t.next]
	t.next++
	ct := "application/json"
	if t.sse {
		ct = "text/event-stream"
	}
	return &http.Response{
		StatusCode:    http.StatusOK,
		Status:        "200 OK",
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        http.Header{"Content-Type": {ct}},
		Body:          io.NopCloser(strings.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}, nil
}

// rewind makes the transport answer a new run from its first body.
func (t *cannedTransport) rewind() { t.next = 0 }

const runnerAnswer = "It is sunny in Paris."

// chatReplies are the two responses of a run: step 1 calls the small tool
// once, step 2 answers with text.
var chatReplies = []string{
	fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-test","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"refusal":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":%q,"arguments":%q}}]},"logprobs":null}],"usage":{"prompt_tokens":50,"completion_tokens":10,"total_tokens":60}}`,
		toolName, small.args),
	fmt.Sprintf(`{"id":"chatcmpl-2","object":"chat.completion","created":1,"model":"gpt-test","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":%q,"refusal":null},"logprobs":null}],"usage":{"prompt_tokens":70,"completion_tokens":8,"total_tokens":78}}`,
		runnerAnswer),
}

// chatStreamReplies are chatReplies as streams: the call's arguments in
// two pieces, the answer in words, each stream closed by its usage.
var chatStreamReplies = func() []string {
	chunk := func(delta, finish string) string {
		if finish != "" {
			finish = `"` + finish + `"`
		} else {
			finish = "null"
		}
		return `data: {"id":"chatcmpl-s","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + finish + `}]}` + "\n\n"
	}
	usage := func(in, out int) string {
		return fmt.Sprintf(`data: {"id":"chatcmpl-s","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`+"\n\n", in, out, in+out)
	}
	args := string(small.args)
	half := len(args) / 2
	var call strings.Builder
	call.WriteString(chunk(fmt.Sprintf(`{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":%q,"arguments":%q}}]}`, toolName, args[:half]), ""))
	call.WriteString(chunk(fmt.Sprintf(`{"tool_calls":[{"index":0,"function":{"arguments":%q}}]}`, args[half:]), ""))
	call.WriteString(chunk(`{}`, "tool_calls"))
	call.WriteString(usage(50, 10))
	call.WriteString("data: [DONE]\n\n")
	var text strings.Builder
	for i, w := range strings.SplitAfter(runnerAnswer, " ") {
		role := ""
		if i == 0 {
			role = `"role":"assistant",`
		}
		text.WriteString(chunk(fmt.Sprintf(`{%s"content":%q}`, role, w), ""))
	}
	text.WriteString(chunk(`{}`, "stop"))
	text.WriteString(usage(70, 8))
	text.WriteString("data: [DONE]\n\n")
	return []string{call.String(), text.String()}
}()

// runnerFixture is what every row of BenchmarkRunner shares: the small
// tool, counting its calls, and its definitions as toolopenai sends them,
// so that every row sends the same request bytes.
type runnerFixture struct {
	reg   *toolreg.Registry
	tools []openai.ChatCompletionToolUnionParam
	calls int
}

func newRunnerFixture(tb testing.TB) *runnerFixture {
	f := &runnerFixture{reg: toolreg.NewRegistry()}
	f.reg.MustAdd(toolreg.MustNew(toolName, toolDesc, f.fn))
	tools, err := toolopenai.NewChat(f.reg).Tools()
	if err != nil {
		tb.Fatal(err)
	}
	f.tools = tools
	return f
}

func (f *runnerFixture) fn(ctx context.Context, a SmallArgs) (string, error) {
	f.calls++
	return small.fn(ctx, a)
}

func chatClient(t *cannedTransport) openai.Client {
	return openai.NewClient(
		option.WithHTTPClient(&http.Client{Transport: t}),
		option.WithBaseURL("http://model.test/v1/"),
		option.WithAPIKey("test"),
		option.WithMaxRetries(0),
	)
}

func chatParams() openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:    "gpt-test",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What is the weather in Paris?")},
	}
}

// runnerRow is one way of making the two requests of a run; it returns
// the model's final text.
type runnerRow struct {
	name   string
	stream bool
	setup  func(f *runnerFixture, client openai.Client, stream bool) func(context.Context) (string, error)
}

var runnerRows = []runnerRow{
	{"openai_Chat/bare_SDK", false, bareChat},
	{"openai_Chat/toolreg_Chat.Run", false, toolregChatRun},
	{"openai_Chat_stream/bare_SDK", true, bareChatStream},
	{"openai_Chat_stream/toolreg_Chat.Run", true, toolregChatRun},
}

// BenchmarkRunner runs one two-step run per op against the in-process
// transport: step 1 the model calls the small tool, step 2 it answers. The
// bare SDK rows make the same two requests by hand; the toolreg rows run
// Chat.Run with agent.Options{} (Stream for the streaming rows). ns/step
// is ns/op ÷ 2. The ratio to compare is toolreg ÷ bare SDK of the same
// group.
func BenchmarkRunner(b *testing.B) {
	for _, row := range runnerRows {
		b.Run(row.name, func(b *testing.B) {
			run, tr, _ := runnerSetup(b, row)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				tr.rewind()
				if _, err := run(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/2, "ns/step")
		})
	}
}

// BenchmarkRunnerRatio times the bare SDK and toolreg rows of a group in
// turn within each op, so that a shared machine's drift hits both alike:
// bare-ns/run and toolreg-ns/run are each path's time per run, toolreg/bare
// their ratio. ns/op, B/op and allocs/op are those of both paths together.
// The cancellable rows run both under a context that can be cancelled, as a
// server's request context is: the registry then runs each call on a
// goroutine of its own, so that a cancellation is prompt.
func BenchmarkRunnerRatio(b *testing.B) {
	for _, sub := range []string{"openai_Chat", "openai_Chat_stream", "openai_Chat/cancellable", "openai_Chat_stream/cancellable"} {
		group, cancellable := strings.CutSuffix(sub, "/cancellable")
		b.Run(sub, func(b *testing.B) {
			var bare, runner runnerRow
			for _, row := range runnerRows {
				switch row.name {
				case group + "/bare_SDK":
					bare = row
				case group + "/toolreg_Chat.Run":
					runner = row
				}
			}
			runBare, trBare, _ := runnerSetup(b, bare)
			runRunner, trRunner, _ := runnerSetup(b, runner)
			ctx := context.Background()
			if cancellable {
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				defer cancel()
			}
			var tBare, tRunner time.Duration
			timed := func(run func(context.Context) (string, error)) time.Duration {
				t := time.Now()
				if _, err := run(ctx); err != nil {
					b.Fatal(err)
				}
				return time.Since(t)
			}
			b.ReportAllocs()
			odd := false
			for b.Loop() {
				trBare.rewind()
				trRunner.rewind()
				// Each goes first every other op: neither pays the
				// other's garbage more often.
				if odd = !odd; odd {
					tBare += timed(runBare)
					tRunner += timed(runRunner)
				} else {
					tRunner += timed(runRunner)
					tBare += timed(runBare)
				}
			}
			b.ReportMetric(float64(tBare.Nanoseconds())/float64(b.N), "bare-ns/run")
			b.ReportMetric(float64(tRunner.Nanoseconds())/float64(b.N), "toolreg-ns/run")
			b.ReportMetric(float64(tRunner)/float64(tBare), "toolreg/bare")
		})
	}
}

// runnerSetup builds a row and checks once, before it is timed, that it
// does what every row must: the final text, after one call of the tool.
func runnerSetup(tb testing.TB, row runnerRow) (func(context.Context) (string, error), *cannedTransport, *runnerFixture) {
	f := newRunnerFixture(tb)
	tr := &cannedTransport{bodies: chatReplies}
	if row.stream {
		tr = &cannedTransport{bodies: chatStreamReplies, sse: true}
	}
	run := row.setup(f, chatClient(tr), row.stream)
	text, err := run(context.Background())
	if err != nil {
		tb.Fatalf("%s: %v", row.name, err)
	}
	if text != runnerAnswer || f.calls != 1 || tr.next != 2 {
		tb.Fatalf("%s: answer %q after %d tool calls and %d requests, want %q after 1 and 2", row.name, text, f.calls, tr.next, runnerAnswer)
	}
	return run, tr, f
}

func TestRunnerRows(t *testing.T) {
	for _, row := range runnerRows {
		t.Run(row.name, func(t *testing.T) { runnerSetup(t, row) })
	}
}

// bareChat is the run by hand: build the params, ask, read the tool call,
// decode its arguments, call the Go function, append the messages, ask
// again.
func bareChat(f *runnerFixture, client openai.Client, _ bool) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		params := chatParams()
		params.Tools = f.tools
		resp, err := client.Chat.Completions.New(ctx, params)
		if err != nil {
			return "", err
		}
		params, err = bareToolTurn(ctx, f, params, resp.Choices[0].Message)
		if err != nil {
			return "", err
		}
		resp, err = client.Chat.Completions.New(ctx, params)
		if err != nil {
			return "", err
		}
		return resp.Choices[0].Message.Content, nil
	}
}

// bareChatStream is bareChat through the streaming API, each response
// read with the SDK's accumulator.
func bareChatStream(f *runnerFixture, client openai.Client, _ bool) func(context.Context) (string, error) {
	ask := func(ctx context.Context, params openai.ChatCompletionNewParams) (*openai.ChatCompletion, error) {
		params.StreamOptions.IncludeUsage = openai.Bool(true)
		stream := client.Chat.Completions.NewStreaming(ctx, params)
		defer stream.Close()
		var acc openai.ChatCompletionAccumulator
		for stream.Next() {
			if !acc.AddChunk(stream.Current()) {
				return nil, errors.New("chunks do not fit together")
			}
		}
		if err := stream.Err(); err != nil {
			return nil, err
		}
		return &acc.ChatCompletion, nil
	}
	return func(ctx context.Context) (string, error) {
		params := chatParams()
		params.Tools = f.tools
		resp, err := ask(ctx, params)
		if err != nil {
			return "", err
		}
		params, err = bareToolTurn(ctx, f, params, resp.Choices[0].Message)
		if err != nil {
			return "", err
		}
		resp, err = ask(ctx, params)
		if err != nil {
			return "", err
		}
		return resp.Choices[0].Message.Content, nil
	}
}

// bareToolTurn runs the tool calls of msg by hand and returns params with
// the assistant message and the tool messages appended.
func bareToolTurn(ctx context.Context, f *runnerFixture, params openai.ChatCompletionNewParams, msg openai.ChatCompletionMessage) (openai.ChatCompletionNewParams, error) {
	params.Messages = append(params.Messages, msg.ToParam())
	for _, tc := range msg.ToolCalls {
		var a SmallArgs
		if err := json.Unmarshal([]byte(tc.Function.Arguments), &a); err != nil {
			return params, err
		}
		out, err := f.fn(ctx, a)
		if err != nil {
			return params, err
		}
		params.Messages = append(params.Messages, openai.ToolMessage(out, tc.ID))
	}
	return params, nil
}

// toolregChatRun is the run through toolopenai.Chat.Run, with
// agent.Options{} (Stream for a streaming transport).
func toolregChatRun(f *runnerFixture, client openai.Client, stream bool) func(context.Context) (string, error) {
	chat := toolopenai.NewChat(f.reg)
	return func(ctx context.Context) (string, error) {
		run, err := chat.Run(ctx, &client.Chat.Completions, chatParams(), nil, agent.Options{Stream: stream})
		if err != nil {
			return "", err
		}
		return run.Answer(), nil
	}
}
