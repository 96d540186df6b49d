package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolreg/toolreg/examples/mcpserver/tools"
	"github.com/toolreg/toolreg/internal/nodetest"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// call makes one call and returns its text and isError.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res.Content[0].(*mcp.TextContent).Text, res.IsError
}

// exercise lists the tools and calls each, through any transport.
func exercise(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	if diff := cmp.Diff([]string{"calculate", "convert_units", "list_units", "text.stats"}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		tool    string
		args    map[string]any
		text    string
		isError bool
	}{
		{"calculate", map[string]any{"operation": "multiply", "a": 6, "b": 7}, `{"expression":"6 * 7","value":42}`, false},
		{"calculate", map[string]any{"operation": "power", "a": -8, "b": 0.5}, "-8 ^ 0.5 has no finite result (too large, or a fractional power of a negative number)", true},
		{"convert_units", map[string]any{"value": 451, "from": "F", "to": "C", "precision": 1}, "451 F = 232.8 C", false},
		{"convert_units", map[string]any{"value": 0, "from": "K", "to": "F"}, "0 K = -459.6700 F", false},
		{"convert_units", map[string]any{"value": 3, "from": "lb", "to": "ft"}, "cannot convert lb (mass) to ft (length); pick two units of the same kind: length m, km, cm, mi, ft, in; mass kg, g, lb, oz; temperature K, C, F", true},
		{"convert_units", map[string]any{"value": 3, "from": "lb", "to": "kg", "precision": 20}, "invalid arguments for tool \"convert_units\":\n- precision: 20 is greater than the maximum 10\nFix the arguments and call the tool again.", true},
		{"list_units", map[string]any{"kind": "temperature"}, `[{"symbol":"K","name":"kelvin","kind":"temperature"},{"symbol":"C","name":"degree Celsius","kind":"temperature"},{"symbol":"F","name":"degree Fahrenheit","kind":"temperature"}]`, false},
		{"text.stats", map[string]any{"text": "One. Two, two! Three three three?", "top": 1}, `{"characters":33,"words":6,"lines":1,"sentences":3,"reading_seconds":2,"top_words":[{"word":"three","count":3}]}`, false},
	} {
		text, isError := call(t, cs, tc.tool, tc.args)
		if text != tc.text || isError != tc.isError {
			t.Errorf("%s %v = %q (isError %v), want %q (isError %v)", tc.tool, tc.args, text, isError, tc.text, tc.isError)
		}
	}
}

// inMemory serves the example's server, logging to logger, to a client
// over in-memory transports.
func inMemory(t *testing.T, logger *slog.Logger) *mcp.ClientSession {
	t.Helper()
	server, err := tools.NewServer(logger)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestInMemory(t *testing.T) {
	exercise(t, inMemory(t, quiet()))
}

// TestLogHoldsNoArguments: the server logs each call, failed ones with
// what failed, and never a value the model sent, though the text of an
// invalid-arguments error quotes it.
func TestLogHoldsNoArguments(t *testing.T) {
	const secret = "sk-live-7f3a9c1e5b"
	var log bytes.Buffer
	cs := inMemory(t, slog.New(slog.NewTextHandler(&log, nil)))
	for _, tc := range []struct {
		tool    string
		args    map[string]any
		isError bool
		logged  []string // in the log line of the call
	}{
		{"convert_units", map[string]any{"value": 1, "from": secret, "to": "m"}, true,
			[]string{"level=WARN", "tool=convert_units", `error="invalid arguments"`, "fields=[from]"}},
		{"text.stats", map[string]any{"text": "my token is " + secret}, false,
			[]string{"level=INFO", "tool=text_stats"}},
		{"calculate", map[string]any{"operation": "divide", "a": 1, "b": 0}, true,
			[]string{"level=WARN", "tool=calculate", `error="tool failed"`}},
	} {
		log.Reset()
		if text, isError := call(t, cs, tc.tool, tc.args); isError != tc.isError {
			t.Fatalf("%s: %q, isError %v", tc.tool, text, isError)
		}
		if strings.Contains(log.String(), secret) {
			t.Errorf("%s: the log holds an argument value:\n%s", tc.tool, log.String())
		}
		for _, s := range tc.logged {
			if !strings.Contains(log.String(), s) {
				t.Errorf("%s: the log lacks %s:\n%s", tc.tool, s, log.String())
			}
		}
	}
}

// bearer adds a bearer token to every request, as a client configured
// with the server's token does.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// TestStreamableHTTP serves the -http handler with a token and connects
// over HTTP, in both revisions a client may speak, each served in the
// revision it asked for: with the token, and without it, which fails.
func TestStreamableHTTP(t *testing.T) {
	const token = "test-token"
	server, err := tools.NewServer(quiet())
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(handler(server, token))
	defer hs.Close()
	connect := func(v string, client *http.Client) (*mcp.ClientSession, error) {
		return mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp", HTTPClient: client, MaxRetries: -1},
			&mcp.ClientSessionOptions{ProtocolVersion: v})
	}
	for _, v := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(v, func(t *testing.T) {
			cs, err := connect(v, &http.Client{Transport: bearer(token)})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if got := cs.InitializeResult().ProtocolVersion; got != v {
				t.Errorf("negotiated %q, want %q", got, v)
			}
			exercise(t, cs)
			if cs, err := connect(v, http.DefaultClient); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
				if err == nil {
					cs.Close()
				}
				t.Errorf("a client without the token: %v, want it refused (401)", err)
			}
		})
	}
}

