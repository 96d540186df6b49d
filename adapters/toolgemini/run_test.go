package toolgemini

import (
	"context"
	"encoding/base64"
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

// functionCalls is a reply whose model content calls functions, given as
// name/arguments pairs ("" for no args); with ids, they are fc-1, fc-2, ...
func functionCalls(ids bool, pairs ...string) string {
	var parts []any
	for i := 0; i < len(pairs); i += 2 {
		fc := map[string]any{"name": pairs[i]}
		if ids {
			fc["id"] = fmt.Sprintf("fc-%d", i/2+1)
		}
		if pairs[i+1] != "" {
			fc["args"] = json.RawMessage(pairs[i+1])
		}
		parts = append(parts, map[string]any{"functionCall": fc})
	}
	b, _ := json.Marshal(map[string]any{"role": "model", "parts": parts})
	return reply(string(b))
}

func withIDs(pairs ...string) string    { return functionCalls(true, pairs...) }
func withoutIDs(pairs ...string) string { return functionCalls(false, pairs...) }

// streamed sends reply (a whole response, as reply writes it) as Gemini
// streams one: a chunk per part, text a word at a time, the finishReason
// and the usage on the last chunk.
func streamed(reply string) string {
	var resp map[string]any
	if err := json.Unmarshal([]byte(reply), &resp); err != nil {
		panic(err)
	}
	cand := resp["candidates"].([]any)[0].(map[string]any)
	var pieces []any
	for _, p := range cand["content"].(map[string]any)["parts"].([]any) {
		text, ok := p.(map[string]any)["text"].(string)
		if !ok || len(p.(map[string]any)) > 1 {
			pieces = append(pieces, p)
			continue
		}
		for _, w := range strings.SplitAfter(text, " ") {
			pieces = append(pieces, map[string]any{"text": w})
		}
	}
	var events [][2]string
	for i, p := range pieces {
		c := map[string]any{"content": map[string]any{"role": "model", "parts": []any{p}}, "index": 0}
		chunk := map[string]any{"candidates": []any{c}, "modelVersion": "gemini-test"}
		if i == len(pieces)-1 {
			c["finishReason"] = cand["finishReason"]
			chunk["usageMetadata"] = resp["usageMetadata"]
		}
		b, _ := json.Marshal(chunk)
		events = append(events, [2]string{"", string(b)})
	}
	return adapttest.SSE(events...)
}

func streamedCalls(ids bool) func(pairs ...string) string {
	return func(pairs ...string) string { return streamed(functionCalls(ids, pairs...)) }
}

func streamedAnswer(text string) string { return streamed(answer(text)) }

func prompt() []*genai.Content { return genai.Text("plan my week") }

// start runs reg's tools against api, streaming or not.
func start(ctx context.Context, t *testing.T, api *adapttest.API, reg *toolreg.Registry, stream bool, config *genai.GenerateContentConfig, opts agent.Options) (*RunResult, error) {
	opts.Stream = stream
	return New(reg).Run(ctx, newClient(t, api).Models, "gemini-test", prompt(), config, nil, opts)
}

func resume(ctx context.Context, t *testing.T, api *adapttest.API, reg *toolreg.Registry, stream bool, st *agent.State, opts agent.Options) (*RunResult, error) {
	opts.Stream = stream
	return New(reg).Run(ctx, newClient(t, api).Models, "gemini-test", nil, nil, st, opts)
}

// testRunner is the Runner of RunnerTests and ControlTests, plain or
// streaming, with function calls that carry ids or not.
func testRunner(t *testing.T, stream, ids bool) adapttest.Runner {
	r := adapttest.Runner{
		API:         fakeGemini,
		Calls:       func(pairs ...string) string { return functionCalls(ids, pairs...) },
		Answer:      answer,
		NoArgs:      "",
		Results:     func(t *testing.T, request map[string]any) []adapttest.Result { return sentResults(t, request, ids) },
		MarksErrors: true,
		Transcript:  4, // the user's content, the model's with 5 calls, one user content of 5 responses, the answer
		Offered:     offered,
	}
	if stream {
		r.Calls, r.Answer = streamedCalls(ids), streamedAnswer
	}
	r.Run = func(ctx context.Context, api *adapttest.API, reg *toolreg.Registry, maxSteps int) (adapttest.Outcome, error) {
		var turns int
		run, err := start(ctx, t, api, reg, stream, nil, agent.Options{MaxSteps: maxSteps, OnEvent: func(e agent.Event) {
			if _, ok := e.Response.(*genai.GenerateContentResponse); ok && e.Kind == agent.StepDone {
				turns++
			}
		}})
		return adapttest.Outcome{Steps: run.Steps(), Turns: turns, Transcript: len(run.Contents), Answer: run.Answer()}, err
	}
	return r
}

func control(t *testing.T, stream, ids bool) adapttest.Control {
	return adapttest.Control{
		Runner: testRunner(t, stream, ids),
		Start: func(ctx context.Context, api *adapttest.API, reg *toolreg.Registry, opts agent.Options) (*agent.State, error) {
			run, err := start(ctx, t, api, reg, stream, nil, opts)
			return run.State, err
		},
		Resume: func(ctx context.Context, api *adapttest.API, reg *toolreg.Registry, st *agent.State, opts agent.Options) (*agent.State, error) {
			run, err := resume(ctx, t, api, reg, stream, st, opts)
			return run.State, err
		},
		Tools:   offered,
		Choice:  choice,
		Allowed: allowedNames,
	}
}

// sentResults reads the results of a turn from the request after it: the
// user's content, the model's with its calls, then one user content of
// one functionResponse per call, in call order, each echoing its call's
// name and id (none when the call had none), and nothing else.
func sentResults(t *testing.T, request map[string]any, ids bool) []adapttest.Result {
	t.Helper()
	contents := request["contents"].([]any)
	if len(contents) != 3 {
		t.Fatalf("not the user's content, the model's, then the responses:\n%v", contents)
	}
	model, answers := contents[1].(map[string]any), contents[2].(map[string]any)
	var calls []map[string]any
	for _, p := range model["parts"].([]any) {
		if fc, ok := p.(map[string]any)["functionCall"].(map[string]any); ok {
			calls = append(calls, fc)
		}
	}
	parts := answers["parts"].([]any)
	if model["role"] != "model" || answers["role"] != "user" || len(parts) != len(calls) {
		t.Fatalf("%d responses to %d calls, roles %v, %v", len(parts), len(calls), model["role"], answers["role"])
	}
	var got []adapttest.Result
	for i, p := range parts {
		fr := p.(map[string]any)["functionResponse"].(map[string]any)
		id, hasID := fr["id"]
		if fr["name"] != calls[i]["name"] || hasID != ids || id != calls[i]["id"] {
			t.Errorf("response %d (%v) does not echo its call (%v)", i, fr, calls[i])
		}
		resp := fr["response"].(map[string]any)
		if len(resp) != 1 {
			t.Errorf("response %d: %v", i, resp)
		}
		if e, ok := resp["error"].(string); ok {
			got = append(got, adapttest.Result{Text: e, IsError: true})
			continue
		}
		text, ok := resp["output"].(string)
		if !ok {
			b, _ := json.Marshal(resp["output"])
			text = string(b)
		}
		got = append(got, adapttest.Result{Text: text})
	}
	return got
}

// offered lists the functions a request declares.
func offered(t *testing.T, request map[string]any) []string {
	tools, _ := request["tools"].([]any)
	var names []string
	for _, tool := range tools {
		decls, _ := tool.(map[string]any)["functionDeclarations"].([]any)
		for _, d := range decls {
			names = append(names, d.(map[string]any)["name"].(string))
		}
	}
	return names
}

// choice reads a request's toolConfig.functionCallingConfig back as a
// tool choice.
func choice(t *testing.T, request map[string]any) agent.ToolChoice {
	t.Helper()
	tc, _ := request["toolConfig"].(map[string]any)
	fc, _ := tc["functionCallingConfig"].(map[string]any)
	names, _ := fc["allowedFunctionNames"].([]any)
	switch mode := fc["mode"]; {
	case mode == "AUTO" && names == nil:
		return agent.Auto
	case mode == "NONE" && names == nil:
		return agent.None
	case mode == "ANY" && names == nil:
		return agent.Required
	case mode == "ANY" && len(names) == 1:
		return agent.Force(names[0].(string))
	case mode == "ANY":
		return agent.Required
	case mode == "VALIDATED":
		return agent.Auto
	}
	t.Fatalf("no tool choice reads %v", tc)
	return agent.ToolChoice{}
}

// allowedNames reads the names a request's allowedFunctionNames restricts
// the calls to: nil when there are none, or one with ANY (a forced call).
func allowedNames(t *testing.T, request map[string]any) []string {
	tc, _ := request["toolConfig"].(map[string]any)
	fc, _ := tc["functionCallingConfig"].(map[string]any)
	names, _ := fc["allowedFunctionNames"].([]any)
	if len(names) == 0 || fc["mode"] == "ANY" && len(names) == 1 {
		return nil
	}
	var out []string
	for _, n := range names {
		out = append(out, n.(string))
	}
	return out
}

// TestRunners: one turn of every outcome, the step bound, a tool's
// StopRun and cancellation, then agent control, as in every runner; with
// and without function call ids, plain and streaming.
func TestRunners(t *testing.T) {
	for _, tc := range []struct {
		name        string
		stream, ids bool
	}{
		{"run", false, true},
		{"stream", true, true},
		{"run without ids", false, false},
		{"stream without ids", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			adapttest.RunnerTests(t, testRunner(t, tc.stream, tc.ids))
			adapttest.ControlTests(t, control(t, tc.stream, tc.ids))
		})
	}
}

