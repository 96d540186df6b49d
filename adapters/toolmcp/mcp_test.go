package toolmcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/internal/adapt/adapttest"
	"github.com/toolreg/toolreg/internal/args"
	"github.com/toolreg/toolreg/internal/dialect"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// The revisions a client may speak: the go-sdk client's default (server/
// discover) and the last one of the initialize handshake, which the
// TypeScript SDK speaks.
var versions = []string{"2026-07-28", "2025-11-25"}

// weatherArgs are adapttest.WeatherArgs with a longer description, which
// the golden files hold.
type weatherArgs struct {
	City string `json:"city" jsonschema:"description=City name\\, e.g. Paris"`
	Days *int   `json:"days,omitempty" jsonschema:"minimum=1,maximum=7"`
	Unit string `json:"unit,omitempty" jsonschema:"enum=celsius,enum=fahrenheit,default=celsius"`
}

type employee struct {
	Name    string      `json:"name"`
	Reports []*employee `json:"reports,omitempty"`
}

func testRegistry(t testing.TB) *toolreg.Registry {
	t.Helper()
	reg := toolreg.NewRegistry()
	reg.MustAdd(
		toolreg.MustNew("get_weather", "Forecast for a city. Use it for weather questions only.",
			func(ctx context.Context, a weatherArgs) (adapttest.Forecast, error) {
				return adapttest.Weather(ctx, adapttest.WeatherArgs(a))
			}, toolreg.WithTitle("Weather forecast")),
		toolreg.MustNew("get_time", "The current time, for questions about time.",
			func(context.Context, struct{}) (string, error) { return "2026-12-02T10:00:00Z", nil }),
		toolreg.MustNew("list_cities", "Cities with a weather station.",
			func(context.Context, struct{}) ([]string, error) { return []string{"Paris", "Oslo"}, nil }),
		toolreg.MustNew("org_chart", "Who reports to whom.",
			func(context.Context, struct{}) ([]employee, error) {
				return []employee{{Name: "Ada", Reports: []*employee{{Name: "Grace"}}}}, nil
			}),
		toolreg.MustNew("explode", "Always fails: a tool with a bug.",
			func(context.Context, struct{}) (string, error) { panic("index out of range [3] with length 3") }),
		toolreg.MustNew("files_read", "Read a file of the workspace.",
			func(_ context.Context, a struct {
				Path   string `json:"path"`
				Offset int64  `json:"offset,omitempty"`
			}) (string, error) {
				return "contents of " + a.Path, nil
			}),
	)
	return reg
}

var testOptions = []Option{
	Annotate("get_weather", ReadOnly(true), OpenWorld(true)),
	Annotate("get_time", ReadOnly(true), Idempotent(true), OpenWorld(false)),
	Annotate("files_read", ReadOnly(true)),
	Annotate("explode", Destructive(false)),
	Rename("files_read", "files.read"),
}

// wire records the JSON-RPC messages a server writes, as bytes.
type wire struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (w *wire) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// toolsList returns the raw result of the tools/list response the server
// wrote. The transport logs a message after sending it, so the client may
// hold the response a moment before the log does: wait for it.
func (w *wire) toolsList(t *testing.T) json.RawMessage {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		w.mu.Lock()
		lines := strings.Split(w.buf.String(), "\n")
		w.mu.Unlock()
		for _, line := range lines {
			line, ok := strings.CutPrefix(line, "write: ")
			if !ok {
				continue
			}
			var msg struct {
				Result json.RawMessage `json:"result"`
			}
			var result struct {
				Tools json.RawMessage `json:"tools"`
			}
			if json.Unmarshal([]byte(line), &msg) == nil && json.Unmarshal(msg.Result, &result) == nil && result.Tools != nil {
				return msg.Result
			}
		}
	}
	t.Fatal("the server wrote no tools/list response")
	return nil
}

