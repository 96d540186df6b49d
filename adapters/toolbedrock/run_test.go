package toolbedrock

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/adapt/adapttest"
)

// runner drives Run, streamed or not, as the shared tests do, counting the
// StepDone events as turns.
func runner(t *testing.T, calls func(...string) string, answer func(string) string, stream bool) adapttest.Runner {
	return adapttest.Runner{
		API:    fakeBedrock,
		Calls:  calls,
		Answer: answer,
		NoArgs: `{}`, // Converse's input is always an object
		Run: func(ctx context.Context, api *adapttest.API, reg *toolreg.Registry, maxSteps int) (adapttest.Outcome, error) {
			var turns int
			opts := agent.Options{MaxSteps: maxSteps, OnEvent: func(e agent.Event) {
				if e.Kind == agent.StepDone {
					turns++
				}
			}}
			run, err := start(t, ctx, api, reg, opts, stream)
			return adapttest.Outcome{Steps: run.Steps(), Turns: turns, Transcript: len(run.Messages), Answer: run.Answer()}, err
		},
		Results:     converseResults,
		MarksErrors: true,
		Transcript:  4, // the user's message, the assistant's with 5 tool uses, one message of 5 results, the answer
	}
}

// start runs reg's tools on converseInput against api, streamed or not.
func start(t *testing.T, ctx context.Context, api *adapttest.API, reg *toolreg.Registry, opts agent.Options, stream bool) (*RunResult, error) {
	return resume(t, ctx, api, reg, nil, opts, stream)
}

func resume(t *testing.T, ctx context.Context, api *adapttest.API, reg *toolreg.Registry, st *agent.State, opts agent.Options, stream bool) (*RunResult, error) {
	opts.Stream = stream
	return New(reg).Run(ctx, newClient(t, api), converseInput(), st, opts)
}

// TestRunLoop: one turn of every outcome, the step bound, a tool's
// StopRun and cancellation, as in every runner.
func TestRunLoop(t *testing.T) {
	adapttest.RunnerTests(t, runner(t, toolUses, answer, false))
}

// TestRunControl: approvals, rejections and interrupts through a State
// sent through JSON, and each step's tools and tool choice in Converse's
// form (see controlTests).
func TestRunControl(t *testing.T) {
	controlTests(t, toolUses, answer, false)
}

// TestStoredState: a stored State is resumed only as the runner wrote it,
// with the host's decisions, streamed or not (adapttest.StateTests); and
// deferred tools, found with the tool search (adapttest.DeferredTests).
func TestStoredState(t *testing.T) {
	for _, stream := range []bool{false, true} {
		calls, ans := toolUses, answer
		if stream {
			calls, ans = streamedToolUses, streamedAnswer
		}
		r := runner(t, calls, ans, stream)
		t.Run(map[bool]string{false: "run", true: "stream"}[stream], func(t *testing.T) {
			c := adapttest.Control{
				Runner: r,
				Start: func(ctx context.Context, api *adapttest.API, reg *toolreg.Registry, opts agent.Options) (*agent.State, error) {
					run, err := start(t, ctx, api, reg, opts, stream)
					return run.State, err
				},
				Resume: func(ctx context.Context, api *adapttest.API, reg *toolreg.Registry, st *agent.State, opts agent.Options) (*agent.State, error) {
					run, err := resume(t, ctx, api, reg, st, opts, stream)
					if run == nil {
						return st, err
					}
					return run.State, err
				},
				Tools: converseTools,
			}
			adapttest.StateTests(t, c)
			t.Run("deferred tools", func(t *testing.T) { adapttest.DeferredTests(t, c) })
		})
	}
}

