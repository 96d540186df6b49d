package toolgemini_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolgemini"
	"github.com/toolreg/toolreg/agent"
	"google.golang.org/genai"
)

type weatherArgs struct {
	City string `json:"city" jsonschema:"description=City name\\, e.g. Paris"`
	Days *int   `json:"days,omitempty" jsonschema:"minimum=1,maximum=7"`
}

type forecast struct {
	City   string `json:"city"`
	HighsC []int  `json:"highs_c"`
}

func registry() *toolreg.Registry {
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("get_weather", "Weather forecast for a city. Use it for weather questions only.",
		func(_ context.Context, a weatherArgs) (forecast, error) {
			return forecast{City: a.City, HighsC: []int{18}}, nil
		}))
	return reg
}

// The declarations, as the "tools" of a generateContent request.
func ExampleAdapter_ToolsJSON() {
	tools, err := toolgemini.New(registry(), toolgemini.WithoutResponseSchema()).ToolsJSON()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(tools))
	// Output:
	// [{"functionDeclarations":[{"description":"Weather forecast for a city. Use it for weather questions only.","name":"get_weather","parametersJsonSchema":{"type":"object","properties":{"city":{"type":"string","description":"City name, e.g. Paris"},"days":{"type":"integer","maximum":7,"minimum":1}},"additionalProperties":false,"required":["city"]}}]}]
}

// Answer a model turn: here one the SDK would have returned, with the
// thoughtSignature Gemini 3 puts on the first function call.
func ExampleAdapter_CallAll() {
	a := toolgemini.New(registry())
	model := &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{
		FunctionCall:     &genai.FunctionCall{ID: "fc-1", Name: "get_weather", Args: map[string]any{"city": "Paris"}},
		ThoughtSignature: []byte("opaque"),
	}, {
		FunctionCall: &genai.FunctionCall{ID: "fc-2", Name: "get_weather", Args: map[string]any{"city": "Paris", "days": 9}},
	}}}
	results := a.CallAll(context.Background(), model)

	// The next request's history: the model turn as it came, then the results.
	history := []*genai.Content{genai.NewContentFromText("Weather in Paris?", genai.RoleUser), model, results}
	b, _ := json.MarshalIndent(history[2], "", "  ")
	fmt.Println(string(b))
	// Output:
	// {
	//   "parts": [
	//     {
	//       "functionResponse": {
	//         "id": "fc-1",
	//         "name": "get_weather",
	//         "response": {
	//           "output": {
	//             "city": "Paris",
	//             "highs_c": [
	//               18
	//             ]
	//           }
	//         }
	//       }
	//     },
	//     {
	//       "functionResponse": {
	//         "id": "fc-2",
	//         "name": "get_weather",
	//         "response": {
	//           "error": "invalid arguments for tool \"get_weather\":\n- days: 9 is greater than the maximum 7\nFix the arguments and call the tool again."
	//         }
	//       }
	//     }
	//   ],
	//   "role": "user"
	// }
}

// The same on the wire, for clients other than the SDK.
func ExampleAdapter_CallAllJSON() {
	a := toolgemini.New(registry())
	out, err := a.CallAllJSON(context.Background(), json.RawMessage(`{"role":"model","parts":[
		{"functionCall":{"id":"fc-1","name":"get_weather","args":{"city":"Oslo"}},"thoughtSignature":"c2ln"}]}`))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(out))
	// Output:
	// {"role":"user","parts":[{"functionResponse":{"id":"fc-1","name":"get_weather","response":{"output":{"city":"Oslo","highs_c":[18]}}}}]}
}

