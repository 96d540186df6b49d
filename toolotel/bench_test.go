package toolotel_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/toolotel"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// benchProviders are the providers the benchmarks compare: none (the
// registry without the middleware, or a bare handler), no-op providers (no
// SDK set up), the global providers left unset, and the SDK recording
// every span into memory and aggregating the metrics.
func benchProviders() []struct {
	name  string
	opts  []toolotel.Option // nil: no middleware
	reset func()
} {
	exporter := tracetest.NewInMemoryExporter()
	return []struct {
		name  string
		opts  []toolotel.Option
		reset func()
	}{
		{"none", nil, nil},
		{"middleware_noop", []toolotel.Option{
			toolotel.WithTracerProvider(tracenoop.NewTracerProvider()),
			toolotel.WithMeterProvider(metricnoop.NewMeterProvider()),
		}, nil},
		{"middleware_global_unset", []toolotel.Option{}, nil},
		{"middleware_sdk_in_memory", []toolotel.Option{
			toolotel.WithTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter))),
			toolotel.WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))),
		}, exporter.Reset},
	}
}

// BenchmarkCall measures Registry.Call of a small tool with and without
// the middleware. The middleware's cost is the difference with "none" in
// the same run.
func BenchmarkCall(b *testing.B) {
	for _, bc := range benchProviders() {
		b.Run(bc.name, func(b *testing.B) {
			reg := toolreg.NewRegistry()
			reg.MustAdd(toolreg.MustNew("get_weather", "Forecast for a city.", func(_ context.Context, a weatherArgs) (string, error) {
				return a.City, nil
			}))
			if bc.opts != nil {
				reg.Use(toolotel.Middleware(bc.opts...))
			}
			ctx, args := context.Background(), json.RawMessage(`{"city":"Paris","days":3}`)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if out := reg.Call(ctx, "get_weather", args); out.IsError {
					b.Fatal(out.Text)
				}
				if bc.reset != nil && i%4096 == 0 {
					bc.reset() // the spans would otherwise pile up in memory
				}
			}
		})
	}
}

// BenchmarkMiddleware measures the middleware alone, around a handler that
// answers at once: its cost per call, without the registry's.
func BenchmarkMiddleware(b *testing.B) {
	for _, bc := range benchProviders() {
		b.Run(bc.name, func(b *testing.B) {
			var h toolreg.Handler = toolreg.HandlerFunc(func(context.Context, toolreg.ToolCall) toolreg.Output {
				return toolreg.Output{Text: "Paris"}
			})
			if bc.opts != nil {
				h = toolotel.Middleware(bc.opts...)(h)
			}
			ctx := context.Background()
			call := toolreg.ToolCall{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris","days":3}`)}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				h.HandleCall(ctx, call)
				if bc.reset != nil && i%4096 == 0 {
					bc.reset()
				}
			}
		})
	}
}