// controlTests checks agent control on Converse, streamed or not. It is
// adapttest.ControlTests but for the tool choice: Converse has no "none",
// so a None step offers no tool (or, once the transcript holds tool
// blocks, only the placeholder) where ControlTests wants every tool of the
// step offered with a choice of none.
func controlTests(t *testing.T, calls func(...string) string, answer func(string) string, stream bool) {
	tests := []struct {
		name    string
		replies []string
		decide  func(st *agent.State) error
		want    []adapttest.Result // what the resumed run sends back
		ran     map[string]int
	}{
		{"approve", []string{calls("get_weather", `{"city":"Oslo"}`, "book", `{"city":"Oslo"}`), answer("Booked.")},
			func(st *agent.State) error { return st.Approve(st.Pending()[0].Key()) },
			[]adapttest.Result{{Text: `{"city":"Oslo","days":1,"unit":"celsius"}`}, {Text: "booked Oslo"}},
			map[string]int{"book": 1}},
		{"reject", []string{calls("book", `{"city":"Lima"}`), answer("Not booked.")},
			func(st *agent.State) error { return st.Reject(st.Pending()[0].Key(), "the budget covers Oslo only") },
			[]adapttest.Result{{Text: `the host did not allow this call of "book": the budget covers Oslo only`, IsError: true}},
			map[string]int{}},
		{"answer", []string{calls("pick", `{"city":"London"}`, "get_weather", `{"city":"London"}`), answer("The Savoy.")},
			func(st *agent.State) error { return st.Answer(st.Pending()[0].Key(), "Savoy") },
			[]adapttest.Result{{Text: `picked "Savoy"`}, {Text: `{"city":"London","days":1,"unit":"celsius"}`}},
			map[string]int{"pick": 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			ran := map[string]int{}
			reg := adapttest.ControlRegistry(ran)
			api := fakeBedrock(tt.replies...)
			run, err := start(t, ctx, api, reg, agent.Options{}, stream)
			if !errors.Is(err, agent.ErrPaused) {
				t.Fatalf("err = %v, want ErrPaused", err)
			}
			// The State goes through JSON, as a host that keeps it does.
			b, _ := json.Marshal(run.State)
			st := &agent.State{}
			if err := json.Unmarshal(b, st); err != nil {
				t.Fatal(err)
			}
			if err := tt.decide(st); err != nil {
				t.Fatal(err)
			}
			run, err = resume(t, ctx, api, reg, st, agent.Options{}, stream)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, converseResults(t, api.Requests[1])); diff != "" {
				t.Errorf("results sent after the resume (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.ran, ran); diff != "" {
				t.Errorf("tools run (-want +got):\n%s", diff)
			}
			// The resumed request carries the first one's messages, then
			// the model's message as it came and the results: the
			// transcript survived the State's JSON.
			first, second := requestMessages(t, api.Requests[0]), requestMessages(t, api.Requests[1])
			if diff := cmp.Diff(first, second[:1]); diff != "" {
				t.Errorf("the user's message changed (-first +resumed):\n%s", diff)
			}
			if len(run.Messages) != 4 || run.Answer() == "" || run.Steps() != 2 {
				t.Errorf("%d messages, answer %q, %d steps", len(run.Messages), run.Answer(), run.Steps())
			}
		})
	}

	t.Run("tools and tool choice per step", func(t *testing.T) {
		ctx := context.Background()
		reg := adapttest.ControlRegistry(map[string]int{})
		tests := []struct {
			replies []string
			choices []agent.ToolChoice
			tools   [][]string
		}{
			// Once the transcript holds tool blocks, None offers the
			// placeholder only.
			{[]string{calls("get_weather", `{"city":"Oslo"}`), calls("get_time", `{}`), answer("Done.")},
				[]agent.ToolChoice{agent.Force("get_weather"), agent.Required, agent.None},
				[][]string{{"get_weather"}, {"get_weather", "get_time"}, {placeholderName}}},
			// Before, no tool configuration at all.
			{[]string{answer("Hello.")}, []agent.ToolChoice{agent.None}, [][]string{nil}},
		}
		for _, tt := range tests {
			api := fakeBedrock(tt.replies...)
			_, err := start(t, ctx, api, reg, agent.Options{PrepareStep: func(_ context.Context, s *agent.Step) error {
				s.Choice = tt.choices[s.Number-1]
				switch s.Number {
				case 1:
					if len(tt.choices) > 1 {
						return s.Only("get_weather")
					}
				case 2:
					return s.Hide("book", "pick", "lookup")
				}
				return nil
			}}, stream)
			if err != nil {
				t.Fatal(err)
			}
			for i, req := range api.Requests {
				if diff := cmp.Diff(tt.tools[i], converseTools(t, req)); diff != "" {
					t.Errorf("step %d tools (-want +got):\n%s", i+1, diff)
				}
				if got := converseChoice(t, req); got != tt.choices[i] {
					t.Errorf("step %d tool choice %+v, want %+v", i+1, got, tt.choices[i])
				}
			}
		}

		bad := fakeBedrock(answer("never sent"))
		_, err := start(t, ctx, bad, reg, agent.Options{PrepareStep: func(_ context.Context, s *agent.Step) error {
			s.Choice = agent.Force("get_wether")
			return nil
		}}, stream)
		if !errors.Is(err, agent.ErrInvalidStep) || len(bad.Requests) != 0 {
			t.Errorf("a choice naming no tool: err %v, %d requests", err, len(bad.Requests))
		}
	})
}

