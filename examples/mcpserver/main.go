// Command mcpserver serves a few toolreg tools over the Model Context
// Protocol: a calculator, a unit converter, the list of its units and text
// statistics. Add it to any MCP client (Claude Desktop, an IDE, an agent);
// README.md shows the configuration.
//
// It speaks stdio by default, as clients that start it expect; with -http
// it serves streamable HTTP at /mcp instead. Either way a client of MCP
// 2026-07-28 and one of 2025-11-25 or older are each served in their
// revision; over HTTP the first gets no session, the second one. Over HTTP
// it requires a bearer token, from $MCPSERVER_TOKEN or -token, on any
// address but loopback.
//
//	go run ./examples/mcpserver
//	go run ./examples/mcpserver -http 127.0.0.1:8080
//	MCPSERVER_TOKEN=$(openssl rand -hex 32) go run ./examples/mcpserver -http :8080
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
	"github.com/toolreg/toolreg/adapters/toolmcp"
	"github.com/toolreg/toolreg/examples/mcpserver/tools"
)

// tokenEnv names the environment variable that holds the bearer token: a
// better place for it than -token, whose value shows in process listings.
// -token, when given, wins.
const tokenEnv = "MCPSERVER_TOKEN"

func main() {
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: mcpserver [-http addr] [-token token]\n\nServes example tools over MCP: stdio by default, streamable HTTP at http://addr/mcp with -http.\nOver HTTP, clients must send \"Authorization: Bearer <token>\" when a token is set ($%s or -token);\none is required to serve on anything but a loopback address.\n\n", tokenEnv)
		flag.PrintDefaults()
	}
	httpAddr := flag.String("http", "", "serve streamable HTTP on this address (e.g. 127.0.0.1:8080) instead of stdio")
	token := flag.String("token", "", "the bearer token HTTP clients must send (prefer $"+tokenEnv+": a flag shows in process listings)")
	flag.Parse()
	if *token == "" {
		*token = os.Getenv(tokenEnv)
	}

	// stdout belongs to the protocol when on stdio: logs go to stderr.
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	server, err := tools.NewServer(logger)
	if err == nil {
		if *httpAddr != "" {
			err = serveHTTP(ctx, server, *httpAddr, *token, logger)
		} else {
			err = server.Run(ctx, &mcp.StdioTransport{})
		}
	}
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		fmt.Fprintln(os.Stderr, "mcpserver:", err)
		os.Exit(1)
	}
}

// handler serves server over streamable HTTP at /mcp, in toolmcp.HTTPHandler's
// default mode (clients of 2026-07-28 without a session, older clients with
// one, so that they hear of tool changes), with its checks: the bearer token when one is set (without one, only
// clients on this machine are served, whatever the address), cross-origin
// requests, DNS rebinding, body size, sessions left idle, and the number of
// sessions open, in all and per client.
func handler(server *mcp.Server, token string) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/mcp", toolmcp.HTTPHandler(server, toolmcp.HTTPOptions{Token: token}))
	return mux
}

// errNoToken refuses to serve beyond the local machine without a token:
// anyone who reached the port could call every tool.
var errNoToken = errors.New("refusing to serve HTTP beyond loopback without a bearer token: set " + tokenEnv + " (or -token), or listen on 127.0.0.1")

func serveHTTP(ctx context.Context, server *mcp.Server, addr, token string, logger *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); token == "" && (!ok || !tcp.IP.IsLoopback()) {
		ln.Close()
		return fmt.Errorf("%s: %w", ln.Addr(), errNoToken)
	}
	hs := toolmcp.NewHTTPServer(addr, handler(server, token))
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(shutdown)
	}()
	logger.Info("serving MCP over streamable HTTP", "url", "http://"+ln.Addr().String()+"/mcp", "bearer_token", token != "")
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