// TestPausedWithoutIDs: calls without ids are known by their place in the
// turn; the host approves and rejects by that key, and the results go back
// in call order, without ids.
func TestPausedWithoutIDs(t *testing.T) {
	ran := map[string]int{}
	reg := adapttest.ControlRegistry(ran)
	api := fakeGemini(withoutIDs("get_weather", `{"city":"Oslo"}`, "book", `{"city":"Oslo"}`, "book", `{"city":"Lima"}`), answer("Booked Oslo."))
	run, err := start(context.Background(), t, api, reg, false, nil, agent.Options{})
	if !errors.Is(err, agent.ErrPaused) {
		t.Fatalf("err = %v, want ErrPaused", err)
	}
	var keys []string
	for _, c := range run.State.Pending() {
		keys = append(keys, c.Key())
	}
	if diff := cmp.Diff([]string{"#1", "#2"}, keys); diff != "" {
		t.Fatalf("pending keys (-want +got):\n%s", diff)
	}
	st := adapttest.Stored(t, run.State)
	if err := st.Approve("#1"); err != nil {
		t.Fatal(err)
	}
	if err := st.Reject("#2", "one trip at a time"); err != nil {
		t.Fatal(err)
	}
	run, err = resume(context.Background(), t, api, reg, false, st, agent.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []adapttest.Result{
		{Text: `{"city":"Oslo","days":1,"unit":"celsius"}`},
		{Text: "booked Oslo"},
		{Text: `the host did not allow this call of "book": one trip at a time`, IsError: true},
	}
	if diff := cmp.Diff(want, sentResults(t, api.Requests[1], false)); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if ran["book"] != 1 || run.Answer() != "Booked Oslo." || run.Steps() != 2 {
		t.Errorf("book ran %d times, answer %q, %d steps", ran["book"], run.Answer(), run.Steps())
	}
}

// TestStateKeepsThoughtSignatures: a paused run's state goes through JSON
// and the run resumes: the model content goes back exactly as it came,
// every part in its place with its thoughtSignature (bytes that are not
// text), also when a stream brought it in pieces and the last signature on
// an empty text part of its own.
func TestStateKeepsThoughtSignatures(t *testing.T) {
	sig := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	modelTurn := `{"role":"model","parts":[
		{"text":"Thinking it over.","thought":true,"thoughtSignature":"` + sig("thought \x00\xff") + `"},
		{"text":"Let me check."},
		{"functionCall":{"name":"get_weather","args":{"city":"Oslo"}},"thoughtSignature":"` + sig("call \x01") + `"},
		{"functionCall":{"name":"book","args":{"city":"Oslo"}}}]}`
	streamTurn := []string{
		`{"text":"Let me "}`,
		`{"text":"check."}`,
		`{"functionCall":{"name":"get_weather","args":{"city":"Oslo"}},"thoughtSignature":"` + sig("call \x01") + `"}`,
		`{"functionCall":{"name":"book","args":{"city":"Oslo"}}}`,
		`{"text":"","thoughtSignature":"` + sig("end \xfe") + `"}`,
	}
	var chunks [][2]string
	for i, p := range streamTurn {
		finish := ""
		if i == len(streamTurn)-1 {
			finish = `,"finishReason":"STOP"`
		}
		chunks = append(chunks, [2]string{"", `{"candidates":[{"content":{"role":"model","parts":[` + p + `]},"index":0` + finish + `}]}`})
	}
	// What goes back: the streamed parts in order, none merged; the SDK
	// writes an empty text as no text.
	streamSent := `{"role":"model","parts":[` + strings.Join(streamTurn[:4], ",") + `,{"thoughtSignature":"` + sig("end \xfe") + `"}]}`
	for _, tc := range []struct {
		name         string
		stream       bool
		reply, then  string
		want         string
		stateHasSigs []string
	}{
		{"run", false, reply(modelTurn), answer("Booked."), modelTurn, []string{sig("thought \x00\xff"), sig("call \x01")}},
		{"stream", true, adapttest.SSE(chunks...), streamedAnswer("Booked."), streamSent, []string{sig("call \x01"), sig("end \xfe")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api := fakeGemini(tc.reply, tc.then)
			reg := adapttest.ControlRegistry(map[string]int{})
			run, err := start(context.Background(), t, api, reg, tc.stream, nil, agent.Options{})
			if !errors.Is(err, agent.ErrPaused) {
				t.Fatalf("err = %v, want ErrPaused", err)
			}
			for _, s := range tc.stateHasSigs {
				if !strings.Contains(string(run.State.Transcript), s) {
					t.Errorf("the state's transcript lost %s:\n%s", s, run.State.Transcript)
				}
			}
			st := adapttest.Stored(t, run.State)
			if err := st.Approve("#1"); err != nil {
				t.Fatal(err)
			}
			if _, err := resume(context.Background(), t, api, reg, tc.stream, st, agent.Options{}); err != nil {
				t.Fatal(err)
			}
			sent := api.Requests[1]["contents"].([]any)
			if diff := cmp.Diff(parse(t, tc.want), sent[1]); diff != "" {
				t.Errorf("the model content did not go back unchanged (-want +sent):\n%s", diff)
			}
			var back []*genai.Content
			if err := json.Unmarshal(st.Transcript, &back); err != nil {
				t.Fatal(err)
			}
			again, _ := json.Marshal(back)
			if string(again) != string(st.Transcript) {
				t.Errorf("the transcript changed through JSON:\n%s\n%s", st.Transcript, again)
			}
		})
	}
}

// TestStops: a response the run cannot go on from ends it with an error
// that says why, plain and streamed (a whole response is also a chunk);
// the model's content stays in the transcript and the response in Final.
func TestStops(t *testing.T) {
	const usage = `"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":5,"totalTokenCount":15}`
	stopped := func(reason string) string {
		return `{"candidates":[{"content":{"role":"model","parts":[{"text":"Half an ans"},{"functionCall":{"name":"get_weather","args":{"city":"Oslo"}}}]},` +
			`"finishReason":"` + reason + `","index":0}],` + usage + `}`
	}
	tests := []struct {
		name       string
		reply      string
		is         error
		want       string
		streamWant string // when a stream says otherwise
		contents   int    // of the transcript
	}{
		{"max tokens", stopped("MAX_TOKENS"), toolreg.ErrTruncated, "(finishReason MAX_TOKENS)", "", 2},
		{"safety", stopped("SAFETY"), ErrBlocked, "the response (finishReason SAFETY)", "", 2},
		{"recitation", stopped("RECITATION"), ErrBlocked, "the response (finishReason RECITATION)", "", 2},
		{"prompt blocked", `{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"},` + usage + `}`, ErrBlocked, "the prompt (blockReason PROHIBITED_CONTENT)", "", 1},
		{"no candidates", `{` + usage + `}`, nil, "the response has no candidates", "the stream ended before the response was complete", 1},
		{"malformed call", stopped("MALFORMED_FUNCTION_CALL"), nil, "the model stopped with finishReason MALFORMED_FUNCTION_CALL", "", 2},
	}
	for _, tt := range tests {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s stream %v", tt.name, stream), func(t *testing.T) {
				reply, want := tt.reply, tt.want
				if stream {
					reply = adapttest.SSE([2]string{"", tt.reply})
					if tt.streamWant != "" {
						want = tt.streamWant
					}
				}
				var received adapttest.Received
				api := fakeGemini(reply)
				run, err := start(context.Background(), t, api, adapttest.Registry(&received), stream, nil, agent.Options{})
				if err == nil || !strings.Contains(err.Error(), want) || (tt.is != nil && !errors.Is(err, tt.is)) {
					t.Fatalf("err = %v, want %q (%v)", err, want, tt.is)
				}
				if len(run.Contents) != tt.contents || len(api.Requests) != 1 {
					t.Errorf("%d contents, %d requests", len(run.Contents), len(api.Requests))
				}
				if tt.streamWant == "" && run.Final == nil {
					t.Error("no Final to read the stop from")
				}
				// A stream hands a call over as its part arrives, before
				// the response ends; a plain run never runs the calls of
				// a response it cannot go on from.
				if !stream && len(received.Args()) != 0 {
					t.Errorf("calls ran: %+v", received.Args())
				}
			})
		}
	}
}

