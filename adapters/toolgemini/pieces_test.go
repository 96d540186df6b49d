package toolgemini

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/adapt/adapttest"
	"google.golang.org/genai"
)

// piece is a functionCall part of a call streamed in pieces: its fields
// (JSON, without braces) and willContinue.
func piece(fields string, more bool) string {
	if more {
		if fields != "" {
			fields += ","
		}
		fields += `"willContinue":true`
	}
	return `{"functionCall":{` + fields + `}}`
}

// startVertex is start on the Vertex AI backend (express mode: an API
// key, no project), the one that streams function call arguments; the
// SDK refuses to send willContinue back to the Gemini Developer API.
func startVertex(t *testing.T, api *adapttest.API, reg *toolreg.Registry, opts agent.Options) (*RunResult, error) {
	t.Helper()
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: "test", Backend: genai.BackendVertexAI, HTTPOptions: genai.HTTPOptions{BaseURL: api.Serve(t)},
	})
	if err != nil {
		t.Fatal(err)
	}
	opts.Stream = true
	config := &genai.GenerateContentConfig{ToolConfig: &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{StreamFunctionCallArguments: genai.Ptr(true)}}}
	return New(reg).Run(context.Background(), client.Models, "gemini-test", prompt(), config, nil, opts)
}

// TestStreamPieces: a call Vertex AI streams in pieces is reported as
// CallStarted, ArgumentsDelta events whose text grows into the arguments,
// and CallReady; the tool runs with the arguments put together, and the
// model content goes back with the parts as they came.
func TestStreamPieces(t *testing.T) {
	parts := []string{
		piece(`"id":"fc-1","name":"get_weather"`, true),
		piece(`"partialArgs":[{"jsonPath":"$.city","stringValue":"Os","willContinue":true}]`, true),
		piece(`"partialArgs":[{"jsonPath":"$.city","stringValue":"lo \"N\""}]`, true),
		piece(`"partialArgs":[{"jsonPath":"$.days","numberValue":2},{"jsonPath":"$['unit']","stringValue":"celsius"}]`, true),
		piece(``, false),
	}
	reply := adapttest.SSE(chunk("", parts[0]), chunk("", parts[1], parts[2]), chunk("", parts[3]), chunk("STOP", parts[4]))
	api := fakeGemini(reply, streamedAnswer("Sunny."))
	var received adapttest.Received
	var events []string
	var text strings.Builder
	run, err := startVertex(t, api, adapttest.Registry(&received), agent.Options{OnEvent: func(e agent.Event) {
		switch e.Kind {
		case agent.ArgumentsDelta:
			text.WriteString(e.Delta)
			events = append(events, fmt.Sprintf("%s %s %s %s", e.Kind, e.Call.ID, e.Call.Name, e.Delta))
		case agent.CallStarted, agent.CallReady:
			events = append(events, fmt.Sprintf("%s %s %s %s", e.Kind, e.Call.ID, e.Call.Name, e.Call.Arguments))
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"call started fc-1 get_weather ",
		"arguments fc-1 get_weather {",
		`arguments fc-1 get_weather "city":"Os`,
		`arguments fc-1 get_weather lo \"N\""`,
		`arguments fc-1 get_weather ,"days":2,"unit":"celsius"`,
		"arguments fc-1 get_weather }",
		`call ready fc-1 get_weather {"city":"Oslo \"N\"","days":2,"unit":"celsius"}`,
	}
	if diff := cmp.Diff(want, events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if got := text.String(); got != `{"city":"Oslo \"N\"","days":2,"unit":"celsius"}` {
		t.Errorf("the deltas make %s", got)
	}
	two := 2
	if diff := cmp.Diff([]adapttest.WeatherArgs{{City: `Oslo "N"`, Days: &two, Unit: "celsius"}}, received.Args()); diff != "" {
		t.Errorf("the tool got (-want +got):\n%s", diff)
	}
	if run.Answer() != "Sunny." {
		t.Errorf("answer %q", run.Answer())
	}
	// The model content sent back: the five parts as they came.
	contents := api.Requests[1]["contents"].([]any)
	sent := contents[1].(map[string]any)["parts"].([]any)
	if len(sent) != 5 {
		t.Fatalf("the model content went back with %d parts: %v", len(sent), sent)
	}
	if diff := cmp.Diff(map[string]any{"functionCall": map[string]any{"id": "fc-1", "name": "get_weather", "willContinue": true}}, sent[0]); diff != "" {
		t.Errorf("first part (-want +got):\n%s", diff)
	}
	if results := contents[2].(map[string]any)["parts"].([]any); len(results) != 1 {
		t.Errorf("%d results sent for one call: %v", len(results), results)
	}
	if tc := api.Requests[0]["toolConfig"]; !strings.Contains(fmt.Sprint(tc), "streamFunctionCallArguments:true") {
		t.Errorf("toolConfig sent %v", tc)
	}
}

// TestStreamPiecesLie: pieces that do not make one call end the run with
// agent.ErrBrokenStream and a message that says what was wrong; no call
// runs unless it was complete.
func TestStreamPiecesLie(t *testing.T) {
	begin := piece(`"id":"fc-1","name":"get_weather"`, true)
	city := piece(`"partialArgs":[{"jsonPath":"$.city","stringValue":"Oslo"}]`, true)
	args := func(path, value string) string {
		return piece(`"partialArgs":[{"jsonPath":"`+path+`",`+value+`}]`, true)
	}
	end := piece(``, false)
	tests := []struct {
		name  string
		parts []string
		want  string
	}{
		{"a piece of no call", []string{city, end}, "a piece of a call that was never begun"},
		{"an end of no call", []string{end}, "the end of a call that was never begun"},
		{"a member twice", []string{begin, city, city, end}, `$.city is written already`},
		{"a value then a member of it", []string{begin, city, args("$.city.name", `"stringValue":"x"`), end}, `$.city is written already`},
		{"an object as an array", []string{begin, args("$.a.b", `"boolValue":true`), args("$.a[0]", `"boolValue":true`), end}, `$.a is an object, not an array`},
		{"an index gap", []string{begin, args("$.a[0]", `"numberValue":1`), args("$.a[2]", `"numberValue":1`), end}, "index 2 of $.a comes where index 1 is next"},
		{"a huge index", []string{begin, args("$.a[99999999]", `"numberValue":1`), end}, "index 99999999 of $.a comes where index 0 is next"},
		{"an index past int", []string{begin, args("$.a[99999999999999999999]", `"numberValue":1`), end}, "is not an array index"},
		{"a path not from the root", []string{begin, args("city", `"stringValue":"x"`), end}, `a path begins with "$"`},
		{"the root", []string{begin, args("$", `"stringValue":"x"`), end}, "names the arguments whole"},
		// The call was complete, so it may have started early.
		{"pieces after the end", []string{begin, city, end, city}, "a piece of a call that was never begun"},
		{"never complete", []string{begin, city}, `the response ended before call "get_weather" was complete`},
		{"a string said to go on, then another", []string{begin, args("$.city", `"stringValue":"O","willContinue":true`), args("$.unit", `"stringValue":"C"`), end}, "the string at $.city was said to continue"},
		{"a string said to go on at the end", []string{begin, args("$.city", `"stringValue":"O","willContinue":true`), end}, "its string at $.city was said to continue"},
		{"two calls mixed", []string{begin, city, piece(`"id":"fc-2","name":"get_time"`, true), end}, `a piece of call fc-2 "get_time" came while call fc-1 "get_weather" was being written`},
		{"args and pieces", []string{begin, piece(`"args":{"city":"Oslo"}`, false)}, "brings both args and partialArgs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var chunks [][2]string
			for i, p := range tt.parts {
				finish := ""
				if i == len(tt.parts)-1 {
					finish = "STOP"
				}
				chunks = append(chunks, chunk(finish, p))
			}
			var received adapttest.Received
			api := fakeGemini(adapttest.SSE(chunks...))
			_, err := startVertex(t, api, adapttest.Registry(&received), agent.Options{})
			if !errors.Is(err, agent.ErrBrokenStream) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
			if (len(received.Args()) != 0 && tt.name != "pieces after the end") || len(api.Requests) != 1 {
				t.Errorf("a call ran (%+v) or the model was asked again (%d requests)", received.Args(), len(api.Requests))
			}
		})
	}
}

// TestStreamPiecesLimit: pieces past the tool's argument limit end the
// stream, as any provider's deltas do.
func TestStreamPiecesLimit(t *testing.T) {
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("get_weather", "Forecast.", adapttest.Weather, toolreg.WithMaxArgumentBytes(64)))
	long := piece(`"partialArgs":[{"jsonPath":"$.city","stringValue":"`+strings.Repeat("x", 40)+`","willContinue":true}]`, true)
	reply := adapttest.SSE(chunk("", piece(`"id":"fc-1","name":"get_weather"`, true)), chunk("", long), chunk("", long), chunk("", long), chunk("STOP", piece(``, false)))
	api := fakeGemini(reply)
	_, err := startVertex(t, api, reg, agent.Options{})
	if !errors.Is(err, agent.ErrBrokenStream) || !strings.Contains(err.Error(), "grew past the tool's limit of 64 bytes") {
		t.Errorf("err = %v", err)
	}
}

// TestToolCallsPieces: ToolCalls reads a content with a call in pieces (a
// stored transcript) as the stream did, and one whose pieces lie as a
// call whose arguments the registry refuses, never a panic.
func TestToolCallsPieces(t *testing.T) {
	yes := true
	str := func(path, s string, more bool) *genai.PartialArg {
		pa := &genai.PartialArg{JsonPath: path, StringValue: s}
		if more {
			pa.WillContinue = &yes
		}
		return pa
	}
	content := &genai.Content{Role: "model", Parts: []*genai.Part{
		{FunctionCall: &genai.FunctionCall{ID: "a", Name: "get_weather", WillContinue: &yes, PartialArgs: []*genai.PartialArg{str("$.city", "Li", true)}}},
		{Text: "thinking"},
		{FunctionCall: &genai.FunctionCall{PartialArgs: []*genai.PartialArg{str("$.city", "ma", false)}}},
		{FunctionCall: &genai.FunctionCall{ID: "b", Name: "get_time"}},
		{FunctionCall: &genai.FunctionCall{ID: "c", Name: "get_weather", WillContinue: &yes, PartialArgs: []*genai.PartialArg{str("$.a[3]", "x", false)}}},
		{FunctionCall: &genai.FunctionCall{WillContinue: &yes}},
		{FunctionCall: &genai.FunctionCall{}},
		{FunctionCall: &genai.FunctionCall{ID: "d", Name: "get_weather", WillContinue: &yes}},
	}}
	var got []string
	for _, c := range New(adapttest.Registry(nil)).ToolCalls(content) {
		got = append(got, c.ID+" "+c.Name+" "+string(c.Arguments))
	}
	want := []string{
		`a get_weather {"city":"Lima"}`,
		`b get_time {}`,
		`c get_weather arguments whose pieces do not fit together: ` + errPieces.Error() + `: call "get_weather", path "$.a[3]": index 3 of $.a comes where index 0 is next`,
		`d get_weather arguments that were never complete`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// FuzzPieces: any pieces, any paths: never a panic, and a call whose
// pieces fit has arguments that are one JSON object.
func FuzzPieces(f *testing.F) {
	f.Add(`{"role":"model","parts":[{"functionCall":{"name":"a","willContinue":true}},{"functionCall":{"partialArgs":[{"jsonPath":"$.x[0].y","stringValue":"s","willContinue":true}],"willContinue":true}},{"functionCall":{"partialArgs":[{"jsonPath":"$.x[0].y","stringValue":"t"},{"jsonPath":"$['z']","numberValue":1.5}]}}]}`)
	f.Add(`{"role":"model","parts":[{"functionCall":{"name":"a","partialArgs":[{"jsonPath":"$.a[0][1]","boolValue":true},{"jsonPath":"$.b","nullValue":"NULL_VALUE"}]}}]}`)
	a := New(toolreg.NewRegistry())
	f.Fuzz(func(t *testing.T, in string) {
		var content genai.Content
		if json.Unmarshal([]byte(in), &content) != nil {
			return
		}
		for _, c := range a.ToolCalls(&content) {
			if strings.HasPrefix(string(c.Arguments), "{") && !json.Valid(c.Arguments) {
				t.Fatalf("%s: arguments %s are not JSON", in, c.Arguments)
			}
		}
	})
}
