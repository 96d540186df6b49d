package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/scripted"
	"github.com/toolreg/toolreg/toolregtest/fakemodel"
)

// offlineModel is a scripted Chat Completions model (package
// toolregtest/fakemodel) that answers each request with the next of
// replies: a list of tool calls ("name {args}; ...") or, for a reply
// without "{", the model's answer. It prints what each request offers the
// model. A test of your own agent scripts its model the same way, with
// fakemodel.New(t, ...).
func offlineModel(replies ...string) scripted.Model {
	var turns []fakemodel.Turn
	for _, turn := range scripted.Turns(replies...) {
		turns = append(turns, fakemodel.Func(func(r fakemodel.Request) fakemodel.Turn {
			var req struct {
				ToolChoice any `json:"tool_choice"`
			}
			json.Unmarshal(r.Body, &req)
			choice, _ := json.Marshal(req.ToolChoice)
			fmt.Printf("  (the model is offered %v, tool_choice %s)\n", r.ToolNames(), choice)
			return turn
		}))
	}
	return scripted.New(turns...)
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
	client := openai.NewClient(srv.OpenAIOptions()...)
	reg := toolreg.NewRegistry()
	reg.MustAdd(weather, book)
	adapter := toolopenai.NewChat(reg)

	run, err := adapter.Run(context.Background(), &client.Chat.Completions, params("Book me a sunny city."), nil, agent.Options{})
	fmt.Println(errors.Is(err, agent.ErrPaused))
	saved, _ := json.Marshal(run.State)

	var state agent.State
	json.Unmarshal(saved, &state)
	for _, c := range state.Pending() {
		fmt.Println("waiting:", c.Name, string(c.Arguments), c.Status)
		state.Approve(c.Key())
	}
	run, err = adapter.Run(context.Background(), &client.Chat.Completions, params("Book me a sunny city."), &state, agent.Options{})
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
	client := openai.NewClient(srv.OpenAIOptions()...)
	reg := toolreg.NewRegistry()
	reg.MustAdd(book)
	adapter := toolopenai.NewChat(reg)
	var results []string
	opts := agent.Options{OnEvent: func(e agent.Event) {
		if e.Kind == agent.CallResult {
			results = append(results, e.Output.Text)
		}
	}}
	run, _ := adapter.Run(context.Background(), &client.Chat.Completions, params("Book Lima."), nil, opts)
	run.State.Reject(run.State.Pending()[0].Key(), "the trip is cancelled")
	run, _ = adapter.Run(context.Background(), &client.Chat.Completions, params("Book Lima."), run.State, opts)
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
	client := openai.NewClient(srv.OpenAIOptions()...)
	reg := toolreg.NewRegistry()
	reg.MustAdd(pick)
	adapter := toolopenai.NewChat(reg)
	opts := agent.Options{OnEvent: func(e agent.Event) {
		if e.Kind == agent.CallResult {
			fmt.Println("result:", e.Output.Text)
		}
	}}
	run, _ := adapter.Run(context.Background(), &client.Chat.Completions, params("Pick a room."), nil, opts)
	c := run.State.Pending()[0]
	fmt.Println("the tool asks:", string(c.Question))
	run.State.Answer(c.Key(), "sea view")
	run, _ = adapter.Run(context.Background(), &client.Chat.Completions, params("Pick a room."), run.State, opts)
	fmt.Println(run.Answer())
	// Output:
	//   (the model is offered [pick_room], tool_choice "auto")
	// the tool asks: ["sea view","garden view"]
	// result: room "sea view"
	//   (the model is offered [pick_room], tool_choice "auto")
	// Done.
}

// PrepareStep chooses each step's tools and tool choice, checked against
// the registry; each runner sends them in its provider's form. The tools
// array stays the run's, so that the prompt cache holds: Chat Completions
// restricts a step with tool_choice allowed_tools.
func ExampleStep() {
	srv := offlineModel(`get_weather {"city":"Oslo"}`, "It is sunny in Oslo.")
	defer srv.Close()
	client := openai.NewClient(srv.OpenAIOptions()...)
	reg := toolreg.NewRegistry()
	reg.MustAdd(weather, book)
	run, err := toolopenai.NewChat(reg).Run(context.Background(), &client.Chat.Completions, params("Weather in Oslo?"), nil, agent.Options{
		PrepareStep: func(_ context.Context, s *agent.Step) error {
			if s.Number == 1 {
				s.Choice = agent.Required
				return s.Only("get_weather")
			}
			s.Choice = agent.None
			return nil
		},
	})
	fmt.Println(run.Answer(), err)
	// Output:
	//   (the model is offered [get_weather book_hotel], tool_choice {"allowed_tools":{"mode":"required","tools":[{"function":{"name":"get_weather"},"type":"function"}]},"type":"allowed_tools"})
	//   (the model is offered [get_weather book_hotel], tool_choice "none")
	// It is sunny in Oslo. <nil>
}