// TestFinished: which candidates the run goes on from, and the errors of
// the others, with the finishMessage that Vertex AI gives (the SDK drops
// it on the Gemini API).
func TestFinished(t *testing.T) {
	tests := []struct {
		reason  genai.FinishReason
		message string
		is      error
		want    string
	}{
		{genai.FinishReasonStop, "", nil, ""},
		{"", "", nil, ""},
		{genai.FinishReasonUnspecified, "", nil, ""},
		{genai.FinishReasonMaxTokens, "", toolreg.ErrTruncated, "(finishReason MAX_TOKENS)"},
		{genai.FinishReasonContinuation, "", toolreg.ErrTruncated, "(finishReason CONTINUATION)"},
		{genai.FinishReasonSPII, "personal data", ErrBlocked, "blocked by Gemini's content filters: the response (finishReason SPII): personal data"},
		{genai.FinishReasonImageSafety, "", ErrBlocked, "(finishReason IMAGE_SAFETY)"},
		{genai.FinishReasonTooManyToolCalls, "too many", nil, "the model stopped with finishReason TOO_MANY_TOOL_CALLS: too many"},
		{"SOMETHING_NEW", "", nil, "the model stopped with finishReason SOMETHING_NEW"},
	}
	for _, tt := range tests {
		err := finished(&genai.Candidate{FinishReason: tt.reason, FinishMessage: tt.message})
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.reason, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || (tt.is != nil && !errors.Is(err, tt.is))):
			t.Errorf("%s: err = %v, want %q (%v)", tt.reason, err, tt.want, tt.is)
		}
	}
}