// scriptedGemini stands in for the Gemini API so that the examples run
// offline, as a test of your own code would: point the SDK at it with
// genai.ClientConfig's HTTPOptions.BaseURL. It answers each
// generateContent request with the next of replies, streamed on
// streamGenerateContent: a reply `name {args}` (several joined by "; ")
// asks for function calls, which come without ids as they often do, any
// other is the model's answer.
func scriptedGemini(replies ...string) *httptest.Server {
	var n atomic.Int64
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reply := replies[n.Add(1)-1]
		parts := []any{map[string]any{"text": reply}}
		if strings.Contains(reply, "{") {
			parts = nil
			for _, c := range strings.Split(reply, "; ") {
				name, args, _ := strings.Cut(c, " ")
				parts = append(parts, map[string]any{"functionCall": map[string]any{"name": name, "args": json.RawMessage(args)}})
			}
		}
		b, _ := json.Marshal(map[string]any{
			"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
			"usageMetadata": map[string]int{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
		})
		if strings.HasSuffix(r.URL.Path, ":streamGenerateContent") {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: %s\n\n", b) // one chunk: the whole response
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	}))
}

// offlineClient is the SDK's client of srv, as Example_loop makes it.
func offlineClient(srv *httptest.Server) *genai.Client {
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey:      "offline", // a real program reads GEMINI_API_KEY and leaves out HTTPOptions
		Backend:     genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
	})
	if err != nil {
		log.Fatal(err)
	}
	return client
}

// printEvents is agent.Options whose OnEvent prints each call the model
// asks for and its result.
func printEvents() agent.Options {
	return agent.Options{OnEvent: func(e agent.Event) {
		switch e.Kind {
		case agent.CallReady:
			fmt.Println(e.Call.Name, string(e.Call.Arguments))
		case agent.CallResult:
			fmt.Println("  ->", e.Output.Text)
		}
	}}
}

// One adapter serves one registry; tools added to the registry later are
// in the next declarations it makes.
func ExampleNew() {
	reg := registry()
	adapter := toolgemini.New(reg)
	reg.MustAdd(toolreg.MustNew("get_time", "The current time in a city.", func(context.Context, weatherArgs) (string, error) {
		return "10:00", nil
	}))
	tools, err := adapter.Tools()
	for _, d := range tools[0].FunctionDeclarations {
		fmt.Println(d.Name)
	}
	fmt.Println(err)
	// Output:
	// get_weather
	// get_time
	// <nil>
}

// The declarations for GenerateContentConfig.Tools: one genai.Tool holding
// every function, its parameters as JSON Schema and, for a structured
// result, its response schema.
func ExampleAdapter_Tools() {
	tools, err := toolgemini.New(registry()).Tools()
	if err != nil {
		log.Fatal(err)
	}
	d := tools[0].FunctionDeclarations[0]
	params, _ := json.Marshal(d.ParametersJsonSchema)
	response, _ := json.Marshal(d.ResponseJsonSchema)
	fmt.Println(d.Name)
	fmt.Println(string(params))
	fmt.Println(string(response))
	// Output:
	// get_weather
	// {"type":"object","properties":{"city":{"type":"string","description":"City name, e.g. Paris"},"days":{"type":"integer","maximum":7,"minimum":1}},"additionalProperties":false,"required":["city"]}
	// {"type":"object","properties":{"city":{"type":"string"},"highs_c":{"type":["array","null"],"items":{"type":"integer"}}},"additionalProperties":false,"required":["city","highs_c"]}
}

// The older `parameters` form, a genai.Schema, for a model or an API path
// that does not take parametersJsonSchema.
func ExampleWithLegacySchema() {
	tools, err := toolgemini.New(registry(), toolgemini.WithLegacySchema()).ToolsJSON()
	fmt.Println(string(tools), err)
	// Output:
	// [{"functionDeclarations":[{"description":"Weather forecast for a city. Use it for weather questions only.","name":"get_weather","parameters":{"properties":{"city":{"description":"City name, e.g. Paris","type":"STRING"},"days":{"maximum":7,"minimum":1,"type":"INTEGER"}},"required":["city"],"type":"OBJECT"}}]}] <nil>
}

