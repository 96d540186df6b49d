package toolotel

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/toolreg/toolreg/agent"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/genaiconv"
	"go.opentelemetry.io/otel/trace"
)

// Observer traces the runs of toolreg's runners: set it as
// agent.Options.Observer, and add Middleware to the run's registry, and a
// trace shows the whole agent turn:
//
//	invoke_agent                  INTERNAL, the run
//	├── chat gpt-4o               CLIENT, model call of step 1, with its token usage
//	├── execute_tool get_weather  INTERNAL, the calls of step 1 (Middleware)
//	├── execute_tool get_weather
//	└── chat gpt-4o               CLIENT, step 2, which answered
//
// The run span has gen_ai.operation.name "invoke_agent", gen_ai.provider.name
// (openai, anthropic, gcp.gen_ai for the gemini adapter, which does not say
// whether it reaches the Gemini API or Vertex AI), gen_ai.request.model and
// the tokens of all its model calls. A model call span is
// "{operation} {model}", operation "chat" ("generate_content" for Gemini), with
// gen_ai.usage.input_tokens and gen_ai.usage.output_tokens as the provider
// reported them and toolreg.step. A failed run or model call has error.type (a
// toolreg sentinel: max_steps, truncated, too_many_retries, stop_run, ...;
// timeout, canceled; the HTTP status of a provider's error response, "429";
// else the error's Go type) and status Error. A run that pauses for the host (agent.ErrPaused) has not
// failed: its span ends with a "paused" event, and the resumed run is a span
// of its own.
//
// Metrics: gen_ai.client.operation.duration and gen_ai.client.token.usage
// for the model calls, gen_ai.invoke_agent.duration for the runs.
//
// One Observer may serve any number of runs at once.
type Observer struct {
	tracer      trace.Tracer
	agent       string
	runDuration metric.Float64Histogram
	opDuration  genaiconv.ClientOperationDuration
	tokens      genaiconv.ClientTokenUsage
}

var _ agent.Observer = (*Observer)(nil)

// NewObserver returns an Observer recording with the providers the options
// give (the global ones by default). WithContent does not apply: no
// message content reaches an Observer.
func NewObserver(opts ...Option) *Observer {
	c := newConfig(opts)
	o := &Observer{tracer: c.tracer(), agent: c.agent}
	meter := c.meter()
	o.runDuration = instrument(meter.Float64Histogram(metricRunDuration,
		metric.WithDescription("The end-to-end duration of a single agent invocation."),
		metric.WithUnit("s"),
		metric.WithExplicitBucketBoundaries(runBuckets...)))
	// The conventions advise the same buckets for a model call as for a
	// tool call.
	o.opDuration = instrument(genaiconv.NewClientOperationDuration(meter, metric.WithExplicitBucketBoundaries(toolBuckets...)))
	o.tokens = instrument(genaiconv.NewClientTokenUsage(meter, metric.WithExplicitBucketBoundaries(tokenBuckets...)))
	return o
}

// runState is a run being observed, in its context: the middleware reads
// the agent's name from it.
type runState struct {
	span          trace.Span
	start         time.Time
	agent         string
	input, output atomic.Int64 // tokens of the run's model calls so far
}

type runKey struct{}

func runOf(ctx context.Context) *runState {
	st, _ := ctx.Value(runKey{}).(*runState)
	return st
}

// callState is a model call being observed, in its context.
type callState struct {
	span  trace.Span
	start time.Time
}

type callKey struct{}

// RunStarted opens the run's span; the run's model calls and tool calls
// are its children.
func (o *Observer) RunStarted(ctx context.Context, run agent.RunInfo) context.Context {
	p := providerOf(run.Provider)
	attrs := [4]attribute.KeyValue{semconv.GenAIOperationNameInvokeAgent, semconv.GenAIProviderNameKey.String(string(p.name))}
	n := 2
	if run.Model != "" {
		attrs[n] = semconv.GenAIRequestModel(run.Model)
		n++
	}
	name := "invoke_agent"
	if o.agent != "" {
		attrs[n] = semconv.GenAIAgentName(o.agent)
		n++
		name += " " + o.agent
	}
	st := &runState{start: time.Now(), agent: o.agent}
	ctx, st.span = o.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(attrs[:n]...), trace.WithTimestamp(st.start))
	return context.WithValue(ctx, runKey{}, st)
}

