package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/toolreg/toolreg"
	tooloai "github.com/toolreg/toolreg/adapters/openai"
	"github.com/toolreg/toolreg/agent"
)

// offlineModel is a Chat Completions server that answers each request with
// the next of replies: a list of tool calls ("name {args}", ...) or, for a
// reply without "{", the model's answer. It prints what each request
// offers the model. Point the SDK at it with option.WithBaseURL, as a test
// of your own agent would.
func offlineModel(replies ...string) *httptest.Server {
	n := 0
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Tools []struct {
				Function struct{ Name string } `json:"function"`
			} `json:"tools"`
			ToolChoice any `json:"tool_choice"`
		}
		body, _ := io.ReadAll(r.Body)
		json.Unmarshal(body, &req)
		var offered []string
		for _, t := range req.Tools {
			offered = append(offered, t.Function.Name)
		}
		choice, _ := json.Marshal(req.ToolChoice)
		fmt.Printf("  (the model is offered %v, tool_choice %s)\n", offered, choice)
		reply := replies[n]
		n++
		msg := map[string]any{"role": "assistant", "content": reply}
		finish := "stop"
		if strings.Contains(reply, "{") {
			var calls []map[string]any
			for i, c := range strings.Split(reply, "; ") {
				name, args, _ := strings.Cut(c, " ")
				calls = append(calls, map[string]any{"id": fmt.Sprintf("call_%d_%d", n, i), "type": "function",
					"function": map[string]any{"name": name, "arguments": args}})
			}
			msg, finish = map[string]any{"role": "assistant", "tool_calls": calls}, "tool_calls"
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "c", "object": "chat.completion", "created": 1, "model": "m",
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}})
	}))
}

var weather = toolreg.MustNew("get_weather", "Forecast for a city.", func(_ context.Context, a struct {
	City string `json:"city"`
}) (string, error) {
	return "sunny in " + a.City, nil
})

var book = toolreg.MustNew("book_hotel", "Books a hotel room.", func(_ context.Context, a struct {
	City string `json:"city"`
}) (string, error) {
	return "booked in " + a.City, nil
}, toolreg.WithApproval())

func params(prompt string) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{Model: "gpt-4.1-mini", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt)}}
}

// A call that needs approval pauses the run; the state goes through JSON
// (to a database, for a day), the host decides, and the run resumes. The
// weather call of the same turn ran before the pause and does not run
// again.
func ExampleState_Approve() {
	srv := offlineModel(`get_weather {"city":"Lima"}; book_hotel {"city":"Lima"}`, "Booked: sunny in Lima.")
	defer srv.Close()
	client := openai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"))
	reg := toolreg.NewRegistry()
	reg.MustAdd(weather, book)
	adapter := tooloai.New(reg)

	run, err := adapter.RunChat(context.Background(), &client.Chat.Completions, params("Book me a sunny city."), agent.Options{})
	fmt.Println(errors.Is(err, agent.ErrPaused))
	saved, _ := json.Marshal(run.State)

	var state agent.State
	json.Unmarshal(saved, &state)
	for _, c := range state.Pending() {
		fmt.Println("waiting:", c.Name, string(c.Arguments), c.Status)
		state.Approve(c.Key())
	}
	run, err = adapter.ResumeChat(context.Background(), &client.Chat.Completions, params("Book me a sunny city."), &state, agent.Options{})
	fmt.Println(run.Answer(), err)
	// Output:
	//   (the model is offered [get_weather book_hotel], tool_choice "auto")
	// true
	// waiting: book_hotel {"city":"Lima"} approval
	//   (the model is offered [get_weather book_hotel], tool_choice "auto")
	// Booked: sunny in Lima. <nil>
}

