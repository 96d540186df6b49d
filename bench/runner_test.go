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

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
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
	sse    bool     // the bodies are server-sent events
	ctype  string   // the bodies' content type, when not JSON or SSE
	record bool     // keep the request bodies in sent
	sent   [][]byte // what was sent, when recording
}

func (t *cannedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		if t.record {
			b, err := io.ReadAll(req.Body)
			if err != nil {
				return nil, err
			}
			t.sent = append(t.sent, b)
		} else {
			io.Copy(io.Discard, req.Body)
		}
		req.Body.Close()
	}
	if t.next >= len(t.bodies) {
		return nil, errors.New("no more canned replies")
	}
	body := t.bodies[t.next]
	t.next++
	ct := "application/json"
	switch {
	case t.ctype != "":
		ct = t.ctype
	case t.sse:
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
	reg       *toolreg.Registry
	tools     []openai.ChatCompletionToolUnionParam
	respTools []responses.ToolUnionParam
	calls     int
}

func newRunnerFixture(tb testing.TB) *runnerFixture {
	f := &runnerFixture{reg: toolreg.NewRegistry()}
	f.reg.MustAdd(toolreg.MustNew(toolName, toolDesc, f.fn))
	tools, err := toolopenai.NewChat(f.reg).Tools()
	if err != nil {
		tb.Fatal(err)
	}
	f.tools = tools
	if f.respTools, err = toolopenai.NewResponses(f.reg).Tools(); err != nil {
		tb.Fatal(err)
	}
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
	name    string // group/path
	stream  bool
	replies []string // the transport's bodies
	setup   func(f *runnerFixture, tr *cannedTransport, stream bool) func(context.Context) (string, error)
	ctype   string // the replies' content type, when not JSON or SSE
}

// onChat makes a row's setup of one over an OpenAI client of the
// transport.
func onChat(setup func(f *runnerFixture, client openai.Client, stream bool) func(context.Context) (string, error)) func(*runnerFixture, *cannedTransport, bool) func(context.Context) (string, error) {
	return func(f *runnerFixture, tr *cannedTransport, stream bool) func(context.Context) (string, error) {
		return setup(f, chatClient(tr), stream)
	}
}

var runnerRows = append([]runnerRow{
	{"openai_Chat/bare_SDK", false, chatReplies, onChat(bareChat), ""},
	{"openai_Chat/toolreg", false, chatReplies, onChat(toolregChatRun), ""},
	{"openai_Chat_stream/bare_SDK", true, chatStreamReplies, onChat(bareChatStream), ""},
	{"openai_Chat_stream/toolreg", true, chatStreamReplies, onChat(toolregChatRun), ""},
	{"openai_Chat/toolreg_checkpoint", false, chatReplies, onChat(toolregChatCheckpointRun), ""},
	{"openai_Chat_stream/toolreg_checkpoint", true, chatStreamReplies, onChat(toolregChatCheckpointRun), ""},
	{"openai_Responses/bare_SDK", false, responsesReplies, onChat(bareResponses), ""},
	{"openai_Responses/toolreg", false, responsesReplies, onChat(toolregResponsesRun), ""},
	{"openai_Responses_stream/bare_SDK", true, responsesStreamReplies, onChat(bareResponses), ""},
	{"openai_Responses_stream/toolreg", true, responsesStreamReplies, onChat(toolregResponsesRun), ""},
}, providerRunnerRows...)

