package toolgemini_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"sync/atomic"

	"github.com/toolreg/toolreg/adapters/toolgemini"
	"github.com/toolreg/toolreg/agent"
	"google.golang.org/genai"
)

// Vertex AI streams a call's arguments in pieces when the tool config asks
// for it (streamFunctionCallArguments): the run reports them as the JSON
// text of the arguments growing, as the other providers' deltas, and runs
// the call once its last piece has come.
func ExampleAdapter_Run_streamFunctionCallArguments() {
	chunks := []string{
		`{"functionCall":{"name":"get_weather","willContinue":true}}`,
		`{"functionCall":{"partialArgs":[{"jsonPath":"$.city","stringValue":"Par","willContinue":true}],"willContinue":true}}`,
		`{"functionCall":{"partialArgs":[{"jsonPath":"$.city","stringValue":"is"},{"jsonPath":"$.days","numberValue":3}],"willContinue":true}}`,
		`{"functionCall":{}}`,
	}
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		parts := []string{`{"text":"Sunny in Paris."}`}
		if n.Add(1) == 1 {
			parts = chunks
		}
		for i, p := range parts {
			finish := ""
			if i == len(parts)-1 {
				finish = `,"finishReason":"STOP"`
			}
			fmt.Fprintf(w, "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[%s]},\"index\":0%s}]}\n\n", p, finish)
		}
	}))
	defer srv.Close()
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: "offline", Backend: genai.BackendVertexAI, HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
	})
	if err != nil {
		log.Fatal(err)
	}
	config := &genai.GenerateContentConfig{ToolConfig: &genai.ToolConfig{
		FunctionCallingConfig: &genai.FunctionCallingConfig{StreamFunctionCallArguments: genai.Ptr(true)},
	}}
	run, err := toolgemini.New(registry()).Run(context.Background(), client.Models, "gemini-3-pro-preview",
		genai.Text("Weather in Paris for three days?"), config, nil, agent.Options{Stream: true, OnEvent: func(e agent.Event) {
			switch e.Kind {
			case agent.ArgumentsDelta:
				fmt.Printf("delta %s\n", e.Delta)
			case agent.CallReady:
				fmt.Printf("ready %s %s\n", e.Call.Name, e.Call.Arguments)
			}
		}})
	fmt.Println(run.Answer(), err)
	// Output:
	// delta {
	// delta "city":"Par
	// delta is","days":3
	// delta }
	// ready get_weather {"city":"Paris","days":3}
	// Sunny in Paris. <nil>
}
