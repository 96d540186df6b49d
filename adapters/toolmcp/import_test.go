package toolmcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolanthropic"
	"github.com/toolreg/toolreg/adapters/toolopenai"
)

func TestImportName(t *testing.T) {
	long := strings.Repeat("x", 70)
	for _, tc := range []struct {
		prefix, mcp, want string
		exact             bool
	}{
		{"", "get_weather", "get_weather", true},
		{"", "get-sum", "get-sum", true},
		{"gh__", "create_issue", "gh__create_issue", true},
		{"gh__", "files.read", "gh__files_read", false},
		{"", "files.read", "files_read", false},
		{"", "a b/c", "a_b_c", false},
		{"", "3d-print", "_3d-print", false},
		{"", "-x", "_-x", false},
		{"", "é", "__", false}, // two bytes of UTF-8
		{"", long, strings.Repeat("x", 55) + "_c71bd109", false},
		{"", long + "y", strings.Repeat("x", 55) + "_f560a7f0", false},
		{"", strings.Repeat("x", 64), strings.Repeat("x", 64), true},
	} {
		name, exact := importName(tc.prefix, tc.mcp)
		if name != tc.want || exact != tc.exact {
			t.Errorf("importName(%q, %q) = %q, %v; want %q, %v", tc.prefix, tc.mcp, name, exact, tc.want, tc.exact)
		}
		if err := toolreg.ValidName(name); err != nil {
			t.Errorf("importName(%q, %q) = %q: %v", tc.prefix, tc.mcp, name, err)
		}
	}
}

func TestNewImporterRefusesOptions(t *testing.T) {
	reg := toolreg.NewRegistry()
	for _, tc := range []struct {
		name string
		opts []ImportOption
		want error
		text string
	}{
		{"a prefix that cannot begin a name", []ImportOption{Prefix("1x")}, toolreg.ErrInvalidName, `Prefix("1x")`},
		{"a prefix with a dot", []ImportOption{Prefix("gh.")}, toolreg.ErrInvalidName, `Prefix("gh.")`},
		{"a prefix too long", []ImportOption{Prefix(strings.Repeat("p", 33))}, toolreg.ErrInvalidName, "32 characters"},
		{"an invalid ImportAs name", []ImportOption{ImportAs("files.read", "files.read")}, toolreg.ErrInvalidName, `ImportAs("files.read")`},
		{"one name for two tools", []ImportOption{ImportAs("a", "x"), ImportAs("b", "x")}, toolreg.ErrDuplicateTool, `tools "a" and "b" the same name "x"`},
	} {
		_, err := NewImporter(reg, tc.opts...)
		if !errors.Is(err, tc.want) || !strings.Contains(errText(err), tc.text) {
			t.Errorf("%s: err = %v, want %v with %q", tc.name, err, tc.want, tc.text)
		}
	}
	if _, err := NewImporter(nil); err == nil {
		t.Error("NewImporter(nil) succeeded")
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// upstream is an MCP server that toolreg did not make, as far as an
// Importer can tell: tools added to a go-sdk server by hand, with raw
// schemas.
type upstream struct {
	srv   *mcp.Server
	calls atomic.Int64 // calls that reached the server
}

func newUpstream() *upstream {
	u := &upstream{srv: mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "v1.0.0"}, nil)}
	u.srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				u.calls.Add(1)
			}
			return next(ctx, method, req)
		}
	})
	return u
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// add adds a tool with a raw input schema and a handler of its raw
// arguments.
func (u *upstream) add(tool *mcp.Tool, schema string, fn func(ctx context.Context, args json.RawMessage) (*mcp.CallToolResult, error)) {
	tool.InputSchema = json.RawMessage(schema)
	if tool.Description == "" {
		tool.Description = "The " + tool.Name + " tool."
	}
	u.srv.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return fn(ctx, req.Params.Arguments)
	})
}

const messageSchema = `{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`