// Without the response schema, for an endpoint that refuses it.
func ExampleWithoutResponseSchema() {
	tools, err := toolgemini.New(registry(), toolgemini.WithoutResponseSchema()).Tools()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(tools[0].FunctionDeclarations[0].ResponseJsonSchema)
	// Output:
	// <nil>
}

// ToolCalls lists the function calls of a model turn and runs nothing; text
// and thoughts are skipped.
func ExampleAdapter_ToolCalls() {
	model := &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{
		{Text: "Let me check."},
		{FunctionCall: &genai.FunctionCall{ID: "fc-1", Name: "get_weather", Args: map[string]any{"city": "Paris"}}},
		{FunctionCall: &genai.FunctionCall{Name: "get_weather", Args: map[string]any{"city": "Rome", "days": 3}}},
	}}
	for _, c := range toolgemini.New(registry()).ToolCalls(model) {
		fmt.Printf("%q %s %s\n", c.ID, c.Name, c.Arguments)
	}
	// Output:
	// "fc-1" get_weather {"city":"Paris"}
	// "" get_weather {"city":"Rome","days":3}
}

// A loop of your own: send the declarations, run the calls of each model
// turn, send the results back, until the model answers in text.
func Example_loop() {
	srv := scriptedGemini(`get_weather {"city":"Paris","days":3}`, "Sunny in Paris for three days.")
	defer srv.Close()
	ctx := context.Background()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey:      "offline", // a real program reads GEMINI_API_KEY and leaves out HTTPOptions
		Backend:     genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
	})
	if err != nil {
		log.Fatal(err)
	}

	a := toolgemini.New(registry())
	tools, err := a.Tools()
	if err != nil {
		log.Fatal(err)
	}
	config := &genai.GenerateContentConfig{Tools: tools}
	history := genai.Text("Weather in Paris for three days?")
	for range 10 { // a bound on the model calls
		resp, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", history, config)
		if err != nil {
			log.Fatal(err)
		}
		if len(resp.Candidates) == 0 {
			log.Fatal("no candidate")
		}
		model := resp.Candidates[0].Content
		results := a.CallAll(ctx, model)
		if results == nil {
			fmt.Println(resp.Text())
			return
		}
		for _, p := range results.Parts {
			response, _ := json.Marshal(p.FunctionResponse.Response)
			fmt.Println(p.FunctionResponse.Name, string(response))
		}
		// The model turn as it came: it carries the thoughtSignature.
		history = append(history, model, results)
	}
	// Output:
	// get_weather {"output":{"city":"Paris","highs_c":[18]}}
	// Sunny in Paris for three days.
}

// The agent loop with the official client: the declarations go out,
// function calls come back, their results go back, until the model
// answers.
func ExampleAdapter_Run() {
	srv := scriptedGemini(`get_weather {"city":"Paris","days":3}`, "Sunny in Paris, 18°C.")
	defer srv.Close()
	client := offlineClient(srv)
	run, err := toolgemini.New(registry()).Run(context.Background(), client.Models, "gemini-2.5-flash",
		genai.Text("Weather in Paris for three days?"), nil, nil, printEvents())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(run.Answer())
	fmt.Println(len(run.Contents), "contents")
	// Output:
	// get_weather {"city":"Paris","days":3}
	//   -> {"city":"Paris","highs_c":[18]}
	// Sunny in Paris, 18°C.
	// 4 contents
}

// book needs the host's approval for every call: a run pauses for it.
var book = toolreg.MustNew("book", "Books a trip to a city.", func(_ context.Context, a weatherArgs) (string, error) {
	return "booked " + a.City, nil
}, toolreg.WithApproval())

