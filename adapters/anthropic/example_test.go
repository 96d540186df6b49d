package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/toolreg/toolreg"
	toolant "github.com/toolreg/toolreg/adapters/anthropic"
	"github.com/toolreg/toolreg/agent"
)

type WeatherArgs struct {
	City string `json:"city" jsonschema:"description=City name"`
}

// scriptedClaude stands in for the Messages API so that the examples run
// offline: it asks for the first tool it is offered with {"city":"Paris"},
// then answers with that tool's result; streamed when asked to stream.
func scriptedClaude() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Stream bool `json:"stream"`
			Tools  []struct {
				Name string `json:"name"`
			} `json:"tools"`
			Messages []struct {
				Content []struct {
					Content []struct {
						Text string `json:"text"`
					} `json:"content"`
				} `json:"content"`
			} `json:"messages"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		// The block, and the same block as it starts in a stream with the
		// delta that completes it.
		block := map[string]any{"type": "tool_use", "id": "toolu_1", "name": req.Tools[0].Name, "input": map[string]any{"city": "Paris"}}
		start := map[string]any{"type": "tool_use", "id": "toolu_1", "name": req.Tools[0].Name, "input": map[string]any{}}
		delta := map[string]any{"type": "input_json_delta", "partial_json": `{"city":"Paris"}`}
		stop := "tool_use"
		if n := len(req.Messages); n > 1 {
			text := "In Paris: " + req.Messages[n-1].Content[0].Content[0].Text
			block = map[string]any{"type": "text", "text": text}
			start = map[string]any{"type": "text", "text": ""}
			delta = map[string]any{"type": "text_delta", "text": text}
			stop = "end_turn"
		}
		msg := map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
			"content": []any{block}, "stop_reason": stop, "usage": map[string]int{"input_tokens": 1, "output_tokens": 1}}
		if !req.Stream {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(msg)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		send := func(typ string, ev map[string]any) {
			ev["type"] = typ
			b, _ := json.Marshal(ev)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b)
		}
		msg["content"], msg["stop_reason"] = []any{}, nil
		send("message_start", map[string]any{"message": msg})
		send("content_block_start", map[string]any{"index": 0, "content_block": start})
		send("content_block_delta", map[string]any{"index": 0, "delta": delta})
		send("content_block_stop", map[string]any{"index": 0})
		send("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop}, "usage": map[string]int{"output_tokens": 1}})
		send("message_stop", map[string]any{})
	}))
}

func ExampleAdapter_Run() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("get_weather", "Current weather for a city.",
		func(_ context.Context, a WeatherArgs) (string, error) { return "18°C, partly cloudy", nil }))
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
	}, agent.Options{
		MaxSteps: 5,
		// Events show the run as it goes: here each call and its result.
		OnEvent: func(e agent.Event) {
			if e.Kind == agent.CallResult {
				fmt.Printf("%s%s -> %s\n", e.Call.Name, e.Call.Arguments, e.Output.Text)
			}
		},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(run.Answer())
	fmt.Println(run.Steps(), "steps,", len(run.Messages), "messages")
	// Output:
	// get_weather{"city":"Paris"} -> 18°C, partly cloudy
	// In Paris: 18°C, partly cloudy
	// 2 steps, 4 messages
}

// A call that needs the host's approval pauses the run; its State, kept
// as JSON for as long as the host takes, resumes it.
func ExampleAdapter_Resume() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("book", "Books a hotel in a city.",
		func(_ context.Context, a WeatherArgs) (string, error) { return "booked a room in " + a.City, nil },
		toolreg.WithApproval()))
	adapter := toolant.New(reg)

	srv := scriptedClaude()
	defer srv.Close()
	client := anthropic.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("offline"))
	params := anthropic.MessageNewParams{
		Model:     anthropic.ModelClaudeSonnet4_6,
		MaxTokens: 1024,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Book me a room in Paris."))},
	}

	run, err := adapter.Run(context.Background(), &client.Messages, params, agent.Options{})
	if !errors.Is(err, agent.ErrPaused) {
		panic(err)
	}
	saved, _ := json.Marshal(run.State) // to a database, a queue, a file

	var state agent.State
	json.Unmarshal(saved, &state)
	for _, c := range state.Pending() {
		fmt.Printf("approve %s %s\n", c.Name, c.Arguments)
		state.Approve(c.Key())
	}
	run, err = adapter.Resume(context.Background(), &client.Messages, params, &state, agent.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(run.Answer())
	// Output:
	// approve book {"city":"Paris"}
	// In Paris: booked a room in Paris
}

// A streamed run shows the answer as it is written and each call as the
// model asks for it.
func ExampleAdapter_Stream() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("get_weather", "Current weather for a city.",
		func(_ context.Context, a WeatherArgs) (string, error) { return "18°C, partly cloudy", nil }))

	srv := scriptedClaude()
	defer srv.Close()
	client := anthropic.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("offline"))

	_, err := toolant.New(reg).Stream(context.Background(), &client.Messages, anthropic.MessageNewParams{
		Model:     anthropic.ModelClaudeSonnet4_6,
		MaxTokens: 1024,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Weather in Paris?"))},
	}, agent.Options{OnEvent: func(e agent.Event) {
		switch e.Kind {
		case agent.CallStarted:
			fmt.Printf("[%s ", e.Call.Name)
		case agent.ArgumentsDelta:
			fmt.Print(e.Delta)
		case agent.CallReady:
			fmt.Println("]")
		case agent.TextDelta:
			fmt.Print(e.Text)
		}
	}})
	fmt.Println()
	if err != nil {
		panic(err)
	}
	// Output:
	// [get_weather {"city":"Paris"}]
	// In Paris: 18°C, partly cloudy
}

// ResumeStream goes on with a paused run on the streaming API; the State
// may come from any runner of this package.
func ExampleAdapter_ResumeStream() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("book", "Books a hotel in a city.",
		func(_ context.Context, a WeatherArgs) (string, error) { return "booked a room in " + a.City, nil },
		toolreg.WithApproval()))
	adapter := toolant.New(reg)
	client := anthropic.NewClient() // reads ANTHROPIC_API_KEY
	params := anthropic.MessageNewParams{
		Model:     anthropic.ModelClaudeSonnet4_6,
		MaxTokens: 1024,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Book me a room in Paris."))},
	}
	printText := agent.Options{OnEvent: func(e agent.Event) {
		if e.Kind == agent.TextDelta {
			fmt.Print(e.Text)
		}
	}}
	run, err := adapter.Stream(context.Background(), &client.Messages, params, printText)
	for errors.Is(err, agent.ErrPaused) {
		for _, c := range run.State.Pending() {
			run.State.Reject(c.Key(), "the user books rooms themselves")
		}
		run, err = adapter.ResumeStream(context.Background(), &client.Messages, params, run.State, printText)
	}
	if err != nil {
		fmt.Println(err)
	}
}
