package gemini_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/gemini"
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
	tools, err := gemini.New(registry(), gemini.WithoutResponseSchema()).ToolsJSON()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(tools))
	// Output:
	// [{"functionDeclarations":[{"description":"Weather forecast for a city. Use it for weather questions only.","name":"get_weather","parametersJsonSchema":{"type":"object","properties":{"city":{"type":"string","description":"City name, e.g. Paris"},"days":{"type":"integer","maximum":7,"minimum":1}},"additionalProperties":false,"required":["city"]}}]}]
}

// Answer a model turn: here one the SDK would have returned, with the
// thoughtSignature Gemini 3 puts on the first function call.
func ExampleAdapter_Call() {
	a := gemini.New(registry())
	model := &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{
		FunctionCall:     &genai.FunctionCall{ID: "fc-1", Name: "get_weather", Args: map[string]any{"city": "Paris"}},
		ThoughtSignature: []byte("opaque"),
	}, {
		FunctionCall: &genai.FunctionCall{ID: "fc-2", Name: "get_weather", Args: map[string]any{"city": "Paris", "days": 9}},
	}}}
	results := a.Call(context.Background(), model)

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
func ExampleAdapter_CallJSON() {
	a := gemini.New(registry())
	out, err := a.CallJSON(context.Background(), json.RawMessage(`{"role":"model","parts":[
		{"functionCall":{"id":"fc-1","name":"get_weather","args":{"city":"Oslo"}},"thoughtSignature":"c2ln"}]}`))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(out))
	// Output:
	// {"role":"user","parts":[{"functionResponse":{"id":"fc-1","name":"get_weather","response":{"output":{"city":"Oslo","highs_c":[18]}}}}]}
}

// A loop against the Gemini API: send the tools, run the calls of each
// model turn, send the results back, until the model answers in text.
// (Needs GEMINI_API_KEY, so it is compiled but not run.)
func Example_loop() {
	ctx := context.Background()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{Backend: genai.BackendGeminiAPI})
	if err != nil {
		log.Fatal(err)
	}
	a := gemini.New(registry())
	tools, err := a.Tools()
	if err != nil {
		log.Fatal(err)
	}
	config := &genai.GenerateContentConfig{Tools: tools}
	history := genai.Text("Weather in Paris for three days?")
	for range 10 {
		resp, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", history, config)
		if err != nil {
			log.Fatal(err)
		}
		if len(resp.Candidates) == 0 {
			log.Fatal("no candidate")
		}
		model := resp.Candidates[0].Content
		results := a.Call(ctx, model)
		if results == nil {
			fmt.Println(resp.Text())
			return
		}
		// The model turn as it came: it carries the thoughtSignature.
		history = append(history, model, results)
	}
}

// The agent loop with the official client: the declarations go out,
// function calls come back, their results go back, until the model
// answers. (Needs GEMINI_API_KEY, so it is compiled but not run.)
func ExampleAdapter_Run() {
	ctx := context.Background()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{Backend: genai.BackendGeminiAPI})
	if err != nil {
		log.Fatal(err)
	}
	run, err := gemini.New(registry()).Run(ctx, client.Models, "gemini-2.5-flash",
		genai.Text("Weather in Paris for three days?"), nil, agent.Options{MaxSteps: 5})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(run.Answer())
}

// A tool that needs approval pauses the run; the host decides, then
// resumes it. Calls without an id are known by their place in the turn
// (Key "#0", "#1", ...). (Needs GEMINI_API_KEY, so it is compiled but not
// run.)
func ExampleAdapter_Resume() {
	type trip struct {
		City string `json:"city"`
	}
	reg := registry()
	reg.MustAdd(toolreg.MustNew("book", "Books a trip to a city.", func(_ context.Context, a trip) (string, error) {
		return "booked " + a.City, nil
	}, toolreg.WithApproval()))
	ctx := context.Background()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{Backend: genai.BackendGeminiAPI})
	if err != nil {
		log.Fatal(err)
	}
	a := gemini.New(reg)
	run, err := a.Run(ctx, client.Models, "gemini-2.5-flash", genai.Text("Book me a trip to Oslo."), nil, agent.Options{})
	for errors.Is(err, agent.ErrPaused) {
		for _, c := range run.State.Pending() {
			fmt.Printf("%s %s: approved\n", c.Name, c.Arguments)
			if err := run.State.Approve(c.Key()); err != nil {
				log.Fatal(err)
			}
		}
		run, err = a.Resume(ctx, client.Models, "gemini-2.5-flash", nil, run.State, agent.Options{})
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(run.Answer())
}

// The answer printed as the model writes it, and each function call as it
// starts. (Needs GEMINI_API_KEY, so it is compiled but not run.)
func ExampleAdapter_Stream() {
	ctx := context.Background()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{Backend: genai.BackendGeminiAPI})
	if err != nil {
		log.Fatal(err)
	}
	_, err = gemini.New(registry()).Stream(ctx, client.Models, "gemini-2.5-flash",
		genai.Text("Weather in Paris for three days?"), nil, agent.Options{OnEvent: func(e agent.Event) {
			switch e.Kind {
			case agent.TextDelta:
				fmt.Print(e.Text)
			case agent.CallReady:
				fmt.Printf("[%s %s]\n", e.Call.Name, e.Call.Arguments)
			}
		}})
	if err != nil {
		log.Fatal(err)
	}
}

// A run paused in another process, its State kept as JSON, goes on once
// the host has decided its calls there, streaming. (Needs GEMINI_API_KEY
// and the saved state, so it is compiled but not run.)
func ExampleAdapter_ResumeStream() {
	saved, err := os.ReadFile("paused-run.json")
	if err != nil {
		log.Fatal(err)
	}
	var state agent.State
	if err := json.Unmarshal(saved, &state); err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{Backend: genai.BackendGeminiAPI})
	if err != nil {
		log.Fatal(err)
	}
	run, err := gemini.New(registry()).ResumeStream(ctx, client.Models, "gemini-2.5-flash", nil, &state,
		agent.Options{OnEvent: func(e agent.Event) {
			if e.Kind == agent.TextDelta {
				fmt.Print(e.Text)
			}
		}})
	if errors.Is(err, agent.ErrPaused) {
		saved, _ = json.Marshal(run.State) // paused again: keep it for the host
		if err := os.WriteFile("paused-run.json", saved, 0o600); err != nil {
			log.Fatal(err)
		}
		return
	}
	if err != nil {
		log.Fatal(err)
	}
}
