package tooltemporaltest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"testing"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/toolregtest/fakemodel"
	"github.com/toolreg/toolreg/tooltemporal"
	"github.com/toolreg/toolreg/tooltemporal/tooltemporaltest"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
)

type cityArgs struct {
	City string `json:"city"`
}

func weather() *toolreg.Registry {
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("get_weather", "Weather in a city.", func(_ context.Context, a cityArgs) (string, error) {
		return "18°C in " + a.City, nil
	}))
	return reg
}

// exampleT stands in for a test's *testing.T, so that the example runs.
type exampleT struct {
	testing.TB
	cleanups []func()
}

func (t *exampleT) Helper()                           {}
func (t *exampleT) Failed() bool                      { return false }
func (t *exampleT) Cleanup(f func())                  { t.cleanups = append(t.cleanups, f) }
func (t *exampleT) Errorf(format string, args ...any) { fmt.Printf("FAIL: "+format+"\n", args...) }
func (t *exampleT) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

// A workflow run in Temporal's test environment, its model scripted.
func ExampleModel() {
	t := &exampleT{} // in a test, the test's own
	defer func() {
		for _, f := range slices.Backward(t.cleanups) {
			f()
		}
	}()
	reg := weather()
	s := fakemodel.New(t, fakemodel.Call("get_weather", `{"city":"Paris"}`), fakemodel.Text("It is 18°C in Paris."))

	agents := tooltemporal.New(reg, tooltemporal.Options{})
	agents.Model("fake", tooltemporaltest.Model(s, reg))
	env := newEnv(agents)
	env.ExecuteWorkflow(agents.Name(), tooltemporal.Input{Model: "fake", State: tooltemporaltest.Prompt(t, reg, "Weather in Paris?")})

	var res tooltemporal.Result
	if err := env.GetWorkflowResult(&res); err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range s.Calls() {
		fmt.Println(c.Name, c.Args, "->", c.Result)
	}
	fmt.Println("steps:", res.State.Steps)
	// Output:
	// get_weather {"city":"Paris"} -> 18°C in Paris
	// steps: 2
}

// newEnv is a test environment, quiet, with the workflow of agents.
func newEnv(agents *tooltemporal.Agent) *testsuite.TestWorkflowEnvironment {
	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	env := suite.NewTestWorkflowEnvironment()
	agents.Register(env)
	return env
}

// TestModelWithParams: the run's Params reach the request.
func TestModelWithParams(t *testing.T) {
	reg := weather()
	s := fakemodel.New(t, fakemodel.Text("Hello."))
	agents := tooltemporal.New(reg, tooltemporal.Options{})
	agents.Model("fake", tooltemporaltest.Model(s, reg))
	env := newEnv(agents)
	env.ExecuteWorkflow(agents.Name(), tooltemporal.Input{Model: "fake", Params: []byte(`{"model":"gpt-test","temperature":0.5}`), State: tooltemporaltest.Prompt(t, reg, "Hi")})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	var body struct {
		Model       string  `json:"model"`
		Temperature float64 `json:"temperature"`
	}
	if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Model != "gpt-test" || body.Temperature != 0.5 {
		t.Errorf("request %+v", body)
	}
}
