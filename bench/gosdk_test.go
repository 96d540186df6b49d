package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The go-sdk keeps registered handlers private, so the handler-level paths
// capture the server's receiving MethodHandler (the default one, below all
// middleware) and a real *ServerSession from one call through an in-memory
// client, then call that MethodHandler directly with "tools/call". That is
// the SDK's real dispatch (lookup by name, the AddTool wrapper with
// validation) without JSON-RPC framing or the transport.

// gosdkTyped is mcp.AddTool with a typed handler: In is A, Out is any (a
// text result, no output schema). For RichArgs the input schema is
// toolreg's, because jsonschema-go refuses the "WORD=" tags.
func gosdkTyped[A any](tb testing.TB, sh shape[A]) call {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "v1"}, nil)
	t := &mcp.Tool{Name: toolName, Description: toolDesc}
	if reflect.TypeFor[A]() == reflect.TypeFor[RichArgs]() {
		t.InputSchema = json.RawMessage(toolregSchema(tb, sh))
	}
	mcp.AddTool(s, t, func(ctx context.Context, _ *mcp.CallToolRequest, a A) (*mcp.CallToolResult, any, error) {
		text, err := sh.fn(ctx, a)
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
	})
	return gosdkHandlerCall(tb, s, sh.args)
}

// gosdkRaw is Server.AddTool with a hand-written handler that unmarshals
// the arguments itself with encoding/json: no validation.
func gosdkRaw[A any](tb testing.TB, sh shape[A]) call {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "v1"}, nil)
	t := &mcp.Tool{Name: toolName, Description: toolDesc, InputSchema: json.RawMessage(toolregSchema(tb, sh))}
	s.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var a A
		if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
			return nil, err
		}
		text, err := sh.fn(ctx, a)
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
	})
	return gosdkHandlerCall(tb, s, sh.args)
}

// gosdkRoundTrip is gosdkTyped called as a client would: ClientSession.CallTool
// over in-memory transports, with JSON-RPC framing both ways. For
// reference: it is what a real MCP call costs in-process.
func gosdkRoundTrip[A any](tb testing.TB, sh shape[A]) call {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "v1"}, nil)
	t := &mcp.Tool{Name: toolName, Description: toolDesc}
	if reflect.TypeFor[A]() == reflect.TypeFor[RichArgs]() {
		t.InputSchema = json.RawMessage(toolregSchema(tb, sh))
	}
	mcp.AddTool(s, t, func(ctx context.Context, _ *mcp.CallToolRequest, a A) (*mcp.CallToolResult, any, error) {
		text, err := sh.fn(ctx, a)
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
	})
	cs := gosdkConnect(tb, s)
	params := &mcp.CallToolParams{Name: toolName, Arguments: sh.args}
	return func(ctx context.Context) (string, error) {
		res, err := cs.CallTool(ctx, params)
		if err != nil {
			return "", err
		}
		return gosdkText(res)
	}
}

// gosdkHandlerCall captures the server's MethodHandler and session, as
// described above, and returns a call of the tool through them.
func gosdkHandlerCall(tb testing.TB, s *mcp.Server, args json.RawMessage) call {
	tb.Helper()
	var (
		once    sync.Once
		handler mcp.MethodHandler
		session *mcp.ServerSession
	)
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				once.Do(func() {
					handler = next
					session = req.(*mcp.CallToolRequest).Session
				})
			}
			return next(ctx, method, req)
		}
	})
	cs := gosdkConnect(tb, s)
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: toolName, Arguments: args}); err != nil {
		tb.Fatal(err)
	}
	if handler == nil {
		tb.Fatal("go-sdk: the receiving middleware saw no tools/call")
	}
	req := &mcp.CallToolRequest{Session: session, Params: &mcp.CallToolParamsRaw{Name: toolName, Arguments: args}}
	return func(ctx context.Context) (string, error) {
		res, err := handler(ctx, "tools/call", req)
		if err != nil {
			return "", err
		}
		return gosdkText(res.(*mcp.CallToolResult))
	}
}

// gosdkConnect connects a client to s over in-memory transports, closing
// both sessions when the benchmark ends.
func gosdkConnect(tb testing.TB, s *mcp.Server) *mcp.ClientSession {
	tb.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		tb.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "v1"}, nil)
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

func gosdkText(res *mcp.CallToolResult) (string, error) {
	if len(res.Content) != 1 {
		return "", fmt.Errorf("go-sdk: %d content blocks", len(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return "", fmt.Errorf("go-sdk: content is %T", res.Content[0])
	}
	if res.IsError {
		return "", errors.New(tc.Text)
	}
	return tc.Text, nil
}
