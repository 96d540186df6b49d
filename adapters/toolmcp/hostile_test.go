package toolmcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolreg/toolreg"
)

// liar is an MCP server that answers tools/list as page says, whatever it
// lists otherwise: a server that pages forever, repeats a cursor or lists
// more tools than any server has.
type liar struct {
	*upstream
	pages atomic.Int64 // tools/list requests that reached it
	page  atomic.Pointer[func(cursor string) *mcp.ListToolsResult]
}

func newLiar(page func(cursor string) *mcp.ListToolsResult) *liar {
	l := &liar{upstream: newUpstream()}
	l.page.Store(&page)
	l.srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/list" {
				return next(ctx, method, req)
			}
			l.pages.Add(1)
			return (*l.page.Load())(req.(*mcp.ListToolsRequest).Params.Cursor), nil
		}
	})
	return l
}

// tools are n tools named prefix0, prefix1, ...
func tools(prefix string, n int) []*mcp.Tool {
	ts := make([]*mcp.Tool, n)
	for i := range ts {
		ts[i] = &mcp.Tool{Name: fmt.Sprintf("%s%d", prefix, i), Description: "A tool.", InputSchema: json.RawMessage(`{"type":"object"}`)}
	}
	return ts
}

// endless pages one tool a page, up to last pages (forever when last is 0).
func endless(last int) func(string) *mcp.ListToolsResult {
	return func(cursor string) *mcp.ListToolsResult {
		n := 0
		fmt.Sscan(cursor, &n)
		res := &mcp.ListToolsResult{Tools: tools(fmt.Sprintf("p%d_", n), 1)}
		if last == 0 || n+1 < last {
			res.NextCursor = fmt.Sprint(n + 1)
		}
		return res
	}
}

// TestImportBoundsListing: a server's listing is bounded in pages and
// tools and may not repeat a cursor; past a bound nothing is imported.
func TestImportBoundsListing(t *testing.T) {
	repeat := func(cursor string) *mcp.ListToolsResult {
		next := map[string]string{"": "a", "a": "b", "b": "a"}[cursor]
		return &mcp.ListToolsResult{Tools: tools("r"+cursor, 1), NextCursor: next}
	}
	many := func(n int) func(string) *mcp.ListToolsResult {
		return func(string) *mcp.ListToolsResult { return &mcp.ListToolsResult{Tools: tools("t", n)} }
	}
	for _, tc := range []struct {
		name      string
		page      func(string) *mcp.ListToolsResult
		opts      []ImportOption
		wantErr   string // "" for none
		wantPages int64
		wantTools int
	}{
		{"endless pages", endless(0), nil, "more than 100 pages, the bound of a listing; raise it with MaxListPages", 100, 0},
		{"endless pages, a lower bound", endless(0), []ImportOption{MaxListPages(3)}, "more than 3 pages", 3, 0},
		{"pages up to the bound", endless(100), nil, "", 100, 100},
		{"more pages, bound raised", endless(150), []ImportOption{MaxListPages(150)}, "", 150, 150},
		{"a repeated cursor", repeat, []ImportOption{MaxListPages(1000)}, "page 3 gave a cursor the server gave before", 3, 0},
		{"too many tools", many(1001), nil, "more than 1000 tools, the bound of a listing; raise it with MaxTools", 1, 0},
		{"too many tools, a lower bound", many(3), []ImportOption{MaxTools(2)}, "more than 2 tools", 1, 0},
		{"tools up to the bound", many(1000), nil, "", 1, 1000},
		{"tools ImportOnly leaves out count", many(5), []ImportOption{MaxTools(4), ImportOnly(func(t *mcp.Tool) bool { return t.Name == "t0" })}, "more than 4 tools", 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLiar(tc.page)
			reg := toolreg.NewRegistry()
			im, err := NewImporter(reg, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			cs, _ := l.link(t, im, "")
			err = im.Import(context.Background(), cs)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
			} else if !errors.Is(err, ErrListTooLong) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Import: %v, want ErrListTooLong with %q", err, tc.wantErr)
			}
			if got := l.pages.Load(); got != tc.wantPages {
				t.Errorf("pages requested: %d, want %d", got, tc.wantPages)
			}
			if reg.Len() != tc.wantTools || len(im.Names()) != tc.wantTools {
				t.Errorf("registered %d tools, imported %d; want %d", reg.Len(), len(im.Names()), tc.wantTools)
			}
		})
	}
}

