package toolmcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolmcp"
)

type WeatherArgs struct {
	City string `json:"city" jsonschema:"description=City name"`
	Days int    `json:"days,omitempty" jsonschema:"minimum=1,maximum=7,default=1"`
}

type Forecast struct {
	City        string  `json:"city"`
	Days        int     `json:"days"`
	HighCelsius float64 `json:"high_celsius"`
}

var getWeather = toolreg.MustNew("get_weather", "Forecast for a city. Use it for weather questions only.",
	func(_ context.Context, a WeatherArgs) (Forecast, error) {
		return Forecast{City: a.City, Days: a.Days, HighCelsius: 18.5}, nil
	}, toolreg.WithTitle("Weather forecast"))

// Serve a registry over MCP: one call adds its tools to an SDK server, with
// annotations; run the server on any SDK transport (stdio, streamable
// HTTP). Here a client connects in memory.
func ExampleAddTools() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)

	server := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "v1.0.0"}, nil)
	if _, err := toolmcp.AddTools(server, reg,
		toolmcp.Annotate("get_weather", toolmcp.ReadOnly(true), toolmcp.OpenWorld(true)),
		toolmcp.Rename("get_weather", "weather.get"), // MCP allows dots; toolreg.ValidName does not
	); err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1.0.0"}, nil)
	session, err := client.Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()

	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range tools.Tools {
		fmt.Println(t.Name, "-", t.Title, "- read-only:", t.Annotations.ReadOnlyHint)
	}
	for _, args := range []map[string]any{{"city": "Paris"}, {"city": "Rome", "days": 9}} {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "weather.get", Arguments: args})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("isError=%v structured=%v\n%s\n", res.IsError, res.StructuredContent, res.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// weather.get - Weather forecast - read-only: true
	// isError=false structured=map[city:Paris days:1 high_celsius:18.5]
	// {"city":"Paris","days":1,"high_celsius":18.5}
	// isError=true structured=<nil>
	// invalid arguments for tool "get_weather":
	// - days: 9 is greater than the maximum 7
	// Fix the arguments and call the tool again.
}

// Import the tools of an MCP server into a registry, beside Go tools, to
// offer them all to any provider's model. Here the server is in memory;
// any go-sdk transport works (mcp.CommandTransport starts a server such as
// "npx -y @modelcontextprotocol/server-everything"). The importer follows
// the server's notifications/tools/list_changed, as ToolListChanged is the
// client's handler.
func ExampleImporter() {
	ctx := context.Background()
	files := filesServer()

	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	importer, err := toolmcp.NewImporter(reg, toolmcp.Prefix("files__"))
	if err != nil {
		log.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	if _, err := files.Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "v1.0.0"},
		&mcp.ClientOptions{ToolListChangedHandler: importer.ToolListChanged})
	session, err := client.Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	if err := importer.Import(ctx, session); err != nil {
		log.Fatal(err) // says which tools could not be imported, and why
	}

	for _, t := range reg.Tools() {
		fmt.Println(t.Name())
	}
	for _, args := range []string{`{"path":"notes.txt"}`, `{"file":"notes.txt"}`} {
		out := reg.Call(ctx, "files__read_text", json.RawMessage(args))
		fmt.Printf("isError=%v\n%s\n", out.IsError, out.Text)
	}
	// Output:
	// get_weather
	// files__delete_file
	// files__read_text
	// isError=false
	// contents of notes.txt
	// isError=true
	// invalid arguments for tool "files__read_text":
	// - path: required field is missing
	// Fix the arguments and call the tool again.
}

// filesServer is an MCP server of two tools, "read.text" and
// "delete.file", each taking a path.
func filesServer() *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "v1.0.0"}, nil)
	for _, name := range []string{"read.text", "delete.file"} {
		server.AddTool(&mcp.Tool{
			Name:        name,
			Description: "The " + name + " tool of the workspace.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: name == "read.text"},
		}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct{ Path string }
			json.Unmarshal(req.Params.Arguments, &args)
			text := "contents of " + args.Path
			if name == "delete.file" {
				text = "deleted " + args.Path
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		})
	}
	return server
}

