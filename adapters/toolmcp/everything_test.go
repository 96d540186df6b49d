package toolmcp

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	_ "image/png" // the tiny image's format
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolanthropic"
	"github.com/toolreg/toolreg/adapters/toolgemini"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/adapt/adapttest"
	"github.com/toolreg/toolreg/internal/nodetest"
)

// everything starts the reference MCP server of the protocol's authors
// (@modelcontextprotocol/server-everything, pinned in
// testdata/everything/package-lock.json) over stdio. It needs node and the
// packages of the lockfile (npm ci in testdata/everything); it skips
// without them, unless TOOLREG_REQUIRE_NODE is set, as .ci/run does.
func everything(t *testing.T, opts *mcp.ClientOptions) (*mcp.ClientSession, *exec.Cmd) {
	t.Helper()
	dir := filepath.Join("testdata", "everything")
	node := nodetest.Node(t, dir, "@modelcontextprotocol/server-everything")
	cmd := exec.Command(node, filepath.Join("node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"), "stdio")
	cmd.Dir = dir
	// The server has a tool that returns its environment: give it none of
	// ours.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "toolreg-test", Version: "v0.0.1"}, opts).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("starting the everything server: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, cmd
}

// chatCalls is a Chat Completions reply that calls tools, given as
// name/arguments pairs; the calls' IDs are call_1, call_2, ...
func chatCalls(pairs ...string) string {
	var calls []any
	for i := 0; i+1 < len(pairs); i += 2 {
		calls = append(calls, map[string]any{"id": fmt.Sprintf("call_%d", i/2+1), "type": "function",
			"function": map[string]any{"name": pairs[i], "arguments": pairs[i+1]}})
	}
	return chatReply(map[string]any{"role": "assistant", "content": nil, "tool_calls": calls}, "tool_calls")
}

func chatReply(msg map[string]any, finish string) string {
	b, _ := json.Marshal(map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "scripted",
		"choices": []any{map[string]any{"index": 0, "finish_reason": finish, "message": msg}}})
	return string(b)
}