// RunEnded ends the run's span with the tokens of all its model calls, and
// records the run's duration.
func (o *Observer) RunEnded(ctx context.Context, run agent.RunInfo, err error) {
	st := runOf(ctx)
	if st == nil {
		return
	}
	end := time.Now()
	paused := errors.Is(err, agent.ErrPaused)
	var errType attribute.KeyValue
	if err != nil && !paused {
		errType = runErrorType(err)
	}
	if st.span.IsRecording() {
		if in, out := st.input.Load(), st.output.Load(); in+out > 0 {
			st.span.SetAttributes(semconv.GenAIUsageInputTokens(int(in)), semconv.GenAIUsageOutputTokens(int(out)))
		}
		switch {
		case paused:
			st.span.AddEvent("paused", trace.WithAttributes(attribute.String("reason", "calls wait for the host")))
		case err != nil:
			st.span.SetAttributes(errType)
			st.span.SetStatus(codes.Error, errType.Value.AsString())
		}
	}
	st.span.End(trace.WithTimestamp(end))
	if !o.runDuration.Enabled(ctx) {
		return
	}
	attrs := [3]attribute.KeyValue{}
	n := 0
	if errType.Valid() {
		attrs[n] = errType
		n++
	}
	if run.Model != "" {
		attrs[n] = semconv.GenAIRequestModel(run.Model)
		n++
	}
	if st.agent != "" {
		attrs[n] = semconv.GenAIAgentName(st.agent)
		n++
	}
	o.runDuration.Record(ctx, end.Sub(st.start).Seconds(), metric.WithAttributes(attrs[:n]...))
}

// ModelCallStarted opens the span of one model call.
func (o *Observer) ModelCallStarted(ctx context.Context, call agent.ModelCall) context.Context {
	p := providerOf(call.Provider)
	attrs := [4]attribute.KeyValue{semconv.GenAIOperationNameKey.String(string(p.operation)),
		semconv.GenAIProviderNameKey.String(string(p.name)), keyStep.Int(call.Step)}
	n := 3
	name := string(p.operation)
	if call.Model != "" {
		attrs[n] = semconv.GenAIRequestModel(call.Model)
		n++
		name += " " + call.Model
	}
	st := &callState{start: time.Now()}
	ctx, st.span = o.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attrs[:n]...), trace.WithTimestamp(st.start))
	return context.WithValue(ctx, callKey{}, st)
}

// ModelCallEnded ends the model call's span with the tokens the provider
// reported, and records the call's duration and tokens.
func (o *Observer) ModelCallEnded(ctx context.Context, call agent.ModelCall, usage agent.Usage, err error) {
	st, _ := ctx.Value(callKey{}).(*callState)
	if st == nil {
		return
	}
	end := time.Now()
	if run := runOf(ctx); run != nil {
		run.input.Add(usage.InputTokens)
		run.output.Add(usage.OutputTokens)
	}
	reported := usage.InputTokens+usage.OutputTokens > 0 // a provider that reports nothing leaves both at 0
	var errType attribute.KeyValue
	if err != nil {
		errType = runErrorType(err)
	}
	if st.span.IsRecording() {
		if reported {
			st.span.SetAttributes(semconv.GenAIUsageInputTokens(int(usage.InputTokens)), semconv.GenAIUsageOutputTokens(int(usage.OutputTokens)))
		}
		if err != nil {
			st.span.SetAttributes(errType)
			st.span.SetStatus(codes.Error, errType.Value.AsString())
		}
	}
	st.span.End(trace.WithTimestamp(end))

	p := providerOf(call.Provider)
	attrs := [2]attribute.KeyValue{}
	n := 0
	if call.Model != "" {
		attrs[n] = semconv.GenAIRequestModel(call.Model)
		n++
	}
	if reported {
		o.tokens.Record(ctx, usage.InputTokens, p.operation, p.name, genaiconv.TokenTypeInput, attrs[:n]...)
		o.tokens.Record(ctx, usage.OutputTokens, p.operation, p.name, genaiconv.TokenTypeOutput, attrs[:n]...)
	}
	if errType.Valid() {
		attrs[n] = errType
		n++
	}
	o.opDuration.Record(ctx, end.Sub(st.start).Seconds(), p.operation, p.name, attrs[:n]...)
}