// TestRefreshBoundsListing: a refresh past a bound leaves the import as it
// was, callable.
func TestRefreshBoundsListing(t *testing.T) {
	ctx := context.Background()
	l := newLiar(endless(2))
	l.add(echoTool(), messageSchema, echo)
	reg := toolreg.NewRegistry()
	got := make(changes, 16)
	im, err := NewImporter(reg, got.option())
	if err != nil {
		t.Fatal(err)
	}
	cs, _ := l.link(t, im, "")
	if err := im.Import(ctx, cs); err != nil {
		t.Fatal(err)
	}
	got.next(t)
	before := im.Names()
	forever := endless(0)
	l.page.Store(&forever)
	change, err := im.Refresh(ctx)
	if !errors.Is(err, ErrListTooLong) {
		t.Fatalf("Refresh: %v, want ErrListTooLong", err)
	}
	if diff := cmp.Diff(Change{}, change); diff != "" {
		t.Errorf("change (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before, im.Names()); diff != "" {
		t.Errorf("imported (-want +got):\n%s", diff)
	}
	if got := im.Unavailable(); got != nil {
		t.Errorf("withdrawn by a refused listing: %v", got)
	}
	if r := got.next(t); !strings.Contains(r.Err, "more than 100 pages") {
		t.Errorf("OnChange: %+v", r)
	}
}

func TestImportBoundOptionsRefused(t *testing.T) {
	reg := toolreg.NewRegistry()
	for _, tc := range []struct {
		opt  ImportOption
		want string
	}{
		{MaxListPages(0), "MaxListPages(0): the bound must be at least 1"},
		{MaxTools(-1), "MaxTools(-1): the bound must be at least 1"},
		{MaxResultText(999), "MaxResultText(999): the bound must be at least 1000 bytes"},
		{MaxResultMedia(0), "MaxResultMedia(0): the bound must be at least 1"},
	} {
		if _, err := NewImporter(reg, tc.opt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("err = %v, want %q", err, tc.want)
		}
	}
}

// TestImportBoundsResults: the text and the media of one result of an
// imported tool are bounded, and the model reads what was left out.
func TestImportBoundsResults(t *testing.T) {
	big := strings.Repeat("é", 60_000) // 120 kB, two bytes a character
	png := func(n int) *mcp.ImageContent {
		return &mcp.ImageContent{MIMEType: "image/png", Data: make([]byte, n)}
	}
	for _, tc := range []struct {
		name       string
		opts       []ImportOption
		result     *mcp.CallToolResult
		wantText   func(t *testing.T, text string)
		wantMedia  []int // sizes
		structured bool
	}{
		{
			name:   "text within the bound",
			result: text(strings.Repeat("a", DefaultMaxResultText)),
			wantText: func(t *testing.T, s string) {
				if s != strings.Repeat("a", DefaultMaxResultText) {
					t.Errorf("cut: %d bytes", len(s))
				}
			},
		},
		{
			name:     "text over the bound",
			result:   text("START" + big + "END"),
			wantText: wantCut("START", "END", 100_000, "[... 20.0 kB (20010 bytes) of this result left out here, of 120.0 kB in all"),
		},
		{
			name:     "text over a bound of the host's",
			opts:     []ImportOption{MaxResultText(1000)},
			result:   text("START" + big + "END"),
			wantText: wantCut("START", "END", 1000, "(119010 bytes) of this result left out here"),
		},
		{
			name:     "an error's text",
			opts:     []ImportOption{MaxResultText(1000)},
			result:   &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "START" + big + "END"}}},
			wantText: wantCut("START", "END", 1000, "(119010 bytes) of this result left out here"),
		},
		{
			name:     "text resources count",
			opts:     []ImportOption{MaxResultText(1000)},
			result:   &mcp.CallToolResult{Content: []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///a", Text: big}}}},
			wantText: wantCut("[resource <file:///a>]", "é", 1000, "left out here"),
		},
		{
			name:   "structuredContent over the bound is dropped",
			opts:   []ImportOption{MaxResultText(1000)},
			result: &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a summary"}}, StructuredContent: map[string]any{"s": big}},
			wantText: func(t *testing.T, s string) {
				if s != "a summary" {
					t.Errorf("text %q", s)
				}
			},
		},
		{
			name:     "structuredContent alone, over the bound, is cut as text",
			opts:     []ImportOption{MaxResultText(1000)},
			result:   &mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: map[string]any{"s": big}},
			wantText: wantCut(`{"s":"é`, `é"}`, 1000, "left out here"),
		},
		{
			name:       "structuredContent within the bound",
			result:     &mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: map[string]any{"n": 1}},
			wantText:   func(t *testing.T, s string) {},
			structured: true,
		},
		{
			name:   "media past the bound",
			opts:   []ImportOption{MaxResultMedia(1000)},
			result: &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "charts:"}, png(600), png(500), png(400), png(2000)}},
			wantText: func(t *testing.T, s string) {
				want := "charts:\n" +
					"[an image (image/png, 500 bytes) was left out: this result already carries 600 bytes of media, and may carry up to 1.0 kB]\n" +
					"[an image (image/png, 2.0 kB) was left out: this result already carries 1.0 kB of media, and may carry up to 1.0 kB]"
				if diff := cmp.Diff(want, s); diff != "" {
					t.Errorf("text (-want +got):\n%s", diff)
				}
			},
			wantMedia: []int{600, 400},
		},
		{
			name:   "media past the default bound",
			result: &mcp.CallToolResult{Content: []mcp.Content{png(DefaultMaxResultMedia + 1)}},
			wantText: func(t *testing.T, s string) {
				if want := "[an image (image/png, 10.0 MB) was left out: this result may carry up to 10.0 MB of media]"; s != want {
					t.Errorf("text %q, want %q", s, want)
				}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := newUpstream()
			u.add(&mcp.Tool{Name: "flood"}, `{"type":"object"}`, func(context.Context, json.RawMessage) (*mcp.CallToolResult, error) {
				return tc.result, nil
			})
			reg := toolreg.NewRegistry()
			u.importInto(t, reg, tc.opts...)
			out := reg.Call(context.Background(), "flood", nil)
			if out.IsError != tc.result.IsError {
				t.Fatalf("IsError %v: %s", out.IsError, out.Text)
			}
			tc.wantText(t, out.Text)
			var sizes []int
			for _, m := range out.Media {
				sizes = append(sizes, len(m.Data))
			}
			if diff := cmp.Diff(tc.wantMedia, sizes); diff != "" {
				t.Errorf("media sizes (-want +got):\n%s", diff)
			}
			if got := out.Structured != nil; got != tc.structured {
				t.Errorf("structured: %s", out.Structured)
			}
		})
	}
}

