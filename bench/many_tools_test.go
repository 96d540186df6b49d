package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolanthropic"
	"github.com/toolreg/toolreg/adapters/toolgemini"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/agent"
	"google.golang.org/genai"
)

// manyVerbs and manyObjects name the 200 tools of manyTools: what a host
// that bridges a few business servers (CRM, tickets, files, calendar) ends
// up with.
var (
	manyVerbs   = []string{"list", "get", "create", "update", "delete", "search", "archive", "export", "assign", "comment"}
	manyObjects = []string{"invoice", "customer", "order", "ticket", "user", "project", "report", "event", "file", "email",
		"contact", "deal", "task", "note", "team", "product", "refund", "payment", "shipment", "document"}
)

// manyCore is how many of manyTools a run declares from the start; the
// others it defers.
const manyCore = 10

// manyTools is a registry of 200 tools of realistic shape: verb_object
// names, descriptions of some sixty words, and the parameters of the 100
// generated Args types (decl100), each used twice.
func manyTools(t testing.TB) *toolreg.Registry {
	decls, err := declare100()
	if err != nil {
		t.Fatal(err)
	}
	reg := toolreg.NewRegistry()
	i := 0
	for _, obj := range manyObjects {
		for _, verb := range manyVerbs {
			name := verb + "_" + obj
			desc := fmt.Sprintf("%s the %s records of the workspace. Use it when the user asks to %s a %s, or to act on one they named; "+
				"it returns the %s as JSON with its id, owner, status, labels and timestamps, and the page cursor when there are more. "+
				"It fails when the %s does not exist, when the caller lacks access to it, or when the workspace is read-only; "+
				"tell the user which, and do not retry with the same arguments.", strings.ToUpper(verb[:1])+verb[1:], obj, verb, obj, obj, obj)
			tool, err := toolreg.NewDynamic(name, desc, decls[i%len(decls)].InputSchema(), func(context.Context, json.RawMessage) (string, error) {
				return "ok", nil
			})
			if err != nil {
				t.Fatal(err)
			}
			reg.MustAdd(tool)
			i++
		}
	}
	return reg
}

// scripted answers each request with the next of its replies and keeps the
// request bodies.
type scripted struct {
	mu      sync.Mutex
	replies []string
	bodies  [][]byte
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.bodies = append(s.bodies, body)
	reply := `{}`
	if len(s.replies) > 0 {
		reply, s.replies = s.replies[0], s.replies[1:]
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, reply)
}

