package toolotel

import (
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of the spans and metrics this
// package records.
const ScopeName = "github.com/toolreg/toolreg/toolotel"

// Option configures Middleware and NewObserver.
type Option struct{ set func(*config) }

type config struct {
	tp      trace.TracerProvider
	mp      metric.MeterProvider
	content bool
	agent   string
}

// WithTracerProvider records spans with tp instead of the global
// provider (otel.GetTracerProvider).
func WithTracerProvider(tp trace.TracerProvider) Option {
	return Option{func(c *config) { c.tp = tp }}
}

// WithMeterProvider records metrics with mp instead of the global
// provider (otel.GetMeterProvider).
func WithMeterProvider(mp metric.MeterProvider) Option {
	return Option{func(c *config) { c.mp = mp }}
}

// WithContent records what the model sent and what it read back on each
// tool span: the call's arguments as gen_ai.tool.call.arguments and a
// successful call's result as gen_ai.tool.call.result (JSON, or a text
// result as it is), and the text of a failure as the span's status
// description. Off by default: the conventions mark these sensitive, and
// they hold whatever the model and the tools put there (names, tokens,
// customer data). Turn it on where your telemetry may hold such data, in
// development say; the SDK's span limits bound the length kept.
func WithContent() Option {
	return Option{func(c *config) { c.content = true }}
}

// WithAgentName names the agent whose runs are observed: the run span is
// then "invoke_agent {name}", and runs, their calls and their metrics
// carry gen_ai.agent.name. Use it when one process runs several agents.
func WithAgentName(name string) Option {
	return Option{func(c *config) { c.agent = name }}
}

func newConfig(opts []Option) config {
	var c config
	for _, o := range opts {
		if o.set != nil {
			o.set(&c)
		}
	}
	if c.tp == nil {
		// The global provider delegates to whatever provider is set later,
		// so a middleware made before the SDK is set up still records.
		c.tp = otel.GetTracerProvider()
	}
	if c.mp == nil {
		c.mp = otel.GetMeterProvider()
	}
	return c
}

func (c config) tracer() trace.Tracer {
	return c.tp.Tracer(ScopeName, trace.WithSchemaURL(semconv.SchemaURL))
}

func (c config) meter() metric.Meter {
	return c.mp.Meter(ScopeName, metric.WithSchemaURL(semconv.SchemaURL))
}