// wantCut checks a text cut to limit: its start and end kept, valid UTF-8,
// the note in the middle.
func wantCut(start, end string, limit int, note string) func(*testing.T, string) {
	return func(t *testing.T, s string) {
		t.Helper()
		if !strings.HasPrefix(s, start) || !strings.HasSuffix(s, end) || !strings.Contains(s, note) || !utf8.ValidString(s) {
			i := strings.Index(s, "\n[")
			t.Errorf("cut text %.40q...%.400q, want it to start %q, end %q and hold %q", s, s[max(0, i):], start, end, note)
		}
		if len(s) > limit+400 {
			t.Errorf("cut text has %d bytes, over %d and its note", len(s), limit)
		}
	}
}

// TestImportResultOverFrame: a result larger than the client transport
// reads in one message (the go-sdk's MaxLineLength, 16 MiB by default)
// ends the session at the transport, before any bound of the Importer
// applies; the call fails as a disconnection, and the tools are withdrawn
// until the host imports a new session.
func TestImportResultOverFrame(t *testing.T) {
	const frame = 64 << 10
	u := newUpstream()
	u.add(&mcp.Tool{Name: "flood"}, `{"type":"object"}`, func(context.Context, json.RawMessage) (*mcp.CallToolResult, error) {
		return text(strings.Repeat("x", 2*frame)), nil
	})
	reg := toolreg.NewRegistry()
	im, err := NewImporter(reg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	server, client := net.Pipe()
	ss, err := u.srv.Connect(ctx, &mcp.IOTransport{Reader: server, Writer: server}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "importer"}, nil).Connect(ctx,
		&mcp.IOTransport{Reader: client, Writer: client, MaxLineLength: frame}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if err := im.Import(ctx, cs); err != nil {
		t.Fatal(err)
	}
	out := reg.Call(ctx, "flood", nil)
	if !out.IsError || !errors.Is(out.Err, ErrDisconnected) {
		t.Errorf("a result over the frame: %+v", out)
	}
	eventually(t, "the tool withdrawn", func() bool { return slices.Equal(im.Unavailable(), []string{"flood"}) })
}

// rawPeer is an MCP server written as raw JSON-RPC over a pipe, free to
// send what no SDK server would: here, notifications/tools/list_changed
// in a flood.
type rawPeer struct {
	conn  net.Conn
	mu    sync.Mutex // one message at a time on the pipe
	lists atomic.Int64
}

func (p *rawPeer) send(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.conn.Write([]byte(msg + "\n"))
}

// serve answers initialize and tools/list until the pipe closes.
func (p *rawPeer) serve() {
	dec := json.NewDecoder(p.conn)
	for {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if dec.Decode(&req) != nil {
			return
		}
		switch req.Method {
		case "initialize":
			p.send(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"protocolVersion":"` + req.Params.ProtocolVersion +
				`","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"raw","version":"0"}}}`)
		case "tools/list":
			// A listing takes a while, as over a network: notifications
			// that come meanwhile should wait for one refresh after it.
			p.lists.Add(1)
			go func() {
				time.Sleep(20 * time.Millisecond)
				p.send(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}}`)
			}()
		default:
			if req.ID != nil {
				p.send(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{}}`)
			}
		}
	}
}

