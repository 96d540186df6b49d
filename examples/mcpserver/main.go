// Command mcpserver serves a few toolreg tools over the Model Context
// Protocol: a calculator, a unit converter, the list of its units and text
// statistics. Add it to any MCP client (Claude Desktop, an IDE, an agent);
// README.md shows the configuration.
//
// It speaks stdio by default, as clients that start it expect; with -http
// it serves streamable HTTP at /mcp instead.
//
//	go run ./examples/mcpserver
//	go run ./examples/mcpserver -http 127.0.0.1:8080
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolreg/toolreg"
	toolmcp "github.com/toolreg/toolreg/adapters/mcp"
)

// version is reported to clients as serverInfo.version.
const version = "v0.1.0"

func main() {
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: mcpserver [-http addr]\n\nServes example tools over MCP: stdio by default, streamable HTTP at http://addr/mcp with -http.\n\n")
		flag.PrintDefaults()
	}
	httpAddr := flag.String("http", "", "serve streamable HTTP on this address (e.g. 127.0.0.1:8080) instead of stdio")
	flag.Parse()

	// stdout belongs to the protocol when on stdio: logs go to stderr.
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	server, err := newServer(logger)
	if err == nil {
		if *httpAddr != "" {
			err = serveHTTP(ctx, server, *httpAddr, logger)
		} else {
			err = server.Run(ctx, &mcp.StdioTransport{})
		}
	}
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		fmt.Fprintln(os.Stderr, "mcpserver:", err)
		os.Exit(1)
	}
}

// newServer is an MCP server with the example's tools. It logs each call
// (see toolreg.Logging): what failed and where, never what the model sent,
// which may hold a secret.
func newServer(logger *slog.Logger) (*mcp.Server, error) {
	server := mcp.NewServer(&mcp.Implementation{Name: "toolreg-example", Title: "toolreg example tools", Version: version}, nil)
	reg := registry()
	reg.Use(toolreg.Logging(logger))
	if _, err := toolmcp.AddTools(server, reg, options...); err != nil {
		return nil, err
	}
	return server, nil
}

// handler serves server over streamable HTTP at /mcp, refusing cross-origin
// browser requests (the SDK already refuses DNS rebinding on localhost).
func handler(server *mcp.Server) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/mcp", http.NewCrossOriginProtection().Handler(
		mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)))
	return mux
}

func serveHTTP(ctx context.Context, server *mcp.Server, addr string, logger *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: handler(server), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(shutdown)
	}()
	logger.Info("serving MCP over streamable HTTP", "url", "http://"+ln.Addr().String()+"/mcp")
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
