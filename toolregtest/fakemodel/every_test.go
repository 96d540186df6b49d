package fakemodel_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolanthropic"
	"github.com/toolreg/toolreg/adapters/toolgemini"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/toolregtest"
	"github.com/toolreg/toolreg/toolregtest/fakemodel"
	"google.golang.org/genai"
)

type (
	forecastArgs struct {
		City string `json:"city" jsonschema:"description=City name,minLength=2"`
		Unit string `json:"unit,omitempty" jsonschema:"enum=celsius,enum=fahrenheit"`
		Days int    `json:"days" jsonschema:"minimum=1,maximum=7"`
	}
	meetingArgs struct {
		Title string    `json:"title" jsonschema:"maxLength=40"`
		At    time.Time `json:"at"`
		Notes *string   `json:"notes,omitempty"`
	}
	emailArgs struct {
		To      string   `json:"to" jsonschema:"format=email"`
		Cc      []string `json:"cc,omitempty" jsonschema:"maxItems=3"`
		Subject string   `json:"subject" jsonschema:"minLength=1,maxLength=60"`
	}
	flightArgs struct {
		From  string `json:"from" jsonschema:"pattern=^[A-Z]{3}$"`
		To    string `json:"to" jsonschema:"pattern=^[A-Z]{3}$"`
		Date  string `json:"date" jsonschema:"format=date"`
		Seats int    `json:"seats" jsonschema:"minimum=1,maximum=9"`
	}
	tagArgs struct {
		Tags []string `json:"tags" jsonschema:"minItems=1,maxItems=5,uniqueItems=true"`
	}
	scoreArgs struct {
		Scores map[string]float64 `json:"scores"`
	}
	category struct {
		Name     string      `json:"name"`
		Children []*category `json:"children,omitempty"`
	}
	treeArgs struct {
		Root category `json:"root"`
	}
	address struct {
		Street string `json:"street"`
		Zip    string `json:"zip" jsonschema:"pattern=^[0-9]{5}$"`
	}
	shipArgs struct {
		Home  address  `json:"home"`
		Work  *address `json:"work,omitempty"`
		Fast  bool     `json:"fast"`
		Items []struct {
			SKU string `json:"sku" jsonschema:"pattern=^SKU-[0-9]{4}$"`
			Qty uint16 `json:"qty" jsonschema:"minimum=1"`
		} `json:"items" jsonschema:"minItems=1"`
	}
	percentArgs struct {
		Value float64 `json:"value" jsonschema:"exclusiveMinimum=0,maximum=100,multipleOf=0.5"`
		Level int8    `json:"level"`
	}
	lookupArgs struct {
		ID string `json:"id" jsonschema:"format=uuid"`
	}
	pingArgs struct {
		Host string `json:"host" jsonschema:"format=ipv4"`
		V6   string `json:"v6,omitempty" jsonschema:"format=ipv6"`
	}
	fetchArgs struct {
		URL string `json:"url" jsonschema:"format=uri"`
	}
	noteArgs struct {
		Text string `json:"text" jsonschema:"default=hello"`
	}
	payloadArgs struct {
		Payload any            `json:"payload"`
		Meta    map[string]any `json:"meta,omitempty"`
	}
)

// ok answers a call with the tool's name, so that the model reads which
// tool ran.
func ok[A any](name string) func(context.Context, A) (string, error) {
	return func(context.Context, A) (string, error) { return "ok " + name, nil }
}

func dynamic(name, schema string) toolreg.AnyTool {
	tool, err := toolreg.NewDynamic(name, "A tool of a schema written by hand, "+name+".", json.RawMessage(schema),
		func(context.Context, json.RawMessage) (string, error) { return "ok " + name, nil })
	if err != nil {
		panic(err)
	}
	return tool
}