// A rejected call tells the model why, as the call's result.
func ExampleState_Reject() {
	srv := offlineModel(`book_hotel {"city":"Lima"}`, "I did not book Lima.")
	defer srv.Close()
	client := openai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"))
	reg := toolreg.NewRegistry()
	reg.MustAdd(book)
	adapter := tooloai.New(reg)
	var results []string
	opts := agent.Options{OnEvent: func(e agent.Event) {
		if e.Kind == agent.CallResult {
			results = append(results, e.Output.Text)
		}
	}}
	run, _ := adapter.RunChat(context.Background(), &client.Chat.Completions, params("Book Lima."), opts)
	run.State.Reject(run.State.Pending()[0].Key(), "the trip is cancelled")
	run, _ = adapter.ResumeChat(context.Background(), &client.Chat.Completions, params("Book Lima."), run.State, opts)
	fmt.Println(results[0])
	fmt.Println(run.Answer())
	// Output:
	//   (the model is offered [book_hotel], tool_choice "auto")
	//   (the model is offered [book_hotel], tool_choice "auto")
	// the host did not allow this call of "book_hotel": the trip is cancelled
	// I did not book Lima.
}

// A tool that needs the host's answer interrupts; the host answers and the
// tool runs again with the answer.
func ExampleState_Answer() {
	pick := toolreg.MustNew("pick_room", "Picks a room.", func(ctx context.Context, _ struct{}) (string, error) {
		if a := toolreg.Info(ctx).Answer; a != nil {
			return "room " + string(a), nil
		}
		return "", toolreg.Interrupt([]string{"sea view", "garden view"})
	})
	srv := offlineModel(`pick_room {}`, "Done.")
	defer srv.Close()
	client := openai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"))
	reg := toolreg.NewRegistry()
	reg.MustAdd(pick)
	adapter := tooloai.New(reg)
	opts := agent.Options{OnEvent: func(e agent.Event) {
		if e.Kind == agent.CallResult {
			fmt.Println("result:", e.Output.Text)
		}
	}}
	run, _ := adapter.RunChat(context.Background(), &client.Chat.Completions, params("Pick a room."), opts)
	c := run.State.Pending()[0]
	fmt.Println("the tool asks:", string(c.Question))
	run.State.Answer(c.Key(), "sea view")
	run, _ = adapter.ResumeChat(context.Background(), &client.Chat.Completions, params("Pick a room."), run.State, opts)
	fmt.Println(run.Answer())
	// Output:
	//   (the model is offered [pick_room], tool_choice "auto")
	// the tool asks: ["sea view","garden view"]
	// result: room "sea view"
	//   (the model is offered [pick_room], tool_choice "auto")
	// Done.
}

// PrepareStep chooses each step's tools and tool choice, checked against
// the registry; each runner sends them in its provider's form.
func ExampleStep() {
	srv := offlineModel(`get_weather {"city":"Oslo"}`, "It is sunny in Oslo.")
	defer srv.Close()
	client := openai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"))
	reg := toolreg.NewRegistry()
	reg.MustAdd(weather, book)
	run, err := tooloai.New(reg).RunChat(context.Background(), &client.Chat.Completions, params("Weather in Oslo?"), agent.Options{
		PrepareStep: func(_ context.Context, s *agent.Step) error {
			if s.Number == 1 {
				s.Choice = agent.Force("get_weather")
				return s.Only("get_weather")
			}
			s.Choice = agent.None
			return nil
		},
	})
	fmt.Println(run.Answer(), err)
	// Output:
	//   (the model is offered [get_weather], tool_choice {"function":{"name":"get_weather"},"type":"function"})
	//   (the model is offered [get_weather book_hotel], tool_choice "none")
	// It is sunny in Oslo. <nil>
}

// OnEvent sees a run as it happens, the same for every provider.
func ExampleOptions_onEvent() {
	srv := offlineModel(`get_weather {"city":"Rome"}; get_weather {"city":"Nice"}`, "Both are sunny.")
	defer srv.Close()
	client := openai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"))
	reg := toolreg.NewRegistry()
	reg.MustAdd(weather)
	tooloai.New(reg).RunChat(context.Background(), &client.Chat.Completions, params("Rome or Nice?"), agent.Options{OnEvent: func(e agent.Event) {
		fmt.Println(strings.TrimSpace(fmt.Sprintf("step %d: %s %s %s", e.Step, e.Kind, e.Call.Name, e.Output.Text)))
	}})
	// Output:
	//   (the model is offered [get_weather], tool_choice "auto")
	// step 1: step done
	// step 1: call ready get_weather
	// step 1: call ready get_weather
	// step 1: call result get_weather sunny in Rome
	// step 1: call result get_weather sunny in Nice
	//   (the model is offered [get_weather], tool_choice "auto")
	// step 2: step done
}
