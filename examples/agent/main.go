// Command agent runs a small agent on toolreg: a model, two tools, and the
// loop between them.
//
// With no API key it runs offline: a scripted model of package
// toolregtest/fakemodel, speaking the Chat Completions protocol, drives
// the real OpenAI SDK client and the real runner, so the transcript shows parallel calls, a call with invalid
// arguments that the model then corrects, and a final answer.
//
// With OPENAI_API_KEY set it sends the prompt given on the command line to
// that endpoint (OPENAI_BASE_URL and OPENAI_MODEL select another server or
// model, e.g. a local Ollama or vLLM). With -provider anthropic it uses
// ANTHROPIC_API_KEY (and ANTHROPIC_MODEL) with the Anthropic runner.
//
//	go run ./examples/agent
//	OPENAI_API_KEY=... go run ./examples/agent "Is it warmer in Oslo or Lima?"
//	ANTHROPIC_API_KEY=... go run ./examples/agent -provider anthropic "Is it warmer in Oslo or Lima?"
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/agent"
)

func main() {
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: agent [flags] [prompt]\n\nOffline by default; set OPENAI_API_KEY (and optionally OPENAI_BASE_URL, OPENAI_MODEL) to use a real model.\n\n")
		flag.PrintDefaults()
	}
	maxSteps := flag.Int("max-steps", 8, "maximum number of model calls")
	provider := flag.String("provider", "openai", "openai (offline without OPENAI_API_KEY) or anthropic (needs ANTHROPIC_API_KEY)")
	approve := flag.Bool("approve", false, "ask before each get_weather call runs (y or n on standard input; no input approves)")
	stream := flag.Bool("stream", false, "print the model's text and calls as they stream")
	flag.Parse()
	prompt := strings.Join(flag.Args(), " ")
	var err error
	switch *provider {
	case "openai":
		err = run(context.Background(), os.Stdout, os.Getenv, prompt, options{maxSteps: *maxSteps, approve: *approve, stream: *stream, answers: os.Stdin})
	case "anthropic":
		err = runAnthropic(context.Background(), os.Stdout, os.Getenv, prompt, *maxSteps)
	default:
		err = fmt.Errorf("unknown -provider %q: use openai or anthropic", *provider)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		os.Exit(1)
	}
}

// options are the program's flags.
type options struct {
	maxSteps        int
	approve, stream bool
	answers         io.Reader // the host's answers to approvals, a line each
}

// run is the whole program, with its environment passed in for tests.
func run(ctx context.Context, w io.Writer, getenv func(string) string, prompt string, o options) error {
	var opts []option.RequestOption
	model := getenv("OPENAI_MODEL")
	if key := getenv("OPENAI_API_KEY"); key != "" {
		opts = append(opts, option.WithAPIKey(key))
		if base := getenv("OPENAI_BASE_URL"); base != "" {
			opts = append(opts, option.WithBaseURL(base))
		}
		if model == "" {
			model = "gpt-4.1-mini"
		}
		if prompt == "" {
			prompt = offlinePrompt
		}
		fmt.Fprintf(w, "model: %s\n", model)
	} else {
		m, err := offlineModel()
		if err != nil {
			return fmt.Errorf("starting the offline model: %w", err)
		}
		defer m.Close()
		opts = append(opts, m.OpenAIOptions()...)
		model, prompt = "scripted-offline", offlinePrompt
		fmt.Fprintln(w, "model: scripted offline model (set OPENAI_API_KEY to use a real one)")
	}
	client := openai.NewClient(opts...)
	reg := registry()
	if o.approve {
		reg = registry(toolreg.WithApprovalPolicy(func(c toolreg.ToolCall) bool { return c.Name == "get_weather" }))
	}
	adapter := toolopenai.NewChat(reg)

	fmt.Fprintf(w, "user: %s\n", prompt)
	params := openai.ChatCompletionNewParams{
		Model: model,
		Messages: []openai.ChatCompletionMessageParamUnion{
			openai.SystemMessage("You answer with the tools you have. Call independent tools in parallel."),
			openai.UserMessage(prompt),
		},
	}
	runOpts := agent.Options{MaxSteps: o.maxSteps, OnEvent: printEvents(w), Stream: o.stream}
	result, err := adapter.Run(ctx, &client.Chat.Completions, params, nil, runOpts)
	answers := bufio.NewScanner(o.answers)
	for errors.Is(err, agent.ErrPaused) {
		st, derr := decide(w, result.State, answers)
		if derr != nil {
			return derr
		}
		result, err = adapter.Run(ctx, &client.Chat.Completions, params, st, runOpts)
	}
	if err != nil {
		var apiErr *openai.Error
		if errors.As(err, &apiErr) {
			return fmt.Errorf("the model endpoint failed (HTTP %d); check OPENAI_API_KEY, OPENAI_BASE_URL and OPENAI_MODEL: %w", apiErr.StatusCode, err)
		}
		return err
	}
	if !o.stream { // a streamed answer is printed as it comes
		fmt.Fprintf(w, "assistant: %s\n", result.Answer())
	}
	fmt.Fprintf(w, "(%d model calls)\n", result.Steps())
	return nil
}

// decide asks the host about each call waiting for approval, one line of
// answers each ("n" rejects; anything else, or no more input, approves),
// and returns the state to resume with. The state goes through JSON on
// the way, as it would to wait in a database for a day.
func decide(w io.Writer, paused *agent.State, answers *bufio.Scanner) (*agent.State, error) {
	b, err := json.Marshal(paused)
	if err != nil {
		return nil, err
	}
	var st agent.State
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "(paused: %d calls wait for approval; the state is %d bytes of JSON)\n", len(st.Pending()), len(b))
	for _, c := range st.Pending() {
		answer := "y"
		if answers.Scan() {
			answer = strings.TrimSpace(answers.Text())
		}
		fmt.Fprintf(w, "approve %s %s? %s\n", c.Name, c.Arguments, answer)
		if answer == "n" {
			err = st.Reject(c.Key(), "the user declined")
		} else {
			err = st.Approve(c.Key())
		}
		if err != nil {
			return nil, err
		}
	}
	return &st, nil
}