// everyRegistry holds twenty tools of varied schemas: bounds, enums,
// formats, patterns, arrays, maps, recursive and nested types, nullable
// fields, hand-written schemas with oneOf, allOf and $defs, and a tool
// with examples.
func everyRegistry(t testing.TB) *toolreg.Registry {
	reg := toolreg.NewRegistry()
	reg.MustAdd(
		toolreg.MustNew("forecast", "Weather forecast for a city.", ok[forecastArgs]("forecast")),
		toolreg.MustNew("schedule_meeting", "Schedule a meeting.", ok[meetingArgs]("schedule_meeting")),
		toolreg.MustNew("send_email", "Send an email.", ok[emailArgs]("send_email")),
		toolreg.MustNew("book_flight", "Book a flight between airports.", ok[flightArgs]("book_flight")),
		toolreg.MustNew("set_tags", "Set the tags of a document.", ok[tagArgs]("set_tags")),
		toolreg.MustNew("record_scores", "Record scores by player.", ok[scoreArgs]("record_scores")),
		toolreg.MustNew("save_categories", "Save a tree of categories.", ok[treeArgs]("save_categories")),
		toolreg.MustNew("ship_order", "Ship an order to an address.", ok[shipArgs]("ship_order")),
		toolreg.MustNew("set_percent", "Set a percentage.", ok[percentArgs]("set_percent")),
		toolreg.MustNew("lookup", "Look a record up by id.", ok[lookupArgs]("lookup")),
		toolreg.MustNew("ping", "Ping a host.", ok[pingArgs]("ping")),
		toolreg.MustNew("fetch", "Fetch a URL.", ok[fetchArgs]("fetch")),
		toolreg.MustNew("note", "Write a note.", ok[noteArgs]("note")),
		toolreg.MustNew("store", "Store any payload.", ok[payloadArgs]("store")),
		toolreg.MustNew("now", "The current time.", ok[struct{}]("now")),
		toolreg.MustNew("greet", "Greet a person.", ok[forecastArgs]("greet"),
			toolreg.WithExamples(forecastArgs{City: "Oslo", Days: 2})),
		dynamic("draw_shape", `{"type":"object","properties":{"shape":{"oneOf":[
			{"type":"object","properties":{"kind":{"const":"circle"},"radius":{"type":"number","exclusiveMinimum":0}},"required":["kind","radius"],"additionalProperties":false},
			{"type":"object","properties":{"kind":{"const":"square"},"side":{"type":"number","minimum":1}},"required":["kind","side"],"additionalProperties":false}]}},
			"required":["shape"],"additionalProperties":false}`),
		dynamic("wait", `{"type":"object","properties":{"for":{"type":"string","format":"duration"},"until":{"type":["string","null"],"format":"time"}},"required":["for","until"]}`),
		dynamic("move", `{"type":"object","$defs":{"point":{"type":"object","properties":{"x":{"type":"integer","minimum":-10,"maximum":10},"y":{"type":"integer","minimum":-10,"maximum":10}},"required":["x","y"],"additionalProperties":false}},
			"properties":{"from":{"$ref":"#/$defs/point"},"to":{"allOf":[{"$ref":"#/$defs/point"}],"description":"Where to."},"path":{"type":"array","items":{"$ref":"#/$defs/point"},"maxItems":4}},
			"required":["from","to"],"additionalProperties":false}`),
		dynamic("rate", `{"type":"object","properties":{"stars":{"type":"integer","enum":[1,2,3,4,5]},"comment":{"type":"string","pattern":"^[A-Z][a-z]+( [a-z]+)*\\.$","maxLength":80}},"required":["stars","comment"]}`),
	)
	return reg
}

