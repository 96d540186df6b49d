// Package tooltemporaltest tests workflows of package tooltemporal
// offline, in go test: a model scripted with toolregtest/fakemodel answers
// the runs' model-call activities through the real OpenAI SDK client and
// the real adapter, in Temporal's test environment (go.temporal.io/sdk/testsuite)
// or on a test server.
//
//	s := fakemodel.New(t, fakemodel.Call("get_weather", `{"city":"Paris"}`), fakemodel.Text("18°C."))
//	agents := tooltemporal.New(reg, tooltemporal.Options{})
//	agents.Model("fake", tooltemporaltest.Model(s, reg))
//	env := new(testsuite.WorkflowTestSuite).NewTestWorkflowEnvironment()
//	agents.Register(env)
//	env.ExecuteWorkflow(agents.Name(), tooltemporal.Input{Model: "fake", State: tooltemporaltest.Prompt(t, reg, "Weather in Paris?")})
//
// The server answers each request with the next turn of its script: a
// model-call activity that Temporal retries asks again, and is answered
// with the turn after. Script the turns of the attempts too (a
// fakemodel.RateLimit, then the answer), or keep the retry policy's
// MaximumAttempts at 1 (Options.ModelRetry).
package tooltemporaltest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/toolregtest/fakemodel"
	"github.com/toolreg/toolreg/tooltemporal"
)

// Model is a ModelFunc that asks the fake model s through the OpenAI
// Chat Completions adapter over reg: register it with Agent.Model. The
// run's Input.Params, when set, are the request's parameters (an
// openai.ChatCompletionNewParams as JSON: a model's name, a temperature);
// by default the model is "fake".
func Model(s *fakemodel.Server, reg *toolreg.Registry) tooltemporal.ModelFunc {
	client := openai.NewClient(s.OpenAIOptions()...)
	adapter := toolopenai.NewChat(reg)
	return func(_ context.Context, st *agent.State, params json.RawMessage) (agent.Model, error) {
		p := openai.ChatCompletionNewParams{Model: "fake"}
		if len(params) > 0 {
			if err := json.Unmarshal(params, &p); err != nil {
				return nil, err
			}
		}
		return adapter.Model(&client.Chat.Completions, p, st)
	}
}

// Prompt is the State of a new run whose user asks prompt, in the Chat
// Completions transcript Model reads.
func Prompt(t testing.TB, reg *toolreg.Registry, prompt string) agent.State {
	t.Helper()
	var st agent.State
	m, err := toolopenai.NewChat(reg).Model(nil, openai.ChatCompletionNewParams{
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt)},
	}, &st)
	if err == nil {
		err = m.Save(&st)
	}
	if err != nil {
		t.Fatalf("tooltemporaltest: the prompt's State: %v", err)
	}
	return st
}
