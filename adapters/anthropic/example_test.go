package anthropic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/toolreg/toolreg"
	toolant "github.com/toolreg/toolreg/adapters/anthropic"
)

type WeatherArgs struct {
	City string `json:"city" jsonschema:"description=City name"`
}

// scriptedClaude stands in for the Messages API so that the example runs
// offline: it asks for the weather, then answers with the tool's result.
func scriptedClaude() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		body, _ := io.ReadAll(r.Body)
		json.Unmarshal(body, &req)
		w.Header().Set("Content-Type", "application/json")
		if len(req.Messages) == 1 {
			io.WriteString(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5",
				"content":[{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}],
				"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1}}`)
			return
		}
		var results []struct {
			Content []struct{ Text string } `json:"content"`
		}
		json.Unmarshal(req.Messages[len(req.Messages)-1].Content, &results)
		answer, _ := json.Marshal("In Paris: " + results[0].Content[0].Text)
		fmt.Fprintf(w, `{"id":"msg_2","type":"message","role":"assistant","model":"claude-sonnet-4-5",
			"content":[{"type":"text","text":%s}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`, answer)
	}))
}

func ExampleAdapter_Run() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("get_weather", "Current weather for a city.",
		func(_ context.Context, a WeatherArgs) (string, error) { return "18°C, partly cloudy", nil }))
	// Middleware sees every call the run makes, and its Output.
	reg.Use(func(next toolreg.Handler) toolreg.Handler {
		return toolreg.HandlerFunc(func(ctx context.Context, call toolreg.ToolCall) toolreg.Output {
			out := next.HandleCall(ctx, call)
			fmt.Printf("%s%s -> %s\n", call.Name, call.Arguments, out.Text)
			return out
		})
	})
	adapter := toolant.New(reg, toolant.WithStrict())

	srv := scriptedClaude() // a real program leaves out the base URL
	defer srv.Close()
	client := anthropic.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("offline"))

	tools, err := adapter.Tools()
	if err != nil {
		panic(err)
	}
	// Mark the tools for prompt caching; each Tools call returns fresh params.
	tools[len(tools)-1].OfTool.CacheControl = anthropic.NewCacheControlEphemeralParam()

	run, err := adapter.Run(context.Background(), &client.Messages, anthropic.MessageNewParams{
		Model:     anthropic.ModelClaudeSonnet4_6,
		MaxTokens: 1024,
		Tools:     tools,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Weather in Paris?"))},
	}, toolant.RunOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println(run.Answer())
	fmt.Println(run.Steps, "steps,", len(run.Messages), "messages")
	// Output:
	// get_weather{"city":"Paris"} -> 18°C, partly cloudy
	// In Paris: 18°C, partly cloudy
	// 2 steps, 4 messages
}