// connect serves srv to a go-sdk client over in-memory transports, speaking
// version, and records what the server writes.
func connect(t *testing.T, srv *mcp.Server, version string, copts *mcp.ClientOptions) (*mcp.ClientSession, *wire) {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	w := &wire{}
	ss, err := srv.Connect(ctx, &mcp.LoggingTransport{Transport: st, Writer: w}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0.0.1"}, copts)
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		// The 2026-07-28 discover result carries no single version; the
		// session speaks the one the client asked for.
		if got != "" {
			t.Fatalf("negotiated %q, want %q", got, version)
		}
	}
	return cs, w
}

func newServer(t testing.TB, reg *toolreg.Registry, opts ...Option) (*mcp.Server, *Adapter) {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "toolreg-test", Version: "v0.0.1"}, nil)
	a, err := AddTools(srv, reg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return srv, a
}

// TestToolsList checks tools/list on the wire, for each revision, against
// golden files, and that each schema there is the registry's (the input
// schema less what dialect.Compact leaves out), or its documented
// wrapping.
func TestToolsList(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			reg := testRegistry(t)
			srv, _ := newServer(t, reg, testOptions...)
			cs, w := connect(t, srv, v, nil)
			res, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Tools) != reg.Len() {
				t.Fatalf("listed %d tools, the registry holds %d", len(res.Tools), reg.Len())
			}
			raw := w.toolsList(t)
			adapttest.GoldenJSON(t, "tools_list_"+v+".json", raw, *update)

			var listed struct {
				Tools []struct {
					Name         string          `json:"name"`
					InputSchema  json.RawMessage `json:"inputSchema"`
					OutputSchema json.RawMessage `json:"outputSchema"`
				} `json:"tools"`
			}
			if err := json.Unmarshal(raw, &listed); err != nil {
				t.Fatal(err)
			}
			for _, lt := range listed.Tools {
				name := strings.ReplaceAll(lt.Name, ".", "_")
				tool, ok := reg.Lookup(name)
				if !ok {
					t.Fatalf("listed %q, not in the registry", lt.Name)
				}
				lowered, err := dialect.Compact(tool.InputSchema())
				if err != nil {
					t.Fatal(err)
				}
				if got, want := compact(t, lt.InputSchema), compact(t, lowered); got != want {
					t.Errorf("%s: inputSchema is not the registry's, compacted:\n got %s\nwant %s", lt.Name, got, want)
				}
				if tool.OutputSchema() == nil && lt.OutputSchema != nil {
					t.Errorf("%s: a text tool has an outputSchema %s", lt.Name, lt.OutputSchema)
				}
				if lt.OutputSchema != nil {
					if err := objectRoot(lt.OutputSchema); err != nil { // what revisions before 2026-07-28 require
						t.Errorf("%s: outputSchema: %v", lt.Name, err)
					}
				}
				for _, s := range []json.RawMessage{lt.InputSchema, lt.OutputSchema} {
					if s != nil {
						compile(t, s)
					}
				}
			}
		})
	}
}