// standard adds the tools most tests import: text, a dotted name,
// structured content, an isError result and content that is not text.
func (u *upstream) standard() {
	no := false
	u.add(&mcp.Tool{Name: "echo", Title: "Echo", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}},
		messageSchema, func(_ context.Context, args json.RawMessage) (*mcp.CallToolResult, error) {
			var a struct{ Message string }
			json.Unmarshal(args, &a)
			return text(a.Message), nil
		})
	u.add(&mcp.Tool{Name: "files.read", Description: "Reads a file."},
		`{"type":"object","properties":{"path":{"type":"string","minLength":1}},"required":["path"],"additionalProperties":false}`,
		func(_ context.Context, args json.RawMessage) (*mcp.CallToolResult, error) {
			var a struct{ Path string }
			json.Unmarshal(args, &a)
			return text("contents of " + a.Path), nil
		})
	weather := &mcp.Tool{Name: "weather", Annotations: &mcp.ToolAnnotations{Title: "Weather", ReadOnlyHint: true},
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"high":{"type":"number"},"city":{"type":"string"}},"required":["city","high"]}`)}
	u.add(weather, `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`,
		func(_ context.Context, args json.RawMessage) (*mcp.CallToolResult, error) {
			var a struct{ City string }
			json.Unmarshal(args, &a)
			if a.City == "Atlantis" {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no weather station in Atlantis"}}}, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"high": 21, "city": "` + a.City + `"}`}},
				StructuredContent: map[string]any{"high": 21, "city": a.City}}, nil
		})
	u.add(&mcp.Tool{Name: "media"}, `{"type":"object"}`, func(context.Context, json.RawMessage) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "Here you are:"},
			&mcp.ImageContent{MIMEType: "image/png", Data: []byte("12345")},
			&mcp.ResourceLink{URI: "file:///a.txt", Name: "a.txt", MIMEType: "text/plain", Description: "the first file"},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///b.txt", Text: "bee"}},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///c.bin", Blob: []byte{1, 2, 3}}},
		}}, nil
	})
	u.add(&mcp.Tool{Name: "structured_only", OutputSchema: json.RawMessage(`{"type":"object"}`)}, `{"type":"object"}`,
		func(context.Context, json.RawMessage) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: map[string]any{"n": 1}}, nil
		})
}

// link serves u to a new client whose list-changed handler is im's,
// speaking version ("" for the client's default). It returns the client's
// session, and a func that cuts the connection as a server that dies
// would.
func (u *upstream) link(t *testing.T, im *Importer, version string) (*mcp.ClientSession, func()) {
	t.Helper()
	ctx := context.Background()
	server, client := net.Pipe()
	st, ct := &mcp.IOTransport{Reader: server, Writer: server}, &mcp.IOTransport{Reader: client, Writer: client}
	ss, err := u.srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	c := mcp.NewClient(&mcp.Implementation{Name: "importer", Version: "v0.0.1"}, &mcp.ClientOptions{ToolListChangedHandler: im.ToolListChanged})
	cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, func() { server.Close() }
}

