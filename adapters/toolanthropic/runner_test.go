package toolanthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/adapt/adapttest"
)

// runner is one of the package's ways to run, with its resumption and the
// replies it reads.
type runner struct {
	name   string
	calls  func(pairs ...string) string
	answer func(text string) string
	run    func(ctx context.Context, a *Adapter, c *anthropic.MessageService, p anthropic.MessageNewParams, opts agent.Options) (*RunResult, error)
	resume func(ctx context.Context, a *Adapter, c *anthropic.MessageService, p anthropic.MessageNewParams, st *agent.State, opts agent.Options) (*RunResult, error)
}

// runners are the package's two ways to run, plain and streaming.
var runners = []runner{
	{"Run", toolUses, answer,
		func(ctx context.Context, a *Adapter, c *anthropic.MessageService, p anthropic.MessageNewParams, opts agent.Options) (*RunResult, error) {
			return a.Run(ctx, c, p, nil, opts)
		},
		func(ctx context.Context, a *Adapter, c *anthropic.MessageService, p anthropic.MessageNewParams, st *agent.State, opts agent.Options) (*RunResult, error) {
			return a.Run(ctx, c, p, st, opts)
		}},
	{"Stream", streamedUses, streamedAnswer,
		func(ctx context.Context, a *Adapter, c *anthropic.MessageService, p anthropic.MessageNewParams, opts agent.Options) (*RunResult, error) {
			opts.Stream = true
			return a.Run(ctx, c, p, nil, opts)
		},
		func(ctx context.Context, a *Adapter, c *anthropic.MessageService, p anthropic.MessageNewParams, st *agent.State, opts agent.Options) (*RunResult, error) {
			opts.Stream = true
			return a.Run(ctx, c, p, st, opts)
		}},
}

// TestRunLoop: one turn of every outcome, the step bound, a tool's StopRun
// and cancellation, as in every runner.
func TestRunLoop(t *testing.T) {
	for _, r := range runners {
		t.Run(r.name, func(t *testing.T) {
			adapttest.RunnerTests(t, adapttest.Runner{
				API:    fakeAnthropic,
				Calls:  r.calls,
				Answer: r.answer,
				NoArgs: `{}`,
				Run: func(ctx context.Context, api *adapttest.API, reg *toolreg.Registry, maxSteps int) (adapttest.Outcome, error) {
					client := newClient(t, api)
					var turns int
					run, err := r.run(ctx, New(reg), &client.Messages, params("plan my week"), agent.Options{MaxSteps: maxSteps, OnEvent: func(e agent.Event) {
						if e.Kind == agent.StepDone {
							turns++
						}
					}})
					return adapttest.Outcome{Steps: run.Steps(), Turns: turns, Transcript: len(run.Messages), Answer: run.Answer()}, err
				},
				Results:     runResults,
				MarksErrors: true,
				Transcript:  4, // the user's message, the assistant's, one message of 5 results, the answer
			})
		})
	}
}

// runResults reads the results of a turn from the request after it: the
// user's message, the assistant's message sent back as it came (its text
// and tool_use blocks, inputs as objects), then one user message of
// tool_result blocks in call order.
func runResults(t *testing.T, request map[string]any) []adapttest.Result {
	t.Helper()
	msgs := request["messages"].([]any)
	if len(msgs) != 3 {
		t.Fatalf("follow-up has %d messages:\n%v", len(msgs), msgs)
	}
	asst := msgs[1].(map[string]any)
	content := asst["content"].([]any)
	if asst["role"] != "assistant" || content[0].(map[string]any)["type"] != "text" {
		t.Fatalf("assistant message not sent back: %v", asst)
	}
	for _, b := range content[1:] {
		if in, ok := b.(map[string]any)["input"].(map[string]any); !ok {
			t.Errorf("tool_use input sent back as %v, not an object", in)
		}
	}
	var got []adapttest.Result
	for i, r := range toolResults(t, msgs[2].(map[string]any)) {
		if r.ToolUseID != fmt.Sprintf("toolu_%d", i+1) {
			t.Errorf("result %d answers %s", i, r.ToolUseID)
		}
		got = append(got, adapttest.Result{Text: r.Text, IsError: r.IsError})
	}
	if len(got) != len(content)-1 {
		t.Errorf("%d results for %d tool_use blocks", len(got), len(content)-1)
	}
	return got
}