func compact(t *testing.T, b []byte) string {
	t.Helper()
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// compile compiles a schema with the reference validator (draft 2020-12,
// the MCP default dialect since 2025-11-25).
func compile(t *testing.T, schema json.RawMessage) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := args.NewCompiler()
	if err := c.AddResource("mem:///schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("mem:///schema.json")
	if err != nil {
		t.Fatalf("schema does not compile: %v\n%s", err, schema)
	}
	return s
}

// TestCallTool makes each kind of call through the go-sdk client, for each
// revision: the text is the registry's own, structured results come with
// their JSON and conform to the advertised outputSchema, and every failure
// but an unknown tool is a result with isError.
func TestCallTool(t *testing.T) {
	type want struct {
		text       string // exact, or the registry's text when empty
		isError    bool
		structured string // the structuredContent, "" for none
	}
	for _, tc := range []struct {
		name    string
		tool    string // MCP name
		regName string // registry name, when it differs
		args    any
		want    want
	}{
		{name: "structured", tool: "get_weather", args: map[string]any{"city": "Paris", "days": 2},
			want: want{text: `{"city":"Paris","days":2,"unit":"celsius"}`, structured: `{"city":"Paris","days":2,"unit":"celsius"}`}},
		{name: "text", tool: "get_time", args: nil,
			want: want{text: "2026-12-02T10:00:00Z"}},
		{name: "wrapped array", tool: "list_cities", args: map[string]any{},
			want: want{text: `["Paris","Oslo"]`, structured: `{"result":["Paris","Oslo"]}`}},
		{name: "wrapped recursive", tool: "org_chart", args: map[string]any{},
			want: want{text: `[{"name":"Ada","reports":[{"name":"Grace"}]}]`, structured: `{"result":[{"name":"Ada","reports":[{"name":"Grace"}]}]}`}},
		{name: "renamed", tool: "files.read", regName: "files_read", args: map[string]any{"path": "go.mod"},
			want: want{text: "contents of go.mod"}},
		{name: "invalid arguments", tool: "get_weather", args: map[string]any{"city": "Rome", "days": 9},
			want: want{text: "invalid arguments for tool \"get_weather\":\n- days: 9 is greater than the maximum 7\nFix the arguments and call the tool again.", isError: true}},
		{name: "past an omitted bound", tool: "files.read", regName: "files_read", args: map[string]any{"path": "go.mod", "offset": json.Number("9223372036854775808")},
			want: want{text: "invalid arguments for tool \"files_read\":\n- offset: 9223372036854775808 is greater than the maximum 9223372036854775807\nFix the arguments and call the tool again.", isError: true}},
		{name: "missing argument", tool: "get_weather", args: map[string]any{"days": 2},
			want: want{isError: true}},
		{name: "unknown argument", tool: "get_weather", args: map[string]any{"city": "Rome", "Days": 2},
			want: want{isError: true}},
		{name: "tool error", tool: "get_weather", args: map[string]any{"city": "Atlantis"},
			want: want{text: adapttest.ErrNoStation.Error(), isError: true}},
		{name: "panic", tool: "explode", args: map[string]any{},
			want: want{text: `tool "explode" failed unexpectedly (an internal error, not caused by your arguments); do not retry the same call`, isError: true}},
	} {
		for _, v := range versions {
			t.Run(tc.name+"/"+v, func(t *testing.T) {
				reg := testRegistry(t)
				var calls []toolreg.Output
				var mu sync.Mutex
				// The host sees each call through the registry's middleware.
				reg.Use(func(next toolreg.Handler) toolreg.Handler {
					return toolreg.HandlerFunc(func(ctx context.Context, c toolreg.ToolCall) toolreg.Output {
						out := next.HandleCall(ctx, c)
						mu.Lock()
						calls = append(calls, out)
						mu.Unlock()
						return out
					})
				})
				srv, _ := newServer(t, reg, testOptions...)
				cs, _ := connect(t, srv, v, nil)
				ctx := context.Background()
				tools, err := cs.ListTools(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
				if err != nil {
					t.Fatalf("a protocol error instead of a result: %v", err)
				}
				mu.Lock()
				seen := calls // what the middleware saw of the MCP call (the direct call below adds to calls)
				calls = nil
				mu.Unlock()

				regName := tc.tool
				if tc.regName != "" {
					regName = tc.regName
				}
				args, _ := json.Marshal(tc.args)
				direct := reg.Call(ctx, regName, args)
				wantText := tc.want.text
				if wantText == "" {
					wantText = direct.Text // "our message": what the registry says for this call
				}
				if tc.want.text != "" && direct.Text != tc.want.text {
					t.Fatalf("the registry says %q; the test expects %q", direct.Text, tc.want.text)
				}
				if len(res.Content) != 1 {
					t.Fatalf("content has %d blocks, want 1: %+v", len(res.Content), res.Content)
				}
				tc0, ok := res.Content[0].(*mcp.TextContent)
				if !ok {
					t.Fatalf("content is %T, want text", res.Content[0])
				}
				if diff := cmp.Diff(wantText, tc0.Text); diff != "" {
					t.Errorf("text (-want +got):\n%s", diff)
				}
				if res.IsError != tc.want.isError {
					t.Errorf("isError = %v, want %v", res.IsError, tc.want.isError)
				}
				var gotStructured string
				if res.StructuredContent != nil {
					b, _ := json.Marshal(res.StructuredContent)
					gotStructured = string(b)
				}
				if !jsonEqual(tc.want.structured, gotStructured) {
					t.Errorf("structuredContent = %s, want %s", gotStructured, tc.want.structured)
				}
				if gotStructured != "" {
					conforms(t, tools.Tools, tc.tool, gotStructured)
				}

				if len(seen) != 1 {
					t.Fatalf("the middleware saw %d calls, want 1", len(seen))
				}
				if got := seen[0]; got.IsError != tc.want.isError || got.Text != tc0.Text {
					t.Errorf("the middleware saw %+v", got)
				}
				if tc.name == "panic" {
					var pe *toolreg.PanicError
					if !errors.As(seen[0].Err, &pe) || !strings.Contains(string(pe.Stack), "goroutine") {
						t.Errorf("the host did not get the panic and its stack: %v", seen[0].Err)
					}
					if strings.Contains(tc0.Text, "index out of range") {
						t.Errorf("the panic value reached the client: %q", tc0.Text)
					}
				}
			})
		}
	}
}

// conforms validates a structuredContent against the outputSchema the
// server listed for the tool.
func conforms(t *testing.T, tools []*mcp.Tool, name, structured string) {
	t.Helper()
	for _, tool := range tools {
		if tool.Name != name {
			continue
		}
		if tool.OutputSchema == nil {
			t.Fatalf("%s: structuredContent without an outputSchema", name)
		}
		schema, _ := json.Marshal(tool.OutputSchema)
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(structured))
		if err != nil {
			t.Fatal(err)
		}
		if err := compile(t, schema).Validate(inst); err != nil {
			t.Errorf("%s: structuredContent %s does not conform to the outputSchema %s: %v", name, structured, schema, err)
		}
		return
	}
	t.Fatalf("%s not listed", name)
}

func jsonEqual(a, b string) bool {
	if a == "" || b == "" {
		return a == b
	}
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && cmp.Equal(x, y)
}

// TestUnknownTool: a name the server does not serve is the protocol error
// the specification asks for (-32602), not a result; so is a renamed tool's
// registry name.
func TestUnknownTool(t *testing.T) {
	for _, v := range versions {
		for _, name := range []string{"get_wether", "files_read"} {
			t.Run(v+"/"+name, func(t *testing.T) {
				srv, _ := newServer(t, testRegistry(t), testOptions...)
				cs, _ := connect(t, srv, v, nil)
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
				var werr *jsonrpc.Error
				if !errors.As(err, &werr) {
					t.Fatalf("got result %+v, error %v; want a JSON-RPC error", res, err)
				}
				if werr.Code != jsonrpc.CodeInvalidParams || !strings.Contains(werr.Message, name) {
					t.Errorf("error = %d %q, want -32602 naming %q", werr.Code, werr.Message, name)
				}
			})
		}
	}
}

// TestRegistryGrows: a tool added to the registry after AddTools is listed
// and callable without a Sync; Sync pushes tools/list_changed to a client
// that listens.
func TestRegistryGrows(t *testing.T) {
	late := func(name string) toolreg.AnyTool {
		return toolreg.MustNew(name, "A tool added while the server runs.",
			func(context.Context, struct{}) (string, error) { return "late " + name, nil })
	}
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			reg := testRegistry(t)
			srv, a := newServer(t, reg, testOptions...)
			changed := make(chan struct{}, 8)
			cs, _ := connect(t, srv, v, &mcp.ClientOptions{
				ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
			})
			ctx := context.Background()

			// A call right after Add reaches the new tool.
			reg.MustAdd(late("late_one"))
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "late_one"})
			if err != nil || res.IsError {
				t.Fatalf("calling a tool added later: %+v, %v", res, err)
			}
			if text := res.Content[0].(*mcp.TextContent).Text; text != "late late_one" {
				t.Errorf("text = %q", text)
			}
			drain(changed)

			// Adding is enough: the client hears of it at once, and Sync
			// reports every tool served.
			reg.MustAdd(late("late_two"))
			select {
			case <-changed:
			case <-time.After(5 * time.Second):
				t.Fatal("no notifications/tools/list_changed after Add")
			}
			if err := a.Sync(); err != nil {
				t.Fatal(err)
			}
			list, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !listed(list.Tools, "late_one") || !listed(list.Tools, "late_two") || len(list.Tools) != reg.Len() {
				t.Errorf("tools after growth: %v", names(list.Tools))
			}
		})
	}
}

