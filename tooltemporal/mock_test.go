package tooltemporal

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/mock"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/tooltemporal/internal/offline"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
)

// mockedRun runs the workflow with both activities mocked: the model asks
// for turns in order, and each tool call gets the result tool gives it.
type mockedRun struct {
	mu    sync.Mutex
	turns [][]toolreg.ToolCall
	asks  []askInput
	calls []callInput
	tool  func(callInput) (callResult, error)
}

func (m *mockedRun) ask(_ context.Context, in askInput) (askOutput, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.asks = append(m.asks, in)
	st := in.State
	st.Provider = "mock"
	// The transcript counts what the model was told.
	var lines []string
	json.Unmarshal(st.Transcript, &lines)
	if in.Answer != nil {
		for i, c := range in.Answer.Calls {
			lines = append(lines, c.Name+" -> "+in.Answer.Results[i].Text)
		}
	}
	var reply agent.Reply
	if in.Step != nil {
		if len(m.turns) > 0 {
			reply.Calls, m.turns = m.turns[0], m.turns[1:]
		}
		lines = append(lines, "asked")
		reply.Usage = agent.Usage{InputTokens: 10, OutputTokens: 1}
	}
	st.Transcript, _ = json.Marshal(lines)
	return askOutput{State: st, Reply: reply}, nil
}

// env is a test environment where a's activities are m's.
func (m *mockedRun) env(t *testing.T, a *Agent) *testsuite.TestWorkflowEnvironment {
	env := newEnv(t)
	a.Register(env)
	env.OnActivity(a.askType(), mock.Anything, mock.Anything).Return(m.ask)
	env.OnActivity(a.callType(), mock.Anything, mock.Anything).Return(m.call)
	return env
}

// run runs a's workflow with m's activities; the run must succeed.
func (m *mockedRun) run(t *testing.T, a *Agent) {
	t.Helper()
	env := m.env(t, a)
	env.ExecuteWorkflow(a.Name(), Input{Model: "m"})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
}

func (m *mockedRun) call(_ context.Context, in callInput) (callResult, error) {
	m.mu.Lock()
	m.calls = append(m.calls, in)
	m.mu.Unlock()
	return m.tool(in)
}

func tc(id, name, args string) toolreg.ToolCall {
	return toolreg.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
}

// TestMockedActivities checks what the workflow asks of its activities:
// the model call's step, State and the previous turn's results in call
// order; each tool call with its CallInfo; the pending calls and the
// State in the Queries while the run waits.
func TestMockedActivities(t *testing.T) {
	var s seen
	a := New(testRegistry(&s), Options{})
	m := &mockedRun{
		turns: [][]toolreg.ToolCall{{tc("w", "weather", `{"city":"Oslo"}`), tc("b", "book", `{"city":"Oslo"}`)}},
		tool: func(in callInput) (callResult, error) {
			return callResult{Result: agent.Result{Text: in.Call.Name + " ok"}}, nil
		},
	}
	env := m.env(t, a)
	var pending []agent.Call
	var state agent.State
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(QueryPending)
		if err != nil {
			t.Error(err)
			return
		}
		v.Get(&pending)
		v, _ = env.QueryWorkflow(QueryState)
		v.Get(&state)
		env.UpdateWorkflow(UpdateDecide, "1", &testsuite.TestUpdateCallback{
			OnReject:   func(err error) { t.Errorf("update refused: %v", err) },
			OnComplete: func(v any, err error) {},
		}, []Decision{Approve("b")})
	}, time.Hour)
	env.ExecuteWorkflow(a.Name(), Input{Model: "m", Params: json.RawMessage(`{"user":"ada"}`)})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}

	wantPending := []agent.Call{{ID: "b", Name: "book", Arguments: json.RawMessage(`{"city":"Oslo"}`), Index: 1, Status: agent.StatusApproval}}
	if diff := cmp.Diff(wantPending, pending); diff != "" {
		t.Errorf("pending while waiting (-want +got):\n%s", diff)
	}
	if len(state.Turn) != 2 || state.Turn[0].Status != agent.StatusDone || state.Turn[0].Result.Text != "weather ok" || state.Steps != 1 {
		t.Errorf("state while waiting: %+v", state)
	}
	tools := []string{"weather", "book", "pick", "lookup", "flaky", "broken", "final", "halt", "slow"}
	wantAsks := []askInput{
		{Model: "m", Params: json.RawMessage(`{"user":"ada"}`), State: agent.State{Steps: 1}, Step: &step{Number: 1, Tools: tools, Declared: tools}},
		{
			Model: "m", Params: json.RawMessage(`{"user":"ada"}`),
			State: agent.State{Provider: "mock", Steps: 2, Transcript: json.RawMessage(`["asked"]`)},
			Answer: &answer{
				Calls:   []toolreg.ToolCall{tc("w", "weather", `{"city":"Oslo"}`), tc("b", "book", `{"city":"Oslo"}`)},
				Results: []agent.Result{{Text: "weather ok"}, {Text: "book ok"}},
			},
			Step: &step{Number: 2, Tools: tools, Declared: tools},
		},
	}
	if diff := cmp.Diff(wantAsks, m.asks); diff != "" {
		t.Errorf("model calls (-want +got):\n%s", diff)
	}
	wantCalls := []callInput{
		{Call: tc("w", "weather", `{"city":"Oslo"}`), Step: 1, Attempt: 1, Provider: "mock"},
		{Call: tc("b", "book", `{"city":"Oslo"}`), Step: 1, Attempt: 1, Provider: "mock"},
	}
	if diff := cmp.Diff(wantCalls, m.calls); diff != "" {
		t.Errorf("tool calls (-want +got):\n%s", diff)
	}
	var res Result
	env.GetWorkflowResult(&res)
	if diff := cmp.Diff([]string{"asked", "weather -> weather ok", "book -> book ok", "asked"}, lines(t, res.State)); diff != "" {
		t.Errorf("transcript (-want +got):\n%s", diff)
	}
}

