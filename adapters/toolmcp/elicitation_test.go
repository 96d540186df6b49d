package toolmcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/adapt/adapttest"
)

const confirmSchema = `{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`

// asker is an upstream server whose tools ask the user, as servers of
// each revision do: "transfer" returns input requests (the SDK asks a
// client before 2026-07-28 over its session and calls the tool again),
// "survey" asks two questions in turn over its session.
type asker struct {
	*upstream
	transferred atomic.Int64
	arrive      *sync.WaitGroup               // when set, first calls of transfer wait for each other
	questions   func(n int) *mcp.ElicitParams // what "pester" asks the nth time
}

func newAsker() *asker {
	s := &asker{upstream: newUpstream()}
	s.srv.AddTool(&mcp.Tool{Name: "transfer", Description: "Transfers a sum.", InputSchema: json.RawMessage(`{"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct{ Sum int64 }
			json.Unmarshal(req.Params.Arguments, &a)
			res, ok := req.Params.InputResponses["confirm"].(*mcp.ElicitResult)
			if !ok {
				if s.arrive != nil {
					s.arrive.Done()
					s.arrive.Wait()
				}
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"confirm": &mcp.ElicitParams{
					Message: fmt.Sprintf("Transfer %d EUR?", a.Sum), RequestedSchema: json.RawMessage(confirmSchema)}}}, nil
			}
			if res.Action != "accept" || res.Content["confirm"] != true {
				return text("not transferred: " + res.Action), nil
			}
			s.transferred.Add(a.Sum)
			return text(fmt.Sprintf("transferred %d EUR", a.Sum)), nil
		})
	s.srv.AddTool(&mcp.Tool{Name: "survey", Description: "Asks two questions.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var got []string
			for _, q := range []string{"Name?", "City?"} {
				res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: q,
					RequestedSchema: json.RawMessage(`{"type":"object","properties":{"v":{"type":"string"}},"required":["v"]}`)})
				if err != nil {
					return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
				}
				if res.Action != "accept" {
					return text(q + " " + res.Action), nil
				}
				got = append(got, fmt.Sprint(res.Content["v"]))
			}
			return text(strings.Join(got, ", ")), nil
		})
	s.srv.AddTool(&mcp.Tool{Name: "nested", Description: "Asks for a form MCP does not allow.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"q": &mcp.ElicitParams{Message: "Where?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"address":{"type":"object","properties":{"city":{"type":"string"}}}}}`)}}}, nil
		})
	s.srv.AddTool(&mcp.Tool{Name: "pester", Description: "Asks what it is told to.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			for n := 0; n < 20; n++ {
				if _, err := req.Session.Elicit(ctx, s.questions(n)); err != nil {
					return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
				}
			}
			return text("done"), nil
		})
	return s
}