// TestToolsAddedDuringAddTools: tools added while AddTools runs are all
// served once both are done, with no Sync and before any client asks;
// after a failed AddTools, tools added later are not served either.
func TestToolsAddedDuringAddTools(t *testing.T) {
	tool := func(name string) toolreg.AnyTool {
		return toolreg.MustNew(name, "A tool added while AddTools runs.",
			func(context.Context, struct{}) (string, error) { return name, nil })
	}
	for range 20 {
		reg := testRegistry(t)
		srv := mcp.NewServer(&mcp.Implementation{Name: "s"}, nil)
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				reg.MustAdd(tool(fmt.Sprintf("during_%d", i)))
			}
		}()
		if _, err := AddTools(srv, reg, testOptions...); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		cs, _ := connect(t, srv, versions[0], nil)
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Tools) != reg.Len() {
			t.Fatalf("serves %d tools, the registry holds %d", len(res.Tools), reg.Len())
		}
	}

	reg := testRegistry(t)
	srv := mcp.NewServer(&mcp.Implementation{Name: "s"}, nil)
	if _, err := AddTools(srv, reg, Rename("get_time", "get_weather")); err == nil {
		t.Fatal("AddTools served two tools under one name")
	}
	reg.MustAdd(tool("after_failure"))
	cs, _ := connect(t, srv, versions[0], nil)
	if res, err := cs.ListTools(context.Background(), nil); err == nil && len(res.Tools) > 0 {
		t.Errorf("a failed AddTools serves %v", names(res.Tools))
	}
}

