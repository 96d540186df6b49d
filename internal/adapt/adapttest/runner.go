package adapttest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
)

// Runner is an adapter's agent loop, as RunnerTests drive it.
type Runner struct {
	// API is the provider's fake API with the given replies.
	API func(replies ...string) *API
	// Calls is a response asking for calls, given as name/arguments
	// pairs, numbered in order; Answer is a final answer.
	Calls  func(pairs ...string) string
	Answer func(text string) string
	// NoArgs is the arguments a model sends to a tool without parameters.
	NoArgs string
	// Run runs reg's tools with one user message through the loop against
	// api, with RunOptions.MaxSteps set to maxSteps.
	Run func(ctx context.Context, api *API, reg *toolreg.Registry, maxSteps int) (Outcome, error)
	// Results reads, from the body of the request after a turn, the
	// results of that turn's calls in call order, and checks what else the
	// provider requires of that request (the model's turn sent back, the
	// call IDs). MarksErrors says whether the provider marks failed calls,
	// so that Result.IsError can be read.
	Results     func(t *testing.T, request map[string]any) []Result
	MarksErrors bool
	// Transcript is the length of the transcript after a turn of five
	// calls and the answer.
	Transcript int
	// Offered, when set, lists the names of the tools a request offers,
	// for a provider that does not send one "tools" entry per tool
	// (Gemini: one entry declares them all).
	Offered func(t *testing.T, request map[string]any) []string
}

// Outcome is what a run produced.
type Outcome struct {
	Steps      int    // model calls
	Turns      int    // responses the run's OnTurn hook saw
	Transcript int    // messages in the transcript
	Answer     string // the final answer
}

// Result is what the model reads of one call.
type Result struct {
	Text    string
	IsError bool
}

// RunnerTests checks what every runner does alike, through the shared
// loop: one turn of calls of every outcome answered in call order, the
// step bound, a tool's StopRun, and cancellation while the model is asked.
func RunnerTests(t *testing.T, r Runner) {
	t.Run("every outcome", func(t *testing.T) {
		api := r.API(r.Calls(
			"get_weather", `{"city":"Paris","days":2}`,
			"get_weather", `{"city":"Atlantis"}`,
			"get_weather", `{"city":"Rome","days":"two"}`,
			"get_wether", `{"city":"Oslo"}`,
			"get_time", r.NoArgs,
		), r.Answer("Paris: 2 days. The time is 10:00."))
		reg := Registry(nil)
		calls := CountCalls(reg)
		run, err := r.Run(context.Background(), api, reg, 0)
		if err != nil {
			t.Fatal(err)
		}
		if run.Answer != "Paris: 2 days. The time is 10:00." || run.Steps != 2 || run.Turns != 2 || calls.Load() != 5 ||
			run.Transcript != r.Transcript {
			t.Errorf("answer %q, steps %d, turns %d, calls %d, transcript %d (want %d)",
				run.Answer, run.Steps, run.Turns, calls.Load(), run.Transcript, r.Transcript)
		}
		if len(api.Requests) != 2 {
			t.Fatalf("%d requests", len(api.Requests))
		}
		if n := r.offered(t, api.Requests[0]); n != 2 {
			t.Errorf("the run sent %d tools, not the registry's 2", n)
		}
		want := []Result{
			{`{"city":"Paris","days":2,"unit":"celsius"}`, false},
			{ErrNoStation.Error(), true},
			{"invalid arguments for tool \"get_weather\":\n- days: expected integer, got \"two\"\nFix the arguments and call the tool again.", true},
			{`there is no tool named "get_wether"; available tools: get_weather, get_time`, true},
			{"2026-12-02T10:00:00Z", false},
		}
		got := r.Results(t, api.Requests[1])
		if !r.MarksErrors {
			for i := range want {
				want[i].IsError = false
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("results (-want +got):\n%s", diff)
		}
	})
	t.Run("a result over its limit", func(t *testing.T) {
		// The provider is sent the cut text, a success, as the registry
		// holds every result to its limit whatever runs the call.
		log := "started\n" + strings.Repeat("a line of the log\n", 5000) + "stopped"
		reg := toolreg.NewRegistry(toolreg.WithDefaultMaxResultBytes(1000))
		reg.MustAdd(toolreg.MustNew("read_log", "Reads the log.", func(context.Context, struct{}) (string, error) { return log, nil }))
		api := r.API(r.Calls("read_log", r.NoArgs), r.Answer("It stopped."))
		if _, err := r.Run(context.Background(), api, reg, 0); err != nil {
			t.Fatal(err)
		}
		if len(api.Requests) != 2 {
			t.Fatalf("%d requests", len(api.Requests))
		}
		want := reg.Call(context.Background(), "read_log", nil)
		if want.Cut == nil || len(want.Text) > 1500 {
			t.Fatalf("the registry did not cut the result: %d bytes", len(want.Text))
		}
		if diff := cmp.Diff([]Result{{want.Text, false}}, r.Results(t, api.Requests[1])); diff != "" {
			t.Errorf("results (-want +got):\n%s", diff)
		}
	})
	t.Run("max steps", func(t *testing.T) {
		api := r.API(r.Calls("get_time", r.NoArgs), r.Calls("get_time", r.NoArgs), r.Calls("get_time", r.NoArgs))
		run, err := r.Run(context.Background(), api, Registry(nil), 2)
		if !errors.Is(err, toolreg.ErrMaxSteps) {
			t.Fatalf("err = %v, want ErrMaxSteps", err)
		}
		// The user's message, then two turns of an assistant message and
		// its answer: every call is answered, even in the last turn.
		if run.Steps != 2 || run.Transcript != 5 || len(api.Requests) != 2 {
			t.Errorf("steps %d, transcript %d, requests %d", run.Steps, run.Transcript, len(api.Requests))
		}
	})
	t.Run("stop run", func(t *testing.T) {
		spent := errors.New("budget spent")
		reg := toolreg.NewRegistry()
		reg.MustAdd(toolreg.MustNew("pay", "Pays.", func(context.Context, struct{}) (string, error) { return "", toolreg.StopRun(spent) }))
		api := r.API(r.Calls("pay", r.NoArgs), r.Answer("never sent"))
		run, err := r.Run(context.Background(), api, reg, 0)
		if !errors.Is(err, toolreg.ErrStopRun) || !errors.Is(err, spent) {
			t.Fatalf("err = %v", err)
		}
		if len(api.Requests) != 1 || run.Transcript != 3 {
			t.Errorf("requests %d, transcript %d: the run went on after the stop", len(api.Requests), run.Transcript)
		}
	})
	t.Run("cancellation", func(t *testing.T) {
		api := r.API(r.Answer("late"))
		api.Block = make(chan struct{})
		defer close(api.Block)
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		if _, err := r.Run(ctx, api, Registry(nil), 0); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v", err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("cancellation took %v", d)
		}
	})
}

// offered counts the tools a request offers.
func (r Runner) offered(t *testing.T, request map[string]any) int {
	if r.Offered != nil {
		return len(r.Offered(t, request))
	}
	tools, _ := request["tools"].([]any)
	return len(tools)
}