// importAsker imports s's tools into a new registry through a new session
// speaking version, as a process that starts does.
func (s *asker) importAsker(t *testing.T, version string) (*toolreg.Registry, *Importer) {
	t.Helper()
	reg := toolreg.NewRegistry()
	im, err := NewImporter(reg, Prefix("bank__"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	c := mcp.NewClient(&mcp.Implementation{Name: "importer"}, &mcp.ClientOptions{ToolListChangedHandler: im.ToolListChanged, ElicitationHandler: im.Elicit})
	cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if err := im.Import(ctx, cs); err != nil {
		t.Fatal(err)
	}
	return reg, im
}

// TestImportedElicitationPausesRun: an imported server's question pauses
// an agent run; the State goes to JSON, and another registry, importer
// and session (another process, a day later) answer it and resume; the
// server's tool then runs to its end once.
func TestImportedElicitationPausesRun(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			s := newAsker()
			reg, _ := s.importAsker(t, v)
			params := openai.ChatCompletionNewParams{Model: "scripted", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Send 10 EUR.")}}
			api := &adapttest.API{Replies: []string{chatCalls("bank__transfer", `{"sum":10}`)}}
			client := openai.NewClient(option.WithBaseURL(api.Serve(t)+"/v1/"), option.WithAPIKey("test"), option.WithMaxRetries(0))
			run, err := toolopenai.NewChat(reg).Run(context.Background(), &client.Chat.Completions, params, nil, agent.Options{})
			if !errors.Is(err, agent.ErrPaused) {
				t.Fatalf("err = %v, want ErrPaused", err)
			}
			pending := run.State.Pending()
			if len(pending) != 1 || pending[0].Status != agent.StatusInterrupted {
				t.Fatalf("pending %+v", pending)
			}
			if s.transferred.Load() != 0 {
				t.Fatal("transferred before the user confirmed")
			}
			stored, err := json.Marshal(run.State)
			if err != nil {
				t.Fatal(err)
			}

			// Another process.
			reg2, _ := s.importAsker(t, v)
			var st agent.State
			if err := json.Unmarshal(stored, &st); err != nil {
				t.Fatal(err)
			}
			call := st.Pending()[0]
			e, ok := ElicitationOf(call.Question)
			if !ok {
				t.Fatalf("not an elicitation: %s", call.Question)
			}
			want := &Elicitation{Kind: "mcp.elicitation", Server: "upstream", Tool: "transfer", Message: "Transfer 10 EUR?",
				RequestedSchema: json.RawMessage(`{"properties":{"confirm":{"type":"boolean"}},"required":["confirm"],"type":"object"}`), Key: e.Key}
			if diff := cmp.Diff(want, e); diff != "" {
				t.Errorf("question (-want +got):\n%s", diff)
			}
			if _, err := e.Accept(map[string]any{"confirm": "yes"}); !errors.Is(err, ErrElicitation) {
				t.Errorf("an answer not valid under the schema: err = %v", err)
			}
			ans, err := e.Accept(map[string]any{"confirm": true})
			if err != nil {
				t.Fatal(err)
			}
			if err := st.Answer(call.Key(), ans); err != nil {
				t.Fatal(err)
			}
			api2 := &adapttest.API{Replies: []string{chatReply(map[string]any{"role": "assistant", "content": "Done."}, "stop")}}
			client2 := openai.NewClient(option.WithBaseURL(api2.Serve(t)+"/v1/"), option.WithAPIKey("test"), option.WithMaxRetries(0))
			run, err = toolopenai.NewChat(reg2).Run(context.Background(), &client2.Chat.Completions, params, &st, agent.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if run.Answer() != "Done." || s.transferred.Load() != 10 {
				t.Errorf("answer %q, transferred %d", run.Answer(), s.transferred.Load())
			}
			msgs := api2.Requests[0]["messages"].([]any)
			if got := msgs[len(msgs)-1].(map[string]any)["content"]; got != "transferred 10 EUR" {
				t.Errorf("the model read %q", got)
			}
		})
	}
}

// call calls an imported tool as a resumed run does, with answer as the
// host's answer (nil on a first call).
func callWith(reg *toolreg.Registry, name string, answer any) toolreg.Output {
	return callArgs(reg, name, `{}`, answer)
}

// callArgs is callWith with arguments.
func callArgs(reg *toolreg.Registry, name, args string, answer any) toolreg.Output {
	ctx := context.Background()
	if answer != nil {
		b, _ := json.Marshal(answer)
		ctx = toolreg.WithCallInfo(ctx, func(c toolreg.ToolCall) toolreg.CallInfo { return toolreg.CallInfo{ID: c.ID, Answer: b} })
	}
	return reg.Call(ctx, name, json.RawMessage(args))
}

// question is the Elicitation of an interrupted Output.
func question(t *testing.T, out toolreg.Output) *Elicitation {
	t.Helper()
	var ie *toolreg.InterruptError
	if !errors.As(out.Err, &ie) {
		t.Fatalf("not an interrupt: %+v", out)
	}
	e, ok := ElicitationOf(ie.Question)
	if !ok {
		t.Fatalf("not an elicitation: %s", ie.Question)
	}
	return e
}

// TestImportedElicitationTwoQuestions: a server that asks two questions in
// one call pauses twice; the second answer carries the first, so the call
// made again answers both without the host's process remembering.
func TestImportedElicitationTwoQuestions(t *testing.T) {
	s := newAsker()
	reg, _ := s.importAsker(t, "2025-11-25")
	e := question(t, callWith(reg, "bank__survey", nil))
	if e.Message != "Name?" {
		t.Fatalf("asked %q", e.Message)
	}
	a1, err := e.Accept(map[string]any{"v": "Ada"})
	if err != nil {
		t.Fatal(err)
	}
	e = question(t, callWith(reg, "bank__survey", a1))
	if e.Message != "City?" || len(e.Answered) != 1 {
		t.Fatalf("asked %q, with %d earlier answers", e.Message, len(e.Answered))
	}
	a2, err := e.Accept(map[string]any{"v": "Paris"})
	if err != nil {
		t.Fatal(err)
	}
	reg2, _ := s.importAsker(t, "2025-11-25") // the answer alone is enough
	if out := callWith(reg2, "bank__survey", a2); out.Text != "Ada, Paris" || out.IsError {
		t.Errorf("got %+v", out)
	}
	// Declined: the server hears it and decides.
	if out := callWith(reg2, "bank__survey", e.Decline()); out.Text != "City? decline" {
		t.Errorf("declined: got %+v", out)
	}
}

// TestImportedElicitationHostile: a server that asks what MCP does not
// allow, too much, or without end, and a host answer that is not one,
// fail the call with ErrElicitation; the model reads a bounded reason.
func TestImportedElicitationHostile(t *testing.T) {
	str := func(n int) string {
		return `{"type":"object","properties":{"v":{"type":"string","description":"` + strings.Repeat("x", n) + `"}}}`
	}
	cases := []struct {
		name   string
		ask    func(n int) *mcp.ElicitParams
		answer any
		want   string
	}{
		{"huge schema", func(int) *mcp.ElicitParams {
			return &mcp.ElicitParams{Message: "?", RequestedSchema: json.RawMessage(str(maxElicitSchema))}
		}, nil, "the requestedSchema is 16"},
		{"many properties", func(int) *mcp.ElicitParams {
			props := map[string]any{}
			for i := range 60 {
				props[fmt.Sprint("p", i)] = map[string]any{"type": "string"}
			}
			return &mcp.ElicitParams{Message: "?", RequestedSchema: map[string]any{"type": "object", "properties": props}}
		}, nil, "60 properties; up to 50"},
		{"huge message", func(int) *mcp.ElicitParams {
			return &mcp.ElicitParams{Message: strings.Repeat("?", maxElicitMessage+1), RequestedSchema: json.RawMessage(str(1))}
		}, nil, "question is 4001 bytes long"},
		{"endless", func(n int) *mcp.ElicitParams {
			return &mcp.ElicitParams{Message: fmt.Sprint("Question ", n), RequestedSchema: json.RawMessage(str(1))}
		}, answerAll(maxElicitations), "more than 10 questions"},
		{"not an answer", func(int) *mcp.ElicitParams {
			return &mcp.ElicitParams{Message: "?", RequestedSchema: json.RawMessage(str(1))}
		}, map[string]any{"v": "yes"}, "not an answer to an MCP elicitation"},
		{"invalid answer", func(int) *mcp.ElicitParams {
			return &mcp.ElicitParams{Message: "?", RequestedSchema: json.RawMessage(confirmSchema)}
		}, ElicitationAnswer{Answers: map[string]*mcp.ElicitResult{questionKey("pester", "?", asMap(confirmSchema)): {Action: "accept", Content: map[string]any{"confirm": 1}}}},
			"the host's answer: MCP elicitation failed: the answer is not valid under the requested schema"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newAsker()
			s.questions = tc.ask
			reg, _ := s.importAsker(t, "2025-11-25")
			out := callWith(reg, "bank__pester", tc.answer)
			if !errors.Is(out.Err, ErrElicitation) || !strings.Contains(out.Text, tc.want) {
				t.Errorf("got %q (%v), want ErrElicitation and %q", out.Text, out.Err, tc.want)
			}
			if len(out.Text) > 2000 {
				t.Errorf("the model reads %d bytes", len(out.Text))
			}
		})
	}
}