// BenchmarkRunner runs one two-step run per op against the in-process
// transport: step 1 the model calls the small tool, step 2 it answers. The
// bare SDK rows make the same two requests by hand; the toolreg rows run
// toolopenai's Chat.Run or Responses.Run with agent.Options{} (Stream for
// the streaming rows). ns/step is ns/op ÷ 2. The ratio to compare is
// toolreg ÷ bare SDK of the same group (BenchmarkRunnerRatio measures it
// in one op).
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
// their ratio. transcript-ns/run is what encoding State.Transcript, which
// every run does once at its end and the bare rows do not, costs, timed
// after both (transcriptSaver); toolreg-transcript/bare is the ratio
// without it. ns/op, B/op and allocs/op are those of both paths and the
// transcript together. The cancellable rows run both under a context that can be cancelled, as a
// server's request context is.
func BenchmarkRunnerRatio(b *testing.B) {
	var subs []string
	for _, row := range runnerRows {
		if group, ok := strings.CutSuffix(row.name, "/bare_SDK"); ok {
			subs = append(subs, group)
		}
	}
	for _, row := range runnerRows {
		if group, ok := strings.CutSuffix(row.name, "/bare_SDK"); ok {
			subs = append(subs, group+"/cancellable")
		}
	}
	for _, sub := range subs {
		group, cancellable := strings.CutSuffix(sub, "/cancellable")
		b.Run(sub, func(b *testing.B) {
			var bare, runner runnerRow
			for _, row := range runnerRows {
				switch row.name {
				case group + "/bare_SDK":
					bare = row
				case group + "/toolreg":
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
			save := transcriptSaver(b, group)
			var tBare, tRunner, tSave time.Duration
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
				t := time.Now()
				if err := save(); err != nil {
					b.Fatal(err)
				}
				tSave += time.Since(t)
			}
			b.ReportMetric(float64(tBare.Nanoseconds())/float64(b.N), "bare-ns/run")
			b.ReportMetric(float64(tRunner.Nanoseconds())/float64(b.N), "toolreg-ns/run")
			b.ReportMetric(float64(tRunner)/float64(tBare), "toolreg/bare")
			b.ReportMetric(float64(tSave.Nanoseconds())/float64(b.N), "transcript-ns/run")
			b.ReportMetric(float64(tRunner-tSave)/float64(tBare), "toolreg-transcript/bare")
		})
	}
}

// runnerSetup builds a row and checks once, before it is timed, that it
// does what every row must: the final text, after one call of the tool.
func runnerSetup(tb testing.TB, row runnerRow) (func(context.Context) (string, error), *cannedTransport, *runnerFixture) {
	f := newRunnerFixture(tb)
	tr := &cannedTransport{bodies: row.replies, sse: row.stream, ctype: row.ctype}
	run := row.setup(f, tr, row.stream)
	text, err := run(context.Background())
	if err != nil {
		tb.Fatalf("%s: %v", row.name, err)
	}
	if text != runnerAnswer || f.calls != 1 || tr.next != 2 {
		tb.Fatalf("%s: answer %q after %d tool calls and %d requests, want %q after 1 and 2", row.name, text, f.calls, tr.next, runnerAnswer)
	}
	return run, tr, f
}

// TestRunnerRows checks every row, and that the toolreg rows send the
// requests of the bare SDK rows of their group: the same JSON.
func TestRunnerRows(t *testing.T) {
	sent := map[string][][]byte{} // by row
	for _, row := range runnerRows {
		t.Run(row.name, func(t *testing.T) {
			_, tr, _ := runnerSetup(t, row)
			tr.record = true
			tr.rewind()
			if _, err := row.setup(newRunnerFixture(t), tr, row.stream)(context.Background()); err != nil {
				t.Fatal(err)
			}
			sent[row.name] = tr.sent
		})
	}
	for _, row := range runnerRows {
		group, ok := strings.CutSuffix(row.name, "/bare_SDK")
		if !ok {
			continue
		}
		bare, runner := sent[row.name], sent[group+"/toolreg"]
		if len(bare) != 2 || len(runner) != 2 {
			t.Fatalf("%s: %d and %d requests, want 2 each", group, len(bare), len(runner))
		}
		for i := range bare {
			var want, got any
			if err := json.Unmarshal(bare[i], &want); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(runner[i], &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s: request %d (-bare SDK +toolreg):\n%s", group, i+1, diff)
			}
		}
	}
}

// bareChat is the run by hand: build the params, ask, read the tool call,
// decode its arguments, call the Go function, append the messages, ask
// again.
func bareChat(f *runnerFixture, client openai.Client, _ bool) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		params := chatParams()
		params.Tools = f.tools
		params.ToolChoice = openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String("auto")}
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
		params.ToolChoice = openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String("auto")}
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

