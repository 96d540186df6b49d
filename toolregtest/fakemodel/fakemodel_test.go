package fakemodel_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	anthropicoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolanthropic"
	"github.com/toolreg/toolreg/adapters/toolgemini"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/toolregtest/fakemodel"
	"google.golang.org/genai"
)

type cityArgs struct {
	City string `json:"city" jsonschema:"description=City name"`
}

// registry holds get_weather, which fails for Atlantis, and snapshot,
// which returns an image beside its text.
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

// run is one run of a runner against a fake model: its answer and steps.
type run func(ctx context.Context, s *fakemodel.Server, reg *toolreg.Registry, opts agent.Options) (answer string, steps int, err error)

// provider is an adapter's runner through the real SDK client.
type provider struct {
	name string
	run  run
	// ids says whether the provider's calls carry ids of the server's
	// making; errors whether it marks failed results.
	ids, errors bool
	// mediaNote is what the runner adds to the text of a result whose
	// media go in a message of their own.
	mediaNote string
}

func providers() []provider {
	return []provider{
		{"chat", func(ctx context.Context, s *fakemodel.Server, reg *toolreg.Registry, opts agent.Options) (string, int, error) {
			client := openai.NewClient(s.OpenAIOptions()...)
			params := openai.ChatCompletionNewParams{Model: "gpt-test", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Weather in Paris?")}}
			r, err := toolopenai.NewChat(reg).Run(ctx, &client.Chat.Completions, params, nil, opts)
			return r.Answer(), r.State.Steps, err
		}, true, false, "\n[an image \"sky.png\" (image/png, 8 bytes) follows in the next user message]"},
		{"responses", func(ctx context.Context, s *fakemodel.Server, reg *toolreg.Registry, opts agent.Options) (string, int, error) {
			client := openai.NewClient(s.OpenAIOptions()...)
			params := responses.ResponseNewParams{Model: "gpt-test", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Weather in Paris?")}}
			r, err := toolopenai.NewResponses(reg).Run(ctx, &client.Responses, params, nil, opts)
			return r.Answer(), r.State.Steps, err
		}, true, false, ""},
		{"anthropic", func(ctx context.Context, s *fakemodel.Server, reg *toolreg.Registry, opts agent.Options) (string, int, error) {
			client := anthropic.NewClient(s.AnthropicOptions()...)
			params := anthropic.MessageNewParams{Model: "claude-test", MaxTokens: 1024,
				Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Weather in Paris?"))}}
			r, err := toolanthropic.New(reg).Run(ctx, &client.Messages, params, nil, opts)
			return r.Answer(), r.State.Steps, err
		}, true, true, ""},
		{"gemini", geminiRun(func(s *fakemodel.Server) *genai.ClientConfig { return s.GeminiConfig() }), false, true, ""},
		{"vertex", geminiRun(func(s *fakemodel.Server) *genai.ClientConfig { return s.VertexConfig() }), false, true, ""},
	}
}

func geminiRun(config func(*fakemodel.Server) *genai.ClientConfig) run {
	return func(ctx context.Context, s *fakemodel.Server, reg *toolreg.Registry, opts agent.Options) (string, int, error) {
		client, err := genai.NewClient(ctx, config(s))
		if err != nil {
			return "", 0, err
		}
		r, err := toolgemini.New(reg).Run(ctx, client.Models, "gemini-test", genai.Text("Weather in Paris?"), nil, nil, opts)
		return r.Answer(), r.State.Steps, err
	}
}

// each runs test for every provider, streaming and not.
func each(t *testing.T, test func(t *testing.T, p provider, opts agent.Options)) {
	for _, p := range providers() {
		for _, stream := range []bool{false, true} {
			name := p.name
			if stream {
				name += "/stream"
			}
			t.Run(name, func(t *testing.T) { test(t, p, agent.Options{Stream: stream}) })
		}
	}
}

func timeout(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestRun: a run of two steps, parallel calls of which one fails and one
// returns an image, then the answer, through the real SDK client and the
// real runner of every provider, streaming and not.
func TestRun(t *testing.T) {
	each(t, func(t *testing.T, p provider, opts agent.Options) {
		s := fakemodel.New(t,
			fakemodel.Turn{Text: "Let me check.", Calls: []fakemodel.ToolCall{
				{Name: "get_weather", Args: `{"city":"Paris"}`},
				{Name: "get_weather", Args: `{"city": "Atlantis"}`},
				{Name: "snapshot", Args: `{"city":"Paris"}`},
			}},
			fakemodel.Text("It is 18°C in Paris, under a clear sky."))
		answer, steps, err := p.run(timeout(t), s, registry(), opts)
		if err != nil {
			t.Fatal(err)
		}
		if answer != "It is 18°C in Paris, under a clear sky." || steps != 2 {
			t.Errorf("answer %q, steps %d", answer, steps)
		}
		s.AssertCalls(
			fakemodel.Called{Name: "get_weather", Args: `{"city":"Paris"}`, Result: "18°C in Paris"},
			fakemodel.Called{Name: "get_weather", Args: `{"city":"Atlantis"}`, Result: "no station in Atlantis", IsError: p.errors},
			fakemodel.Called{Name: "snapshot", Args: `{"city":"Paris"}`, Result: "the sky over Paris" + p.mediaNote},
		)
		reqs := s.Requests()
		if len(reqs) != 2 {
			t.Fatalf("%d requests", len(reqs))
		}
		if diff := cmp.Diff([]string{"get_weather", "snapshot"}, reqs[0].ToolNames()); diff != "" {
			t.Errorf("tools (-want +got):\n%s", diff)
		}
		if got := reqs[0].ToolResults(); len(got) != 0 {
			t.Errorf("the first request sends results: %+v", got)
		}
		results := reqs[1].ToolResults()
		if len(results) != 3 || (p.ids && !strings.HasPrefix(results[0].ID, "call_") && !strings.HasPrefix(results[0].ID, "toolu_")) {
			t.Errorf("results %+v", results)
		}
		media := reqs[1].Media()
		if len(media) != 1 || media[0].MIMEType != "image/png" || string(media[0].Data) != "\x89PNG sky" {
			t.Errorf("media %+v", media)
		}
		for _, r := range reqs {
			if r.Header.Get("Authorization") != "" || r.Header.Get("X-Api-Key") != "" || r.Header.Get("X-Goog-Api-Key") != "" {
				t.Errorf("a credential was recorded: %v", r.Header)
			}
			if strings.Contains(string(r.Body), `"stream":true`) != (opts.Stream && p.name != "gemini" && p.name != "vertex") {
				t.Errorf("stream %v, body %s", opts.Stream, r.Body)
			}
		}
	})
}

// TestErrors: an error turn, a cut-off answer and a dropped connection
// each end the run with the error the runner gives, and without a stream
// no call runs.
func TestErrors(t *testing.T) {
	tests := []struct {
		name string
		turn fakemodel.Turn
		want string
		is   error
	}{
		{"error", fakemodel.Error(503, "the model is overloaded"), "503", nil},
		{"rate limit", fakemodel.RateLimit(time.Second), "429", nil},
		{"max tokens", fakemodel.Truncated(fakemodel.Call("get_weather", `{"city":"Paris"}`)), "", toolreg.ErrTruncated},
		{"dropped", fakemodel.Dropped(fakemodel.Call("get_weather", `{"city":"Paris","days":3}`)), "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			each(t, func(t *testing.T, p provider, opts agent.Options) {
				s := fakemodel.New(t, tt.turn)
				ran := 0
				opts.OnEvent = func(e agent.Event) {
					if e.Kind == agent.CallResult {
						ran++
					}
				}
				_, _, err := p.run(timeout(t), s, registry(), opts)
				if err == nil || !strings.Contains(err.Error(), tt.want) || (tt.is != nil && !errors.Is(err, tt.is)) {
					t.Errorf("err = %v, want %q (%v)", err, tt.want, tt.is)
				}
				// A streaming runner may start a call that arrived whole
				// before the end, as the runners document.
				if ran != 0 && !opts.Stream {
					t.Errorf("%d calls ran", ran)
				}
			})
		})
	}
}

// TestRateLimitRetried: the SDK waits as the 429's retry-after says and
// asks again, which the next turn answers.
func TestRateLimitRetried(t *testing.T) {
	s := fakemodel.New(t, fakemodel.RateLimit(10*time.Millisecond), fakemodel.Text("ok"))
	client := openai.NewClient(append(s.OpenAIOptions(), option.WithMaxRetries(1))...)
	start := time.Now()
	resp, err := client.Chat.Completions.New(timeout(t), openai.ChatCompletionNewParams{Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}})
	if err != nil || resp.Choices[0].Message.Content != "ok" {
		t.Fatalf("%v, %+v", err, resp)
	}
	if d := time.Since(start); d > 900*time.Millisecond {
		t.Errorf("the retry waited %v, not retry-after-ms's 10ms", d)
	}
	if got := s.Requests()[0].Header.Get("X-Stainless-Retry-Count"); got != "0" {
		t.Errorf("retry count %q", got)
	}
	a := anthropic.NewClient(append(fakemodel.New(t, fakemodel.RateLimit(10*time.Millisecond), fakemodel.Text("ok")).AnthropicOptions(), anthropicoption.WithMaxRetries(1))...)
	msg, err := a.Messages.New(timeout(t), anthropic.MessageNewParams{Model: "m", MaxTokens: 10, Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))}})
	if err != nil || msg.Content[0].Text != "ok" {
		t.Fatalf("%v, %+v", err, msg)
	}
}