// OnEvent sees a run as it happens, the same for every provider.
func ExampleOptions_onEvent() {
	srv := offlineModel(`get_weather {"city":"Rome"}; get_weather {"city":"Nice"}`, "Both are sunny.")
	defer srv.Close()
	client := openai.NewClient(srv.OpenAIOptions()...)
	reg := toolreg.NewRegistry()
	reg.MustAdd(weather)
	toolopenai.NewChat(reg).Run(context.Background(), &client.Chat.Completions, params("Rome or Nice?"), nil, agent.Options{OnEvent: func(e agent.Event) {
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

// A host that drives a run itself makes each step as the runners do, and
// hands it to its PrepareStep and to the model.
func ExampleNewStep() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(weather, book)
	s := agent.NewStep(1, reg)
	fmt.Println(s.Number, s.Tools(), s.Choice == agent.Auto)
	// Output:
	// 1 [get_weather book_hotel] true
}

// step is step n of a run over a registry of get_weather and book_hotel.
func step(n int) *agent.Step {
	reg := toolreg.NewRegistry()
	reg.MustAdd(weather, book)
	return agent.NewStep(n, reg)
}

// Only offers just the named tools; a name the registry does not hold is
// an error here, not a request the provider refuses.
func ExampleStep_Only() {
	s := step(1) // offers get_weather and book_hotel
	fmt.Println(s.Only("get_weather"), s.Tools())
	err := s.Only("get_wether")
	fmt.Println(errors.Is(err, agent.ErrInvalidStep), err)
	// Output:
	// <nil> [get_weather]
	// true invalid step: step 1: the registry has no tool "get_wether"
}

// Hide stops offering tools, Add offers them again.
func ExampleStep_Hide() {
	s := step(2) // offers get_weather and book_hotel
	s.Hide("book_hotel")
	fmt.Println(s.Tools())
	// Output:
	// [get_weather]
}

func ExampleStep_Add() {
	s := step(1) // offers get_weather and book_hotel
	s.Only("get_weather")
	s.Add("book_hotel")
	fmt.Println(s.Tools())
	// Output:
	// [get_weather book_hotel]
}

// OnlyTagged offers the tools of one kind (toolreg.WithTags).
func ExampleStep_OnlyTagged() {
	read := toolreg.MustNew("list_files", "Lists files.", func(context.Context, struct{}) (string, error) { return "", nil }, toolreg.WithTags("read"))
	write := toolreg.MustNew("delete_file", "Deletes a file.", func(context.Context, struct{}) (string, error) { return "", nil }, toolreg.WithTags("write"))
	reg := toolreg.NewRegistry()
	reg.MustAdd(read, write)
	s := agent.NewStep(1, reg)
	s.OnlyTagged("read")
	fmt.Println(s.Tools())
	// Output:
	// [list_files]
}

// Tools lists what the step offers, in the registry's order.
func ExampleStep_Tools() {
	s := step(1) // offers get_weather and book_hotel
	fmt.Println(s.Tools())
	s.Choice = agent.None // offered, but the model may not call them
	fmt.Println(s.Tools(), s.Check())
	// Output:
	// [get_weather book_hotel]
	// [get_weather book_hotel] <nil>
}

// Check reports a tool choice the step cannot honour; the runners check
// each step before they ask the model.
func ExampleStep_Check() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(weather)
	s := agent.NewStep(1, reg)
	s.Choice = agent.Required
	fmt.Println(s.Check())
	s.Hide("get_weather")
	fmt.Println(s.Check())
	// Output:
	// <nil>
	// invalid step: step 1: a tool call is required but no tool is offered
}

// Force demands a call of one tool, which the step must offer.
func ExampleForce() {
	s := step(1) // offers get_weather and book_hotel
	s.Choice = agent.Force("book_hotel")
	fmt.Println(s.Choice.Mode == agent.ChoiceTool, s.Choice.Tool, s.Check())
	s.Only("get_weather")
	fmt.Println(s.Check())
	// Output:
	// true book_hotel <nil>
	// invalid step: step 1: the tool choice names "book_hotel", which the step does not offer (it offers [get_weather])
}

// The kinds of events, as they print.
func ExampleEventKind_String() {
	for _, k := range []agent.EventKind{agent.TextDelta, agent.CallStarted, agent.ArgumentsDelta, agent.CallReady, agent.CallResult, agent.StepDone} {
		fmt.Println(k)
	}
	// Output:
	// text
	// call started
	// arguments
	// call ready
	// call result
	// step done
}

// A call is known by its id, or, when the provider gave none (Gemini
// often), by its place in the turn.
func ExampleCall_Key() {
	fmt.Println(agent.Call{ID: "call_1", Name: "get_weather", Index: 0}.Key())
	fmt.Println(agent.Call{Name: "get_weather", Index: 1}.Key())
	// Output:
	// call_1
	// #1
}

// ToolCall is the call as the registry runs it: a host may run a pending
// call itself, to preview it, say.
func ExampleCall_ToolCall() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(weather)
	c := agent.Call{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Oslo"}`), Status: agent.StatusApproval}
	fmt.Println(reg.CallAll(context.Background(), []toolreg.ToolCall{c.ToolCall()})[0].Text)
	// Output:
	// sunny in Oslo
}

// ResultOf keeps of an Output what the model reads, to store in a State;
// Output turns it back, its Err only saying that the call failed.
func ExampleResultOf() {
	reg := toolreg.NewRegistry()
	reg.MustAdd(weather)
	out := reg.Call(context.Background(), "get_weather", json.RawMessage(`{}`))
	r := agent.ResultOf(out)
	b, _ := json.Marshal(r)
	fmt.Println(string(b))
	// Output:
	// {"text":"invalid arguments for tool \"get_weather\":\n- city: required field is missing; expected a string\nFix the arguments and call the tool again.","is_error":true}
}

func ExampleResult_Output() {
	r := &agent.Result{Text: "no station in Atlantis", IsError: true}
	out := r.Output()
	fmt.Println(out.IsError, out.Text)
	fmt.Println(out.Err)
	// Output:
	// true no station in Atlantis
	// no station in Atlantis
}

// The host corrects the model's arguments as it approves the call; the
// tool checks them as it would the model's.
func ExampleState_ApproveWith() {
	srv := offlineModel(`book_hotel {"city":"Lima"}`, "Booked in Cusco.")
	defer srv.Close()
	client := openai.NewClient(srv.OpenAIOptions()...)
	reg := toolreg.NewRegistry()
	reg.MustAdd(book)
	adapter := toolopenai.NewChat(reg)
	run, _ := adapter.Run(context.Background(), &client.Chat.Completions, params("Book Cusco."), nil, agent.Options{})
	c := run.State.Pending()[0]
	fmt.Println(run.State.ApproveWith(c.Key(), json.RawMessage(`{"city":"Cusco"}`)))
	run, err := adapter.Run(context.Background(), &client.Chat.Completions, params("Book Cusco."), run.State, agent.Options{OnEvent: func(e agent.Event) {
		if e.Kind == agent.CallResult {
			fmt.Println("result:", e.Output.Text)
		}
	}})
	fmt.Println(run.Answer(), err)
	// Output:
	//   (the model is offered [book_hotel], tool_choice "auto")
	// <nil>
	// result: booked in Cusco
	//   (the model is offered [book_hotel], tool_choice "auto")
	// Booked in Cusco. <nil>
}

// Paused and Pending tell the host what a run waits for; the turn's other
// calls ran and their results wait in the State.
func ExampleState_Pending() {
	srv := offlineModel(`get_weather {"city":"Lima"}; book_hotel {"city":"Lima"}`)
	defer srv.Close()
	client := openai.NewClient(srv.OpenAIOptions()...)
	reg := toolreg.NewRegistry()
	reg.MustAdd(weather, book)
	run, _ := toolopenai.NewChat(reg).Run(context.Background(), &client.Chat.Completions, params("Book Lima."), nil, agent.Options{})
	for _, c := range run.State.Turn {
		fmt.Println(c.Key(), c.Name, c.Status)
	}
	for _, c := range run.State.Pending() {
		fmt.Println("pending:", c.Key(), c.Name)
	}
	// Output:
	//   (the model is offered [get_weather book_hotel], tool_choice "auto")
	// call_1_1 get_weather done
	// call_1_2 book_hotel approval
	// pending: call_1_2 book_hotel
}

func ExampleState_Paused() {
	srv := offlineModel(`book_hotel {"city":"Lima"}`)
	defer srv.Close()
	client := openai.NewClient(srv.OpenAIOptions()...)
	reg := toolreg.NewRegistry()
	reg.MustAdd(book)
	run, _ := toolopenai.NewChat(reg).Run(context.Background(), &client.Chat.Completions, params("Book Lima."), nil, agent.Options{})
	fmt.Println(run.State.Paused())
	run.State.Reject(run.State.Pending()[0].Key(), "not now")
	fmt.Println(run.State.Paused())
	// Output:
	//   (the model is offered [book_hotel], tool_choice "auto")
	// true
	// false
}

// observer prints the structure of a run: package toolreg/toolotel's opens
// spans at the same points.
type observer struct{}

func (observer) RunStarted(ctx context.Context, run agent.RunInfo) context.Context {
	fmt.Println("run started:", run.Provider, run.Model)
	return ctx
}

func (observer) RunEnded(_ context.Context, _ agent.RunInfo, err error) {
	fmt.Println("run ended:", err)
}

func (observer) ModelCallStarted(ctx context.Context, call agent.ModelCall) context.Context {
	fmt.Println("  model call", call.Step)
	return ctx
}

func (observer) ModelCallEnded(_ context.Context, call agent.ModelCall, _ agent.Usage, err error) {
	fmt.Println("  model call", call.Step, "ended:", err)
}

// An Observer sees the run and each model call in it begin and end.
func ExampleObserver() {
	srv := offlineModel(`get_weather {"city":"Rome"}`, "Sunny in Rome.")
	defer srv.Close()
	client := openai.NewClient(srv.OpenAIOptions()...)
	reg := toolreg.NewRegistry()
	reg.MustAdd(weather)
	toolopenai.NewChat(reg).Run(context.Background(), &client.Chat.Completions, params("Rome?"), nil, agent.Options{Observer: observer{}})
	// Output:
	// run started: openai.chat gpt-4.1-mini
	//   model call 1
	//   (the model is offered [get_weather], tool_choice "auto")
	//   model call 1 ended: <nil>
	//   model call 2
	//   (the model is offered [get_weather], tool_choice "auto")
	//   model call 2 ended: <nil>
	// run ended: <nil>
}

// With Options.StateKey, the runner seals the State it returns. The host
// that decides in one process reseals the State with its decisions; the
// process that resumes it checks the seal, and refuses a State someone
// changed in the store.
func ExampleState_Reseal() {
	srv := offlineModel(`book_hotel {"city":"Lima"}`, "Booked in Lima.")
	defer srv.Close()
	client := openai.NewClient(srv.OpenAIOptions()...)
	reg := toolreg.NewRegistry()
	reg.MustAdd(book)
	adapter := toolopenai.NewChat(reg)
	key := []byte("a secret of 32 random bytes, say") // the same in every process
	opts := agent.Options{StateKey: key}

	run, _ := adapter.Run(context.Background(), &client.Chat.Completions, params("Book Lima."), nil, opts)
	stored, _ := json.Marshal(run.State)

	// The process that decides: it loads, checks, decides, reseals, saves.
	var st agent.State
	json.Unmarshal(stored, &st)
	fmt.Println("verified:", st.Verify(key))
	st.Approve(st.Pending()[0].Key())
	fmt.Println("resealed:", st.Reseal(key))
	stored, _ = json.Marshal(&st)

	// Someone with access to the store, but not the key, edits it.
	tampered := strings.Replace(string(stored), `"steps":1`, `"steps":-50`, 1)
	var bad agent.State
	json.Unmarshal([]byte(tampered), &bad)
	_, err := adapter.Run(context.Background(), &client.Chat.Completions, params("Book Lima."), &bad, opts)
	fmt.Println(errors.Is(err, agent.ErrInvalidState))

	// The process that resumes the State as the host saved it.
	var next agent.State
	json.Unmarshal(stored, &next)
	run, err = adapter.Run(context.Background(), &client.Chat.Completions, params("Book Lima."), &next, opts)
	fmt.Println(run.Answer(), err)
	// Output:
	//   (the model is offered [book_hotel], tool_choice "auto")
	// verified: <nil>
	// resealed: <nil>
	// true
	//   (the model is offered [book_hotel], tool_choice "auto")
	// Booked in Lima. <nil>
}

// Validate tells a host that loads a State whether a runner could have
// written it, before it shows the pending calls to anyone.
func ExampleState_Validate() {
	stored := `{"provider":"openai.chat","steps":1,"transcript":[],"turn":[` +
		`{"id":"call_1","name":"get_weather","arguments":{"city":"Lima"},"index":0,"status":"done"},` +
		`{"id":"call_2","name":"book_hotel","arguments":{"city":"Lima"},"index":1,"status":"approval"}]}`
	var st agent.State
	json.Unmarshal([]byte(stored), &st)
	err := st.Validate()
	fmt.Println(errors.Is(err, agent.ErrInvalidState))
	fmt.Println(err)
	// Output:
	// true
	// invalid state: call call_1 ("get_weather"): result: a done call without its result
}

// A step restricted with Only declares the run's tools all the same: a
// provider that can restrict calls by name keeps the array (Declared) and
// sends the restriction beside it; one that cannot sends Trimmed.
func ExampleStep_Restriction() {
	s := step(1) // offers get_weather and book_hotel
	s.Only("get_weather")
	allowed, restricted := s.Restriction()
	var declared, trimmed []string
	for _, t := range s.Declared() {
		declared = append(declared, t.Name())
	}
	for _, t := range s.Trimmed() {
		trimmed = append(trimmed, t.Name())
	}
	fmt.Println(declared, allowed, restricted, trimmed)
	// Output:
	// [get_weather book_hotel] [get_weather] true [get_weather]
}