func drain(c chan struct{}) {
	for {
		select {
		case <-c:
		case <-time.After(50 * time.Millisecond):
			return
		}
	}
}

func listed(tools []*mcp.Tool, name string) bool {
	for _, t := range tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

func names(tools []*mcp.Tool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Name)
	}
	return out
}

// TestConcurrentGrowth races calls, lists and registry growth (run with
// -race): every call gets a result, every tool ends up listed.
func TestConcurrentGrowth(t *testing.T) {
	reg := testRegistry(t)
	srv, _ := newServer(t, reg)
	cs, _ := connect(t, srv, versions[0], nil)
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			reg.MustAdd(toolreg.MustNew(fmt.Sprintf("extra_%d", i), "An extra tool.",
				func(context.Context, struct{}) (string, error) { return "ok", nil }))
		}()
		go func() {
			defer wg.Done()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_weather", Arguments: map[string]any{"city": "Oslo"}})
			if err != nil || res.IsError {
				t.Errorf("call: %+v %v", res, err)
			}
			if _, err := cs.ListTools(ctx, nil); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != reg.Len() {
		t.Errorf("listed %d tools, the registry holds %d", len(list.Tools), reg.Len())
	}
}

func TestAddToolsRefuses(t *testing.T) {
	object := json.RawMessage(`{"type":"object"}`)
	for _, tc := range []struct {
		name  string
		tools []toolreg.AnyTool
		opts  []Option
		want  error  // errors.Is
		text  string // in the message
	}{
		{name: "invalid MCP name", opts: []Option{Rename("get_time", "get time")},
			want: toolreg.ErrInvalidName, text: `"get time"`},
		{name: "two tools renamed alike", opts: []Option{Rename("get_time", "clock.now"), Rename("get_weather", "clock.now")},
			want: toolreg.ErrDuplicateTool, text: `"clock.now"`},
		{name: "renamed onto another tool", opts: []Option{Rename("get_time", "get_weather")},
			want: toolreg.ErrDuplicateTool, text: `"get_weather"`},
		{name: "input schema not an object", tools: []toolreg.AnyTool{adapttest.RawTool{ToolName: "raw", Input: json.RawMessage(`{"type":"array"}`)}},
			text: `tool "raw": input schema`},
		{name: "input schema not JSON", tools: []toolreg.AnyTool{adapttest.RawTool{ToolName: "raw", Input: json.RawMessage(`[`)}},
			text: `tool "raw": input schema`},
		{name: "fine", tools: []toolreg.AnyTool{adapttest.RawTool{ToolName: "raw", Input: object}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := testRegistry(t)
			reg.MustAdd(tc.tools...)
			srv := mcp.NewServer(&mcp.Implementation{Name: "s"}, nil)
			_, err := AddTools(srv, reg, tc.opts...)
			if tc.text == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.text) || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Fatalf("err = %v, want one matching %v and naming %s", err, tc.want, tc.text)
			}
			// All or nothing: the server serves no tool.
			cs, _ := connect(t, srv, versions[0], nil)
			if res, err := cs.ListTools(context.Background(), nil); err == nil && len(res.Tools) > 0 {
				t.Errorf("AddTools failed but the server lists %v", names(res.Tools))
			}
		})
	}
}