// importInto imports u's tools into reg, and fails the test if any is
// refused.
func (u *upstream) importInto(t *testing.T, reg *toolreg.Registry, opts ...ImportOption) *Importer {
	t.Helper()
	im, err := NewImporter(reg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	cs, _ := u.link(t, im, "")
	if err := im.Import(context.Background(), cs); err != nil {
		t.Fatal(err)
	}
	return im
}

// changes collects what OnChange reports.
type changes chan report

type report struct {
	Change Change
	Err    string
}

func (c changes) option() ImportOption {
	return OnChange(func(ch Change, err error) { c <- report{ch, errText(err)} })
}

// next waits for the next report.
func (c changes) next(t *testing.T) report {
	t.Helper()
	select {
	case r := <-c:
		return r
	case <-time.After(5 * time.Second):
		t.Fatal("no change reported in 5s")
		return report{}
	}
}

// none fails if a report is waiting.
func (c changes) none(t *testing.T) {
	t.Helper()
	select {
	case r := <-c:
		t.Errorf("unexpected report %+v", r)
	default:
	}
}

// TestImport imports a server's tools beside a Go tool and calls each
// through the registry.
func TestImport(t *testing.T) {
	u := newUpstream()
	u.standard()
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("get_time", "The current time.", func(context.Context, struct{}) (string, error) { return "10:00", nil }))
	im := u.importInto(t, reg, Prefix("up__"))

	var names []string
	for _, tool := range reg.Tools() {
		names = append(names, tool.Name())
	}
	// The SDK lists tools sorted by name.
	if diff := cmp.Diff([]string{"get_time", "up__echo", "up__files_read", "up__media", "up__structured_only", "up__weather"}, names); diff != "" {
		t.Errorf("registry (-want +got):\n%s", diff)
	}
	wantNames := map[string]string{"echo": "up__echo", "files.read": "up__files_read", "media": "up__media", "structured_only": "up__structured_only", "weather": "up__weather"}
	if diff := cmp.Diff(wantNames, im.Names()); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
	if got := im.Unavailable(); got != nil {
		t.Errorf("Unavailable = %v", got)
	}

	type def struct{ Description, Title, Input, Output string }
	defOf := func(name string) def {
		tool, _ := reg.Lookup(name)
		d := def{Description: tool.Description(), Input: string(tool.InputSchema()), Output: string(tool.OutputSchema())}
		if tt, ok := tool.(interface{ Title() string }); ok {
			d.Title = tt.Title()
		}
		return d
	}
	for name, want := range map[string]def{
		// The client reads schemas as maps: keys come sorted.
		"up__echo":       {"The echo tool.", "Echo", `{"properties":{"message":{"type":"string"}},"required":["message"],"type":"object"}`, ""},
		"up__files_read": {"Reads a file.", "", `{"additionalProperties":false,"properties":{"path":{"minLength":1,"type":"string"}},"required":["path"],"type":"object"}`, ""},
		"up__weather":    {"The weather tool.", "Weather", `{"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"}`, `{"properties":{"city":{"type":"string"},"high":{"type":"number"}},"required":["city","high"],"type":"object"}`},
	} {
		if diff := cmp.Diff(want, defOf(name)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}

	for _, tc := range []struct {
		tool, args string
		text       string
		structured string
		isError    bool
		err        error
		reached    bool // the call reached the server
		media      []toolreg.Media
	}{
		{"up__echo", `{"message":"hello"}`, "hello", "", false, nil, true, nil},
		{"up__echo", `{}`, "invalid arguments for tool \"up__echo\":\n- message: required field is missing\nFix the arguments and call the tool again.", "", true, toolreg.ErrInvalidArguments, false, nil},
		{"up__files_read", `{"path":"a.txt"}`, "contents of a.txt", "", false, nil, true, nil},
		{"up__files_read", `{"path":"a.txt","mode":"w"}`, "invalid arguments for tool \"up__files_read\":\n- mode: unknown field\nFix the arguments and call the tool again.", "", true, toolreg.ErrInvalidArguments, false, nil},
		{"up__weather", `{"city":"Paris"}`, `{"high": 21, "city": "Paris"}`, `{"city":"Paris","high":21}`, false, nil, true, nil},
		{"up__weather", `{"city":"Atlantis"}`, "no weather station in Atlantis", "", true, toolreg.ErrToolFailed, true, nil},
		{"up__media", ``, "Here you are:\n[resource link: a.txt <file:///a.txt>, text/plain: the first file]\n[resource <file:///b.txt>]\nbee", "", false, nil, true,
			[]toolreg.Media{{MIMEType: "image/png", Data: []byte("12345")}, {MIMEType: "application/octet-stream", Data: []byte{1, 2, 3}, Name: "c.bin"}}},
		{"up__structured_only", `{}`, `{"n":1}`, `{"n":1}`, false, nil, true, nil},
		{"get_time", `{}`, "10:00", "", false, nil, false, nil},
	} {
		before := u.calls.Load()
		out := reg.Call(context.Background(), tc.tool, json.RawMessage(tc.args))
		if out.Text != tc.text || string(out.Structured) != tc.structured || out.IsError != tc.isError || !errors.Is(out.Err, tc.err) || (tc.err == nil) != (out.Err == nil) {
			t.Errorf("%s %s = %+v\nwant text %q, structured %s, isError %v, err %v", tc.tool, tc.args, out, tc.text, tc.structured, tc.isError, tc.err)
		}
		if diff := cmp.Diff(tc.media, out.Media); diff != "" {
			t.Errorf("%s: media (-want +got):\n%s", tc.tool, diff)
		}
		if reached := u.calls.Load() > before; reached != tc.reached {
			t.Errorf("%s %s: reached the server: %v, want %v", tc.tool, tc.args, reached, tc.reached)
		}
	}
}

// TestImportRefuses: tools that cannot be imported are left out, each with
// its reason naming it, and the rest are imported.
func TestImportRefuses(t *testing.T) {
	u := newUpstream()
	ok := func(context.Context, json.RawMessage) (*mcp.CallToolResult, error) { return text("ok"), nil }
	long := strings.Repeat("very_long_name.", 6) // 90 characters
	for _, name := range []string{"search", "a_b", "a.b", "fine", long, "renamed", "taken"} {
		u.add(&mcp.Tool{Name: name}, `{"type":"object"}`, ok)
	}
	u.add(&mcp.Tool{Name: "bad_pattern"}, `{"type":"object","properties":{"q":{"type":"string","pattern":"("}}}`, ok)
	u.add(&mcp.Tool{Name: "bad_output", OutputSchema: json.RawMessage(`{"type":"objekt"}`)}, `{"type":"object"}`, ok)
	// The SDK's server refuses input schemas without an object root; some
	// servers send them all the same.
	u.srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if list, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				list.Tools = append(list.Tools,
					&mcp.Tool{Name: "not_object", Description: "Takes a list.", InputSchema: json.RawMessage(`{"type":"array"}`)},
					&mcp.Tool{Name: "no_description", InputSchema: json.RawMessage(`{"type":"object"}`)})
			}
			return res, err
		}
	})

	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("search", "Searches.", func(context.Context, struct{}) (string, error) { return "", nil }),
		toolreg.MustNew("web_search", "Searches the web.", func(context.Context, struct{}) (string, error) { return "", nil }))
	im, err := NewImporter(reg, ImportAs("renamed", "web_search"), ImportAs("taken", "a_b"))
	if err != nil {
		t.Fatal(err)
	}
	cs, _ := u.link(t, im, "")
	err = im.Import(context.Background(), cs)
	if !errors.Is(err, toolreg.ErrDuplicateTool) || !errors.Is(err, toolreg.ErrInvalidDeclaration) {
		t.Errorf("err = %v, want toolreg.ErrDuplicateTool and toolreg.ErrInvalidDeclaration", err)
	}
	wantErrs := []string{
		`mcp: tool "a.b" of the MCP server "upstream" not imported: duplicate tool: its name would be "a_b", which its tool "taken" takes; import it under another name with ImportAs`,
		`mcp: tool "a_b" of the MCP server "upstream" not imported: duplicate tool: its name would be "a_b", which its tool "taken" takes; import it under another name with ImportAs`,
		`mcp: tool "bad_output" of the MCP server "upstream" not imported: invalid tool declaration: tool "bad_output": the output schema does not compile as draft 2020-12:`,
		`mcp: tool "bad_pattern" of the MCP server "upstream" not imported: invalid tool declaration: tool "bad_pattern": the schema does not compile as draft 2020-12:`,
		`mcp: tool "not_object" of the MCP server "upstream" not imported: invalid tool declaration: tool "not_object": the schema must describe an object ("type": "object")`,
		`mcp: tool "renamed" of the MCP server "upstream" not imported: duplicate tool: its name would be "web_search", which the registry's tool "web_search" already has; import it under another name with ImportAs or Prefix`,
		`mcp: tool "search" of the MCP server "upstream" not imported: duplicate tool: its name would be "search", which the registry's tool "search" already has; import it under another name with ImportAs or Prefix`,
	}
	lines := strings.Split(errText(err), "\n")
	var got []string
	for _, line := range lines {
		if strings.HasPrefix(line, "mcp: ") {
			got = append(got, line)
		}
	}
	slices.Sort(got)
	if len(got) != len(wantErrs) {
		t.Fatalf("got %d errors, want %d:\n%s", len(got), len(wantErrs), strings.Join(got, "\n"))
	}
	for i, want := range wantErrs {
		if !strings.HasPrefix(got[i], want) {
			t.Errorf("error %d:\n got %s\nwant %s…", i, got[i], want)
		}
	}

	var names []string
	for _, tool := range reg.Tools() {
		names = append(names, tool.Name())
	}
	longName := strings.Repeat("very_long_name_", 4)[:55] + "_" // then 8 hex digits
	if len(names) != 6 || !strings.HasPrefix(names[4], longName) || len(names[4]) != 64 {
		t.Fatalf("registry: %v", names)
	}
	names[4] = "(long)"
	if diff := cmp.Diff([]string{"search", "web_search", "fine", "a_b", "(long)", "no_description"}, names); diff != "" {
		t.Errorf("registry (-want +got):\n%s", diff)
	}
	if tool, _ := reg.Lookup("no_description"); tool.Description() != "no_description" {
		t.Errorf("no_description's description: %q", tool.Description())
	}
	if out := reg.Call(context.Background(), "a_b", nil); out.Text != "ok" {
		t.Errorf("a_b: %+v", out)
	}
	if got := im.Names()["taken"]; got != "a_b" {
		t.Errorf("taken is imported as %q", got)
	}

	// A refresh does not report the same refusals again.
	if change, err := im.Refresh(context.Background()); err != nil || !change.empty() {
		t.Errorf("refresh: %+v, %v", change, err)
	}
}

