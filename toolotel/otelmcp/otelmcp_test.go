package otelmcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolmcp"
	"github.com/toolreg/toolreg/toolotel"
	"github.com/toolreg/toolreg/toolotel/otelmcp"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// foreign is a trace context no span of the test has: what a proxy or an
// HTTP client of another trace might put in the headers.
const foreign = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"

// headers is an HTTP transport that sends the trace context of each
// request's context in its headers (or the foreign one), as an HTTP client
// instrumented for tracing does.
type headers struct {
	foreign bool
}

func (h headers) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	if h.foreign {
		req.Header.Set("traceparent", foreign)
	} else {
		propagation.TraceContext{}.Inject(req.Context(), propagation.HeaderCarrier(req.Header))
	}
	return http.DefaultTransport.RoundTrip(req)
}

// TestPropagation calls a tool of a toolreg MCP server from a traced MCP
// client, with the trace context in _meta, in the HTTP headers, in both or
// in neither, and checks the parent of the tool's span.
func TestPropagation(t *testing.T) {
	for _, tc := range []struct {
		name   string
		meta   bool   // the client puts its context in _meta
		header string // "": no HTTP; "own": its context in the headers; "foreign": another
		parent string // of the tool span: "client", "foreign" or "" for none
	}{
		{"in-memory, _meta", true, "", "client"},
		{"in-memory, nothing", false, "", ""},
		{"HTTP, _meta", true, "none", "client"},
		{"HTTP, headers", false, "own", "client"},
		{"HTTP, _meta before headers", true, "foreign", "client"},
		{"HTTP, nothing", false, "none", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spans := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
			defer tp.Shutdown(context.Background())
			prop := propagation.TraceContext{}

			reg := toolreg.NewRegistry()
			reg.MustAdd(toolreg.MustNew("get_time", "The time.", func(context.Context, struct{}) (string, error) {
				return "10:00", nil
			}))
			reg.Use(toolotel.Middleware(toolotel.WithTracerProvider(tp)))
			srv := mcp.NewServer(&mcp.Implementation{Name: "server", Version: "v1"}, nil)
			srv.AddReceivingMiddleware(otelmcp.ServerMiddleware(prop))
			if _, err := toolmcp.AddTools(srv, reg); err != nil {
				t.Fatal(err)
			}
			client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1"}, nil)
			if tc.meta {
				client.AddSendingMiddleware(otelmcp.ClientMiddleware(prop))
			}

			ctx := context.Background()
			var transport mcp.Transport
			if tc.header == "" {
				st, ct := mcp.NewInMemoryTransports()
				if _, err := srv.Connect(ctx, st, nil); err != nil {
					t.Fatal(err)
				}
				transport = ct
			} else {
				hs := httptest.NewServer(toolmcp.HTTPHandler(srv, toolmcp.HTTPOptions{}))
				defer hs.Close()
				var rt http.RoundTripper = http.DefaultTransport
				if tc.header != "none" {
					rt = headers{foreign: tc.header == "foreign"}
				}
				transport = &mcp.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: &http.Client{Transport: rt}, MaxRetries: -1}
			}
			session, err := client.Connect(ctx, transport, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer session.Close()

			ctx, span := tp.Tracer("client").Start(ctx, "client call")
			res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "get_time"})
			span.End()
			if err != nil || res.IsError {
				t.Fatalf("CallTool: %v, %+v", err, res)
			}

			var got string
			for _, s := range spans.Ended() {
				if s.Name() != "execute_tool get_time" {
					continue
				}
				p := s.Parent()
				switch {
				case p.SpanID() == span.SpanContext().SpanID() && p.TraceID() == span.SpanContext().TraceID():
					got = "client"
				case p.TraceID().String() == "0af7651916cd43dd8448eb211c80319c":
					got = "foreign"
				case p.IsValid():
					got = "another span: " + p.SpanID().String()
				}
				if p.IsValid() && !p.IsRemote() {
					t.Errorf("the parent %v is not remote", p)
				}
			}
			if diff := cmp.Diff(tc.parent, got); diff != "" {
				t.Errorf("parent of the tool's span (-want +got):\n%s", diff)
			}
		})
	}
}

// TestClientMiddlewareKeepsCallersMeta checks that the client writes the
// context into a copy of the request's _meta, and removes a context left
// from an earlier call when there is none to send.
func TestClientMiddlewareKeepsCallersMeta(t *testing.T) {
	prop := propagation.TraceContext{}
	var sent []map[string]any
	handler := otelmcp.ClientMiddleware(prop)(func(_ context.Context, _ string, req mcp.Request) (mcp.Result, error) {
		sent = append(sent, req.GetParams().GetMeta())
		return nil, nil
	})
	mine := map[string]any{"example.com/user": "u1", "traceparent": foreign}
	params := &mcp.CallToolParams{Name: "get_time", Meta: mine}
	tp := sdktrace.NewTracerProvider()
	ctx, span := tp.Tracer("client").Start(context.Background(), "call")
	handler(ctx, "tools/call", &mcp.ClientRequest[*mcp.CallToolParams]{Params: params})
	span.End()
	handler(context.Background(), "tools/call", &mcp.ClientRequest[*mcp.CallToolParams]{Params: params})

	want := []map[string]any{
		{"example.com/user": "u1", "traceparent": "00-" + span.SpanContext().TraceID().String() + "-" + span.SpanContext().SpanID().String() + "-01"},
		{"example.com/user": "u1"},
	}
	if diff := cmp.Diff(want, sent); diff != "" {
		t.Errorf("_meta sent (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"example.com/user": "u1", "traceparent": foreign}, mine); diff != "" {
		t.Errorf("the caller's map changed (-want +got):\n%s", diff)
	}
}