// importFrom connects to server in memory, as ExampleImporter does, and
// imports its tools with im, which follows the server's changes.
func importFrom(server *mcp.Server, im *toolmcp.Importer) (*mcp.ClientSession, error) {
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, st, nil); err != nil {
		return nil, err
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "v1.0.0"},
		&mcp.ClientOptions{ToolListChangedHandler: im.ToolListChanged})
	session, err := client.Connect(ctx, ct, nil)
	if err != nil {
		return nil, err
	}
	return session, im.Import(ctx, session)
}

// follow imports the tools of server into a new registry, with an
// importer that follows the server's changes, and returns the registry,
// the importer, the session and a channel of the changes after the
// import, for the examples to wait for a refresh the server asked for.
func follow(server *mcp.Server) (*toolreg.Registry, *toolmcp.Importer, *mcp.ClientSession, chan toolmcp.Change) {
	changed := make(chan toolmcp.Change, 10)
	reg := toolreg.NewRegistry()
	im, err := toolmcp.NewImporter(reg, toolmcp.OnChange(func(c toolmcp.Change, _ error) { changed <- c }))
	if err != nil {
		log.Fatal(err)
	}
	session, err := importFrom(server, im)
	if err != nil {
		log.Fatal(err)
	}
	<-changed // the import's
	return reg, im, session, changed
}

// NewImporter checks its options: a prefix or a name that toolreg would
// refuse is an error at once, not at import.
func ExampleNewImporter() {
	_, err := toolmcp.NewImporter(toolreg.NewRegistry(), toolmcp.Prefix("files."))
	fmt.Println(errors.Is(err, toolreg.ErrInvalidName))
	fmt.Println(err)
	// Output:
	// true
	// mcp: invalid tool name: Prefix("files."): a prefix starts with a letter or '_' and holds only letters, digits, '_' and '-', 32 characters at most
}

// Import adds what it can: a tool whose name is taken is left out, with an
// error naming it, and the others are imported.
func ExampleImporter_Import() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("read_text", "Reads a text of the host's own.", func(context.Context, struct{}) (string, error) {
		return "", nil
	}))
	im, _ := toolmcp.NewImporter(reg)
	session, err := importFrom(filesServer(), im)
	fmt.Println(errors.Is(err, toolreg.ErrDuplicateTool))
	fmt.Println(err)
	fmt.Println(reg.Call(context.Background(), "delete_file", json.RawMessage(`{"path":"old.txt"}`)).Text)
	session.Close()
	// Output:
	// true
	// mcp: tool "read.text" of the MCP server "files" not imported: duplicate tool: its name would be "read_text", which the registry's tool "read_text" already has; import it under another name with ImportAs or Prefix
	// deleted old.txt
}

// Names maps each MCP name to the registry name it was imported under.
func ExampleImporter_Names() {
	im, _ := toolmcp.NewImporter(toolreg.NewRegistry())
	session, err := importFrom(filesServer(), im)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	names := im.Names()
	for _, mcpName := range slices.Sorted(func(yield func(string) bool) {
		for k := range names {
			if !yield(k) {
				return
			}
		}
	}) {
		fmt.Println(mcpName, "->", names[mcpName])
	}
	// Output:
	// delete.file -> delete_file
	// read.text -> read_text
}

// Refresh brings the import in step with a server that does not say when
// its tools change.
func ExampleImporter_Refresh() {
	ctx := context.Background()
	server := filesServer()
	reg := toolreg.NewRegistry()
	im, _ := toolmcp.NewImporter(reg)
	st, ct := mcp.NewInMemoryTransports()
	server.Connect(ctx, st, nil)
	session, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "v1.0.0"}, nil).Connect(ctx, ct, nil) // no ToolListChangedHandler
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	if err := im.Import(ctx, session); err != nil {
		log.Fatal(err)
	}

	server.RemoveTools("delete.file")
	change, err := im.Refresh(ctx)
	fmt.Printf("%+v %v\n", change, err)
	// Output:
	// {Added:[] Removed:[delete_file] Restored:[]} <nil>
}

