package toolotel

import (
	"context"
	"time"

	"github.com/toolreg/toolreg"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
)

// Middleware traces and meters every call of a registry: add it with
// Registry.Use, first, so that it sees each call as the caller does (what
// later middleware changes included). Each call is a span
// "execute_tool {tool}" of kind INTERNAL with
//
//   - gen_ai.operation.name "execute_tool", gen_ai.tool.name,
//     gen_ai.tool.type "function", and gen_ai.tool.call.id when the
//     provider gave the call an id;
//   - toolreg.step and toolreg.attempt when an agent run made the call
//     (toolreg.CallInfo), and gen_ai.agent.name under an Observer given
//     WithAgentName;
//   - on failure, error.type naming what failed (invalid_arguments,
//     tool_error, panic, timeout, unknown_tool, retry, stop_run,
//     invalid_result, internal, canceled; _OTHER for an error of another
//     middleware) and status Error. A call that asks the host a question
//     (toolreg.Interrupt) is a pause, not a failure.
//
// A call that a timeout of the tool or the registry ends (or, under
// toolreg.WithIsolatedCalls, any end of its context) is recorded as the
// timeout the caller gets, when it gets it: the registry gives the
// middleware that Output at the deadline, and what a tool that ignores its
// context returns later is dropped, and recorded nowhere. Otherwise the call
// runs on its caller's goroutine and is recorded as what it returns.
//
// The span is a child of the span in the call's context: the run's, under
// an Observer; the MCP client's, through package otelmcp.
//
// Two metrics: gen_ai.execute_tool.duration (a histogram, in seconds, by
// gen_ai.tool.name and error.type) and toolreg.tool.calls (a counter by
// gen_ai.tool.name and toolreg.outcome: "ok", "interrupted" or the
// error.type). A call to a tool the registry does not hold is counted
// under gen_ai.tool.name "_OTHER", so that names a model makes up do not
// become metric series; its span keeps the name.
//
// Nothing the model sent or read is recorded unless WithContent says so.
// Without an OpenTelemetry SDK (no-op providers) the middleware costs a
// fraction of a microsecond a call and allocates once: it reads no clock
// and builds no attribute unless something records them.
func Middleware(opts ...Option) toolreg.Middleware {
	c := newConfig(opts)
	m := &toolMeter{tracer: c.tracer(), content: c.content}
	meter := c.meter()
	m.duration = instrument(meter.Float64Histogram(metricToolDuration,
		metric.WithDescription("The duration of a single tool execution."),
		metric.WithUnit("s"),
		metric.WithExplicitBucketBoundaries(toolBuckets...)))
	m.calls = instrument(meter.Int64Counter(metricToolCalls,
		metric.WithDescription("Tool calls, by tool and outcome."),
		metric.WithUnit("{call}")))
	return func(next toolreg.Handler) toolreg.Handler {
		return toolreg.HandlerFunc(func(ctx context.Context, call toolreg.ToolCall) toolreg.Output {
			return m.handle(ctx, call, next)
		})
	}
}

type toolMeter struct {
	tracer   trace.Tracer
	content  bool
	duration metric.Float64Histogram // instruments are never nil: a meter returns a no-op one with its error
	calls    metric.Int64Counter
	spans    cache[string, toolSpan]    // by tool name
	points   cache[pointKey, toolPoint] // by tool name, outcome and agent
}

// toolSpan is what a tool's spans start with, made once per tool: with no
// SDK set up, the middleware then allocates nothing of its own.
type toolSpan struct {
	name string
	opts []trace.SpanStartOption
}

func (m *toolMeter) newSpan(tool string) toolSpan {
	return toolSpan{name: "execute_tool " + tool, opts: []trace.SpanStartOption{
		trace.WithSpanKind(trace.SpanKindInternal),
		// gen_ai.operation.name is to be known at the start, for samplers;
		// the tool's name and type come along at no cost.
		trace.WithAttributes(semconv.GenAIOperationNameExecuteTool, semconv.GenAIToolName(tool), toolTypeFunction),
	}}
}

type pointKey struct{ tool, outcome, agent string }

// toolPoint is the attributes of a call's metrics, made once per key.
type toolPoint struct {
	duration, calls metric.MeasurementOption
}