// TestSyncReportsLateProblems: a tool added later that cannot be served is
// reported by every Sync; the others are served.
func TestSyncReportsLateProblems(t *testing.T) {
	reg := testRegistry(t)
	srv, a := newServer(t, reg, Rename("clock", "get_time"))
	reg.MustAdd(adapttest.RawTool{ToolName: "clock", Input: json.RawMessage(`{"type":"object"}`)},
		adapttest.RawTool{ToolName: "fine", Input: json.RawMessage(`{"type":"object"}`)})
	for range 2 {
		if err := a.Sync(); err == nil || !errors.Is(err, toolreg.ErrDuplicateTool) || !strings.Contains(err.Error(), `"clock"`) {
			t.Fatalf("Sync = %v, want the clash of clock with get_time", err)
		}
	}
	cs, _ := connect(t, srv, versions[0], nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !listed(res.Tools, "fine") || len(res.Tools) != reg.Len()-1 {
		t.Errorf("listed %v", names(res.Tools))
	}
}

// TestAddServesEachAdd: tools added one Add at a time, from many
// goroutines at once and through a view, are each served once; of two
// tools served under one MCP name in separate Adds, the one added first
// is served and the other reported.
func TestAddServesEachAdd(t *testing.T) {
	raw := func(name string) toolreg.AnyTool {
		return adapttest.RawTool{ToolName: name, Input: json.RawMessage(`{"type":"object"}`)}
	}
	base := toolreg.NewRegistry()
	view := base.Select(func(t toolreg.AnyTool) bool { return !strings.HasPrefix(t.Name(), "hidden") })
	regs := []*toolreg.Registry{base, view}
	var srvs []*mcp.Server
	var adapters []*Adapter
	for _, reg := range regs {
		srv, a := newServer(t, reg, Rename("second", "first"))
		srvs, adapters = append(srvs, srv), append(adapters, a)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 25 {
				base.MustAdd(raw(fmt.Sprintf("t%d_%d", g, i)))
				base.MustAdd(raw(fmt.Sprintf("hidden%d_%d", g, i)))
			}
		})
	}
	wg.Wait()
	base.MustAdd(raw("first"))
	base.MustAdd(raw("second"))
	for i, reg := range regs {
		if err := adapters[i].Sync(); !errors.Is(err, toolreg.ErrDuplicateTool) || !strings.Contains(err.Error(), `tools "first" and "second" would both be served as "first"`) {
			t.Errorf("Sync = %v, want the clash of second with first", err)
		}
		cs, _ := connect(t, srvs[i], versions[0], nil)
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		want := reg.Len() - 1 // second is refused
		if len(res.Tools) != want || !listed(res.Tools, "t7_24") || !listed(res.Tools, "first") {
			t.Errorf("registry %d: listed %d tools, want %d", i, len(res.Tools), want)
		}
		if listed(res.Tools, "hidden0_0") != (reg == base) {
			t.Errorf("registry %d: hidden0_0 listed: %v", i, listed(res.Tools, "hidden0_0"))
		}
	}
}