// Set ToolListChanged as the client's handler, and the import follows the
// server: a tool the server adds is in the registry once the refresh it
// asked for is done.
func ExampleImporter_ToolListChanged() {
	server := filesServer()
	reg, _, session, changed := follow(server) // its client's ToolListChangedHandler is the importer's ToolListChanged
	defer session.Close()

	server.AddTool(&mcp.Tool{Name: "list.dir", Description: "Lists a folder.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a.txt b.txt"}}}, nil
		})
	fmt.Printf("%+v\n", <-changed) // the refresh of notifications/tools/list_changed
	fmt.Println(reg.Call(context.Background(), "list_dir", nil).Text)
	// Output:
	// {Added:[list_dir] Removed:[] Restored:[]}
	// a.txt b.txt
}

// A tool the server withdraws stays in the registry, unavailable: its
// calls fail with ErrNotOffered, and a run hides it from the model.
func ExampleImporter_Unavailable() {
	server := filesServer()
	reg, im, session, changed := follow(server)
	defer session.Close()

	server.RemoveTools("delete.file")
	<-changed
	fmt.Println(im.Unavailable())
	out := reg.Call(context.Background(), "delete_file", json.RawMessage(`{"path":"a.txt"}`))
	fmt.Println(errors.Is(out.Err, toolmcp.ErrNotOffered), out.Text)
	// In a run: agent.Options{PrepareStep: func(_ context.Context, s *agent.Step) error { return s.Hide(im.Unavailable()...) }}

	// Output:
	// [delete_file]
	// true tool "delete_file" is no longer offered by the MCP server "files"; do not call it again
}

// importNames imports the tools of filesServer into a new registry with
// opts, and lists the registry's names.
func importNames(opts ...toolmcp.ImportOption) []string {
	reg := toolreg.NewRegistry()
	im, err := toolmcp.NewImporter(reg, opts...)
	if err != nil {
		log.Fatal(err)
	}
	session, err := importFrom(filesServer(), im)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	var names []string
	for _, t := range reg.Tools() {
		names = append(names, t.Name())
	}
	return names
}

// Prefix tells the tools of several servers apart in one registry.
func ExamplePrefix() {
	fmt.Println(importNames(toolmcp.Prefix("ws1__")))
	// Output:
	// [ws1__delete_file ws1__read_text]
}

// ImportAs chooses a tool's registry name; the prefix does not apply.
func ExampleImportAs() {
	fmt.Println(importNames(toolmcp.Prefix("ws1__"), toolmcp.ImportAs("read.text", "cat")))
	// Output:
	// [ws1__delete_file cat]
}

// ImportOnly leaves out the tools a model should never call: here every
// tool not annotated read-only.
func ExampleImportOnly() {
	fmt.Println(importNames(toolmcp.ImportOnly(func(t *mcp.Tool) bool {
		return t.Annotations != nil && t.Annotations.ReadOnlyHint
	})))
	// Output:
	// [read_text]
}

// MaxTools bounds the tools one listing may hold: a listing over it
// imports nothing, and says which bound to raise.
func ExampleMaxTools() {
	reg := toolreg.NewRegistry()
	im, _ := toolmcp.NewImporter(reg, toolmcp.MaxTools(1))
	session, err := importFrom(filesServer(), im) // it lists two
	defer session.Close()
	fmt.Println(errors.Is(err, toolmcp.ErrListTooLong), reg.Len())
	fmt.Println(err)
	// Output:
	// true 0
	// mcp: listing the tools of the MCP server "files": MCP server's tool list too long: more than 1 tools, the bound of a listing; raise it with MaxTools
}

// MaxResultText bounds the text of a result the model reads: a longer one
// keeps its start and its end, and says what was left out.
func ExampleMaxResultText() {
	server := mcp.NewServer(&mcp.Implementation{Name: "logs", Version: "v1.0.0"}, nil)
	server.AddTool(&mcp.Tool{Name: "tail", Description: "The server's log.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			out := "started\n" + strings.Repeat("a line of the log\n", 10_000) + "stopped: out of disk"
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: out}}}, nil
		})
	reg := toolreg.NewRegistry()
	im, _ := toolmcp.NewImporter(reg, toolmcp.MaxResultText(2000))
	session, err := importFrom(server, im)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	text := reg.Call(context.Background(), "tail", nil).Text
	lines := strings.Split(text, "\n")
	fmt.Println(len(text) < 2400)
	fmt.Println(lines[0])
	for _, l := range lines {
		if strings.HasPrefix(l, "[...") {
			fmt.Println(l)
		}
	}
	fmt.Println(lines[len(lines)-1])
	// Output:
	// true
	// started
	// [... 178.1 kB (178056 bytes) of this result left out here, of 180.0 kB in all: only its start and its end are shown. If you need what is missing, call the tool again asking for less, such as a narrower query or one page of the result. ...]
	// stopped: out of disk
}