// TestRunStopRunAnswers: the turn that stops the run still answers each
// tool_use, with the tool's error.
func TestRunStopRunAnswers(t *testing.T) {
	spent := errors.New("budget spent")
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("pay", "Pays.", func(context.Context, struct{}) (string, error) { return "", toolreg.StopRun(spent) }))
	f := fakeAnthropic(toolUses("pay", `{}`), answer("never sent"))
	client := newClient(t, f)
	run, err := New(reg).Run(context.Background(), &client.Messages, params("pay"), nil, agent.Options{})
	if !errors.Is(err, toolreg.ErrStopRun) || !errors.Is(err, spent) {
		t.Fatalf("err = %v", err)
	}
	if len(f.Requests) != 1 || len(run.Messages) != 3 {
		t.Fatalf("requests %d, transcript %d: the run went on after the stop", len(f.Requests), len(run.Messages))
	}
	b, _ := json.Marshal(run.Messages[2])
	var last map[string]any
	json.Unmarshal(b, &last)
	if diff := cmp.Diff([]toolResult{{"toolu_1", "budget spent", true}}, toolResults(t, last)); diff != "" {
		t.Errorf("results of the stopping turn (-want +got):\n%s", diff)
	}
}

// TestRunStopReasons: pause_turn is sent back unchanged and runs no tools;
// a response cut off at max_tokens ends the run without running its calls.
func TestRunStopReasons(t *testing.T) {
	t.Run("pause_turn", func(t *testing.T) {
		var received adapttest.Received
		paused := message("pause_turn",
			map[string]any{"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": map[string]any{"query": "weather"}},
			map[string]any{"type": "tool_use", "id": "toolu_9", "name": "get_weather", "input": map[string]any{"city": "Lima"}})
		f := fakeAnthropic(paused, answer("done"))
		client := newClient(t, f)
		run, err := New(adapttest.Registry(&received)).Run(context.Background(), &client.Messages, params("search"), nil, agent.Options{})
		if err != nil || run.Answer() != "done" || run.Steps() != 2 {
			t.Fatalf("err %v, answer %q, steps %d", err, run.Answer(), run.Steps())
		}
		msgs := f.Requests[1]["messages"].([]any)
		last := msgs[len(msgs)-1].(map[string]any)
		if len(msgs) != 2 || last["role"] != "assistant" || len(last["content"].([]any)) != 2 {
			t.Errorf("paused turn not sent back as it was: %v", msgs)
		}
		if len(received.Args()) != 0 {
			t.Errorf("a paused turn ran tools: %v", received.Args())
		}
	})
	for _, reason := range []string{"max_tokens", "model_context_window_exceeded"} {
		t.Run(reason, func(t *testing.T) {
			var received adapttest.Received
			cut := message(reason, map[string]any{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": map[string]any{"city": "Li"}})
			f := fakeAnthropic(cut, answer("never sent"))
			client := newClient(t, f)
			run, err := New(adapttest.Registry(&received)).Run(context.Background(), &client.Messages, params("hi"), nil, agent.Options{})
			if !errors.Is(err, toolreg.ErrTruncated) || !strings.Contains(err.Error(), reason) {
				t.Fatalf("err = %v", err)
			}
			if len(f.Requests) != 1 || len(run.Messages) != 2 || run.Final == nil || len(received.Args()) != 0 {
				t.Errorf("requests %d, transcript %d, final %v, calls %v", len(f.Requests), len(run.Messages), run.Final, received.Args())
			}
		})
	}
	t.Run("refusal", func(t *testing.T) {
		f := fakeAnthropic(message("refusal", map[string]any{"type": "text", "text": "I can't help with that."}))
		client := newClient(t, f)
		run, err := New(adapttest.Registry(nil)).Run(context.Background(), &client.Messages, params("hi"), nil, agent.Options{})
		if err != nil || run.Final.StopReason != anthropic.StopReasonRefusal || run.Answer() != "I can't help with that." {
			t.Errorf("err %v, final %+v", err, run.Final)
		}
	})
}

// TestControl: approvals, interrupts, retries and per-step tools through
// each runner and its resumption, as in every runner (deferred tools
// searched on the client, WithClientToolSearch, as the shared tests expect).
func TestControl(t *testing.T) {
	for _, r := range runners {
		t.Run(r.name, func(t *testing.T) { adapttest.ControlTests(t, control(t, r, WithClientToolSearch())) })
	}
}

// TestNativeControl: the loop follows Anthropic's own tool search, in each
// runner (adapttest.NativeTests).
func TestNativeControl(t *testing.T) {
	for _, r := range runners {
		t.Run(r.name, func(t *testing.T) { adapttest.NativeTests(t, control(t, r)) })
	}
}

// control is the runner r, its adapter made with opts, as the shared tests
// drive it.
func control(t *testing.T, r runner, opts ...Option) adapttest.Control {
	return adapttest.Control{
		Runner: adapttest.Runner{API: fakeAnthropic, Calls: r.calls, Answer: r.answer, NoArgs: `{}`, Results: runResults, MarksErrors: true},
		Start: func(ctx context.Context, api *adapttest.API, reg *toolreg.Registry, o agent.Options) (*agent.State, error) {
			client := newClient(t, api)
			run, err := r.run(ctx, New(reg, opts...), &client.Messages, params("plan my week"), o)
			return run.State, err
		},
		Resume: func(ctx context.Context, api *adapttest.API, reg *toolreg.Registry, st *agent.State, o agent.Options) (*agent.State, error) {
			client := newClient(t, api)
			run, err := r.resume(ctx, New(reg, opts...), &client.Messages, params("plan my week"), st, o)
			return run.State, err
		},
		Tools:  toolNames,
		Choice: choiceOf,
	}
}

func toolNames(t *testing.T, request map[string]any) []string {
	var names []string
	tools, _ := request["tools"].([]any)
	for _, tool := range tools {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	return names
}

// choiceOf reads tool_choice in the Messages API's form: {"type":"auto"},
// {"type":"any"}, {"type":"none"} or {"type":"tool","name":...}.
func choiceOf(t *testing.T, request map[string]any) agent.ToolChoice {
	c, _ := request["tool_choice"].(map[string]any)
	switch c["type"] {
	case "auto":
		return agent.Auto
	case "any":
		return agent.Required
	case "none":
		return agent.None
	case "tool":
		return agent.Force(c["name"].(string))
	}
	t.Fatalf("tool_choice %v", request["tool_choice"])
	return agent.ToolChoice{}
}

// TestStepTools: what each step sends as tools and tool_choice, in the
// Messages API's form, from the step and from the caller's params.
func TestStepTools(t *testing.T) {
	custom := anthropic.ToolUnionParam{OfTool: &anthropic.ToolParam{Name: "custom", InputSchema: anthropic.ToolInputSchemaParam{}}}
	tests := []struct {
		name       string
		tools      []anthropic.ToolUnionParam // params.Tools
		choice     anthropic.ToolChoiceUnionParam
		prepare    func(s *agent.Step) error
		wantTools  []string
		wantChoice string // as sent; "" for none
	}{
		{"every tool, auto", nil, anthropic.ToolChoiceUnionParam{}, nil,
			[]string{"get_weather", "get_time"}, `{"type":"auto"}`},
		{"one tool forced", nil, anthropic.ToolChoiceUnionParam{}, func(s *agent.Step) error {
			s.Choice = agent.Force("get_time")
			return s.Only("get_time")
		}, []string{"get_time"}, `{"name":"get_time","type":"tool"}`},
		{"required keeps disable_parallel_tool_use", nil,
			anthropic.ToolChoiceUnionParam{OfAuto: &anthropic.ToolChoiceAutoParam{DisableParallelToolUse: anthropic.Bool(true)}},
			func(s *agent.Step) error {
				s.Choice = agent.Required
				return nil
			}, []string{"get_weather", "get_time"}, `{"disable_parallel_tool_use":true,"type":"any"}`},
		{"none", nil, anthropic.ToolChoiceUnionParam{}, func(s *agent.Step) error {
			s.Choice = agent.None
			return nil
		}, []string{"get_weather", "get_time"}, `{"type":"none"}`},
		{"no tool offered: no tools, no tool_choice", nil, anthropic.ToolChoiceParamOfTool("get_time"), func(s *agent.Step) error {
			return s.Hide("get_weather", "get_time")
		}, nil, ""},
		{"the caller's tools, as they are", []anthropic.ToolUnionParam{custom}, anthropic.ToolChoiceUnionParam{}, func(s *agent.Step) error {
			return s.Only("get_time")
		}, []string{"custom"}, `{"type":"auto"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := fakeAnthropic(answer("ok"))
			client := newClient(t, api)
			p := params("hi")
			p.Tools, p.ToolChoice = tt.tools, tt.choice
			var opts agent.Options
			if tt.prepare != nil {
				opts.PrepareStep = func(_ context.Context, s *agent.Step) error { return tt.prepare(s) }
			}
			if _, err := New(adapttest.Registry(nil)).Run(context.Background(), &client.Messages, p, nil, opts); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantTools, toolNames(t, api.Requests[0])); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			if got := string(rawField(t, api.Raw[0], "tool_choice")); got != tt.wantChoice {
				t.Errorf("tool_choice %s, want %s", got, tt.wantChoice)
			}
			if _, ok := api.Requests[0]["tools"]; ok != (tt.wantTools != nil) {
				t.Errorf("tools sent: %v", api.Requests[0]["tools"])
			}
		})
	}
}

// TestStrictLimitsPerStep: the strict limits count the tools a request
// carries, so a registry over them may offer a few at a time.
func TestStrictLimitsPerStep(t *testing.T) {
	reg := toolreg.NewRegistry()
	for i := range MaxStrictTools + 1 {
		reg.MustAdd(adapttest.RawTool{ToolName: fmt.Sprintf("tool_%02d", i), Input: objectSchema(1, `{"type":"string"}`, true)})
	}
	a := New(reg, WithStrict())
	if _, err := a.Tools(); !errors.Is(err, ErrStrictLimit) {
		t.Fatalf("Tools: err = %v, want ErrStrictLimit", err)
	}
	api := fakeAnthropic(answer("ok"))
	client := newClient(t, api)
	_, err := a.Run(context.Background(), &client.Messages, params("hi"), nil, agent.Options{PrepareStep: func(_ context.Context, s *agent.Step) error {
		return s.Only("tool_03", "tool_07")
	}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"tool_03", "tool_07"}, toolNames(t, api.Requests[0])); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	_, err = a.Run(context.Background(), &client.Messages, params("hi"), nil, agent.Options{})
	if !errors.Is(err, ErrStrictLimit) || len(api.Requests) != 1 {
		t.Errorf("every tool offered: err %v, %d requests", err, len(api.Requests))
	}
}

// TestStateTranscript: a paused run's State is plain JSON (the golden
// file shows it; a streamed run's is the same), and its transcript the
// messages as the SDK encodes them; resumed from that JSON, the run sends
// them again byte for byte (the model's inputs keep their key order), as
// prompt caching needs.
func TestStateTranscript(t *testing.T) {
	for _, r := range runners {
		t.Run(r.name, func(t *testing.T) {
			reg := adapttest.ControlRegistry(map[string]int{})
			api := fakeAnthropic(r.calls("get_weather", `{"days":2,"city":"Oslo"}`, "get_weather", `{"city":"Atlantis"}`, "book", `{"city":"Oslo"}`), r.answer("Booked."))
			client := newClient(t, api)
			run, err := r.run(context.Background(), New(reg), &client.Messages, params("plan my week"), agent.Options{})
			if !errors.Is(err, agent.ErrPaused) {
				t.Fatalf("err = %v", err)
			}
			if run.State.RunID == "" {
				t.Error("the run has no id")
			}
			golden := *run.State
			golden.RunID = "" // made up anew by each run
			b, err := json.Marshal(golden)
			if err != nil {
				t.Fatal(err)
			}
			adapttest.GoldenJSON(t, "state_paused.json", b, *update && r.name == "Run")
			b, err = json.Marshal(run.State)
			if err != nil {
				t.Fatal(err)
			}
			var st agent.State
			if err := json.Unmarshal(b, &st); err != nil {
				t.Fatal(err)
			}
			st.Approve("toolu_3")
			transcript := strings.TrimSuffix(string(st.Transcript), "]")
			run, err = r.resume(context.Background(), New(reg), &client.Messages, params("plan my week"), &st, agent.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if sent := string(rawField(t, api.Raw[1], "messages")); !strings.HasPrefix(sent, transcript+",") {
				t.Errorf("the resumed run sent another transcript:\nsaved %s]\nsent  %s", transcript, sent)
			}
			if len(run.Messages) != 4 || run.Answer() != "Booked." {
				t.Errorf("%d messages, answer %q", len(run.Messages), run.Answer())
			}
		})
	}
}

// TestResumeEitherWay: a run paused while streaming resumes without, and
// the other way round; a zero State starts a run as a nil one does.
func TestResumeEitherWay(t *testing.T) {
	for i, r := range runners {
		other := runners[1-i]
		t.Run(r.name+" then "+other.name, func(t *testing.T) {
			ran := map[string]int{}
			reg := adapttest.ControlRegistry(ran)
			api := fakeAnthropic(r.calls("book", `{"city":"Oslo"}`), other.answer("Booked."))
			client := newClient(t, api)
			run, err := r.resume(context.Background(), New(reg), &client.Messages, params("book Oslo"), &agent.State{}, agent.Options{})
			if !errors.Is(err, agent.ErrPaused) {
				t.Fatalf("err = %v, want the run paused", err)
			}
			for _, c := range run.State.Pending() {
				run.State.Approve(c.Key())
			}
			run, err = other.resume(context.Background(), New(reg), &client.Messages, params("ignored"), run.State, agent.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if run.Answer() != "Booked." || ran["book"] != 1 || len(run.Messages) != 4 || run.Steps() != 2 {
				t.Errorf("answer %q, book ran %d times, %d messages, %d steps", run.Answer(), ran["book"], len(run.Messages), run.Steps())
			}
		})
	}
}

// TestCallInfo: a tool learns its call's id, step, attempt and provider,
// also when it starts while the model streams; and the Observer sees the
// run and each model call, named as the request names the model.
func TestCallInfo(t *testing.T) {
	for _, r := range runners {
		t.Run(r.name, func(t *testing.T) {
			reg := toolreg.NewRegistry()
			reg.MustAdd(toolreg.MustNew("whoami", "Says who calls.", func(ctx context.Context, a struct {
				N int `json:"n"`
			}) (toolreg.CallInfo, error) {
				if a.N < 0 {
					return toolreg.CallInfo{}, toolreg.Retry(errors.New("n must not be negative"))
				}
				return toolreg.Info(ctx), nil
			}))
			api := fakeAnthropic(r.calls("whoami", `{"n":-1}`), r.calls("whoami", `{"n":1}`), r.answer("ok"))
			client := newClient(t, api)
			var obs observer
			run, err := r.run(context.Background(), New(reg), &client.Messages, params("who?"), agent.Options{Observer: &obs})
			if err != nil {
				t.Fatal(err)
			}
			// The second turn's result: the last three messages read as a
			// first turn's are.
			msgs := api.Requests[2]["messages"].([]any)
			got := runResults(t, map[string]any{"messages": msgs[len(msgs)-3:]})
			want := []adapttest.Result{{Text: `{"ID":"toolu_1","Tool":"whoami","Step":2,"Attempt":2,"Provider":"anthropic","RunID":"` + run.State.RunID + `","Answer":null}`}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("call info (-want +got):\n%s", diff)
			}
			wantSeen := []string{"run anthropic claude-sonnet-4-5", "call 1", "call 2", "call 3", "run ended"}
			if diff := cmp.Diff(wantSeen, obs.seen); diff != "" {
				t.Errorf("observed (-want +got):\n%s", diff)
			}
		})
	}
}

// observer records what an agent.Observer sees.
type observer struct{ seen []string }

func (o *observer) RunStarted(ctx context.Context, run agent.RunInfo) context.Context {
	o.seen = append(o.seen, fmt.Sprintf("run %s %s", run.Provider, run.Model))
	return ctx
}

func (o *observer) RunEnded(context.Context, agent.RunInfo, error) {
	o.seen = append(o.seen, "run ended")
}

func (o *observer) ModelCallStarted(ctx context.Context, call agent.ModelCall) context.Context {
	o.seen = append(o.seen, fmt.Sprintf("call %d", call.Step))
	return ctx
}

func (o *observer) ModelCallEnded(context.Context, agent.ModelCall, agent.Usage, error) {}

// TestModelNeedsState: Model refuses a nil State, which its host could not
// read back.
func TestModelNeedsState(t *testing.T) {
	if _, err := New(toolreg.NewRegistry()).Model(nil, params("hi"), nil); err == nil {
		t.Error("Model took a nil state")
	}
}