// listedBy lists the names of the tools a client is offered.
func listedBy(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return names(res.Tools)
}

func echoTool() *mcp.Tool { return &mcp.Tool{Name: "echo"} }

func echo(_ context.Context, args json.RawMessage) (*mcp.CallToolResult, error) {
	var a struct{ Message string }
	json.Unmarshal(args, &a)
	return text(a.Message), nil
}

// TestImportRefresh: the server adds, removes, brings back and changes
// tools while a client of the registry (AddTools) watches; the registry
// follows, in both ways a client hears of changes (2026-07-28 subscribes
// with subscriptions/listen; 2025-11-25 gets the notification unasked).
func TestImportRefresh(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			ctx := context.Background()
			u := newUpstream()
			u.add(echoTool(), messageSchema, echo)
			u.add(&mcp.Tool{Name: "sum"}, `{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}}}`,
				func(context.Context, json.RawMessage) (*mcp.CallToolResult, error) { return text("3"), nil })
			reg := toolreg.NewRegistry()
			got := make(changes, 16)
			im, err := NewImporter(reg, got.option())
			if err != nil {
				t.Fatal(err)
			}
			cs, _ := u.link(t, im, v)
			if err := im.Import(ctx, cs); err != nil {
				t.Fatal(err)
			}
			want := func(r report) {
				t.Helper()
				if diff := cmp.Diff(r, got.next(t)); diff != "" {
					t.Errorf("report (-want +got):\n%s", diff)
				}
			}
			want(report{Change: Change{Added: []string{"echo", "sum"}}})

			// A client of the registry, which must list only what can be
			// called.
			down, _ := newServer(t, reg)
			downstream, _ := connect(t, down, "2025-11-25", nil)
			lists := func(want ...string) {
				t.Helper()
				if diff := cmp.Diff(want, listedBy(t, downstream)); diff != "" {
					t.Errorf("the downstream client lists (-want +got):\n%s", diff)
				}
			}
			call := func(tool, wantText string, wantErr error) {
				t.Helper()
				args := map[string]string{"echo": `{"message":"hi"}`, "sum": `{"a":1,"b":2}`, "later": `{}`}[tool]
				out := reg.Call(ctx, tool, json.RawMessage(args))
				if out.Text != wantText || !errors.Is(out.Err, wantErr) || (wantErr == nil) != (out.Err == nil) {
					t.Errorf("%s = %+v, want %q, err %v", tool, out, wantText, wantErr)
				}
			}
			lists("echo", "sum")

			u.add(&mcp.Tool{Name: "later"}, `{"type":"object"}`, func(context.Context, json.RawMessage) (*mcp.CallToolResult, error) { return text("late"), nil })
			want(report{Change: Change{Added: []string{"later"}}})
			call("later", "late", nil)
			lists("echo", "later", "sum")

			u.srv.RemoveTools("echo")
			want(report{Change: Change{Removed: []string{"echo"}}})
			call("echo", `tool "echo" is no longer offered by the MCP server "upstream"; do not call it again`, ErrNotOffered)
			if diff := cmp.Diff([]string{"echo"}, im.Unavailable()); diff != "" {
				t.Errorf("Unavailable (-want +got):\n%s", diff)
			}
			lists("later", "sum")

			u.add(echoTool(), messageSchema, echo)
			want(report{Change: Change{Restored: []string{"echo"}}})
			call("echo", "hi", nil)
			lists("echo", "later", "sum")

			u.add(&mcp.Tool{Name: "sum"}, `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}}}`,
				func(context.Context, json.RawMessage) (*mcp.CallToolResult, error) { return text("3"), nil })
			want(report{Change: Change{Removed: []string{"sum"}},
				Err: `mcp: tool "sum" of the MCP server "upstream" changed its input or output schema; "sum" keeps the schema the model was given, so its calls are refused until the server offers that schema again or the tool is imported into a new registry`})
			call("sum", `tool "sum" was changed by the MCP server "upstream" after you were given it, and cannot be called as you know it; do not call it again`, ErrNotOffered)
			lists("echo", "later")

			u.add(&mcp.Tool{Name: "sum", Description: "Adds, with a new description."}, `{"type":"object","properties":{"b":{"type":"number"},"a":{"type":"number"}}}`,
				func(context.Context, json.RawMessage) (*mcp.CallToolResult, error) { return text("3"), nil })
			want(report{Change: Change{Restored: []string{"sum"}}})
			call("sum", "3", nil)
			lists("echo", "later", "sum")
			if tool, _ := reg.Lookup("sum"); tool.Description() != "The sum tool." {
				t.Errorf("sum's description changed to %q", tool.Description())
			}
			got.none(t)
		})
	}
}

