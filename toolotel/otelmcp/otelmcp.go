// Package otelmcp carries trace context across the Model Context Protocol,
// for servers and clients of the official Go SDK
// (github.com/modelcontextprotocol/go-sdk/mcp): a tool call that an MCP
// client traces goes on, in the same trace, into the server that serves a
// toolreg registry (toolreg/adapters/toolmcp), whose tool spans (toolotel's
// Middleware) become children of the client's span.
//
// The MCP semantic conventions of OpenTelemetry carry the context in each
// request's params._meta, under the unprefixed keys "traceparent",
// "tracestate" and "baggage" (MCP SEP-414), because one HTTP request of
// the streamable transport may carry several MCP messages and one message
// may take several HTTP requests. ServerMiddleware reads it from there;
// from a client that sends it only in the HTTP headers of the streamable
// transport (an HTTP client instrumented for tracing, say), it reads it
// from the headers instead. ClientMiddleware writes it into _meta.
//
// Both use an OpenTelemetry propagator: the one given, or the global one
// (otel.GetTextMapPropagator), which propagates nothing until the program
// sets one, as OpenTelemetry setups do:
//
//	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(
//		propagation.TraceContext{}, propagation.Baggage{}))
//
// This is a package of its own so that a program that does not serve MCP
// does not link the MCP SDK for it.
package otelmcp

import (
	"context"
	"maps"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
)

// ServerMiddleware returns receiving middleware for an *mcp.Server that
// makes the trace context a client sent with each request the parent of
// what the server does for it, the calls of a toolreg registry included:
//
//	srv.AddReceivingMiddleware(otelmcp.ServerMiddleware(nil))
//
// The context in the request's params._meta comes first; a request with
// none there takes the context in the HTTP headers of the streamable
// transport, if any. p is the propagator; nil means the global one, as it
// is at each request.
func ServerMiddleware(p propagation.TextMapPropagator) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			prop := propagator(p)
			if meta := metaOf(req); carries(prop, meta) {
				ctx = prop.Extract(ctx, meta)
			} else if extra := req.GetExtra(); extra != nil && extra.Header != nil {
				ctx = prop.Extract(ctx, propagation.HeaderCarrier(extra.Header))
			}
			return next(ctx, method, req)
		}
	}
}

// ClientMiddleware returns sending middleware for an *mcp.Client that puts
// the trace context of each request's context into its params._meta, for
// the server to continue the trace:
//
//	client.AddSendingMiddleware(otelmcp.ClientMiddleware(nil))
//
// The request's params get a copy of their _meta map with the propagator's
// fields set (or removed, when the context has none to send): a caller's
// map is never changed. p is the propagator; nil means the global one.
func ClientMiddleware(p propagation.TextMapPropagator) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if params := paramsOf(req); params != nil {
				prop := propagator(p)
				meta := metaCarrier(maps.Clone(params.GetMeta()))
				if meta == nil {
					meta = metaCarrier{}
				}
				for _, f := range prop.Fields() {
					delete(meta, f) // a context left from an earlier call must not be sent again
				}
				prop.Inject(ctx, meta)
				if len(meta) == 0 {
					meta = nil
				}
				params.SetMeta(meta)
			}
			return next(ctx, method, req)
		}
	}
}

func propagator(p propagation.TextMapPropagator) propagation.TextMapPropagator {
	if p == nil {
		return otel.GetTextMapPropagator()
	}
	return p
}

// metaCarrier is a request's _meta as a propagation.TextMapCarrier. Values
// arrive from JSON: a field that is not a string is not a context.
type metaCarrier map[string]any

func (m metaCarrier) Get(key string) string {
	s, _ := m[key].(string)
	return s
}

func (m metaCarrier) Set(key, value string) { m[key] = value }

func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// carries reports whether meta holds any of the propagator's fields.
func carries(p propagation.TextMapPropagator, meta metaCarrier) bool {
	for _, f := range p.Fields() {
		if meta.Get(f) != "" {
			return true
		}
	}
	return false
}

func metaOf(req mcp.Request) metaCarrier {
	if params := paramsOf(req); params != nil {
		return params.GetMeta()
	}
	return nil
}

// paramsOf returns req's params, nil when it has none: the SDK's Params
// are pointers, and a request without params may hold a nil one, whose
// GetMeta would panic.
func paramsOf(req mcp.Request) mcp.Params {
	if req == nil {
		return nil
	}
	p := req.GetParams()
	if p == nil {
		return nil
	}
	if v := reflect.ValueOf(p); v.Kind() == reflect.Pointer && v.IsNil() {
		return nil
	}
	return p
}
