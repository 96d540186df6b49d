package toolotel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/toolotel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// A span per tool call, with the GenAI conventions' attributes; nothing of
// the arguments or the result unless WithContent is given.
func ExampleMiddleware() {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))

	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("get_weather", "Forecast for a city.", func(_ context.Context, a weatherArgs) (string, error) {
		return "Sunny in " + a.City, nil
	}))
	reg.Use(toolotel.Middleware(toolotel.WithTracerProvider(tp)))
	reg.CallAll(context.Background(), []toolreg.ToolCall{
		{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)},
		{ID: "call_2", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Rome","days":9}`)},
	})
	printSpans(spans.Ended())
	// Output:
	// execute_tool get_weather (internal)
	//   gen_ai.operation.name=execute_tool
	//   gen_ai.tool.call.id=call_1
	//   gen_ai.tool.name=get_weather
	//   gen_ai.tool.type=function
	// execute_tool get_weather (internal) Error: invalid_arguments
	//   error.type=invalid_arguments
	//   gen_ai.operation.name=execute_tool
	//   gen_ai.tool.call.id=call_2
	//   gen_ai.tool.name=get_weather
	//   gen_ai.tool.type=function
}

// The trace of a whole agent turn: the run, its model calls and its tool
// calls, here of a run of the OpenAI runner against a scripted model.
func ExampleNewObserver() {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))

	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("get_weather", "Forecast for a city.", func(_ context.Context, a weatherArgs) (string, error) {
		return "Sunny in " + a.City, nil
	}))
	reg.Use(toolotel.Middleware(toolotel.WithTracerProvider(tp)))

	model := scriptedModel(
		chatReply(52, 18, "get_weather", `{"city":"Paris"}`, "get_weather", `{"city":"Rome"}`),
		chatReply(97, 9),
	)
	defer model.Close()
	client := openai.NewClient(option.WithBaseURL(model.URL), option.WithAPIKey("offline"))
	_, err := toolopenai.NewChat(reg).Run(context.Background(), &client.Chat.Completions, openai.ChatCompletionNewParams{
		Model:    "gpt-4o",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Paris or Rome: where is it sunny?")},
	}, nil, agent.Options{Observer: toolotel.NewObserver(toolotel.WithTracerProvider(tp), toolotel.WithAgentName("weather-bot"))})
	if err != nil {
		fmt.Println(err)
	}
	printSpans(spans.Ended())
	// Output:
	// invoke_agent weather-bot (internal)
	//   gen_ai.agent.name=weather-bot
	//   gen_ai.operation.name=invoke_agent
	//   gen_ai.provider.name=openai
	//   gen_ai.request.model=gpt-4o
	//   gen_ai.usage.input_tokens=149
	//   gen_ai.usage.output_tokens=27
	//   chat gpt-4o (client)
	//     gen_ai.operation.name=chat
	//     gen_ai.provider.name=openai
	//     gen_ai.request.model=gpt-4o
	//     gen_ai.usage.input_tokens=52
	//     gen_ai.usage.output_tokens=18
	//     toolreg.step=1
	//   execute_tool get_weather (internal)
	//     gen_ai.agent.name=weather-bot
	//     gen_ai.operation.name=execute_tool
	//     gen_ai.tool.call.id=call_1
	//     gen_ai.tool.name=get_weather
	//     gen_ai.tool.type=function
	//     toolreg.attempt=1
	//     toolreg.step=1
	//   execute_tool get_weather (internal)
	//     gen_ai.agent.name=weather-bot
	//     gen_ai.operation.name=execute_tool
	//     gen_ai.tool.call.id=call_2
	//     gen_ai.tool.name=get_weather
	//     gen_ai.tool.type=function
	//     toolreg.attempt=1
	//     toolreg.step=1
	//   chat gpt-4o (client)
	//     gen_ai.operation.name=chat
	//     gen_ai.provider.name=openai
	//     gen_ai.request.model=gpt-4o
	//     gen_ai.usage.input_tokens=97
	//     gen_ai.usage.output_tokens=9
	//     toolreg.step=2
}

// scriptedModel serves Chat Completions with the given replies, in order.
func scriptedModel(replies ...string) *httptest.Server {
	var n atomic.Int64
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, replies[int(n.Add(1)-1)%len(replies)])
	}))
}

// printSpans prints spans as a tree, each with its kind, status and
// attributes, leaving out what changes from run to run (ids, times).
// Siblings are in the order of the steps, a step's model call first, then
// its tool calls by call id.
func printSpans(spans []sdktrace.ReadOnlySpan) {
	children := map[string][]sdktrace.ReadOnlySpan{}
	ids := map[string]bool{}
	for _, s := range spans {
		ids[s.SpanContext().SpanID().String()] = true
	}
	for _, s := range spans {
		parent := s.Parent().SpanID().String()
		if !ids[parent] {
			parent = ""
		}
		children[parent] = append(children[parent], s)
	}
	order := func(s sdktrace.ReadOnlySpan) string {
		a := attrs(s.Attributes())
		return fmt.Sprintf("%3s %v %s", a["toolreg.step"], !strings.HasPrefix(s.Name(), "chat"), a["gen_ai.tool.call.id"])
	}
	var print func(parent, indent string)
	print = func(parent, indent string) {
		kids := children[parent]
		slices.SortFunc(kids, func(a, b sdktrace.ReadOnlySpan) int { return strings.Compare(order(a), order(b)) })
		for _, s := range kids {
			status := ""
			if st := s.Status(); st.Code.String() != "Unset" {
				status = " " + st.Code.String() + ": " + st.Description
			}
			fmt.Printf("%s%s (%s)%s\n", indent, s.Name(), s.SpanKind(), status)
			var lines []string
			for _, kv := range s.Attributes() {
				lines = append(lines, fmt.Sprintf("%s  %s=%s", indent, kv.Key, kv.Value.Emit()))
			}
			slices.Sort(lines)
			for _, l := range lines {
				fmt.Println(l)
			}
			print(s.SpanContext().SpanID().String(), indent+"  ")
		}
	}
	print("", "")
}