// TestRunStopReasons: a response cut off or blocked ends the run with an
// error a host can branch on, and its message in the transcript; no call
// of a cut-off turn runs.
func TestRunStopReasons(t *testing.T) {
	calls := func(stop string) string {
		return response([]any{map[string]any{"toolUse": map[string]any{"toolUseId": "t1", "name": "get_weather", "input": map[string]any{"city": "Oslo"}}}}, stop)
	}
	tests := []struct {
		stop string
		want error
	}{
		{"max_tokens", toolreg.ErrTruncated},
		{"model_context_window_exceeded", toolreg.ErrTruncated},
		{"guardrail_intervened", ErrBlocked},
		{"content_filtered", ErrBlocked},
		{"malformed_tool_use", nil},
	}
	for _, tt := range tests {
		t.Run(tt.stop, func(t *testing.T) {
			var received adapttest.Received
			api := fakeBedrock(calls(tt.stop))
			run, err := New(adapttest.Registry(&received)).Run(context.Background(), newClient(t, api), converseInput(), nil, agent.Options{})
			if err == nil || tt.want != nil && !errors.Is(err, tt.want) || !strings.Contains(err.Error(), "stopReason "+tt.stop) {
				t.Errorf("err = %v, want %v naming the stop reason", err, tt.want)
			}
			if len(received.Args()) != 0 || len(run.Messages) != 2 {
				t.Errorf("calls %v, %d messages", received.Args(), len(run.Messages))
			}
		})
	}
}

// TestRunUsageAndInput: StepDone carries the usage and the response; the
// caller's input is not changed; tools set in the input are sent as they
// are, every step.
func TestRunUsageAndInput(t *testing.T) {
	api := fakeBedrock(toolUses("get_time", `{}`), answer("Ten."))
	in := converseInput()
	fixed := &types.ToolConfiguration{Tools: []types.Tool{
		&types.ToolMemberToolSpec{Value: types.ToolSpecification{Name: aws.String("get_time"), Description: aws.String("Time."),
			InputSchema: &types.ToolInputSchemaMemberJson{Value: document.NewLazyDocument(map[string]any{"type": "object"})}}},
		&types.ToolMemberCachePoint{Value: types.CachePointBlock{Type: types.CachePointTypeDefault}},
	}}
	in.ToolConfig = fixed
	var usage []agent.Usage
	run, err := New(adapttest.Registry(nil)).Run(context.Background(), newClient(t, api), in, nil, agent.Options{OnEvent: func(e agent.Event) {
		if e.Kind == agent.StepDone {
			usage = append(usage, e.Usage)
			if _, ok := e.Response.(*bedrockruntime.ConverseOutput); !ok {
				t.Errorf("StepDone's response is %T", e.Response)
			}
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]agent.Usage{{InputTokens: 12, OutputTokens: 7}, {InputTokens: 12, OutputTokens: 7}}, usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	if len(in.Messages) != 1 || in.ToolConfig != fixed || run.Answer() != "Ten." {
		t.Errorf("input changed: %d messages; answer %q", len(in.Messages), run.Answer())
	}
	for i, req := range api.Requests {
		tools := req["toolConfig"].(map[string]any)["tools"].([]any)
		if len(tools) != 2 || tools[1].(map[string]any)["cachePoint"] == nil {
			t.Errorf("request %d: tools %v, want the input's", i+1, tools)
		}
	}
}
