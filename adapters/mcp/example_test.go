package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolreg/toolreg"
	toolmcp "github.com/toolreg/toolreg/adapters/mcp"
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
	files := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "v1.0.0"}, nil)
	files.AddTool(&mcp.Tool{
		Name:        "read.text",
		Description: "Reads a text file of the workspace.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args struct{ Path string }
		json.Unmarshal(req.Params.Arguments, &args)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "contents of " + args.Path}}}, nil
	})

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
	// files__read_text
	// isError=false
	// contents of notes.txt
	// isError=true
	// invalid arguments for tool "files__read_text":
	// - path: required field is missing
	// Fix the arguments and call the tool again.
}