// TestEverythingServer imports the tools of a server nobody here wrote,
// beside a Go tool, and drives them through the OpenAI runner in strict
// mode and the Anthropic adapter, with a scripted model; then cuts a call
// short with a deadline, and kills the server during a call.
func TestEverythingServer(t *testing.T) {
	ctx := context.Background()
	reg := toolreg.NewRegistry(toolreg.WithDefaultTimeout(20 * time.Second))
	reg.MustAdd(toolreg.MustNew("get_time", "The current time, for questions about time.",
		func(context.Context, struct{}) (string, error) { return "2026-12-02T10:00:00Z", nil }))
	got := make(changes, 16)
	im, err := NewImporter(reg, Prefix("everything__"), got.option(),
		ImportOnly(func(tool *mcp.Tool) bool { return tool.Name != "get-env" })) // it would show the model the host's environment
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	cs, cmd := everything(t, &mcp.ClientOptions{ToolListChangedHandler: im.ToolListChanged})
	if err := im.Import(ctx, cs); err != nil {
		t.Fatalf("import: %v", err)
	}
	t.Logf("started the server and imported %d tools in %v", len(im.Names()), time.Since(start))

	// The server adds tools that depend on the client's capabilities once
	// the session is initialized, and says so with list_changed: whether
	// the first list holds them depends on timing, so wait for them.
	for deadline := time.Now().Add(10 * time.Second); im.Names()["get-roots-list"] == ""; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("get-roots-list never imported; imported %v", im.Names())
		}
	}
	wantNames := map[string]string{}
	for _, n := range []string{"echo", "get-annotated-message", "get-resource-links", "get-resource-reference", "get-roots-list",
		"get-structured-content", "get-sum", "get-tiny-image", "gzip-file-as-resource", "simulate-research-query",
		"toggle-simulated-logging", "toggle-subscriber-updates", "trigger-long-running-operation"} {
		wantNames[n] = "everything__" + n
	}
	if diff := cmp.Diff(wantNames, im.Names()); diff != "" {
		t.Errorf("imported (-want +got):\n%s", diff)
	}
	sum, _ := reg.Lookup("everything__get-sum")
	if it := sum.(*importedTool); it.Title() != "Get Sum Tool" || it.annotations == nil || !it.annotations.ReadOnlyHint {
		t.Errorf("get-sum: title %q, annotations %+v", it.Title(), it.annotations)
	}
	structured, _ := reg.Lookup("everything__get-structured-content")
	if structured.OutputSchema() == nil {
		t.Error("get-structured-content has no output schema")
	}

	t.Run("every dialect", func(t *testing.T) {
		for name, definitions := range map[string]func() error{
			"OpenAI Chat":      func() error { _, err := toolopenai.NewChat(reg).Tools(); return err },
			"OpenAI Responses": func() error { _, err := toolopenai.NewResponses(reg).Tools(); return err },
			"OpenAI strict":    func() error { _, err := toolopenai.NewChat(reg, toolopenai.WithStrict()).Tools(); return err },
			"Anthropic":        func() error { _, err := toolanthropic.New(reg).Tools(); return err },
			"Anthropic strict": func() error { _, err := toolanthropic.New(reg, toolanthropic.WithStrict()).Tools(); return err },
			"Gemini":           func() error { _, err := toolgemini.New(reg).Tools(); return err },
			"Gemini legacy":    func() error { _, err := toolgemini.New(reg, toolgemini.WithLegacySchema()).Tools(); return err },
			"MCP, served again": func() error {
				_, err := AddTools(mcp.NewServer(&mcp.Implementation{Name: "again"}, nil), reg)
				return err
			},
		} {
			if err := definitions(); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	})

	t.Run("OpenAI strict", func(t *testing.T) {
		api := &adapttest.API{Error: func(msg string) string { return `{"error":{"message":` + msg + `}}` }, Replies: []string{
			chatCalls(
				"everything__get-sum", `{"a":2,"b":3}`,
				"everything__get-structured-content", `{"location":"Chicago"}`,
				"everything__get-resource-links", `{"count":null}`, // strict mode's null for a property left out
				"everything__echo", `{"message":"hello from the model"}`,
				"everything__get-sum", `{"a":"two","b":3}`,
				"get_time", `{}`,
			),
			chatReply(map[string]any{"role": "assistant", "content": "2 + 3 is 5, and it is drizzling in Chicago."}, "stop"),
		}}
		client := openai.NewClient(option.WithBaseURL(api.Serve(t)+"/v1/"), option.WithAPIKey("test"), option.WithMaxRetries(0))
		adapter := toolopenai.NewChat(reg, toolopenai.WithStrict(), toolopenai.WithNonStrictFallback())
		run, err := adapter.Run(ctx, &client.Chat.Completions, openai.ChatCompletionNewParams{
			Model:    "scripted",
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What is 2 + 3, and the weather in Chicago?")},
		}, nil, agent.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if run.Answer() != "2 + 3 is 5, and it is drizzling in Chicago." {
			t.Errorf("answer %q", run.Answer())
		}

		// Every tool the server offers went strict: its schemas lower.
		var sent []struct {
			Function struct {
				Name   string `json:"name"`
				Strict bool   `json:"strict"`
			} `json:"function"`
		}
		b, _ := json.Marshal(api.Requests[0]["tools"])
		json.Unmarshal(b, &sent)
		var notStrict []string
		for _, tool := range sent {
			if !tool.Function.Strict {
				notStrict = append(notStrict, tool.Function.Name)
			}
		}
		if len(sent) != reg.Len() || len(notStrict) > 0 {
			t.Errorf("sent %d tools of %d; not strict: %v", len(sent), reg.Len(), notStrict)
		}

		var results []string
		for _, m := range api.Requests[1]["messages"].([]any)[2:] {
			results = append(results, m.(map[string]any)["content"].(string))
		}
		want := []string{
			"The sum of 2 and 3 is 5.",
			`{"temperature":36,"conditions":"Light rain / drizzle","humidity":82}`,
			"Here are 3 resource links to resources available in this server:\n" +
				"[resource link: Blob Resource 1 <demo://resource/dynamic/blob/1>, text/plain: Resource 1: plaintext resource]\n" +
				"[resource link: Text Resource 2 <demo://resource/dynamic/text/2>, text/plain: Resource 2: plaintext resource]\n" +
				"[resource link: Blob Resource 3 <demo://resource/dynamic/blob/3>, text/plain: Resource 3: plaintext resource]",
			"Echo: hello from the model",
			"invalid arguments for tool \"everything__get-sum\":\n- a: expected number, got \"two\"\nFix the arguments and call the tool again.",
			"2026-12-02T10:00:00Z",
		}
		if diff := cmp.Diff(want, results); diff != "" {
			t.Errorf("tool results sent to the model (-want +got):\n%s", diff)
		}
	})

	t.Run("Anthropic", func(t *testing.T) {
		// The gzip tool's file, as the import reads it.
		gzipArgs := `{"name":"hello.txt.gz","data":"data:text/plain;base64,aGVsbG8gZnJvbSB0aGUgbW9kZWw=","outputType":"resource"}`
		out := reg.Call(ctx, "everything__gzip-file-as-resource", json.RawMessage(gzipArgs))
		if len(out.Media) != 1 || out.Media[0].Name != "hello.txt.gz" || out.Media[0].MIMEType != "application/gzip" || gunzip(t, out.Media[0].Data) != "hello from the model" {
			t.Fatalf("the gzip tool's result: %+v", out)
		}
		gzipped := out.Media[0]

		var msg anthropic.Message
		if err := json.Unmarshal([]byte(`{"id":"msg_1","type":"message","role":"assistant","model":"scripted","stop_reason":"tool_use",
			"usage":{"input_tokens":1,"output_tokens":1},"content":[
			{"type":"text","text":"Let me look."},
			{"type":"tool_use","id":"tu_1","name":"everything__get-tiny-image","input":{}},
			{"type":"tool_use","id":"tu_2","name":"everything__get-annotated-message","input":{"messageType":"error"}},
			{"type":"tool_use","id":"tu_3","name":"everything__get-structured-content","input":{"location":"Atlantis"}},
			{"type":"tool_use","id":"tu_4","name":"everything__get-resource-reference","input":{"resourceType":"Text","resourceId":2}},
			{"type":"tool_use","id":"tu_5","name":"everything__get-resource-reference","input":{"resourceType":"Blob","resourceId":3}},
			{"type":"tool_use","id":"tu_6","name":"everything__gzip-file-as-resource","input":`+gzipArgs+`}]}`), &msg); err != nil {
			t.Fatal(err)
		}
		reply := toolanthropic.New(reg, toolanthropic.WithStrict(), toolanthropic.WithNonStrictFallback()).CallAll(ctx, msg)
		// Each block of a tool_result as a line: text as it is, an image
		// as its type and size as decoded from the payload, a document as
		// its source.
		type result struct {
			ID      string
			Blocks  []string
			IsError bool
		}
		var results []result
		for _, b := range reply.OfUser.Content {
			r := b.OfToolResult
			res := result{ID: r.ToolUseID, IsError: r.IsError.Value}
			for _, c := range r.Content {
				switch {
				case c.OfText != nil:
					res.Blocks = append(res.Blocks, c.OfText.Text)
				case c.OfImage != nil:
					src := c.OfImage.Source.OfBase64
					data, err := base64.StdEncoding.DecodeString(src.Data)
					if err != nil {
						t.Fatal(err)
					}
					img, format, err := image.DecodeConfig(bytes.NewReader(data))
					res.Blocks = append(res.Blocks, fmt.Sprintf("image %s: %s %dx%d, %d bytes (%v)", src.MediaType, format, img.Width, img.Height, len(data), err))
				case c.OfDocument != nil:
					res.Blocks = append(res.Blocks, "document: "+c.OfDocument.Source.OfText.Data)
				}
			}
			results = append(results, res)
		}
		want := []result{
			{"tu_1", []string{"Here's the image you requested:\nThe image above is the MCP logo.", "image image/png: png 20x20, 4033 bytes (<nil>)"}, false},
			{"tu_2", []string{"Error: Operation failed"}, false},
			{"tu_3", []string{"invalid arguments for tool \"everything__get-structured-content\":\n- location: \"Atlantis\" is not allowed; allowed values: \"New York\", \"Chicago\", \"Los Angeles\"\nFix the arguments and call the tool again."}, true},
			{"tu_4", []string{"Returning resource reference for Resource 2:\n[resource <demo://resource/dynamic/text/2>]\nResource 2: This is a plaintext resource created at " /* then a time */}, false},
			{"tu_5", []string{"Returning resource reference for Resource 3:\nYou can access this resource using the URI: demo://resource/dynamic/blob/3", "document: Resource 3: This is a base64 blob created at " /* then a time */}, false},
			{"tu_6", []string{fmt.Sprintf(`[a file "hello.txt.gz" (application/gzip, %d bytes) was left out: Anthropic takes files only as application/pdf, text/plain, text/csv or text/markdown]`, len(gzipped.Data))}, false},
		}
		// The server writes the time it made a resource.
		for i, w := range want {
			for j, block := range w.Blocks {
				if i < len(results) && j < len(results[i].Blocks) && strings.HasSuffix(block, " at ") && strings.HasPrefix(results[i].Blocks[j], block) {
					want[i].Blocks[j] = results[i].Blocks[j]
				}
			}
		}
		if diff := cmp.Diff(want, results); diff != "" {
			t.Errorf("tool results (-want +got):\n%s", diff)
		}
	})

	t.Run("MCP, served again", func(t *testing.T) {
		imported := reg.Call(ctx, "everything__get-tiny-image", nil)
		srv, _ := newServer(t, reg)
		cs, _ := connect(t, srv, versions[0], nil)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "everything__get-tiny-image"})
		if err != nil {
			t.Fatal(err)
		}
		want := []mcp.Content{
			&mcp.TextContent{Text: "Here's the image you requested:\nThe image above is the MCP logo."},
			&mcp.ImageContent{MIMEType: "image/png", Data: imported.Media[0].Data},
		}
		if diff := cmp.Diff(want, res.Content); diff != "" || len(imported.Media[0].Data) != 4033 {
			t.Errorf("content (-want +got):\n%s", diff)
		}
	})

	t.Run("a deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		out := reg.Call(ctx, "everything__trigger-long-running-operation", json.RawMessage(`{"duration":5,"steps":5}`))
		if !errors.Is(out.Err, toolreg.ErrTimeout) || time.Since(start) > 2*time.Second {
			t.Errorf("after %v: %+v", time.Since(start), out)
		}
	})

	t.Run("the server dies", func(t *testing.T) {
		done := make(chan toolreg.Output)
		go func() {
			done <- reg.Call(ctx, "everything__trigger-long-running-operation", json.RawMessage(`{"duration":10,"steps":10}`))
		}()
		time.Sleep(200 * time.Millisecond) // the call is on its way
		cmd.Process.Kill()
		var out toolreg.Output
		select {
		case out = <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("the call did not return when the server died")
		}
		if !errors.Is(out.Err, ErrDisconnected) || !strings.Contains(out.Text, "closed during the call") {
			t.Errorf("the call cut off: %+v", out)
		}
		for r := got.next(t); ; r = got.next(t) {
			if strings.Contains(r.Err, "has ended") {
				if !slices.Contains(r.Change.Removed, "everything__echo") {
					t.Errorf("report %+v", r)
				}
				break
			}
		}
		if n := len(im.Unavailable()); n != len(wantNames) {
			t.Errorf("%d tools unavailable, want all %d", n, len(wantNames))
		}
		if out := reg.Call(ctx, "get_time", nil); out.IsError {
			t.Errorf("the Go tool: %+v", out)
		}
	})
}

// gunzip is the text data holds, gzipped.
func gunzip(t *testing.T, data []byte) string {
	t.Helper()
	r, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