// ToolOptions declares imported tools with options of the host's: here
// a timeout for each, and approval for those that may change something.
func ExampleToolOptions() {
	reg := toolreg.NewRegistry()
	im, _ := toolmcp.NewImporter(reg, toolmcp.ToolOptions(func(t *mcp.Tool) []toolreg.Option {
		opts := []toolreg.Option{toolreg.WithTimeout(30 * time.Second)}
		if t.Annotations == nil || !t.Annotations.ReadOnlyHint {
			opts = append(opts, toolreg.WithApproval())
		}
		return opts
	}))
	session, err := importFrom(filesServer(), im)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	for _, t := range reg.Tools() {
		fmt.Println(t.Name(), "needs approval:", reg.NeedsApproval(context.Background(), toolreg.ToolCall{Name: t.Name()}))
	}
	// Output:
	// delete_file needs approval: true
	// read_text needs approval: false
}

// OnChange reports what each import and refresh changed, for a log.
func ExampleOnChange() {
	reg := toolreg.NewRegistry()
	ended := make(chan bool)
	im, _ := toolmcp.NewImporter(reg, toolmcp.OnChange(func(c toolmcp.Change, err error) {
		fmt.Printf("added %v, removed %v, restored %v\n", c.Added, c.Removed, c.Restored)
		if errors.Is(err, toolmcp.ErrDisconnected) {
			fmt.Println(err)
			close(ended)
		}
	}))
	session, err := importFrom(filesServer(), im)
	if err != nil {
		log.Fatal(err)
	}
	session.Close()
	<-ended
	// Output:
	// added [delete_file read_text], removed [], restored []
	// added [], removed [delete_file read_text], restored []
	// mcp: the session to the MCP server "files" has ended: MCP server disconnected
}

// annotations serves get_weather with the given hints and returns the
// annotations a client lists for it, as JSON.
func annotations(hints ...toolmcp.Hint) string {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	server := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "v1.0.0"}, nil)
	if _, err := toolmcp.AddTools(server, reg, toolmcp.Annotate("get_weather", hints...)); err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	server.Connect(ctx, st, nil)
	session, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1.0.0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	b, _ := json.Marshal(tools.Tools[0].Annotations)
	return string(b)
}

// Annotate tells clients how a tool behaves, so that they know which calls
// to confirm with the user; unset hints keep the protocol's cautious
// defaults.
func ExampleAnnotate() {
	fmt.Println(annotations())
	fmt.Println(annotations(toolmcp.ReadOnly(true), toolmcp.OpenWorld(false)))
	// Output:
	// null
	// {"idempotentHint":false,"openWorldHint":false,"readOnlyHint":true}
}

func ExampleReadOnly() {
	fmt.Println(annotations(toolmcp.ReadOnly(true)))
	// Output:
	// {"idempotentHint":false,"readOnlyHint":true}
}

func ExampleDestructive() {
	fmt.Println(annotations(toolmcp.Destructive(false))) // it only adds
	// Output:
	// {"destructiveHint":false,"idempotentHint":false,"readOnlyHint":false}
}

func ExampleIdempotent() {
	fmt.Println(annotations(toolmcp.Idempotent(true)))
	// Output:
	// {"idempotentHint":true,"readOnlyHint":false}
}

func ExampleOpenWorld() {
	fmt.Println(annotations(toolmcp.OpenWorld(false))) // a closed domain
	// Output:
	// {"idempotentHint":false,"openWorldHint":false,"readOnlyHint":false}
}

