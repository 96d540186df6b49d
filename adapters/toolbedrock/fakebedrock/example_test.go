package fakebedrock_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolbedrock"
	"github.com/toolreg/toolreg/adapters/toolbedrock/fakebedrock"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/toolregtest/fakemodel"
)

// exampleT stands in for the *testing.T of a test, so that the example
// runs: it prints what would fail the test.
type exampleT struct {
	testing.TB
	cleanups []func()
}

func (t *exampleT) Helper()                           {}
func (t *exampleT) Failed() bool                      { return false }
func (t *exampleT) Cleanup(f func())                  { t.cleanups = append(t.cleanups, f) }
func (t *exampleT) Errorf(format string, args ...any) { fmt.Printf("FAIL: "+format+"\n", args...) }
func (t *exampleT) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

// A run of toolbedrock against a scripted model on ConverseStream.
func ExampleClient() {
	t := &exampleT{} // in a test: func TestAgent(t *testing.T)
	defer func() {
		for _, f := range t.cleanups {
			f()
		}
	}()
	s := fakemodel.New(t, fakemodel.Call("get_weather", `{"city":"Paris"}`), fakemodel.Text("Sunny in Paris."))
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("get_weather", "Current weather for a city.", func(_ context.Context, a cityArgs) (string, error) {
		return "sunny in " + a.City, nil
	}))

	run, err := toolbedrock.New(reg).Run(context.Background(), fakebedrock.Client(s), &bedrockruntime.ConverseInput{
		ModelId:  aws.String("us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
		Messages: []types.Message{{Role: types.ConversationRoleUser, Content: []types.ContentBlock{&types.ContentBlockMemberText{Value: "Weather in Paris?"}}}},
	}, nil, agent.Options{Stream: true})
	fmt.Println(run.Answer(), err)
	s.AssertCalls(fakemodel.Called{Name: "get_weather", Args: `{"city":"Paris"}`, Result: "sunny in Paris"})
	fmt.Println(s.Requests()[1].Path)
	// Output:
	// Sunny in Paris. <nil>
	// /model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/converse-stream
}