// toolregChatCheckpointRun is toolregChatRun with a checkpoint that saves
// nothing (agent.Options.Checkpoint): what the loop spends making and
// handing over the States, twice a run (the reply, the call), a store's
// own cost aside.
func toolregChatCheckpointRun(f *runnerFixture, client openai.Client, stream bool) func(context.Context) (string, error) {
	chat := toolopenai.NewChat(f.reg)
	opts := agent.Options{Stream: stream, Checkpoint: func(context.Context, *agent.State) error { return nil }}
	return func(ctx context.Context) (string, error) {
		run, err := chat.Run(ctx, &client.Chat.Completions, chatParams(), nil, opts)
		if err != nil {
			return "", err
		}
		return run.Answer(), nil
	}
}

// BenchmarkCheckpointRatio times the toolreg row of a group with and
// without a checkpoint that saves nothing, in turn within each op, as
// BenchmarkRunnerRatio does: checkpoint/none is their ratio.
func BenchmarkCheckpointRatio(b *testing.B) {
	for _, group := range []string{"openai_Chat", "openai_Chat_stream"} {
		b.Run(group, func(b *testing.B) {
			var rows [2]runnerRow // none, checkpoint
			for _, row := range runnerRows {
				switch row.name {
				case group + "/toolreg":
					rows[0] = row
				case group + "/toolreg_checkpoint":
					rows[1] = row
				}
			}
			var runs [2]func(context.Context) (string, error)
			var trs [2]*cannedTransport
			var took [2]time.Duration
			for i, row := range rows {
				runs[i], trs[i], _ = runnerSetup(b, row)
			}
			b.ReportAllocs()
			first := 0
			for b.Loop() {
				first = 1 - first // each goes first every other op
				for _, i := range []int{first, 1 - first} {
					trs[i].rewind()
					t := time.Now()
					if _, err := runs[i](context.Background()); err != nil {
						b.Fatal(err)
					}
					took[i] += time.Since(t)
				}
			}
			b.ReportMetric(float64(took[0].Nanoseconds())/float64(b.N), "none-ns/run")
			b.ReportMetric(float64(took[1].Nanoseconds())/float64(b.N), "checkpoint-ns/run")
			b.ReportMetric(float64(took[1])/float64(took[0]), "checkpoint/none")
		})
	}
}

// responsesReplies are chatReplies for the Responses API: a function_call
// item, then a message.
var responsesReplies = []string{responseJSON("resp_1", callItem(string(small.args))), responseJSON("resp_2", messageItem(runnerAnswer))}

// responsesStreamReplies are responsesReplies as streams of events: the
// call's arguments in two pieces, the answer in words, each stream closed by
// response.completed with the whole response.
var responsesStreamReplies = func() []string {
	seq := 0
	event := func(typ string, fields map[string]any) string {
		fields["type"], fields["sequence_number"] = typ, seq
		seq++
		b, err := json.Marshal(fields)
		if err != nil {
			panic(err)
		}
		return "event: " + typ + "\ndata: " + string(b) + "\n\n"
	}
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	args := string(small.args)
	half := len(args) / 2
	var call strings.Builder
	call.WriteString(event("response.created", map[string]any{"response": raw(responseJSON("resp_1"))}))
	call.WriteString(event("response.output_item.added", map[string]any{"output_index": 0, "item": raw(callItem(""))}))
	for _, d := range []string{args[:half], args[half:]} {
		call.WriteString(event("response.function_call_arguments.delta", map[string]any{"item_id": "fc_1", "output_index": 0, "delta": d}))
	}
	call.WriteString(event("response.function_call_arguments.done", map[string]any{"item_id": "fc_1", "output_index": 0, "arguments": args}))
	call.WriteString(event("response.output_item.done", map[string]any{"output_index": 0, "item": raw(callItem(args))}))
	call.WriteString(event("response.completed", map[string]any{"response": raw(responsesReplies[0])}))
	var text strings.Builder
	text.WriteString(event("response.created", map[string]any{"response": raw(responseJSON("resp_2"))}))
	text.WriteString(event("response.output_item.added", map[string]any{"output_index": 0, "item": raw(messageItem(""))}))
	for _, w := range strings.SplitAfter(runnerAnswer, " ") {
		text.WriteString(event("response.output_text.delta", map[string]any{"item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": w}))
	}
	text.WriteString(event("response.output_item.done", map[string]any{"output_index": 0, "item": raw(messageItem(runnerAnswer))}))
	text.WriteString(event("response.completed", map[string]any{"response": raw(responsesReplies[1])}))
	return []string{call.String(), text.String()}
}()