// TestImportListChangedFlood: a flood of notifications/tools/list_changed
// costs a few listings, not one each.
func TestImportListChangedFlood(t *testing.T) {
	const flood = 1000
	ctx := context.Background()
	server, client := net.Pipe()
	p := &rawPeer{conn: server}
	go p.serve()
	t.Cleanup(func() { server.Close() })
	reg := toolreg.NewRegistry()
	im, err := NewImporter(reg)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "importer"}, &mcp.ClientOptions{ToolListChangedHandler: im.ToolListChanged}).
		Connect(ctx, &mcp.IOTransport{Reader: client, Writer: client}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if err := im.Import(ctx, cs); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for range flood {
		p.send(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
	}
	// The last notification is followed by a refresh that sees it; wait
	// for the refreshes to end.
	eventually(t, "the refreshes ending", func() bool {
		im.nmu.Lock()
		defer im.nmu.Unlock()
		return p.lists.Load() >= 2 && !im.refreshing
	})
	// One listing at a time, each 20 ms, and one after the last
	// notification; without the coalescing, one each, 20 s in all.
	bound := int64(time.Since(start)/(20*time.Millisecond)) + 2
	if got := p.lists.Load(); got > bound || got > flood/10 {
		t.Errorf("%d notifications cost %d listings, want at most %d", flood, got, min(bound, flood/10))
	}
	t.Logf("%d notifications cost %d listings", flood, p.lists.Load())
}

// TestImportBoundsServerText: what else of a server's reaches the model,
// its name and the message of a JSON-RPC error, is bounded too.
func TestImportBoundsServerText(t *testing.T) {
	u := &upstream{srv: mcp.NewServer(&mcp.Implementation{Name: strings.Repeat("ñ", 5000), Version: "v1"}, nil)}
	u.srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: strings.Repeat("no ", 100_000)}
			}
			return next(ctx, method, req)
		}
	})
	u.add(echoTool(), messageSchema, echo)
	reg := toolreg.NewRegistry()
	u.importInto(t, reg, MaxResultText(1000))
	out := reg.Call(context.Background(), "echo", json.RawMessage(`{"message":"hi"}`))
	wantPrefix := `the MCP server "` + strings.Repeat("ñ", 50) + `..." refused the call of tool "echo": no no `
	if !out.IsError || !strings.HasPrefix(out.Text, wantPrefix) || !strings.Contains(out.Text, "left out here") || len(out.Text) > 1600 {
		t.Errorf("the call refused: %d bytes: %.300q", len(out.Text), out.Text)
	}
}