// callerConfig is a config with fields of every kind the run keeps.
func callerConfig(tools []*genai.Tool, tc *genai.ToolConfig) *genai.GenerateContentConfig {
	return &genai.GenerateContentConfig{
		Temperature:       genai.Ptr[float32](0.25),
		SystemInstruction: &genai.Content{Parts: []*genai.Part{{Text: "Be brief."}}},
		HTTPOptions:       &genai.HTTPOptions{},
		Tools:             tools,
		ToolConfig:        tc,
	}
}

// TestConfig: the caller's config goes out as it is, with the step's
// declarations beside the caller's other tools (or the caller's own
// declarations instead), the tool choice in its function calling config,
// the run's declarations and the restriction in allowedFunctionNames when
// the step offers fewer (NONE for none); and
// the caller's config is not modified.
func TestConfig(t *testing.T) {
	search := func() []*genai.Tool { return []*genai.Tool{{GoogleSearch: &genai.GoogleSearch{}}} }
	own := func() []*genai.Tool {
		return []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{Name: "get_time", Description: "Mine."}}}}
	}
	anyOf := func(names ...string) *genai.ToolConfig {
		return &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAny, AllowedFunctionNames: names},
			IncludeServerSideToolInvocations: genai.Ptr(true)}
	}
	tests := []struct {
		name       string
		config     func() *genai.GenerateContentConfig
		prepare    func(context.Context, *agent.Step) error
		tools      string // the request's, as JSON; "" for none
		toolConfig string
		options    []Option // the Adapter's
	}{
		{"beside the caller's tools", func() *genai.GenerateContentConfig { return callerConfig(search(), anyOf("x")) }, nil,
			`[{"googleSearch":{}},{"functionDeclarations":["get_weather","get_time"]}]`,
			`{"functionCallingConfig":{"mode":"AUTO"},"includeServerSideToolInvocations":true}`, nil},
		{"forced", func() *genai.GenerateContentConfig { return callerConfig(nil, nil) },
			func(_ context.Context, s *agent.Step) error { s.Choice = agent.Force("get_time"); return nil },
			`[{"functionDeclarations":["get_weather","get_time"]}]`,
			`{"functionCallingConfig":{"allowedFunctionNames":["get_time"],"mode":"ANY"}}`, nil},
		{"the caller's declarations", func() *genai.GenerateContentConfig { return callerConfig(own(), nil) },
			func(_ context.Context, s *agent.Step) error { s.Choice = agent.Required; return s.Only("get_weather") },
			`[{"functionDeclarations":["get_time"]}]`,
			`{"functionCallingConfig":{"mode":"ANY"}}`, nil},
		{"none offered: the run's declarations, and NONE", func() *genai.GenerateContentConfig { return callerConfig(nil, anyOf()) },
			func(_ context.Context, s *agent.Step) error { return s.Only() },
			`[{"functionDeclarations":["get_weather","get_time"]}]`,
			`{"functionCallingConfig":{"mode":"NONE"},"includeServerSideToolInvocations":true}`, nil},
		{"restricted: VALIDATED with the allowed names", func() *genai.GenerateContentConfig { return callerConfig(nil, nil) },
			func(_ context.Context, s *agent.Step) error { return s.Hide("get_weather") },
			`[{"functionDeclarations":["get_weather","get_time"]}]`,
			`{"functionCallingConfig":{"allowedFunctionNames":["get_time"],"mode":"VALIDATED"}}`, nil},
		{"restricted and required: ANY with the allowed names", func() *genai.GenerateContentConfig { return callerConfig(nil, nil) },
			func(_ context.Context, s *agent.Step) error { s.Choice = agent.Required; return s.Only("get_time") },
			`[{"functionDeclarations":["get_weather","get_time"]}]`,
			`{"functionCallingConfig":{"allowedFunctionNames":["get_time"],"mode":"ANY"}}`, nil},
		{"trimmed, restricted: the step's declarations, AUTO", func() *genai.GenerateContentConfig { return callerConfig(nil, nil) },
			func(_ context.Context, s *agent.Step) error { return s.Hide("get_weather") },
			`[{"functionDeclarations":["get_time"]}]`,
			`{"functionCallingConfig":{"mode":"AUTO"}}`, []Option{WithTrimmedTools()}},
		{"trimmed, restricted and required: the step's declarations, ANY", func() *genai.GenerateContentConfig { return callerConfig(nil, nil) },
			func(_ context.Context, s *agent.Step) error { s.Choice = agent.Required; return s.Only("get_time") },
			`[{"functionDeclarations":["get_time"]}]`,
			`{"functionCallingConfig":{"mode":"ANY"}}`, []Option{WithTrimmedTools()}},
		{"trimmed, forced", func() *genai.GenerateContentConfig { return callerConfig(nil, nil) },
			func(_ context.Context, s *agent.Step) error { s.Choice = agent.Force("get_time"); return nil },
			`[{"functionDeclarations":["get_weather","get_time"]}]`,
			`{"functionCallingConfig":{"allowedFunctionNames":["get_time"],"mode":"ANY"}}`, []Option{WithTrimmedTools()}},
		{"trimmed, none offered: no declarations", func() *genai.GenerateContentConfig { return callerConfig(nil, nil) },
			func(_ context.Context, s *agent.Step) error { return s.Only() },
			"", "", []Option{WithTrimmedTools()}},
		{"trimmed, unrestricted: the run's declarations, AUTO", func() *genai.GenerateContentConfig { return callerConfig(nil, nil) }, nil,
			`[{"functionDeclarations":["get_weather","get_time"]}]`,
			`{"functionCallingConfig":{"mode":"AUTO"}}`, []Option{WithTrimmedTools()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := fakeGemini(withIDs("get_time", ""), answer("Ten."))
			config := tt.config()
			client := newClient(t, api)
			if _, err := New(adapttest.Registry(nil), tt.options...).Run(context.Background(), client.Models, "gemini-test", prompt(), config, nil, agent.Options{PrepareStep: tt.prepare}); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.config(), config); diff != "" {
				t.Errorf("the caller's config changed (-before +after):\n%s", diff)
			}
			for i, req := range api.Requests {
				tools, _ := req["tools"].([]any)
				for _, tool := range tools { // names only: the declarations are golden elsewhere
					if decls, ok := tool.(map[string]any)["functionDeclarations"].([]any); ok {
						for j, d := range decls {
							decls[j] = d.(map[string]any)["name"]
						}
					}
				}
				want := map[string]any{
					"generationConfig":  map[string]any{"temperature": 0.25},
					"systemInstruction": map[string]any{"role": "user", "parts": []any{map[string]any{"text": "Be brief."}}},
					"contents":          req["contents"],
				}
				if tt.tools != "" {
					want["tools"] = parse(t, tt.tools)
				}
				if tt.toolConfig != "" {
					want["toolConfig"] = parse(t, tt.toolConfig)
				}
				if diff := cmp.Diff(want, req); diff != "" {
					t.Errorf("request %d (-want +got):\n%s", i+1, diff)
				}
			}
		})
	}
}

