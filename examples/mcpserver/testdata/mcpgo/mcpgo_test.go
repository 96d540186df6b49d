package mcpgo

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// server is the example server, built once from the root module.
var server string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcpgo")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	server = filepath.Join(dir, "mcpserver")
	build := exec.Command("go", "build", "-o", server, ".")
	build.Dir = filepath.Join("..", "..") // examples/mcpserver, in the root module
	build.Env = append(os.Environ(), "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const token = "mcpgo-interop-token"

// serveHTTP starts the server with -http on a free loopback port and a
// token, and returns its URL, read from the line it logs.
func serveHTTP(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(server, "-http", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "MCPSERVER_TOKEN="+token)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	urls := make(chan string, 1)
	go func() {
		url := regexp.MustCompile(`url=(http://\S+/mcp)`)
		lines := bufio.NewScanner(stderr)
		for lines.Scan() {
			if m := url.FindStringSubmatch(lines.Text()); m != nil {
				urls <- m[1]
			}
		}
	}()
	select {
	case u := <-urls:
		return u
	case <-time.After(30 * time.Second):
		t.Fatal("the server logged no URL in 30s")
		return ""
	}
}

// connect starts a client on the transport and initializes it at
// version ("" for the client's default).
func connect(t *testing.T, tr transport.Interface, version string) (*client.Client, *mcp.InitializeResult, error) {
	t.Helper()
	var opts []client.ClientOption
	if version != "" {
		opts = append(opts, client.WithProtocolVersion(version))
	}
	c := client.NewClient(tr, opts...)
	t.Cleanup(func() { c.Close() })
	// Start with a context that lives as long as the client: the stdio
	// transport ends its server when that context ends.
	if err := c.Start(context.Background()); err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var req mcp.InitializeRequest
	req.Params.ClientInfo = mcp.Implementation{Name: "mcp-go interop", Version: "0"}
	res, err := c.Initialize(ctx, req)
	return c, res, err
}

// transports opens a transport to the server each way it is served.
var transports = []struct {
	name string
	open func(*testing.T) transport.Interface
}{
	{"stdio", func(t *testing.T) transport.Interface { return transport.NewStdio(server, nil) }},
	{"http", func(t *testing.T) transport.Interface {
		tr, err := transport.NewStreamableHTTP(serveHTTP(t), transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}},
}

// TestClient: at its default revision and at 2025-11-25, over each
// transport, the client negotiates that revision, lists the tools and
// calls them: results, structured results, invalid arguments and an
// unknown tool. Over HTTP, 2026-07-28 opens no session; 2025-11-25 does.
func TestClient(t *testing.T) {
	for _, tr := range transports {
		for _, v := range []struct{ ask, want string }{
			{"", mcp.LATEST_PROTOCOL_VERSION},
			{"2025-11-25", "2025-11-25"},
		} {
			t.Run(tr.name+"/"+v.want, func(t *testing.T) {
				if v.want != "2026-07-28" && v.ask == "" {
					t.Fatalf("mcp-go's default revision is %s; this test expects 2026-07-28", v.want)
				}
				c, res, err := connect(t, tr.open(t), v.ask)
				if err != nil {
					t.Fatalf("initialize: %v", err)
				}
				if res.ProtocolVersion != v.want {
					t.Errorf("negotiated %q, want %q", res.ProtocolVersion, v.want)
				}
				if tr.name == "http" && (c.GetSessionId() != "") != (v.want < "2026-07-28") {
					t.Errorf("session id %q at %s: want one before 2026-07-28 only", c.GetSessionId(), v.want)
				}
				exercise(t, c)
			})
		}
	}
}

// exercise lists the tools and calls them.
func exercise(t *testing.T, c *client.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	if want := []string{"calculate", "convert_units", "list_units", "text.stats"}; !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
	for _, tc := range []struct {
		tool       string
		args       map[string]any
		text       string
		structured string // "" when the result has none
		isError    bool
	}{
		{"calculate", map[string]any{"operation": "multiply", "a": 6, "b": 7}, `{"expression":"6 * 7","value":42}`, `{"expression":"6 * 7","value":42}`, false},
		{"convert_units", map[string]any{"value": 451, "from": "F", "to": "C", "precision": 1}, "451 F = 232.8 C", "", false},
		{"list_units", map[string]any{"kind": "mass"}, `[{"symbol":"kg","name":"kilogram","kind":"mass"},{"symbol":"g","name":"gram","kind":"mass"},{"symbol":"lb","name":"pound","kind":"mass"},{"symbol":"oz","name":"ounce","kind":"mass"}]`,
			`{"result":[{"symbol":"kg","name":"kilogram","kind":"mass"},{"symbol":"g","name":"gram","kind":"mass"},{"symbol":"lb","name":"pound","kind":"mass"},{"symbol":"oz","name":"ounce","kind":"mass"}]}`, false},
		{"convert_units", map[string]any{"value": 3, "from": "lb", "to": "kg", "precision": 20},
			"invalid arguments for tool \"convert_units\":\n- precision: 20 is greater than the maximum 10\nFix the arguments and call the tool again.", "", true},
		{"calculate", map[string]any{"operation": "divide", "a": 1, "b": 0}, "", "", true},
	} {
		var req mcp.CallToolRequest
		req.Params.Name = tc.tool
		req.Params.Arguments = tc.args
		res, err := c.CallTool(ctx, req)
		if err != nil {
			t.Errorf("%s %v: %v", tc.tool, tc.args, err)
			continue
		}
		if res.IsError != tc.isError {
			t.Errorf("%s %v: isError %v, want %v", tc.tool, tc.args, res.IsError, tc.isError)
		}
		if len(res.Content) != 1 {
			t.Errorf("%s %v: %d content blocks, want 1", tc.tool, tc.args, len(res.Content))
			continue
		}
		text, ok := mcp.AsTextContent(res.Content[0])
		switch {
		case !ok:
			t.Errorf("%s %v: content %T, want text", tc.tool, tc.args, res.Content[0])
		case tc.text != "" && text.Text != tc.text:
			t.Errorf("%s %v: text %q, want %q", tc.tool, tc.args, text.Text, tc.text)
		case tc.text == "" && text.Text == "":
			t.Errorf("%s %v: an empty error text", tc.tool, tc.args)
		}
		// The client decodes structuredContent into a map, which keeps no
		// order of members: compare the values.
		var want any
		if tc.structured != "" {
			if err := json.Unmarshal([]byte(tc.structured), &want); err != nil {
				t.Fatal(err)
			}
		}
		if !reflect.DeepEqual(res.StructuredContent, want) {
			t.Errorf("%s %v: structuredContent %v, want %s", tc.tool, tc.args, res.StructuredContent, tc.structured)
		}
	}
	var req mcp.CallToolRequest
	req.Params.Name = "no_such_tool"
	if _, err := c.CallTool(ctx, req); err == nil || !strings.Contains(err.Error(), "no_such_tool") {
		t.Errorf("an unknown tool: %v, want a protocol error that names it", err)
	}
}

// TestHTTPWithoutToken: a client without the server's token cannot
// connect, at either revision.
func TestHTTPWithoutToken(t *testing.T) {
	url := serveHTTP(t)
	for _, v := range []string{"", "2025-11-25"} {
		tr, err := transport.NewStreamableHTTP(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer guess"}))
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = connect(t, tr, v)
		if !errors.Is(err, transport.ErrAuthorizationRequired) {
			t.Errorf("version %q without the token: %v, want refused (401)", v, err)
		}
	}
}