// responseJSON is a completed response with the output items given.
func responseJSON(id string, output ...string) string {
	return fmt.Sprintf(`{"id":%q,"object":"response","created_at":1,"status":"completed","model":"gpt-test","output":[%s],"parallel_tool_calls":true,"tool_choice":"auto","tools":[],"usage":{"input_tokens":50,"input_tokens_details":{"cached_tokens":0},"output_tokens":10,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":60}}`,
		id, strings.Join(output, ","))
}

func callItem(args string) string {
	return fmt.Sprintf(`{"type":"function_call","id":"fc_1","call_id":"call_1","name":%q,"arguments":%q,"status":"completed"}`, toolName, args)
}

func messageItem(text string) string {
	return fmt.Sprintf(`{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":%q,"annotations":[]}]}`, text)
}

func responsesParams(f *runnerFixture) responses.ResponseNewParams {
	return responses.ResponseNewParams{
		Model: "gpt-test",
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("What is the weather in Paris?")},
	}
}

// bareResponses is the run by hand on the Responses API: ask, run the
// function_call items, send their outputs with previous_response_id, ask
// again. Streamed, each response is the one response.completed holds.
func bareResponses(f *runnerFixture, client openai.Client, stream bool) func(context.Context) (string, error) {
	ask := func(ctx context.Context, params responses.ResponseNewParams) (*responses.Response, error) {
		if !stream {
			return client.Responses.New(ctx, params)
		}
		s := client.Responses.NewStreaming(ctx, params)
		defer s.Close()
		for s.Next() {
			if ev := s.Current(); ev.Type == "response.completed" {
				resp := ev.Response
				return &resp, nil
			}
		}
		if err := s.Err(); err != nil {
			return nil, err
		}
		return nil, errors.New("the stream ended before the response was complete")
	}
	return func(ctx context.Context) (string, error) {
		params := responsesParams(f)
		params.Tools = f.respTools
		params.ToolChoice = responses.ResponseNewParamsToolChoiceUnion{OfToolChoiceMode: param.NewOpt(responses.ToolChoiceOptionsAuto)}
		resp, err := ask(ctx, params)
		if err != nil {
			return "", err
		}
		var items []responses.ResponseInputItemUnionParam
		for _, item := range resp.Output {
			if item.Type != "function_call" {
				continue
			}
			fc := item.AsFunctionCall()
			var a SmallArgs
			if err := json.Unmarshal([]byte(fc.Arguments), &a); err != nil {
				return "", err
			}
			out, err := f.fn(ctx, a)
			if err != nil {
				return "", err
			}
			item := responses.ResponseInputItemParamOfFunctionCallOutput(out)
			item.OfFunctionCallOutput.CallID = openai.String(fc.CallID)
			items = append(items, item)
		}
		params.PreviousResponseID = openai.String(resp.ID)
		params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: items}
		if resp, err = ask(ctx, params); err != nil {
			return "", err
		}
		return resp.OutputText(), nil
	}
}

// toolregResponsesRun is the run through toolopenai.Responses.Run.
func toolregResponsesRun(f *runnerFixture, client openai.Client, stream bool) func(context.Context) (string, error) {
	a := toolopenai.NewResponses(f.reg)
	return func(ctx context.Context) (string, error) {
		run, err := a.Run(ctx, &client.Responses, responsesParams(f), nil, agent.Options{Stream: stream})
		if err != nil {
			return "", err
		}
		return run.Answer(), nil
	}
}