// TestImportDisconnect: a server that goes away mid-call gives that call
// and every later one a clear error; the import says so, and comes back
// on a new session.
func TestImportDisconnect(t *testing.T) {
	ctx := context.Background()
	u := newUpstream()
	u.add(echoTool(), messageSchema, echo)
	started, release := make(chan struct{}), make(chan struct{})
	u.add(&mcp.Tool{Name: "slow"}, `{"type":"object"}`, func(ctx context.Context, _ json.RawMessage) (*mcp.CallToolResult, error) {
		close(started)
		<-release // a server that dies never answers
		return text("too late"), nil
	})
	reg := toolreg.NewRegistry()
	got := make(changes, 16)
	im, err := NewImporter(reg, got.option())
	if err != nil {
		t.Fatal(err)
	}
	cs, crash := u.link(t, im, "")
	t.Cleanup(func() { close(release) }) // before the server's session closes
	if err := im.Import(ctx, cs); err != nil {
		t.Fatal(err)
	}
	got.next(t) // the import

	done := make(chan toolreg.Output)
	go func() { done <- reg.Call(ctx, "slow", nil) }()
	<-started
	crash()
	var out toolreg.Output
	select {
	case out = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the call did not return when the server went away")
	}
	if want := `the connection to the MCP server "upstream" closed during the call of tool "slow"; whether the call took effect is unknown`; out.Text != want || !out.IsError || !errors.Is(out.Err, ErrDisconnected) {
		t.Errorf("the call cut off: %+v (err %v)", out, out.Err)
	}
	if diff := cmp.Diff(report{Change: Change{Removed: []string{"echo", "slow"}}, Err: `mcp: the session to the MCP server "upstream" has ended: MCP server disconnected`}, got.next(t)); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	out = reg.Call(ctx, "echo", json.RawMessage(`{"message":"hi"}`))
	if want := `tool "echo" cannot be called: the connection to the MCP server "upstream" has closed`; out.Text != want || !errors.Is(out.Err, ErrDisconnected) {
		t.Errorf("a call after: %+v", out)
	}
	if diff := cmp.Diff([]string{"echo", "slow"}, im.Unavailable()); diff != "" {
		t.Errorf("Unavailable (-want +got):\n%s", diff)
	}
	// Served again while the server is away, they are not listed.
	down, _ := newServer(t, reg)
	downstream, _ := connect(t, down, "2025-11-25", nil)
	if got := listedBy(t, downstream); got != nil {
		t.Errorf("served while the server is away: %v", got)
	}

	cs2, _ := u.link(t, im, "")
	if err := im.Import(ctx, cs2); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(report{Change: Change{Restored: []string{"echo", "slow"}}}, got.next(t)); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	if out := reg.Call(ctx, "echo", json.RawMessage(`{"message":"back"}`)); out.Text != "back" {
		t.Errorf("a call on the new session: %+v", out)
	}
	if diff := cmp.Diff([]string{"echo", "slow"}, listedBy(t, downstream)); diff != "" {
		t.Errorf("served once the server is back (-want +got):\n%s", diff)
	}
	cs.Close() // the old session's end changes nothing
	got.none(t)
}

