package fakebedrock_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolbedrock"
	"github.com/toolreg/toolreg/adapters/toolbedrock/fakebedrock"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/toolregtest/fakemodel"
)

type cityArgs struct {
	City string `json:"city" jsonschema:"description=City name"`
}

func registry() *toolreg.Registry {
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("get_weather", "Current weather for a city.", func(_ context.Context, a cityArgs) (string, error) {
		if a.City == "Atlantis" {
			return "", errors.New("no station in Atlantis")
		}
		return "18°C in " + a.City, nil
	}), toolreg.MustNew("snapshot", "A picture of the sky over a city.", func(_ context.Context, a cityArgs) (toolreg.Output, error) {
		return toolreg.Output{Text: "the sky over " + a.City, Media: []toolreg.Media{{MIMEType: "image/png", Data: []byte("\x89PNG sky"), Name: "sky.png"}}}, nil
	}))
	return reg
}

func input() *bedrockruntime.ConverseInput {
	return &bedrockruntime.ConverseInput{ModelId: aws.String("anthropic.claude-test"), Messages: []types.Message{{Role: types.ConversationRoleUser,
		Content: []types.ContentBlock{&types.ContentBlockMemberText{Value: "Weather in Paris?"}}}}}
}

func run(t *testing.T, s *fakemodel.Server, opts agent.Options) (*toolbedrock.RunResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return toolbedrock.New(registry()).Run(ctx, fakebedrock.Client(s), input(), nil, opts)
}

// TestRun: parallel calls, one failing and one returning an image, then
// the answer, through the AWS SDK's client and the toolbedrock runner,
// on Converse and ConverseStream.
func TestRun(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(map[bool]string{false: "converse", true: "stream"}[stream], func(t *testing.T) {
			s := fakemodel.New(t,
				fakemodel.Turn{Text: "Let me check.", Calls: []fakemodel.ToolCall{
					{Name: "get_weather", Args: `{"city":"Paris"}`},
					{Name: "get_weather", Args: `{"city":"Atlantis"}`},
					{Name: "snapshot", Args: `{"city":"Paris"}`},
				}},
				fakemodel.Text("It is 18°C in Paris."))
			r, err := run(t, s, agent.Options{Stream: stream})
			if err != nil {
				t.Fatal(err)
			}
			if r.Answer() != "It is 18°C in Paris." || r.Steps() != 2 {
				t.Errorf("answer %q, steps %d", r.Answer(), r.Steps())
			}
			s.AssertCalls(
				fakemodel.Called{Name: "get_weather", Args: `{"city":"Paris"}`, Result: "18°C in Paris"},
				fakemodel.Called{Name: "get_weather", Args: `{"city":"Atlantis"}`, Result: "no station in Atlantis", IsError: true},
				fakemodel.Called{Name: "snapshot", Args: `{"city":"Paris"}`, Result: "the sky over Paris"},
			)
			reqs := s.Requests()
			if diff := cmp.Diff([]string{"get_weather", "snapshot"}, reqs[0].ToolNames()); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			wantPath := "/model/anthropic.claude-test/converse"
			if stream {
				wantPath += "-stream"
			}
			if reqs[1].Path != wantPath || reqs[1].Header.Get("Authorization") != "" {
				t.Errorf("path %s, header %v", reqs[1].Path, reqs[1].Header)
			}
			// toolbedrock sends a result's text only.
			if media := reqs[1].Media(); len(media) != 0 {
				t.Errorf("media %+v", media)
			}
		})
	}
}

// TestErrors: an error turn, a cut-off answer and a dropped connection
// end the run with an error.
func TestErrors(t *testing.T) {
	tests := []struct {
		name string
		turn fakemodel.Turn
		want string
		is   error
	}{
		{"throttled", fakemodel.RateLimit(time.Second), "ThrottlingException", nil},
		{"unavailable", fakemodel.Error(503, "try later"), "ServiceUnavailableException: try later", nil},
		{"max tokens", fakemodel.Truncated(fakemodel.Text("It is")), "", toolreg.ErrTruncated},
		{"dropped", fakemodel.Dropped(fakemodel.Call("get_weather", `{"city":"Paris"}`)), "", nil},
	}
	for _, tt := range tests {
		for _, stream := range []bool{false, true} {
			t.Run(tt.name+map[bool]string{false: "", true: "/stream"}[stream], func(t *testing.T) {
				s := fakemodel.New(t, tt.turn)
				_, err := run(t, s, agent.Options{Stream: stream})
				if err == nil || !strings.Contains(err.Error(), tt.want) || (tt.is != nil && !errors.Is(err, tt.is)) {
					t.Errorf("err = %v, want %q (%v)", err, tt.want, tt.is)
				}
			})
		}
	}
}