// TestImportBoundsServerErrors: the message of a server's JSON-RPC error
// (10 MB, control characters, lines that pass for a stack trace) reaches
// the host's Err, the model's text and the error of a listing bounded and
// on one line; the host still matches the error's code.
func TestImportBoundsServerErrors(t *testing.T) {
	lie := "\x1b[31mpanic: runtime error\n\ngoroutine 1 [running]:\nmain.main()\n\t/src/main.go:12 +0x1d\u2028\u202e" + strings.Repeat("x", 10<<20)
	var failList atomic.Bool
	u := newUpstream()
	u.srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" || method == "tools/list" && failList.Load() {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: lie, Data: json.RawMessage(`"` + strings.Repeat("d", 1<<20) + `"`)}
			}
			return next(ctx, method, req)
		}
	})
	u.add(echoTool(), messageSchema, echo)
	reg := toolreg.NewRegistry()
	im := u.importInto(t, reg)
	clean := func(t *testing.T, what, s string) {
		t.Helper()
		if len(s) > 1300 || strings.ContainsAny(s, "\n\t\x1b\u2028\u202e") || !strings.Contains(s, "panic: runtime error  goroutine 1 [running]: main.main()") || !strings.Contains(s, "more bytes left out") {
			t.Errorf("%s: %d bytes: %.400q", what, len(s), s)
		}
	}

	out := reg.Call(context.Background(), "echo", json.RawMessage(`{"message":"hi"}`))
	if !out.IsError || out.Err == nil {
		t.Fatalf("the call succeeded: %+v", out)
	}
	clean(t, "model text", out.Text)
	clean(t, "host Err", out.Err.Error())
	var rpc *jsonrpc.Error
	if !errors.Is(out.Err, &jsonrpc.Error{Code: jsonrpc.CodeInternalError}) || !errors.As(out.Err, &rpc) {
		t.Fatalf("Err %T does not match the server's code", out.Err)
	}
	clean(t, "the JSON-RPC error's message", rpc.Message)
	if rpc.Data != nil {
		t.Errorf("the JSON-RPC error keeps %d bytes of data", len(rpc.Data))
	}
	for e := out.Err; e != nil; e = errors.Unwrap(e) {
		clean(t, fmt.Sprintf("%T in Err's chain", e), e.Error())
	}

	failList.Store(true)
	_, err := im.Refresh(context.Background())
	if err == nil {
		t.Fatal("a refresh whose listing failed succeeded")
	}
	clean(t, "Refresh's error", err.Error())
	if !errors.Is(err, &jsonrpc.Error{Code: jsonrpc.CodeInternalError}) {
		t.Errorf("Refresh's error %v does not match the server's code", err)
	}
}

func TestPeerText(t *testing.T) {
	for _, tc := range []struct {
		in    string
		limit int
		want  string
	}{
		{"plain", 10, "plain"},
		{"a\nb\r\tc\x00d\x7fe\u0085f", 100, "a b  c d e f"},
		{"bidi \u202eevil\u2066 \u2028line", 100, "bidi  evil   line"},
		{"bad \xff\xfe utf-8", 100, "bad \ufffd\ufffd utf-8"},
		{"ñññ", 3, "ñ... (4 more bytes left out)"},
		{strings.Repeat("a", 20), 5, "aaaaa... (15 more bytes left out)"},
	} {
		if got := peerText(tc.in, tc.limit); got != tc.want {
			t.Errorf("peerText(%q, %d) = %q, want %q", tc.in, tc.limit, got, tc.want)
		}
	}
}

// TestImportListingLies: names a server lists again on later pages are
// imported once and reported in one error, however often they repeat; a
// listing of 100,000 tools in one page stops at the bound.
func TestImportListingLies(t *testing.T) {
	repeats := func(cursor string) *mcp.ListToolsResult {
		n := 0
		fmt.Sscan(cursor, &n)
		res := &mcp.ListToolsResult{Tools: tools("same", 10)} // every page lists the same 10 names
		if n+1 < 50 {
			res.NextCursor = fmt.Sprint(n + 1)
		}
		return res
	}
	l := newLiar(repeats)
	reg := toolreg.NewRegistry()
	im, err := NewImporter(reg)
	if err != nil {
		t.Fatal(err)
	}
	cs, _ := l.link(t, im, "")
	err = im.Import(context.Background(), cs)
	want := `lists "same0", "same1", "same2", "same3", "same4" and others more than once; the first tool listed under each name is the one imported`
	if err == nil || !strings.Contains(err.Error(), want) || strings.Count(err.Error(), "\n") > 0 {
		t.Errorf("Import: %v, want one error with %q", err, want)
	}
	if reg.Len() != 10 {
		t.Errorf("imported %d tools, want the 10 names once each", reg.Len())
	}

	l = newLiar(func(string) *mcp.ListToolsResult { return &mcp.ListToolsResult{Tools: tools("t", 100_000)} })
	reg = toolreg.NewRegistry()
	if im, err = NewImporter(reg); err != nil {
		t.Fatal(err)
	}
	cs, _ = l.link(t, im, "")
	if err := im.Import(context.Background(), cs); !errors.Is(err, ErrListTooLong) || !strings.Contains(err.Error(), "more than 1000 tools") {
		t.Errorf("Import of 100,000 tools: %v, want ErrListTooLong", err)
	}
	if reg.Len() != 0 {
		t.Errorf("imported %d tools of a listing over the bound", reg.Len())
	}
}