func TestOutputShape(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
		want         string // the advertised schema, "" for none
		wrap         bool
	}{
		{"none", ``, ``, false},
		{"object", `{"properties":{"a":{"type":"string"}},"type":"object"}`, `{"properties":{"a":{"type":"string"}},"type":"object"}`, false},
		{"nullable object", `{"properties":{"x":{"type":"integer"}},"required":["x"],"type":["object","null"]}`,
			`{"type":"object","properties":{"result":{"properties":{"x":{"type":"integer"}},"required":["x"],"type":["object","null"]}},"required":["result"],"additionalProperties":false}`, true},
		{"array", `{"items":{"type":"string"},"type":["array","null"]}`,
			`{"type":"object","properties":{"result":{"items":{"type":"string"},"type":["array","null"]}},"required":["result"],"additionalProperties":false}`, true},
		{"scalar", `{"type":"integer","minimum":0}`,
			`{"type":"object","properties":{"result":{"type":"integer","minimum":0}},"required":["result"],"additionalProperties":false}`, true},
		{"any", `true`,
			`{"type":"object","properties":{"result":true},"required":["result"],"additionalProperties":false}`, true},
		{"defs move to the root", `{"$defs":{"n":{"type":"object","properties":{"k":{"items":{"$ref":"#/$defs/n"},"type":"array"}}}},"items":{"$ref":"#/$defs/n"},"type":"array"}`,
			`{"type":"object","properties":{"result":{"items":{"$ref":"#/$defs/n"},"type":"array"}},"required":["result"],"additionalProperties":false,"$defs":{"n":{"type":"object","properties":{"k":{"items":{"$ref":"#/$defs/n"},"type":"array"}}}}}`, true},
		{"a property named $ref is not a reference", `{"type":"array","items":{"type":"object","properties":{"$ref":{"type":"string"}}}}`,
			`{"type":"object","properties":{"result":{"type":"array","items":{"type":"object","properties":{"$ref":{"type":"string"}}}}},"required":["result"],"additionalProperties":false}`, true},
		{"root reference", `{"type":"array","items":{"$ref":"#"}}`, ``, false},
		{"$id", `{"$id":"https://example.com/s","type":"array"}`, ``, false},
		{"anchor", `{"type":"array","items":{"$anchor":"a"}}`, ``, false},
		{"not a schema", `"text"`, ``, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := outputShape(json.RawMessage(tc.schema))
			if string(got.schema) != tc.want || got.wrap != tc.wrap {
				t.Errorf("outputShape(%s) =\n %s (wrap %v)\nwant\n %s (wrap %v)", tc.schema, got.schema, got.wrap, tc.want, tc.wrap)
			}
			if got.schema != nil {
				compile(t, got.schema)
			}
		})
	}
}