// TestImportedElicitationNested: a form MCP does not allow is refused by
// the SDK's client before Elicit sees it, in each revision; the call fails
// with a message that says why, and nothing pauses.
func TestImportedElicitationNested(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			reg, _ := newAsker().importAsker(t, v)
			out := callWith(reg, "bank__nested", nil)
			if !out.IsError || !strings.Contains(out.Text, `elicit schema property "address" contains nested properties, only primitive properties are allowed`) || errors.Is(out.Err, toolreg.ErrInterrupt) {
				t.Errorf("got %q (%v)", out.Text, out.Err)
			}
		})
	}
}

// answerAll answers the first n questions "Question i" of pester.
func answerAll(n int) ElicitationAnswer {
	schema := json.RawMessage(`{"type":"object","properties":{"v":{"type":"string","description":"x"}}}`)
	ans := ElicitationAnswer{Answers: map[string]*mcp.ElicitResult{}}
	for i := range n {
		ans.Answers[questionKey("pester", fmt.Sprint("Question ", i), asMap(string(schema)))] = &mcp.ElicitResult{Action: "cancel"}
	}
	return ans
}

// asMap is schema as the client reads it.
func asMap(schema string) map[string]any {
	var m map[string]any
	json.Unmarshal([]byte(schema), &m)
	return m
}