func lines(t *testing.T, st agent.State) []string {
	t.Helper()
	var out []string
	if err := json.Unmarshal(st.Transcript, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCallFailures: what the model reads when a call's activity fails for
// good, for each kind of failure Temporal reports.
func TestCallFailures(t *testing.T) {
	retried := callResult{Result: agent.Result{Text: "service down", IsError: true}, Err: &wireError{Text: "tool failed: service down", Is: []string{"tool_failed"}}}
	tests := []struct {
		name     string
		err      error
		wantText string
	}{
		{"the last attempt's result", temporal.NewApplicationErrorWithOptions("service down", errTypeTool, temporal.ApplicationErrorOptions{Details: []any{retried}}), "service down"},
		{"a timeout of Temporal's", temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_START_TO_CLOSE, nil), `tool "weather" did not finish in time; try again later, perhaps with a smaller request, or go on without it`},
		{"a heartbeat timeout", temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_HEARTBEAT, nil), `tool "weather" did not finish in time; try again later, perhaps with a smaller request, or go on without it`},
		{"a cancellation", temporal.NewCanceledError(), `the call to tool "weather" was cancelled`},
		{"another failure", errors.New("worker lost"), `tool "weather" failed; go on without it or try again later`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s seen // the registry holds weather; its activity fails as tt says
			a := New(testRegistry(&s), Options{Tool: ToolOptions{Retry: fastRetry}})
			m := &mockedRun{turns: [][]toolreg.ToolCall{{tc("w", "weather", `{}`)}}, tool: func(callInput) (callResult, error) { return callResult{}, tt.err }}
			m.run(t, a)
			got := m.asks[1].Answer.Results[0]
			if diff := cmp.Diff(agent.Result{Text: tt.wantText, IsError: true}, got); diff != "" {
				t.Errorf("the model reads (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPrepareStep: the options' PrepareStep chooses each step's tools and
// tool choice in the workflow, and the model call offers just those.
func TestPrepareStep(t *testing.T) {
	var s seen
	a := New(testRegistry(&s), Options{PrepareStep: func(_ context.Context, s *agent.Step) error {
		if s.Number == 1 {
			s.Choice = agent.Force("weather")
			return s.Only("weather", "book")
		}
		s.Choice = agent.None
		return nil
	}})
	m := &mockedRun{
		turns: [][]toolreg.ToolCall{{tc("w", "weather", `{"city":"Oslo"}`)}},
		tool:  func(in callInput) (callResult, error) { return callResult{Result: agent.Result{Text: "ok"}}, nil },
	}
	m.run(t, a)
	var got []step
	for _, in := range m.asks {
		got = append(got, *in.Step)
	}
	all := []string{"weather", "book", "pick", "lookup", "flaky", "broken", "final", "halt", "slow"}
	want := []step{
		{Number: 1, Tools: []string{"weather", "book"}, Choice: agent.Force("weather"), Declared: all},
		{Number: 2, Tools: all, Choice: agent.None, Declared: all},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}

	// The model call declares the run's tools to the provider, the same
	// every step; step 1's restriction is in its tool choice.
	script := &offline.Script{Replies: []offline.Reply{reply(call("w", "weather", "Oslo")), say("Sunny.")}}
	real := newAgent(t, a.reg, script, a.opts)
	r := runIn(t, newEnv(t), real, Input{Model: "scripted", State: firstState(t, a.reg, "weather?")}, nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if diff := cmp.Diff([][]string{want[1].Tools, want[1].Tools}, script.Offered()); diff != "" {
		t.Errorf("tools offered to the provider (-want +got):\n%s", diff)
	}
}
