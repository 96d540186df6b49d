package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// mcp-go validates input (when enabled) only inside the server's tools/call
// handling, which is private; HandleMessage, one JSON-RPC message in and one
// out, is the lowest public entry that includes it. The direct path calls
// the registered handler itself, which is only the typed handler's
// BindArguments (encoding/json) and the call.

// mcpgoTool declares the tool: the schema is inferred from A with
// mcp.WithInputSchema, except for RichArgs, whose "WORD=" tags
// google/jsonschema-go refuses: that gets toolreg's schema.
func mcpgoTool[A any](tb testing.TB, sh shape[A]) (mcp.Tool, server.ToolHandlerFunc) {
	schema := mcp.WithInputSchema[A]()
	if reflect.TypeFor[A]() == reflect.TypeFor[RichArgs]() {
		schema = mcp.WithRawInputSchema(toolregSchema(tb, sh))
	}
	t := mcp.NewTool(toolName, mcp.WithDescription(toolDesc), schema)
	h := mcp.NewTypedToolHandler(func(ctx context.Context, _ mcp.CallToolRequest, a A) (*mcp.CallToolResult, error) {
		text, err := sh.fn(ctx, a)
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultText(text), nil
	})
	return t, h
}

// mcpgoHandler calls the registered typed handler directly, as the server
// would after decoding the request: no validation.
func mcpgoHandler[A any](tb testing.TB, sh shape[A]) call {
	s := server.NewMCPServer("bench", "v1", server.WithToolCapabilities(false))
	s.AddTool(mcpgoTool(tb, sh))
	st := s.GetTool(toolName)
	if st == nil {
		tb.Fatal("mcp-go: tool not registered")
	}
	var req mcp.CallToolRequest
	req.Params.Name = toolName
	req.Params.Arguments = sh.args
	return func(ctx context.Context) (string, error) {
		res, err := st.Handler(ctx, req)
		if err != nil {
			return "", err
		}
		return mcpgoText(res)
	}
}

// mcpgoMessage calls through HandleMessage, with the server's input schema
// validation (santhosh-tekuri/jsonschema, compiled once and cached) when
// validate is set.
func mcpgoMessage[A any](validate bool) func(testing.TB, shape[A]) call {
	return func(tb testing.TB, sh shape[A]) call {
		opts := []server.ServerOption{server.WithToolCapabilities(false)}
		if validate {
			opts = append(opts, server.WithInputSchemaValidation())
		}
		s := server.NewMCPServer("bench", "v1", opts...)
		s.AddTool(mcpgoTool(tb, sh))
		msg := json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + toolName + `","arguments":` + string(sh.args) + `}}`)
		return func(ctx context.Context) (string, error) {
			switch resp := s.HandleMessage(ctx, msg).(type) {
			case mcp.JSONRPCResponse:
				res, ok := resp.Result.(*mcp.CallToolResult)
				if !ok {
					return "", fmt.Errorf("mcp-go: result is %T", resp.Result)
				}
				return mcpgoText(res)
			case mcp.JSONRPCError:
				return "", fmt.Errorf("mcp-go: %v", resp.Error.Message)
			default:
				return "", fmt.Errorf("mcp-go: response is %T", resp)
			}
		}
	}
}

func mcpgoText(res *mcp.CallToolResult) (string, error) {
	if len(res.Content) != 1 {
		return "", fmt.Errorf("mcp-go: %d content blocks", len(res.Content))
	}
	tc, ok := res.Content[0].(mcp.TextContent)
	if !ok {
		return "", fmt.Errorf("mcp-go: content is %T", res.Content[0])
	}
	if res.IsError {
		return "", errors.New(tc.Text)
	}
	return tc.Text, nil
}