// TestImportedElicitationConcurrent: two calls in flight on one session
// both ask. At 2026-07-28 each question comes with its call, and both
// pause; before, the questions come on their own, and the first cannot be
// told apart (neither call can end before its question is answered), so
// the server hears cancel and that call goes on unpaused; the second may
// come once the first call is over, and pause its own.
func TestImportedElicitationConcurrent(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			s := newAsker()
			s.arrive = &sync.WaitGroup{}
			s.arrive.Add(2)
			reg, _ := s.importAsker(t, v)
			outs := make([]toolreg.Output, 2)
			var wg sync.WaitGroup
			for i := range outs {
				wg.Go(func() {
					outs[i] = reg.Call(context.Background(), "bank__transfer", json.RawMessage(fmt.Sprintf(`{"sum":%d}`, i+1)))
				})
			}
			wg.Wait()
			cancelled := 0
			for i, out := range outs {
				if v == "2026-07-28" {
					if e := question(t, out); e.Message != fmt.Sprintf("Transfer %d EUR?", i+1) {
						t.Errorf("call %d asked %q", i, e.Message)
					}
					continue
				}
				if out.Text == "not transferred: cancel" {
					cancelled++
				} else if e := question(t, out); e.Message != fmt.Sprintf("Transfer %d EUR?", i+1) {
					t.Errorf("call %d asked %q", i, e.Message)
				}
			}
			if v != "2026-07-28" && cancelled == 0 {
				t.Error("no call heard cancel")
			}
			if s.transferred.Load() != 0 {
				t.Error("transferred without a confirmation")
			}
		})
	}
}

