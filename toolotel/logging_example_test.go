package toolotel_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"log/slog"
	"os"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/toolotel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// traceHandler adds the trace and span ids of a record's context to the
// record, so that a log line can be found from its trace and back.
type traceHandler struct{ slog.Handler }

func (h traceHandler) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	return h.Handler.Handle(ctx, r)
}

func (h traceHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return traceHandler{h.Handler.WithAttrs(as)}
}

func (h traceHandler) WithGroup(name string) slog.Handler {
	return traceHandler{h.Handler.WithGroup(name)}
}

// Logs and traces together: toolreg.Logging inside the middleware logs
// each call in the context of its span, and a handler that reads the span
// from the context puts the ids in the log line.
func ExampleMiddleware_logging() {
	tp := sdktrace.NewTracerProvider(sdktrace.WithIDGenerator(&countingIDs{})) // fixed ids, for the output below
	logger := slog.New(traceHandler{slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == "duration" {
				return slog.Attr{} // they change from run to run
			}
			return a
		},
	})})

	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("get_weather", "Forecast for a city.", func(_ context.Context, a weatherArgs) (string, error) {
		return "Sunny in " + a.City, nil
	}))
	reg.Use(toolotel.Middleware(toolotel.WithTracerProvider(tp)), toolreg.Logging(logger))
	reg.CallAll(context.Background(), []toolreg.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}})
	// Output:
	// level=INFO msg="tool call" tool=get_weather call_id=call_1 args_bytes=16 trace_id=00000000000000000000000000000001 span_id=0000000000000001
}

// countingIDs numbers traces and spans from 1.
type countingIDs struct{ trace, span uint64 }

func (g *countingIDs) NewIDs(context.Context) (trace.TraceID, trace.SpanID) {
	g.trace++
	var t trace.TraceID
	binary.BigEndian.PutUint64(t[8:], g.trace)
	return t, g.NewSpanID(context.Background(), t)
}

func (g *countingIDs) NewSpanID(context.Context, trace.TraceID) trace.SpanID {
	g.span++
	var s trace.SpanID
	binary.BigEndian.PutUint64(s[:], g.span)
	return s
}
