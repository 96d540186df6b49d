// Package mcpgo checks examples/mcpserver with a client nobody here wrote:
// the client of github.com/mark3labs/mcp-go, at its default protocol
// revision and at 2025-11-25, over stdio and over streamable HTTP. It is a
// module of its own so that the root module does not depend on mcp-go;
// .ci/run runs its tests.
//
//	cd examples/mcpserver/testdata/mcpgo && go test .
package mcpgo