// TestRunState: Run starts a run without a state and gives it one; a run
// paused while streaming resumes without streaming from the state's
// transcript, the contents passed then being ignored; a transcript that is
// not a list of contents is refused.
func TestRunState(t *testing.T) {
	ran := map[string]int{}
	reg := adapttest.ControlRegistry(ran)
	api := fakeGemini(streamed(withIDs("book", `{"city":"Oslo"}`)), answer("Booked Oslo."))
	client := newClient(t, api)
	a := New(reg)
	run, err := a.Run(context.Background(), client.Models, "gemini-test", prompt(), nil, nil, agent.Options{Stream: true})
	if !errors.Is(err, agent.ErrPaused) {
		t.Fatalf("err = %v, want ErrPaused", err)
	}
	if run.State == nil {
		t.Fatal("no state for a run started without one")
	}
	st := adapttest.Stored(t, run.State)
	if err := st.Approve(st.Pending()[0].Key()); err != nil {
		t.Fatal(err)
	}
	run, err = a.Run(context.Background(), client.Models, "gemini-test", genai.Text("ignored"), nil, st, agent.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if run.State != st || run.Answer() != "Booked Oslo." || ran["book"] != 1 {
		t.Errorf("state %p (want %p), answer %q, book ran %d times", run.State, st, run.Answer(), ran["book"])
	}
	sent := sentContents(t, api.Raw[1])
	if len(sent) != 3 || !strings.Contains(string(sent[0]), "plan my week") {
		t.Errorf("resumed with contents %s, want the transcript: prompt, model, results", sent)
	}

	bad := &agent.State{Transcript: json.RawMessage(`{"role":"user"}`)}
	run, err = a.Run(context.Background(), client.Models, "gemini-test", prompt(), nil, bad, agent.Options{})
	if !errors.Is(err, agent.ErrInvalidState) || run == nil || run.State != bad {
		t.Errorf("a transcript that is no list of contents: err = %v, run = %v", err, run)
	}

	// A State that went through model calls but lost its transcript does
	// not start over from contents.
	calls := len(api.Raw)
	lost := &agent.State{Provider: "gemini", Steps: 3, RunID: "r1"}
	run, err = a.Run(context.Background(), client.Models, "gemini-test", prompt(), nil, lost, agent.Options{})
	if !errors.Is(err, agent.ErrInvalidState) || run == nil || run.State != lost || len(api.Raw) != calls {
		t.Errorf("a State of 3 steps without a transcript: err = %v, %d model calls made", err, len(api.Raw)-calls)
	}
}
