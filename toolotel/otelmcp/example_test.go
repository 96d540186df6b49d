package otelmcp_test

import (
	"context"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolmcp"
	"github.com/toolreg/toolreg/toolotel"
	"github.com/toolreg/toolreg/toolotel/otelmcp"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// connect connects client to server in memory.
func connect(server *mcp.Server, client *mcp.Client) *mcp.ClientSession {
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	session, err := client.Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	return session
}

// A toolreg server continues the trace of the client that calls it: the
// tool's span is a child of the span the client sent in the request's
// _meta, here written by hand, as a client in another language would.
func ExampleServerMiddleware() {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("get_time", "The current time.", func(context.Context, struct{}) (string, error) {
		return "10:00", nil
	}))
	reg.Use(toolotel.Middleware(toolotel.WithTracerProvider(tp)))
	server := mcp.NewServer(&mcp.Implementation{Name: "clock", Version: "v1.0.0"}, nil)
	server.AddReceivingMiddleware(otelmcp.ServerMiddleware(propagation.TraceContext{})) // nil: the global propagator
	if _, err := toolmcp.AddTools(server, reg); err != nil {
		log.Fatal(err)
	}

	session := connect(server, mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1.0.0"}, nil))
	defer session.Close()
	_, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_time",
		Meta: mcp.Meta{"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}})
	if err != nil {
		log.Fatal(err)
	}
	s := spans.Ended()[0]
	fmt.Println(s.Name())
	fmt.Println("trace", s.SpanContext().TraceID(), "parent", s.Parent().SpanID(), "remote:", s.Parent().IsRemote())
	// Output:
	// execute_tool get_time
	// trace 0af7651916cd43dd8448eb211c80319c parent b7ad6b7169203331 remote: true
}

// A go-sdk client sends the trace context of each request's context in its
// _meta, for the server to continue the trace.
func ExampleClientMiddleware() {
	server := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "v1.0.0"}, nil)
	server.AddTool(&mcp.Tool{Name: "meta", Description: "Says what _meta the call carried.", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(req.Params.Meta["traceparent"])}}}, nil
		})
	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1.0.0"}, nil)
	client.AddSendingMiddleware(otelmcp.ClientMiddleware(propagation.TraceContext{}))
	session := connect(server, client)
	defer session.Close()

	// The span the call is made in: here a fixed one; in a program, the
	// span a tracer started.
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID:    trace.TraceID{0x0a, 0xf7, 0x65, 0x19, 0x16, 0xcd, 0x43, 0xdd, 0x84, 0x48, 0xeb, 0x21, 0x1c, 0x80, 0x31, 0x9c},
		SpanID:     trace.SpanID{0xb7, 0xad, 0x6b, 0x71, 0x69, 0x20, 0x33, 0x31},
		TraceFlags: trace.FlagsSampled,
	})
	ctx := trace.ContextWithSpanContext(context.Background(), sc)
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "meta"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01
}
