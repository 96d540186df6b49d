package toolmcp_test

import (
	"context"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolmcp"
)

// Serve a registry over MCP stdio, as an MCP client starts a local server:
// the five lines the README shows. It is compiled, not run (it would read
// the test's stdin).
func Example_stdio() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather)
	ctx := context.Background()

	srv := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "v1.0.0"}, nil)
	if _, err := toolmcp.AddTools(srv, reg); err != nil {
		log.Fatal(err)
	}
	if err := srv.Run(ctx, &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