// TestImportTimeout: the registry's deadlines bound an imported call, and
// the server hears of the cancellation.
func TestImportTimeout(t *testing.T) {
	for _, tc := range []struct {
		name     string
		regOpts  []toolreg.RegistryOption
		toolOpts []toolreg.Option
		deadline time.Duration // of the caller's context
	}{
		{"the registry's default", []toolreg.RegistryOption{toolreg.WithDefaultTimeout(50 * time.Millisecond)}, nil, 0},
		{"the tool's own", nil, []toolreg.Option{toolreg.WithTimeout(50 * time.Millisecond)}, 0},
		{"the caller's", nil, nil, 50 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := newUpstream()
			cancelled := make(chan struct{})
			u.add(&mcp.Tool{Name: "slow"}, `{"type":"object"}`, func(ctx context.Context, _ json.RawMessage) (*mcp.CallToolResult, error) {
				select {
				case <-ctx.Done():
					close(cancelled)
					return nil, ctx.Err()
				case <-time.After(10 * time.Second):
					return text("too late"), nil
				}
			})
			reg := toolreg.NewRegistry(tc.regOpts...)
			u.importInto(t, reg, ToolOptions(func(*mcp.Tool) []toolreg.Option { return tc.toolOpts }))
			ctx := context.Background()
			if tc.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.deadline)
				defer cancel()
			}
			start := time.Now()
			out := reg.Call(ctx, "slow", nil)
			if !out.IsError || !errors.Is(out.Err, toolreg.ErrTimeout) || !strings.HasPrefix(out.Text, `tool "slow" did not finish`) {
				t.Errorf("out = %+v (err %v)", out, out.Err)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("the call took %v", d)
			}
			select {
			case <-cancelled:
			case <-time.After(5 * time.Second):
				t.Error("the server's handler was not cancelled")
			}
		})
	}
}

