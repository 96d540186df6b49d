package tooltemporal

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/tooltemporal/internal/offline"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
)

type cityArgs struct {
	City string `json:"city"`
}

// seen records, for each tool call that reached its function, the tool,
// its CallInfo and the activity attempt it ran in.
type seen struct {
	mu    sync.Mutex
	calls []ran
}

type ran struct {
	Tool     string
	ID       string
	Step     int
	Attempt  int   // CallInfo.Attempt: the model's tries
	Activity int32 // Temporal's attempt of the activity
	Answer   string
}

func (s *seen) add(ctx context.Context) {
	info := toolreg.Info(ctx)
	r := ran{Tool: info.Tool, ID: info.ID, Step: info.Step, Attempt: info.Attempt, Answer: string(info.Answer)}
	if activity.IsActivity(ctx) { // not when a runner calls the tool
		r.Activity = activity.GetInfo(ctx).Attempt
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, r)
}

func (s *seen) list() []ran {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ran(nil), s.calls...)
}

// testRegistry holds a tool of each kind the workflow treats apart: a
// plain one, one that needs approval, one that asks the host, one that
// asks the model to retry, one that fails twice and then works, one that
// always fails, one that stops the run, and a slow one.
func testRegistry(s *seen) *toolreg.Registry {
	reg := toolreg.NewRegistry()
	reg.MustAdd(
		toolreg.MustNew("weather", "Weather for a city.", func(ctx context.Context, a cityArgs) (string, error) {
			s.add(ctx)
			return "sunny in " + a.City, nil
		}),
		toolreg.MustNew("book", "Books a trip to a city.", func(ctx context.Context, a cityArgs) (string, error) {
			s.add(ctx)
			return fmt.Sprintf("booked %s (key %s)", a.City, toolreg.Info(ctx).ID), nil
		}, toolreg.WithApproval()),
		toolreg.MustNew("pick", "Picks a hotel in a city.", func(ctx context.Context, a cityArgs) (string, error) {
			s.add(ctx)
			if ans := toolreg.Info(ctx).Answer; ans != nil {
				return "picked " + string(ans), nil
			}
			return "", toolreg.Interrupt(map[string]any{"choose": []string{"Ritz", "Savoy"}})
		}),
		toolreg.MustNew("lookup", "Looks a city up.", func(ctx context.Context, a cityArgs) (string, error) {
			s.add(ctx)
			return "", toolreg.Retry(fmt.Errorf("no city %q", a.City))
		}),
		toolreg.MustNew("flaky", "Reads a flaky service.", func(ctx context.Context, a cityArgs) (string, error) {
			s.add(ctx)
			if activity.GetInfo(ctx).Attempt < 3 {
				return "", errors.New("service unavailable")
			}
			return "read " + a.City, nil
		}),
		toolreg.MustNew("broken", "Reads a service that is down.", func(ctx context.Context, a cityArgs) (string, error) {
			s.add(ctx)
			return "", errors.New("service down")
		}),
		toolreg.MustNew("final", "Reads a record that does not exist.", func(ctx context.Context, a cityArgs) (string, error) {
			s.add(ctx)
			return "", temporal.NewNonRetryableApplicationError("no record for "+a.City, "NotFound", nil)
		}),
		toolreg.MustNew("halt", "Stops the run.", func(ctx context.Context, a cityArgs) (string, error) {
			s.add(ctx)
			return "", toolreg.StopRun(errors.New("budget spent"))
		}),
		toolreg.MustNew("slow", "A long report.", func(ctx context.Context, a cityArgs) (string, error) {
			s.add(ctx)
			select {
			case <-time.After(300 * time.Millisecond):
				return "report on " + a.City, nil
			case <-ctx.Done():
				return "", ctx.Err()
			}
		}),
	)
	return reg
}

// fastRetry keeps the tests' retries short: the test environment waits
// for them in real time.
var fastRetry = &temporal.RetryPolicy{InitialInterval: time.Millisecond, BackoffCoefficient: 1, MaximumAttempts: 3}

// newAgent is an Agent over reg whose model "scripted" asks script through
// the OpenAI adapter's Chat.Model and the real SDK client.
func newAgent(t testing.TB, reg *toolreg.Registry, script *offline.Script, opts Options) *Agent {
	t.Helper()
	chat, stop := script.Client()
	t.Cleanup(stop)
	a := New(reg, opts)
	adapter := toolopenai.NewChat(reg)
	a.Model("scripted", func(ctx context.Context, st *agent.State, _ json.RawMessage) (agent.Model, error) {
		return adapter.Model(&chat, openai.ChatCompletionNewParams{Model: "scripted"}, st)
	})
	return a
}

// firstState is a new run's State: the user's prompt in Chat Completions'
// transcript, as the adapter's model saves it.
func firstState(t testing.TB, reg *toolreg.Registry, prompt string) agent.State {
	t.Helper()
	var st agent.State
	m, err := toolopenai.NewChat(reg).Model(nil, openai.ChatCompletionNewParams{Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt)}}, &st)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save(&st); err != nil {
		t.Fatal(err)
	}
	return st
}

// transcript is a chat transcript, a line a message.
func transcript(t testing.TB, st agent.State) []string {
	t.Helper()
	var msgs []struct {
		Role       string `json:"role"`
		Content    any    `json:"content"`
		ToolCallID string `json:"tool_call_id"`
		ToolCalls  []struct {
			Function struct{ Name, Arguments string }
		} `json:"tool_calls"`
	}
	if err := json.Unmarshal(st.Transcript, &msgs); err != nil {
		t.Fatalf("transcript %s: %v", st.Transcript, err)
	}
	var out []string
	for _, m := range msgs {
		switch {
		case len(m.ToolCalls) > 0:
			var calls []string
			for _, c := range m.ToolCalls {
				calls = append(calls, c.Function.Name+" "+c.Function.Arguments)
			}
			out = append(out, "assistant calls "+strings.Join(calls, ", "))
		case m.Role == "tool":
			out = append(out, fmt.Sprintf("tool %s: %v", m.ToolCallID, m.Content))
		default:
			out = append(out, fmt.Sprintf("%s: %v", m.Role, m.Content))
		}
	}
	return out
}

// reply is a script's turn of calls; say, its answer.
func reply(calls ...offline.Call) offline.Reply { return offline.Reply{Calls: calls} }
func say(text string) offline.Reply             { return offline.Reply{Text: text} }
func call(id, name, city string) offline.Call {
	return offline.Call{ID: id, Name: name, Arguments: fmt.Sprintf(`{"city":%q}`, city)}
}

// sortedRan sorts calls by ID, then activity attempt.
func sortedRan(calls []ran) []ran {
	slices.SortStableFunc(calls, func(x, y ran) int { return cmp.Or(strings.Compare(x.ID, y.ID), cmp.Compare(x.Activity, y.Activity)) })
	return calls
}

func newEnv(testing.TB) *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	env := s.NewTestWorkflowEnvironment()
	env.SetTestTimeout(30 * time.Second)
	return env
}