// Rename serves a tool under a name of MCP's wider rule, such as a dotted
// one, which the providers (and toolreg.ValidName) refuse.
func ExampleRename() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	server := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "v1.0.0"}, nil)
	_, err := toolmcp.AddTools(server, reg, toolmcp.Rename("get_weather", "weather.get"))
	fmt.Println(err)
	_, err = toolmcp.AddTools(server, reg, toolmcp.Rename("get_weather", "weather get"))
	fmt.Println(errors.Is(err, toolreg.ErrInvalidName), err)
	// Output:
	// <nil>
	// true mcp: Rename("get_weather"): invalid tool name "weather get": an MCP tool name holds 1 to 128 letters, digits, '_', '-' and '.' (no spaces, commas or slashes)
}

// Sync reports the tools added to the registry since AddTools that could
// not be served; the others are.
func ExampleAdapter_Sync() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	server := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "v1.0.0"}, nil)
	adapter, err := toolmcp.AddTools(server, reg, toolmcp.Rename("get_weather", "forecast"))
	if err != nil {
		log.Fatal(err)
	}
	reg.MustAdd(toolreg.MustNew("forecast", "Another forecast.", getWeather.Call)) // its MCP name is taken
	fmt.Println(adapter.Sync())
	// Output:
	// mcp: duplicate tool: tools "get_weather" and "forecast" would both be served as "forecast"
}

// HTTPHandler serves the tools over streamable HTTP; with a token, a
// request without it is refused before it reaches the server.
func ExampleHTTPHandler() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	server := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "v1.0.0"}, nil)
	if _, err := toolmcp.AddTools(server, reg); err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", toolmcp.HTTPHandler(server, toolmcp.HTTPOptions{Token: "s3cret"})) // from a secret store
	hs := httptest.NewServer(mux)                                                         // a real server: toolmcp.NewHTTPServer(addr, mux).ListenAndServe()
	defer hs.Close()

	resp, err := http.Post(hs.URL+"/mcp", "application/json", strings.NewReader(`{}`))
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	fmt.Println("without the token:", resp.Status)

	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1.0.0"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{"s3cret"}}, DisableStandaloneSSE: true}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "get_weather", Arguments: map[string]any{"city": "Oslo"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("with it:", res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// without the token: 401 Unauthorized
	// with it: {"city":"Oslo","days":1,"high_celsius":18.5}
}

// HTTPOptions.Stateless serves every client without a session, for
// replicas behind a load balancer: a client of 2026-07-28 is served as
// always, one of 2025-11-25 opens no session (and so hears of no tool added
// later until it lists again).
func ExampleHTTPOptions_stateless() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	server := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "v1.0.0"}, nil)
	if _, err := toolmcp.AddTools(server, reg); err != nil {
		log.Fatal(err)
	}
	hs := httptest.NewServer(toolmcp.HTTPHandler(server, toolmcp.HTTPOptions{Token: "s3cret", Stateless: true}))
	defer hs.Close()

	ctx := context.Background()
	for _, revision := range []string{"2026-07-28", "2025-11-25"} {
		client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1.0.0"}, nil)
		session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL,
			HTTPClient: &http.Client{Transport: bearer{"s3cret"}}, DisableStandaloneSSE: true},
			&mcp.ClientSessionOptions{ProtocolVersion: revision})
		if err != nil {
			log.Fatal(err)
		}
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "get_weather", Arguments: map[string]any{"city": "Oslo"}})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s, session %q: %s\n", session.InitializeResult().ProtocolVersion, session.ID(), res.Content[0].(*mcp.TextContent).Text)
		session.Close()
	}
	// Output:
	// 2026-07-28, session "": {"city":"Oslo","days":1,"high_celsius":18.5}
	// 2025-11-25, session "": {"city":"Oslo","days":1,"high_celsius":18.5}
}

// bearer sends a bearer token with every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// NewHTTPServer bounds every phase of a connection, so that a slow or
// silent client cannot hold one open forever.
func ExampleNewHTTPServer() {
	server := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "v1.0.0"}, nil)
	hs := toolmcp.NewHTTPServer("127.0.0.1:8080", toolmcp.HTTPHandler(server, toolmcp.HTTPOptions{}))
	fmt.Println(hs.Addr, hs.ReadHeaderTimeout, hs.ReadTimeout, hs.WriteTimeout, hs.IdleTimeout)
	// hs.ListenAndServe() serves it; see HTTPHandler before binding more than loopback.

	// Output:
	// 127.0.0.1:8080 10s 30s 5m0s 2m0s
}