// TestHandlerWithoutTokenServesLocalClients: without a token, the
// handler itself refuses a client beyond the machine, should it be served
// on an address others reach some other way than serveHTTP.
func TestHandlerWithoutTokenServesLocalClients(t *testing.T) {
	server, err := tools.NewServer(quiet())
	if err != nil {
		t.Fatal(err)
	}
	h := handler(server, "")
	for _, tc := range []struct {
		remote string
		want   int
	}{
		{"127.0.0.1:40000", http.StatusOK},
		{"[::1]:40000", http.StatusOK},
		{"192.0.2.10:40000", http.StatusForbidden},
	} {
		r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`))
		r.RemoteAddr = tc.remote
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != tc.want {
			t.Errorf("initialize from %s: %d, want %d: %s", tc.remote, w.Code, tc.want, w.Body)
		}
	}
}

// TestServeHTTPNeedsATokenBeyondLoopback: -http on an address other
// machines reach is refused without a token.
func TestServeHTTPNeedsATokenBeyondLoopback(t *testing.T) {
	server, err := tools.NewServer(quiet())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		addr, token string
		refused     bool
	}{
		{"127.0.0.1:0", "", false},
		{"[::1]:0", "", false},
		{"0.0.0.0:0", "", true},
		{":0", "", true},
		{"0.0.0.0:0", "test-token", false},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // serve nothing: stop as soon as the server starts
		err := serveHTTP(ctx, server, tc.addr, tc.token, quiet())
		if tc.refused != errors.Is(err, errNoToken) || (!tc.refused && err != nil) {
			if strings.Contains(fmt.Sprint(err), "cannot assign requested address") {
				continue // no IPv6 loopback here
			}
			t.Errorf("serveHTTP(%q, token %q) = %v, want refused %v", tc.addr, tc.token, err, tc.refused)
		}
	}
}

// TestNodeClient runs the independent client of testdata/node (the official
// TypeScript SDK and Ajv) against the built server over stdio. It needs
// node and the packages of its lockfile (npm ci in testdata/node); it skips
// without them, unless TOOLREG_REQUIRE_NODE is set, as .ci/run does.
func TestNodeClient(t *testing.T) {
	dir := filepath.Join("testdata", "node")
	node := nodetest.Node(t, dir, "@modelcontextprotocol/sdk")
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH to build the server")
	}
	bin := filepath.Join(t.TempDir(), "mcpserver")
	if out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(node, "check.mjs", bin)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node check.mjs: %v\n%s", err, out)
	}
	t.Log(strings.TrimSpace(string(out)))
}