// manyProvider runs the loop of one provider against a scripted server:
// call makes a reply asking for one call, answer a final one.
type manyProvider struct {
	name   string
	call   func(name, args string) string
	answer string
	native string // a response of the provider's own tool search finding and calling archive_ticket; "" for none
	run    func(ctx context.Context, url string, reg *toolreg.Registry, opts agent.Options) error
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

var manyProviders = []manyProvider{
	{
		name: "OpenAI Chat",
		call: func(name, args string) string {
			return mustJSON(map[string]any{"id": "c", "object": "chat.completion", "created": 1, "model": "m", "choices": []any{map[string]any{
				"index": 0, "finish_reason": "tool_calls", "message": map[string]any{"role": "assistant", "tool_calls": []any{
					map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": name, "arguments": args}}}}}}})
		},
		answer: mustJSON(map[string]any{"id": "c", "object": "chat.completion", "created": 1, "model": "m", "choices": []any{map[string]any{
			"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": "Done."}}}}),
		run: func(ctx context.Context, url string, reg *toolreg.Registry, opts agent.Options) error {
			client := openai.NewClient(option.WithBaseURL(url), option.WithAPIKey("k"), option.WithMaxRetries(0))
			params := openai.ChatCompletionNewParams{Model: "gpt-4.1", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(manyPrompt)}}
			_, err := toolopenai.NewChat(reg).Run(ctx, &client.Chat.Completions, params, nil, opts)
			return err
		},
	},
	responsesProvider("OpenAI Responses, client search", "", toolopenai.WithClientToolSearch()),
	responsesProvider("OpenAI Responses, its tool_search", mustJSON(map[string]any{"id": "resp_1", "object": "response", "status": "completed", "model": "m", "output": []any{
		map[string]any{"type": "tool_search_call", "id": "ts_1", "call_id": "tsc_1", "execution": "server", "status": "completed", "arguments": map[string]any{"query": "archive ticket"}},
		map[string]any{"type": "tool_search_output", "id": "tso_1", "call_id": "tsc_1", "execution": "server", "status": "completed", "tools": []any{}},
		map[string]any{"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "archive_ticket", "arguments": manyArgs, "status": "completed"}}})),
	anthropicProvider("Anthropic, client search", "", toolanthropic.WithClientToolSearch()),
	anthropicProvider("Anthropic, its tool search", mustJSON(map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "stop_reason": "tool_use",
		"content": []any{
			map[string]any{"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_bm25", "input": map[string]any{"query": "archive ticket"}},
			map[string]any{"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1", "content": map[string]any{"type": "tool_search_tool_search_result",
				"tool_references": []any{map[string]any{"type": "tool_reference", "tool_name": "archive_ticket"}, map[string]any{"type": "tool_reference", "tool_name": "archive_task"},
					map[string]any{"type": "tool_reference", "tool_name": "get_ticket"}}}},
			map[string]any{"type": "tool_use", "id": "toolu_1", "name": "archive_ticket", "input": json.RawMessage(manyArgs)}},
		"usage": map[string]any{"input_tokens": 1, "output_tokens": 1}})),
	{
		name: "Gemini",
		call: func(name, args string) string {
			return mustJSON(map[string]any{"candidates": []any{map[string]any{"finishReason": "STOP", "content": map[string]any{"role": "model",
				"parts": []any{map[string]any{"functionCall": map[string]any{"id": "fc_1", "name": name, "args": json.RawMessage(args)}}}}}}})
		},
		answer: mustJSON(map[string]any{"candidates": []any{map[string]any{"finishReason": "STOP", "content": map[string]any{"role": "model",
			"parts": []any{map[string]any{"text": "Done."}}}}}}),
		run: func(ctx context.Context, url string, reg *toolreg.Registry, opts agent.Options) error {
			client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: url}})
			if err != nil {
				return err
			}
			_, err = toolgemini.New(reg).Run(ctx, client.Models, "gemini-2.5-flash", []*genai.Content{genai.NewContentFromText(manyPrompt, genai.RoleUser)}, nil, nil, opts)
			return err
		},
	},
	bedrockProvider(),
}

const manyPrompt = "Archive the ticket about the broken printer."

// manyArgs are the arguments the model calls archive_ticket with.
const manyArgs = `{"query":"printer","mode":"fast","window":{}}`

// responsesProvider is the Responses runner made with opts; native is its
// response to the first request when the API's own search serves it.
func responsesProvider(name, native string, opts ...toolopenai.Option) manyProvider {
	return manyProvider{
		name:   name,
		native: native,
		call: func(name, args string) string {
			return mustJSON(map[string]any{"id": "resp_1", "object": "response", "status": "completed", "model": "m", "output": []any{
				map[string]any{"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": name, "arguments": args, "status": "completed"}}})
		},
		answer: mustJSON(map[string]any{"id": "resp_2", "object": "response", "status": "completed", "model": "m", "output": []any{
			map[string]any{"type": "message", "id": "m", "role": "assistant", "status": "completed", "content": []any{map[string]any{"type": "output_text", "text": "Done.", "annotations": []any{}}}}}}),
		run: func(ctx context.Context, url string, reg *toolreg.Registry, o agent.Options) error {
			client := openai.NewClient(option.WithBaseURL(url), option.WithAPIKey("k"), option.WithMaxRetries(0))
			params := responses.ResponseNewParams{Model: "gpt-4.1", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String(manyPrompt)}}
			_, err := toolopenai.NewResponses(reg, opts...).Run(ctx, &client.Responses, params, nil, o)
			return err
		},
	}
}

// anthropicProvider is responsesProvider for the Messages API.
func anthropicProvider(name, native string, opts ...toolanthropic.Option) manyProvider {
	return manyProvider{
		name:   name,
		native: native,
		call: func(name, args string) string {
			return mustJSON(map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "stop_reason": "tool_use",
				"content": []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": name, "input": json.RawMessage(args)}},
				"usage":   map[string]any{"input_tokens": 1, "output_tokens": 1}})
		},
		answer: mustJSON(map[string]any{"id": "msg_2", "type": "message", "role": "assistant", "model": "m", "stop_reason": "end_turn",
			"content": []any{map[string]any{"type": "text", "text": "Done."}}, "usage": map[string]any{"input_tokens": 1, "output_tokens": 1}}),
		run: func(ctx context.Context, url string, reg *toolreg.Registry, o agent.Options) error {
			client := anthropic.NewClient(aoption.WithBaseURL(url), aoption.WithAPIKey("k"), aoption.WithMaxRetries(0))
			params := anthropic.MessageNewParams{Model: "claude-sonnet-4-5", MaxTokens: 1024, Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(manyPrompt))}}
			_, err := toolanthropic.New(reg, opts...).Run(ctx, &client.Messages, params, nil, o)
			return err
		},
	}
}

// TestManyTools measures what a run over manyTools sends: each request's
// bytes and o200k tokens, every tool declared, and with all but manyCore
// deferred (the model searches, then calls what it found). It checks that
// deferral makes every request smaller; -v prints the table (README, "Many
// tools").
func TestManyTools(t *testing.T) {
	enc, err := o200k()
	if err != nil {
		t.Fatal(err)
	}
	reg := manyTools(t)
	core := reg.Tools()[:manyCore]
	deferAll := func(tl toolreg.AnyTool) bool {
		return !slices.ContainsFunc(core, func(c toolreg.AnyTool) bool { return c.Name() == tl.Name() })
	}
	args := manyArgs
	var b strings.Builder
	b.WriteString("| provider | tools declared | request 1 | request 2 | request 3 |\n|---|---|---:|---:|---:|\n")
	// Anthropic's own search declares every tool, the deferred ones with
	// defer_loading: the bytes are those of every definition, which the
	// API keeps out of the prompt until found.
	for _, p := range manyProviders {
		target := "archive_ticket"
		for _, deferred := range []bool{false, true} {
			srv := &scripted{replies: []string{p.call(target, args), p.answer}}
			opts := agent.Options{}
			label := "all 200"
			if deferred {
				srv.replies = []string{p.call(agent.SearchToolName, `{"query":"archive ticket","limit":3}`), p.call(target, args), p.answer}
				if p.native != "" {
					// The provider's own search runs on its side: the model
					// finds the tool and calls it in one response.
					srv.replies = []string{p.native, p.answer}
				}
				opts.Defer = deferAll
				label = fmt.Sprintf("%d, 190 deferred", manyCore)
			}
			hs := httptest.NewServer(srv)
			err := p.run(context.Background(), hs.URL, reg, opts)
			hs.Close()
			if err != nil {
				t.Fatalf("%s, %s: %v", p.name, label, err)
			}
			fmt.Fprintf(&b, "| %s | %s |", p.name, label)
			for i := range 3 {
				if i >= len(srv.bodies) {
					b.WriteString(" |")
					continue
				}
				body := srv.bodies[i]
				fmt.Fprintf(&b, " %d tok (%d B) |", len(enc.Encode(string(body), nil, nil)), len(body))
			}
			b.WriteString("\n")
			if deferred && p.native == "" {
				// Even the request after the search is smaller than one
				// that declares everything.
				all := manyRow[p.name]
				for i, body := range srv.bodies {
					if len(body) >= all {
						t.Errorf("%s: deferred request %d is %d bytes, the first of a run declaring all is %d", p.name, i+1, len(body), all)
					}
				}
			} else {
				manyRow[p.name] = len(srv.bodies[0])
			}
		}
	}
	t.Logf("o200k tokens (bytes) of each request body, a run over 200 tools:\n%s", b.String())
}

// manyRow keeps the first request's size of each provider's run that
// declares every tool.
var manyRow = map[string]int{}