func TestValidName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"get_weather", true},
		{"admin.tools.list", true},
		{"1st-tool", true},
		{strings.Repeat("a", 128), true},
		{"", false},
		{strings.Repeat("a", 129), false},
		{"get weather", false},
		{"a,b", false},
		{"a/b", false},
		{"tool:x", false},
		{"café", false},
	} {
		err := validName(tc.name)
		if (err == nil) != tc.ok {
			t.Errorf("validName(%q) = %v, want ok=%v", tc.name, err, tc.ok)
		}
		if err != nil && !errors.Is(err, toolreg.ErrInvalidName) {
			t.Errorf("validName(%q) = %v, does not wrap ErrInvalidName", tc.name, err)
		}
	}
}

// TestToolsListOutputSchemaNumbers: the outputSchema of tools/list treats
// the limits of Go number types as inputSchema does: float64's, int64's
// and uint32's are left out, int8's kept, on both sides.
func TestToolsListOutputSchemaNumbers(t *testing.T) {
	type reading struct {
		Temp  float64 `json:"temp"`
		Count int64   `json:"count"`
		Size  uint32  `json:"size"`
		Level int8    `json:"level"`
	}
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("read", "Reads a sensor.",
		func(context.Context, reading) (reading, error) { return reading{}, nil }))
	srv, _ := newServer(t, reg)
	cs, w := connect(t, srv, versions[0], nil)
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	var listed struct {
		Tools []struct {
			InputSchema  map[string]any `json:"inputSchema"`
			OutputSchema map[string]any `json:"outputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(w.toolsList(t), &listed); err != nil {
		t.Fatal(err)
	}
	if len(listed.Tools) != 1 || listed.Tools[0].OutputSchema == nil {
		t.Fatalf("listed %+v, want one tool with an outputSchema", listed.Tools)
	}
	props := func(s map[string]any) map[string]any { return s["properties"].(map[string]any) }
	in, out := props(listed.Tools[0].InputSchema), props(listed.Tools[0].OutputSchema)
	if diff := cmp.Diff(in, out); diff != "" {
		t.Errorf("outputSchema properties differ from inputSchema's for the same type (-input +output):\n%s", diff)
	}
	for _, name := range []string{"temp", "count", "size"} {
		p := out[name].(map[string]any)
		if _, ok := p["maximum"]; ok {
			t.Errorf("outputSchema %s keeps its Go type's limits: %v", name, p)
		}
		if _, ok := p["minimum"]; ok && name != "size" {
			t.Errorf("outputSchema %s keeps its Go type's limits: %v", name, p)
		}
	}
	if lv := out["level"].(map[string]any); lv["maximum"] != float64(127) {
		t.Errorf("outputSchema level lost int8's bound: %v", lv)
	}
}

// TestToolsListOutputSchemaLeftOutAsWritten: an output schema that cannot be
// wrapped faithfully (here its $id) is left out, judged as the tool wrote it,
// not after lowering dropped the $id.
func TestToolsListOutputSchemaLeftOutAsWritten(t *testing.T) {
	list, err := toolreg.NewDynamic("list", "Lists numbers.", json.RawMessage(`{"type":"object"}`),
		func(context.Context, json.RawMessage) (toolreg.Output, error) {
			return toolreg.Output{Text: "[1,2]", Structured: json.RawMessage(`[1,2]`)}, nil
		},
		toolreg.WithOutputSchema(json.RawMessage(`{"$id":"https://example.com/list","type":"array","items":{"type":"integer"}}`)))
	if err != nil {
		t.Fatal(err)
	}
	reg := toolreg.NewRegistry()
	reg.MustAdd(list)
	srv, _ := newServer(t, reg)
	cs, w := connect(t, srv, versions[0], nil)
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	var listed struct {
		Tools []map[string]json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(w.toolsList(t), &listed); err != nil {
		t.Fatal(err)
	}
	if len(listed.Tools) != 1 {
		t.Fatalf("listed %d tools, want 1", len(listed.Tools))
	}
	if s, ok := listed.Tools[0]["outputSchema"]; ok {
		t.Errorf("outputSchema %s advertised for a schema with an $id; want none (text results only)", s)
	}
}