func newPoint(k pointKey) toolPoint {
	tool := k.tool
	if k.outcome == "unknown_tool" {
		tool = semconv.ErrorTypeOther.Value.AsString()
	}
	kv := []attribute.KeyValue{semconv.GenAIToolName(tool), toolTypeFunction}
	if k.outcome != outcomeOK && k.outcome != outcomeInterrupted {
		kv = append(kv, semconv.ErrorTypeKey.String(k.outcome))
	}
	if k.agent != "" {
		kv = append(kv, semconv.GenAIAgentName(k.agent))
	}
	return toolPoint{
		duration: metric.WithAttributeSet(attribute.NewSet(kv...)),
		calls:    metric.WithAttributeSet(attribute.NewSet(semconv.GenAIToolName(tool), keyOutcome.String(k.outcome))),
	}
}

func (m *toolMeter) handle(ctx context.Context, call toolreg.ToolCall, next toolreg.Handler) toolreg.Output {
	name := boundName(call.Name)
	ts := m.spans.get(name, m.newSpan)
	durationOn, callsOn := m.duration.Enabled(ctx), m.calls.Enabled(ctx)
	ctx, span := m.tracer.Start(ctx, ts.name, ts.opts...)
	recording := span.IsRecording()
	timed := recording || durationOn // with nothing to record, not even the clock is read
	var start, end time.Time
	if timed {
		start = time.Now()
		if s, ok := span.(interface{ StartTime() time.Time }); ok {
			start = s.StartTime() // the SDK's span: its duration and the metric's are then the same
		}
	}

	out := next.HandleCall(ctx, call)

	if timed {
		end = time.Now()
	}
	// The Output is the one the caller gets: at the call's deadline the
	// registry hands the middleware its timeout Output, so the outcome is
	// what the model reads, recorded when the caller reads it.
	outcome := callOutcome(out)
	failed := outcome != outcomeOK && outcome != outcomeInterrupted
	run := runOf(ctx)
	agent := ""
	if run != nil {
		agent = run.agent
	}

	if recording {
		if call.ID != "" {
			span.SetAttributes(semconv.GenAIToolCallID(call.ID))
		}
		if agent != "" {
			span.SetAttributes(semconv.GenAIAgentName(agent))
		}
		if info := toolreg.Info(ctx); info.Step > 0 {
			span.SetAttributes(keyStep.Int(info.Step), keyAttempt.Int(info.Attempt))
		}
		if m.content {
			span.SetAttributes(semconv.GenAIToolCallArgumentsKey.String(string(call.Arguments)))
			if !out.IsError {
				result := out.Text
				if out.Structured != nil {
					result = string(out.Structured)
				}
				span.SetAttributes(semconv.GenAIToolCallResultKey.String(result))
			}
		}
		switch {
		case failed:
			span.SetAttributes(semconv.ErrorTypeKey.String(outcome))
			span.SetStatus(codes.Error, m.statusText(out, outcome))
		case outcome == outcomeInterrupted:
			span.AddEvent("the tool asked the host a question")
		}
		span.End(trace.WithTimestamp(end))
	} else {
		span.End()
	}

	if !durationOn && !callsOn {
		return out
	}
	p := m.points.get(pointKey{name, outcome, agent}, newPoint)
	if durationOn {
		m.duration.Record(ctx, end.Sub(start).Seconds(), p.duration)
	}
	if callsOn {
		m.calls.Add(ctx, 1, p.calls)
	}
	return out
}

// instrument returns a meter's instrument, which is usable (a no-op) even
// with an error (an invalid name or unit, a clash with an instrument of
// the same name): the error goes to OpenTelemetry's error handler, as
// instrumentation libraries report theirs, and the calls go on.
func instrument[I any](i I, err error) I {
	if err != nil {
		otel.Handle(err)
	}
	return i
}

// statusText is the description of a failed call's status: the text the
// model read when content may be recorded; otherwise only the kind of
// failure, since the text may quote the arguments (invalid arguments) or
// hold whatever a tool put in its error.
func (m *toolMeter) statusText(out toolreg.Output, outcome string) string {
	if m.content && out.IsError && out.Text != "" {
		return out.Text
	}
	return outcome
}