// TestImportReserve serves imported tools over MCP again: the server's
// title, annotations (with Annotate on top) and output schema reach the
// next client, and its calls reach the first server.
func TestImportReserve(t *testing.T) {
	u := newUpstream()
	u.standard()
	reg := toolreg.NewRegistry()
	u.importInto(t, reg, Prefix("up__"))
	down, _ := newServer(t, reg, Annotate("up__echo", Destructive(false)), Rename("up__files_read", "up.files.read"))
	downstream, _ := connect(t, down, "2025-11-25", nil)
	res, err := downstream.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	type served struct {
		Title        string
		Annotations  *mcp.ToolAnnotations
		OutputSchema any
	}
	got := map[string]served{}
	for _, tool := range res.Tools {
		got[tool.Name] = served{tool.Title, tool.Annotations, tool.OutputSchema}
	}
	no := false
	want := map[string]served{
		"up__echo":            {"Echo", &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no, DestructiveHint: &no}, nil},
		"up.files.read":       {},
		"up__media":           {},
		"up__structured_only": {OutputSchema: map[string]any{"type": "object"}},
		"up__weather": {"Weather", &mcp.ToolAnnotations{Title: "Weather", ReadOnlyHint: true}, map[string]any{"type": "object",
			"properties": map[string]any{"city": map[string]any{"type": "string"}, "high": map[string]any{"type": "number"}}, "required": []any{"city", "high"}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("served (-want +got):\n%s", diff)
	}
	out, err := downstream.CallTool(context.Background(), &mcp.CallToolParams{Name: "up__weather", Arguments: map[string]any{"city": "Oslo"}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"city": "Oslo", "high": float64(21)}, out.StructuredContent); diff != "" || out.IsError {
		t.Errorf("structuredContent (-want +got):\n%s%+v", diff, out)
	}
	out, err = downstream.CallTool(context.Background(), &mcp.CallToolParams{Name: "up.files.read", Arguments: map[string]any{"path": "x"}})
	if err != nil || out.Content[0].(*mcp.TextContent).Text != "contents of x" {
		t.Errorf("up.files.read: %+v, %v", out, err)
	}
}

// TestImportDialects: a schema that uses keywords a strict dialect lacks is
// imported, its calls are checked against it in full, and the strict
// adapters send it non-strict, saying why (an imported tool's schema is
// not its author's to change), while the others stay strict.
func TestImportDialects(t *testing.T) {
	u := newUpstream()
	u.add(echoTool(), messageSchema, echo)
	u.add(&mcp.Tool{Name: "exclusive"}, `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"not":{"required":["a","b"]}}`,
		func(context.Context, json.RawMessage) (*mcp.CallToolResult, error) { return text("ok"), nil })
	reg := toolreg.NewRegistry()
	u.importInto(t, reg)
	if out := reg.Call(context.Background(), "exclusive", json.RawMessage(`{"a":"x","b":"y"}`)); !errors.Is(out.Err, toolreg.ErrInvalidArguments) {
		t.Errorf("a call the schema's not refuses: %+v", out)
	}
	if out := reg.Call(context.Background(), "exclusive", json.RawMessage(`{"a":"x"}`)); out.Text != "ok" {
		t.Errorf("a valid call: %+v", out)
	}

	oa := toolopenai.NewChat(reg, toolopenai.WithStrict())
	an := toolanthropic.New(reg, toolanthropic.WithStrict())
	if _, err := oa.Tools(); err != nil {
		t.Fatal(err)
	}
	if _, err := an.Tools(); err != nil {
		t.Fatal(err)
	}
	got := map[string][2]bool{}
	for _, name := range []string{"echo", "exclusive"} {
		got[name] = [2]bool{oa.Strict(name), an.Strict(name)}
	}
	if diff := cmp.Diff(map[string][2]bool{"echo": {true, true}, "exclusive": {false, false}}, got); diff != "" {
		t.Errorf("strict, OpenAI and Anthropic (-want +got):\n%s", diff)
	}
	for name, err := range map[string]error{"OpenAI": oa.NotStrict("exclusive"), "Anthropic": an.NotStrict("exclusive")} {
		if !errors.Is(err, toolreg.ErrUnsupportedSchema) || !strings.Contains(err.Error(), `"exclusive"`) {
			t.Errorf("%s: NotStrict(exclusive) = %v, want toolreg.ErrUnsupportedSchema naming it", name, err)
		}
	}
	if err := oa.NotStrict("echo"); err != nil {
		t.Errorf("NotStrict(echo) = %v", err)
	}
}

// TestImportRefusedBounded: the refused tools an Importer remembers are
// those of the latest listing, however many bad names a server lists one
// refresh after another.
func TestImportRefusedBounded(t *testing.T) {
	u := newUpstream()
	u.add(echoTool(), messageSchema, echo)
	reg := toolreg.NewRegistry()
	im, err := NewImporter(reg)
	if err != nil {
		t.Fatal(err)
	}
	cs, _ := u.link(t, im, "")
	if err := im.Import(context.Background(), cs); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		bad := fmt.Sprintf("bad_%d", i)
		u.add(&mcp.Tool{Name: bad}, `{"type":"object","properties":{"q":{"type":"string","pattern":"("}}}`, echo)
		// The change notification may refresh first, and report the
		// refusal itself: this refresh's error is not the point.
		im.Refresh(context.Background())
		im.mu.Lock()
		_, refused := im.refused[bad]
		im.mu.Unlock()
		if !refused {
			t.Fatalf("refresh %d: %s not refused", i, bad)
		}
		u.srv.RemoveTools(bad)
	}
	if _, err := im.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	im.mu.Lock()
	left := maps.Clone(im.refused)
	im.mu.Unlock()
	if len(left) != 0 {
		t.Errorf("refused names remembered after the server stopped listing them: %v", left)
	}
}