// goParams asks Claude to go on.
func goParams() anthropic.MessageNewParams {
	return anthropic.MessageNewParams{Model: anthropic.ModelClaudeSonnet4_6, MaxTokens: 1024,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Go."))}}
}

// hostOutputs records the Output of every call the run made, as the host
// sees it.
type hostOutputs struct{ outs map[string]toolreg.Output }

func (h *hostOutputs) on(e agent.Event) {
	if e.Kind == agent.CallResult {
		if h.outs == nil {
			h.outs = map[string]toolreg.Output{}
		}
		h.outs[e.Call.Name+" "+string(e.Call.Arguments)] = e.Output
	}
}

// check fails t for a call that failed, and unless every tool of reg
// ran.
func (h *hostOutputs) check(t *testing.T, reg *toolreg.Registry) {
	t.Helper()
	var ran []string
	for key, out := range h.outs {
		name, _, _ := strings.Cut(key, " ")
		if out.IsError {
			t.Errorf("%s failed: %s", key, out.Text)
		}
		ran = append(ran, name)
	}
	var want []string
	for _, tool := range reg.Tools() {
		want = append(want, tool.Name())
	}
	slices.Sort(ran)
	slices.Sort(want)
	if diff := cmp.Diff(want, ran); diff != "" {
		t.Errorf("tools that ran (-want +got):\n%s", diff)
	}
}

// TestEveryToolOpenAIChat: one turn calls the twenty tools in parallel
// through the OpenAI client and the Chat Completions runner; each
// succeeds, and the model reads each result.
func TestEveryToolOpenAIChat(t *testing.T) {
	reg := everyRegistry(t)
	script := fakemodel.EveryTool(t, reg)
	if len(script) != 2 || len(script[0].Calls) != reg.Len() {
		t.Fatalf("the script has %d turns; want the %d calls in one turn, then the answer", len(script), reg.Len())
	}
	s := fakemodel.New(t, script...)
	client := openai.NewClient(s.OpenAIOptions()...)
	var host hostOutputs
	params := openai.ChatCompletionNewParams{Model: openai.ChatModelGPT5_2,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Try every tool.")}}
	run, err := toolopenai.NewChat(reg).Run(context.Background(), &client.Chat.Completions, params, nil, agent.Options{OnEvent: host.on})
	if err != nil {
		t.Fatal(err)
	}
	s.AssertEveryTool()
	host.check(t, reg)
	if run.Answer() != "Called 20 tools." || run.Steps() != 2 {
		t.Errorf("answer %q in %d steps", run.Answer(), run.Steps())
	}
	for _, c := range s.Calls() {
		if c.Result != "ok "+c.Name {
			t.Errorf("%s: the model read %q", c.Name, c.Result)
		}
	}
	// The tool with examples is called with its example.
	for _, c := range s.Calls() {
		if c.Name == "greet" && c.Args != `{"city":"Oslo","days":2}` {
			t.Errorf("greet called with %s; want its example", c.Args)
		}
	}
}

// TestEveryToolAnthropicInvalid: streamed through the Anthropic client,
// each tool is called with valid arguments and then with each kind of
// invalid ones; the model reads is_error and a message naming the field.
func TestEveryToolAnthropicInvalid(t *testing.T) {
	reg := everyRegistry(t)
	s := fakemodel.New(t, fakemodel.EveryTool(t, reg, fakemodel.WithInvalidCalls(), fakemodel.WithSeed(3))...)
	client := anthropic.NewClient(s.AnthropicOptions()...)
	params := goParams()
	run, err := toolanthropic.New(reg).Run(context.Background(), &client.Messages, params, nil, agent.Options{Stream: true, MaxRunRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	s.AssertEveryTool()
	kinds := map[bool]int{}
	for _, c := range s.Calls() {
		kinds[c.IsError]++
	}
	if kinds[false] != reg.Len() || kinds[true] < 2*reg.Len() {
		t.Errorf("%d calls succeeded and %d were refused; want %d and at least %d", kinds[false], kinds[true], reg.Len(), 2*reg.Len())
	}
	if run.Steps() != 3 {
		t.Errorf("%d steps; want 3 (valid calls, invalid calls, answer)", run.Steps())
	}
}

// TestEveryToolGeminiOnePerTurn: one call per turn, through the Gemini
// client.
func TestEveryToolGeminiOnePerTurn(t *testing.T) {
	reg := everyRegistry(t)
	script := fakemodel.EveryTool(t, reg, fakemodel.OneCallPerTurn())
	s := fakemodel.New(t, script...)
	client, err := genai.NewClient(context.Background(), s.GeminiConfig())
	if err != nil {
		t.Fatal(err)
	}
	var host hostOutputs
	_, err = toolgemini.New(reg).Run(context.Background(), client.Models, "gemini-2.5-flash", genai.Text("Try every tool."), nil, nil,
		agent.Options{MaxSteps: len(script), OnEvent: host.on})
	if err != nil {
		t.Fatal(err)
	}
	s.AssertEveryTool()
	host.check(t, reg)
}

// TestEveryToolReports: a tool no arguments satisfy is named with the
// reason, not left out in silence; a valid call that fails, an invalid one
// that runs, and a call never answered are each reported.
func TestEveryToolReports(t *testing.T) {
	type bounds struct {
		N int `json:"n" jsonschema:"minimum=5"`
	}
	reg := toolreg.NewRegistry()
	reg.MustAdd(
		dynamic("impossible", `{"type":"object","properties":{"n":{"type":"integer","minimum":5,"maximum":2}},"required":["n"]}`),
		toolreg.MustNew("fails", "A tool that always fails.", func(context.Context, bounds) (string, error) {
			return "", errors.New("the backend is down")
		}),
	)
	rec := &recorder{TB: t}
	script := fakemodel.EveryTool(rec, reg)
	want := []string{`fakemodel: EveryTool: tool "impossible": no arguments satisfy the schema: field n: no integer lies within minimum 5, maximum 2`}
	if diff := cmp.Diff(want, rec.errs); diff != "" {
		t.Fatalf("reported (-want +got):\n%s", diff)
	}
	rec.errs = nil

	s := start(rec, script...)
	client := anthropic.NewClient(s.AnthropicOptions()...)
	params := goParams()
	if _, err := toolanthropic.New(reg).Run(context.Background(), &client.Messages, params, nil, agent.Options{}); err != nil {
		t.Fatal(err)
	}
	s.AssertEveryTool()
	got := rec.end()
	if len(got) != 1 || !strings.Contains(got[0], `fails called with {"n":`) || !strings.Contains(got[0], "the backend is down") {
		t.Errorf("reported %q; want the failed call of fails, with what the model read", got)
	}

	// A call whose result never comes back: the client asks once and stops.
	rec = &recorder{TB: t}
	s = start(rec, fakemodel.EveryTool(rec, reg)...)
	client = anthropic.NewClient(s.AnthropicOptions()...)
	if _, err := client.Messages.New(context.Background(), params); err != nil {
		t.Fatal(err)
	}
	s.AssertEveryTool()
	got = rec.end()
	if len(got) != 2 || !strings.Contains(got[1], `fails called with {"n":`) || !strings.Contains(got[1], "no result was sent back") {
		t.Errorf("reported %q; want the unanswered call of fails", got)
	}
}

// laxTool is a tool written by hand that runs whatever it is sent.
type laxTool struct{}

func (laxTool) Name() string        { return "lax" }
func (laxTool) Description() string { return "A tool that checks nothing." }
func (laxTool) InputSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","maximum":3}},"required":["n"]}`)
}
func (laxTool) OutputSchema() json.RawMessage { return nil }
func (laxTool) Invoke(context.Context, json.RawMessage) toolreg.Output {
	return toolreg.Output{Text: "ran"}
}

// TestEveryToolInvalidRuns: invalid arguments that a tool runs are
// reported, by kind and field.
func TestEveryToolInvalidRuns(t *testing.T) {
	reg := toolreg.NewRegistry()
	reg.MustAdd(laxTool{})
	rec := &recorder{TB: t}
	s := start(rec, fakemodel.EveryTool(rec, reg, fakemodel.WithInvalidCalls())...)
	client := anthropic.NewClient(s.AnthropicOptions()...)
	params := goParams()
	if _, err := toolanthropic.New(reg).Run(context.Background(), &client.Messages, params, nil, agent.Options{}); err != nil {
		t.Fatal(err)
	}
	s.AssertEveryTool()
	var kinds []string
	for _, e := range rec.end() {
		_, after, _ := strings.Cut(e, "(")
		kind, _, _ := strings.Cut(after, ")")
		kinds = append(kinds, kind)
	}
	want := []string{"missing required field: n", "wrong type: n", "out of bounds: n"}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("reported (-want +got):\n%s", diff)
	}
}

// TestEveryToolEmpty: a registry without tools is a failure, not a test
// that checks nothing.
func TestEveryToolEmpty(t *testing.T) {
	rec := &recorder{TB: t}
	fakemodel.EveryTool(rec, toolreg.NewRegistry())
	if got := rec.end(); len(got) != 1 || !strings.Contains(got[0], "no tools") {
		t.Errorf("reported %q", got)
	}
}

// TestInvalidArgumentsNameTheField: each invalid argument is refused by
// the tool with a message naming its field (toolregtest.AssertRejected).
func TestInvalidArgumentsNameTheField(t *testing.T) {
	for _, tool := range everyRegistry(t).Tools() {
		bad, err := toolregtest.InvalidArguments(tool, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bad {
			toolregtest.AssertRejected(t, tool, string(b.Args), b.Field)
		}
	}
}

// TestEveryToolFifty: fifty tools in one test, one turn of fifty parallel
// calls, streamed through the OpenAI Responses client and runner: the
// twenty tools and thirty more of the same schemas under other names,
// their arguments from another seed.
func TestEveryToolFifty(t *testing.T) {
	base := everyRegistry(t)
	reg := toolreg.NewRegistry()
	reg.MustAdd(base.Tools()...)
	for i := 0; reg.Len() < 50; i++ {
		tool := base.Tools()[i%base.Len()]
		reg.MustAdd(dynamic(fmt.Sprintf("%s_%d", tool.Name(), i), string(tool.InputSchema())))
	}
	s := fakemodel.New(t, fakemodel.EveryTool(t, reg, fakemodel.WithSeed(50))...)
	client := openai.NewClient(s.OpenAIOptions()...)
	var host hostOutputs
	params := responses.ResponseNewParams{Model: openai.ChatModelGPT5_2, Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Try every tool.")}}
	run, err := toolopenai.NewResponses(reg).Run(context.Background(), &client.Responses, params, nil, agent.Options{Stream: true, OnEvent: host.on})
	if err != nil {
		t.Fatal(err)
	}
	s.AssertEveryTool()
	host.check(t, reg)
	if run.Answer() != "Called 50 tools." {
		t.Errorf("answer %q", run.Answer())
	}
}
