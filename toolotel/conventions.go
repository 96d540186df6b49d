package toolotel

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"strings"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/genaiconv"
)

// The names this package records follow the OpenTelemetry semantic
// conventions for generative AI as of semantic conventions v1.41.0, the
// last release that holds them (they have since moved to the GenAI
// conventions repository, open-telemetry/semantic-conventions-genai, whose
// names for what is recorded here are the same). Attribute names come from
// package semconv v1.41.0; what that release does not name is written once
// below, with the name it has in the GenAI conventions.

// Metrics of the GenAI conventions that semconv v1.41.0 does not define.
const (
	// gen_ai.execute_tool.duration (docs/gen-ai/gen-ai-metrics.md of the
	// GenAI conventions): a histogram of tool executions, in seconds.
	metricToolDuration = "gen_ai.execute_tool.duration"
	// gen_ai.invoke_agent.duration (same document): a histogram of agent
	// invocations, in seconds.
	metricRunDuration = "gen_ai.invoke_agent.duration"
)

// Bucket boundaries the GenAI conventions advise for each histogram.
var (
	toolBuckets  = []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}
	runBuckets   = []float64{0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 51.2, 102.4, 204.8, 409.6}
	tokenBuckets = []float64{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864}
)

// What the conventions leave to the instrumentation: the outcome of each
// call, counted by a metric of this package's own.
const (
	// metricToolCalls counts tool calls by tool and outcome.
	metricToolCalls = "toolreg.tool.calls"
	// keyOutcome is a call's outcome: "ok", "interrupted", or the
	// error.type of a failure.
	keyOutcome = attribute.Key("toolreg.outcome")
	// keyStep and keyAttempt are toolreg.CallInfo's Step and Attempt, on
	// the spans of calls made by a run (a tool span's parent is the run's,
	// so its step is not otherwise visible).
	keyStep    = attribute.Key("toolreg.step")
	keyAttempt = attribute.Key("toolreg.attempt")
)

// toolTypeFunction is gen_ai.tool.type for every registry tool: the
// application runs it, on the model's arguments.
var toolTypeFunction = semconv.GenAIToolType("function")

// Outcomes of a call that are not failures.
const (
	outcomeOK          = "ok"
	outcomeInterrupted = "interrupted"
)

// callKinds name a tool call's failure, as error.type, by the sentinel its
// Output.Err wraps. Order matters: a tool's own error wraps ErrToolFailed
// and whatever the tool wrapped, so the control errors (StopRun, Retry,
// Interrupt) come first, then the tool's error before what it may wrap.
var callKinds = []struct {
	err  error
	kind string
}{
	{toolreg.ErrInterrupt, outcomeInterrupted},
	{toolreg.ErrStopRun, "stop_run"},
	{toolreg.ErrRetry, "retry"},
	{toolreg.ErrToolFailed, "tool_error"},
	{toolreg.ErrToolPanic, "panic"},
	{toolreg.ErrUnknownTool, "unknown_tool"},
	{toolreg.ErrInvalidArguments, "invalid_arguments"},
	{toolreg.ErrTimeout, "timeout"},
	{toolreg.ErrInvalidResult, "invalid_result"},
	{toolreg.ErrInternal, "internal"},
	{toolreg.ErrOverloaded, "overloaded"},
	{toolreg.ErrNotOffered, "not_offered"},
	{toolreg.ErrRepeatedCall, "repeated_call"},
	{context.DeadlineExceeded, "timeout"},
	{context.Canceled, "canceled"},
}

// callOutcome names what became of a call: "ok", "interrupted" (the tool
// asked the host a question: a pause, not a failure) or the kind of
// failure, "_OTHER" for an error that wraps no sentinel (a middleware's).
func callOutcome(out toolreg.Output) string {
	if !out.IsError {
		return outcomeOK
	}
	for _, k := range callKinds {
		if errors.Is(out.Err, k.err) {
			return k.kind
		}
	}
	return semconv.ErrorTypeOther.Value.AsString()
}

// runKinds name the error a run or a model call ended with.
var runKinds = []struct {
	err  error
	kind string
}{
	{toolreg.ErrStopRun, "stop_run"},
	{toolreg.ErrMaxSteps, "max_steps"},
	{toolreg.ErrTooManyRetries, "too_many_retries"},
	{toolreg.ErrTruncated, "truncated"},
	{agent.ErrUndecided, "undecided"},
	{agent.ErrInvalidStep, "invalid_step"},
	{context.DeadlineExceeded, "timeout"},
	{context.Canceled, "canceled"},
}

// runErrorType is error.type for a run's or a model call's error: the
// toolreg sentinel it wraps; else the HTTP status of a provider's answer,
// as the conventions prefer ("the error code returned by the provider");
// else the error's Go type, as semconv.ErrorType names it.
func runErrorType(err error) attribute.KeyValue {
	for _, k := range runKinds {
		if errors.Is(err, k.err) {
			return semconv.ErrorTypeKey.String(k.kind)
		}
	}
	if code := statusCode(err); code > 0 {
		return semconv.ErrorTypeKey.String(strconv.Itoa(code))
	}
	return semconv.ErrorType(err)
}

// statusCode finds the HTTP status of a provider SDK's error in err's
// chain: the official SDKs' errors (openai-go's and anthropic-sdk-go's
// *Error) have an int field StatusCode. This package imports no provider
// SDK, so it looks for the field by name; 0 when there is none.
func statusCode(err error) int {
	for err != nil {
		v := reflect.ValueOf(err)
		if v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Kind() == reflect.Struct {
			if f := v.Elem().FieldByName("StatusCode"); f.IsValid() && f.CanInt() && f.Int() > 0 {
				return int(f.Int())
			}
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if code := statusCode(e); code > 0 {
					return code
				}
			}
			return 0
		default:
			return 0
		}
	}
	return 0
}

// provider is a runner's provider as the conventions name it, with the
// operation its model calls are.
type provider struct {
	name      genaiconv.ProviderNameAttr
	operation genaiconv.OperationNameAttr
}

// providerOf maps a runner's provider name (agent.RunInfo.Provider) to
// gen_ai.provider.name and gen_ai.operation.name. The gemini adapter may
// reach the Gemini API or Vertex AI, which the conventions name apart; it
// does not say which, so it is gcp.gen_ai ("any Google generative AI
// endpoint"). A provider this package does not know keeps its own name.
func providerOf(runner string) provider {
	base, _, _ := strings.Cut(runner, ".")
	switch base {
	case "openai":
		return provider{genaiconv.ProviderNameOpenAI, genaiconv.OperationNameChat}
	case "anthropic":
		return provider{genaiconv.ProviderNameAnthropic, genaiconv.OperationNameChat}
	case "gemini":
		return provider{genaiconv.ProviderNameGCPGenAI, genaiconv.OperationNameGenerateContent}
	case "bedrock":
		return provider{genaiconv.ProviderNameAWSBedrock, genaiconv.OperationNameChat}
	}
	return provider{genaiconv.ProviderNameAttr(runner), genaiconv.OperationNameChat}
}

// maxNameLen bounds a tool name in span names and attributes: a valid
// name is at most 64 bytes (toolreg.ValidName), and a longer one, which a
// model may send, is an unknown tool whose name need not be kept whole.
const maxNameLen = 64

func boundName(name string) string {
	if len(name) <= maxNameLen {
		return name
	}
	return strings.ToValidUTF8(name[:maxNameLen], "") + "…"
}
