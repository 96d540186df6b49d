package toolotel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/toolotel"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// forecastRegistry holds get_weather, which answers for any city.
func forecastRegistry() *toolreg.Registry {
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("get_weather", "Forecast for a city.", func(_ context.Context, a weatherArgs) (string, error) {
		return "Sunny in " + a.City, nil
	}))
	return reg
}

// WithContent records the arguments and the result on each tool span:
// where your telemetry may hold what the model and the tools send.
func ExampleWithContent() {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reg := forecastRegistry()
	reg.Use(toolotel.Middleware(toolotel.WithTracerProvider(tp), toolotel.WithContent()))
	reg.CallAll(context.Background(), []toolreg.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}})
	a := attrs(spans.Ended()[0].Attributes())
	fmt.Println(a["gen_ai.tool.call.arguments"])
	fmt.Println(a["gen_ai.tool.call.result"])
	// Output:
	// {"city":"Paris"}
	// Sunny in Paris
}

// agentRun is a run as a runner reports it to an Observer.
var agentRun = agent.RunInfo{Provider: "openai.chat", Model: "gpt-4o"}

// A host that drives runs itself (asking the model through an adapter's
// Model) reports them to the Observer as the runners do: the run, and
// each model call in it with its usage; the tool calls of the run go under
// the context RunStarted returns.
func ExampleObserver_RunStarted() {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	obs := toolotel.NewObserver(toolotel.WithTracerProvider(tp))
	reg := forecastRegistry()
	reg.Use(toolotel.Middleware(toolotel.WithTracerProvider(tp)))

	ctx := obs.RunStarted(context.Background(), agentRun)
	call := agent.ModelCall{RunInfo: agentRun, Step: 1}
	callCtx := obs.ModelCallStarted(ctx, call)
	// ... ask the model ...
	obs.ModelCallEnded(callCtx, call, agent.Usage{InputTokens: 52, OutputTokens: 18}, nil)
	stepOne := toolreg.WithCallInfo(ctx, func(toolreg.ToolCall) toolreg.CallInfo { return toolreg.CallInfo{Step: 1, Attempt: 1} })
	reg.Call(stepOne, "get_weather", json.RawMessage(`{"city":"Oslo"}`))
	obs.RunEnded(ctx, agentRun, nil)
	printSpans(spans.Ended())
	// Output:
	// invoke_agent (internal)
	//   gen_ai.operation.name=invoke_agent
	//   gen_ai.provider.name=openai
	//   gen_ai.request.model=gpt-4o
	//   gen_ai.usage.input_tokens=52
	//   gen_ai.usage.output_tokens=18
	//   chat gpt-4o (client)
	//     gen_ai.operation.name=chat
	//     gen_ai.provider.name=openai
	//     gen_ai.request.model=gpt-4o
	//     gen_ai.usage.input_tokens=52
	//     gen_ai.usage.output_tokens=18
	//     toolreg.step=1
	//   execute_tool get_weather (internal)
	//     gen_ai.operation.name=execute_tool
	//     gen_ai.tool.name=get_weather
	//     gen_ai.tool.type=function
	//     toolreg.attempt=1
	//     toolreg.step=1
}

// WithAgentName tells apart the agents of one process: their runs' spans,
// their calls and their metrics carry the name.
func ExampleWithAgentName() {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	obs := toolotel.NewObserver(toolotel.WithTracerProvider(tp), toolotel.WithAgentName("travel-desk"))
	ctx := obs.RunStarted(context.Background(), agentRun)
	obs.RunEnded(ctx, agentRun, nil)
	s := spans.Ended()[0]
	fmt.Println(s.Name(), attrs(s.Attributes())["gen_ai.agent.name"])
	// Output:
	// invoke_agent travel-desk travel-desk
}

// WithTracerProvider records spans with a provider of the host's, here one
// that keeps them in memory, as a test would.
func ExampleWithTracerProvider() {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reg := forecastRegistry()
	reg.Use(toolotel.Middleware(toolotel.WithTracerProvider(tp)))
	reg.Call(context.Background(), "get_weather", json.RawMessage(`{"city":"Oslo"}`))
	for _, s := range spans.Ended() {
		fmt.Println(s.Name(), s.SpanKind())
	}
	// Output:
	// execute_tool get_weather internal
}

// WithMeterProvider records metrics with a provider of the host's: here
// one read by hand, as a test would.
func ExampleWithMeterProvider() {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	reg := forecastRegistry()
	reg.Use(toolotel.Middleware(toolotel.WithMeterProvider(mp)))
	reg.Call(context.Background(), "get_weather", json.RawMessage(`{"city":"Oslo"}`))
	reg.Call(context.Background(), "get_weather", json.RawMessage(`{"town":"Oslo"}`))

	var rm metricdata.ResourceMetrics
	reader.Collect(context.Background(), &rm)
	var lines []string
	for _, m := range rm.ScopeMetrics[0].Metrics {
		if sum, ok := m.Data.(metricdata.Sum[int64]); ok {
			for _, p := range sum.DataPoints {
				outcome, _ := p.Attributes.Value("toolreg.outcome")
				lines = append(lines, fmt.Sprint(m.Name, " ", outcome.Emit(), " ", p.Value))
			}
		}
	}
	slices.Sort(lines) // the points come in no set order
	fmt.Println(strings.Join(lines, "\n"))
	// Output:
	// toolreg.tool.calls invalid_arguments 1
	// toolreg.tool.calls ok 1
}