// A tool that needs approval pauses the run; the host decides, then
// resumes it. Calls without an id are known by their place in the turn
// (Key "#0", "#1", ...).
func ExampleAdapter_Run_resume() {
	srv := scriptedGemini(`get_weather {"city":"Oslo"}; book {"city":"Oslo"}`, "Booked your trip to Oslo.")
	defer srv.Close()
	client := offlineClient(srv)
	reg := registry()
	reg.MustAdd(book)
	ctx := context.Background()
	a := toolgemini.New(reg)
	run, err := a.Run(ctx, client.Models, "gemini-2.5-flash", genai.Text("Book me a trip to Oslo."), nil, nil, agent.Options{})
	for errors.Is(err, agent.ErrPaused) {
		for _, c := range run.State.Pending() {
			fmt.Printf("%s %s %s: approved\n", c.Key(), c.Name, c.Arguments)
			if err := run.State.Approve(c.Key()); err != nil {
				log.Fatal(err)
			}
		}
		run, err = a.Run(ctx, client.Models, "gemini-2.5-flash", nil, nil, run.State, agent.Options{})
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(run.Answer())
	// Output:
	// #1 book {"city":"Oslo"}: approved
	// Booked your trip to Oslo.
}

// The answer printed as the model writes it, and each function call as it
// arrives.
func ExampleAdapter_Run_stream() {
	srv := scriptedGemini(`get_weather {"city":"Paris","days":3}`, "Sunny in Paris, 18°C.")
	defer srv.Close()
	client := offlineClient(srv)
	_, err := toolgemini.New(registry()).Run(context.Background(), client.Models, "gemini-2.5-flash",
		genai.Text("Weather in Paris for three days?"), nil, nil, agent.Options{Stream: true, OnEvent: func(e agent.Event) {
			switch e.Kind {
			case agent.TextDelta:
				fmt.Print(e.Text)
			case agent.CallReady:
				fmt.Printf("[%s %s]\n", e.Call.Name, e.Call.Arguments)
			}
		}})
	fmt.Println()
	fmt.Println(err)
	// Output:
	// [get_weather {"city":"Paris","days":3}]
	// Sunny in Paris, 18°C.
	// <nil>
}

// A run paused in one process, its State kept as JSON, goes on once the
// host has decided its calls, in another, streaming.
func ExampleAdapter_Run_resumeStream() {
	srv := scriptedGemini(`book {"city":"Oslo"}`, "I will not book it, then.")
	defer srv.Close()
	client := offlineClient(srv)
	reg := registry()
	reg.MustAdd(book)
	ctx := context.Background()

	run, err := toolgemini.New(reg).Run(ctx, client.Models, "gemini-2.5-flash", genai.Text("Book me a trip to Oslo."), nil, nil, agent.Options{Stream: true})
	fmt.Println(err)
	saved, _ := json.Marshal(run.State) // to a database, a queue, a file

	// Later, elsewhere:
	var state agent.State
	if err := json.Unmarshal(saved, &state); err != nil {
		log.Fatal(err)
	}
	state.Reject("#0", "the user cancelled the trip")
	opts := printEvents()
	opts.Stream = true
	run, err = toolgemini.New(reg).Run(ctx, client.Models, "gemini-2.5-flash", nil, nil, &state, opts)
	fmt.Println(run.Answer(), err)
	// Output:
	// the run is waiting for the host
	//   -> the host did not allow this call of "book": the user cancelled the trip
	// I will not book it, then. <nil>
}

// Answer is the text of the model's last content, thoughts left out;
// Final holds the whole response.
func ExampleRunResult_Answer() {
	srv := scriptedGemini("Hello! Ask me about the weather.")
	defer srv.Close()
	client := offlineClient(srv)
	run, err := toolgemini.New(registry()).Run(context.Background(), client.Models, "gemini-2.5-flash", genai.Text("Hi"), nil, nil, agent.Options{})
	fmt.Println(run.Answer(), err)
	fmt.Println(run.Final.Candidates[0].FinishReason, run.Final.UsageMetadata.TotalTokenCount, "tokens")
	// Output:
	// Hello! Ask me about the weather. <nil>
	// STOP 15 tokens
}

// Steps counts the model calls, those before a pause included.
func ExampleRunResult_Steps() {
	srv := scriptedGemini(`get_weather {"city":"Lima"}`, `book {"city":"Lima"}`, "Booked.")
	defer srv.Close()
	client := offlineClient(srv)
	reg := registry()
	reg.MustAdd(book)
	a := toolgemini.New(reg)
	run, _ := a.Run(context.Background(), client.Models, "gemini-2.5-flash", genai.Text("Book Lima."), nil, nil, agent.Options{})
	fmt.Println("paused after", run.Steps(), "steps")
	run.State.Approve("#0")
	run, _ = a.Run(context.Background(), client.Models, "gemini-2.5-flash", nil, nil, run.State, agent.Options{})
	fmt.Println("done after", run.Steps(), "steps")
	// Output:
	// paused after 2 steps
	// done after 3 steps
}

// A host that drives the run itself (a durable workflow, say) asks the
// model through Model, one step at a time, and runs the calls where it
// likes.
func ExampleAdapter_Model() {
	srv := scriptedGemini(`get_weather {"city":"Paris"}`, "Mild in Paris.")
	defer srv.Close()
	client := offlineClient(srv)
	ctx := context.Background()
	reg := registry()

	var state agent.State
	model, err := toolgemini.New(reg).Model(client.Models, "gemini-2.5-flash", genai.Text("Weather in Paris?"), nil, &state)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(model.Info())
	for step := 1; ; step++ {
		reply, err := model.Ask(ctx, agent.NewStep(step, reg), nil, nil)
		if err != nil {
			log.Fatal(err)
		}
		if len(reply.Calls) == 0 {
			break
		}
		outs := reg.CallAll(ctx, reply.Calls) // or each in an activity of its own
		fmt.Println(reply.Calls[0].Name, "->", outs[0].Text)
		model.Answer(reply.Calls, outs)
	}
	model.Save(&state) // the transcript, as JSON, to resume from
	var transcript []json.RawMessage
	json.Unmarshal(state.Transcript, &transcript)
	fmt.Println(len(transcript), "contents")
	// Output:
	// {gemini gemini-2.5-flash}
	// get_weather -> {"city":"Paris","highs_c":[18]}
	// 4 contents
}

// A model or API version that refuses mode VALIDATED gets only the tools
// a step offers, with mode AUTO.
func ExampleWithTrimmedTools() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Tools []struct {
				FunctionDeclarations []struct{ Name string } `json:"functionDeclarations"`
			} `json:"tools"`
			ToolConfig struct {
				FunctionCallingConfig struct{ Mode string } `json:"functionCallingConfig"`
			} `json:"toolConfig"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		for _, t := range req.Tools {
			for _, d := range t.FunctionDeclarations {
				fmt.Print(d.Name, " ")
			}
		}
		fmt.Println(req.ToolConfig.FunctionCallingConfig.Mode)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"candidates":[{"content":{"role":"model","parts":[{"text":"Noon."}]},"finishReason":"STOP","index":0}]}`)
	}))
	defer srv.Close()
	reg := registry()
	reg.MustAdd(toolreg.MustNew("get_time", "The current time.", func(context.Context, struct{}) (string, error) { return "noon", nil }))
	hide := agent.Options{PrepareStep: func(_ context.Context, s *agent.Step) error { return s.Hide("get_weather") }}
	client := offlineClient(srv)
	toolgemini.New(reg).Run(context.Background(), client.Models, "gemini-2.5-flash", genai.Text("Time?"), nil, nil, hide)
	toolgemini.New(reg, toolgemini.WithTrimmedTools()).Run(context.Background(), client.Models, "gemini-2.5-flash", genai.Text("Time?"), nil, nil, hide)
	// Output:
	// get_weather get_time VALIDATED
	// get_time AUTO
}