// TestEverythingElicitation: the reference server's elicitation tool (a
// TypeScript server, before 2026-07-28, asking over its session) pauses
// the call; its own schema (formats, enums, multiple choices) checks the
// host's answer, and the call made again with it gets the server's
// result.
func TestEverythingElicitation(t *testing.T) {
	reg := toolreg.NewRegistry()
	im, err := NewImporter(reg, Prefix("everything__"), ImportOnly(func(tool *mcp.Tool) bool { return tool.Name == "trigger-elicitation-request" }))
	if err != nil {
		t.Fatal(err)
	}
	cs, _ := everything(t, &mcp.ClientOptions{ToolListChangedHandler: im.ToolListChanged, ElicitationHandler: im.Elicit})
	if err := im.Import(context.Background(), cs); err != nil {
		t.Fatal(err)
	}
	const name = "everything__trigger-elicitation-request"
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, ok := reg.Lookup(name); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never imported; imported %v", name, im.Names())
		}
	}
	e := question(t, callWith(reg, name, nil))
	if e.Message != "Please provide inputs for the following fields:" || e.Server == "" {
		t.Errorf("question %+v", e)
	}
	if _, err := e.Accept(map[string]any{"name": "Ada", "email": "not an address"}); !errors.Is(err, ErrElicitation) {
		t.Errorf("an email the schema's format refuses: err = %v", err)
	}
	ans, err := e.Accept(map[string]any{"name": "Ada", "check": true, "email": "ada@example.com", "untitledMultipleSelectEnum": []any{"Piano"}})
	if err != nil {
		t.Fatal(err)
	}
	out := callWith(reg, name, ans)
	if out.IsError || !strings.Contains(out.Text, "- Name: Ada") || !strings.Contains(out.Text, "- Email: ada@example.com") {
		t.Errorf("accepted: got %+v", out)
	}
	if out := callWith(reg, name, e.Decline()); out.IsError || !strings.Contains(out.Text, "User declined") {
		t.Errorf("declined: got %+v", out)
	}
}

// TestBridgedElicitation: an imported server's tool served again
// (AddTools over an Importer's registry) relays its server's question to
// the client that calls it, and the client's reply, decline included, to
// the server, in each revision on either side.
func TestBridgedElicitation(t *testing.T) {
	for _, up := range versions {
		for _, down := range versions {
			t.Run("upstream "+up+"/client "+down, func(t *testing.T) {
				s := newAsker()
				reg, _ := s.importAsker(t, up)
				srv, _ := newServer(t, reg)
				var reply atomic.Value
				var asked atomic.Int64
				cs, _ := connect(t, srv, down, &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked.Add(1)
					if req.Params.Message != "Transfer 10 EUR?" {
						return nil, fmt.Errorf("asked %q", req.Params.Message)
					}
					return reply.Load().(*mcp.ElicitResult), nil
				}})
				for _, tc := range []struct {
					reply *mcp.ElicitResult
					want  string
				}{
					{&mcp.ElicitResult{Action: "decline"}, "not transferred: decline"},
					{&mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, "transferred 10 EUR"},
				} {
					reply.Store(tc.reply)
					res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "bank__transfer", Arguments: map[string]any{"sum": 10}})
					if err != nil {
						t.Fatal(err)
					}
					if got := textOf(res); got != tc.want || res.IsError {
						t.Errorf("%s: got %v %q, want %q", tc.reply.Action, res.IsError, got, tc.want)
					}
				}
				if s.transferred.Load() != 10 || asked.Load() != 2 {
					t.Errorf("transferred %d, asked %d times", s.transferred.Load(), asked.Load())
				}
			})
		}
	}
}

// TestImportedElicitationOverHTTP: the same pause and answer with the
// imported server behind streamable HTTP, where a question before
// 2026-07-28 comes on the call's own event stream.
func TestImportedElicitationOverHTTP(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			s := newAsker()
			hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.srv }, nil))
			t.Cleanup(hs.Close)
			reg := toolreg.NewRegistry()
			im, err := NewImporter(reg, Prefix("bank__"))
			if err != nil {
				t.Fatal(err)
			}
			c := mcp.NewClient(&mcp.Implementation{Name: "importer"}, &mcp.ClientOptions{ToolListChangedHandler: im.ToolListChanged, ElicitationHandler: im.Elicit})
			cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: v})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cs.Close() })
			if err := im.Import(context.Background(), cs); err != nil {
				t.Fatal(err)
			}
			e := question(t, callArgs(reg, "bank__transfer", `{"sum":4}`, nil))
			ans, err := e.Accept(map[string]any{"confirm": true})
			if err != nil {
				t.Fatal(err)
			}
			if out := callArgs(reg, "bank__transfer", `{"sum":4}`, ans); out.Text != "transferred 4 EUR" || s.transferred.Load() != 4 {
				t.Errorf("got %+v, transferred %d", out, s.transferred.Load())
			}
		})
	}
}
