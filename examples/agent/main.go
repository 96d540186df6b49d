// Command agent runs a small agent on toolreg: a model, two tools, and the
// loop between them.
//
// With no API key it runs offline: an embedded scripted model that speaks
// the Chat Completions protocol drives the real OpenAI SDK client and the
// real runner, so the transcript shows parallel calls, a call with invalid
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
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	tooloai "github.com/toolreg/toolreg/adapters/openai"
	"github.com/toolreg/toolreg/agent"
)

func main() {
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: agent [flags] [prompt]\n\nOffline by default; set OPENAI_API_KEY (and optionally OPENAI_BASE_URL, OPENAI_MODEL) to use a real model.\n\n")
		flag.PrintDefaults()
	}
	maxSteps := flag.Int("max-steps", 8, "maximum number of model calls")
	provider := flag.String("provider", "openai", "openai (offline without OPENAI_API_KEY) or anthropic (needs ANTHROPIC_API_KEY)")
	flag.Parse()
	prompt := strings.Join(flag.Args(), " ")
	var err error
	switch *provider {
	case "openai":
		err = run(context.Background(), os.Stdout, os.Getenv, prompt, *maxSteps)
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

// run is the whole program, with its environment passed in for tests.
func run(ctx context.Context, w io.Writer, getenv func(string) string, prompt string, maxSteps int) error {
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
		m, err := startScriptedModel()
		if err != nil {
			return fmt.Errorf("starting the offline model: %w", err)
		}
		defer m.Close()
		opts = append(opts, option.WithAPIKey("offline"), option.WithBaseURL(m.url), option.WithMaxRetries(0))
		model, prompt = "scripted-offline", offlinePrompt
		fmt.Fprintln(w, "model: scripted offline model (set OPENAI_API_KEY to use a real one)")
	}
	client := openai.NewClient(opts...)
	reg := registry()
	adapter := tooloai.New(reg)

	fmt.Fprintf(w, "user: %s\n", prompt)
	params := openai.ChatCompletionNewParams{
		Model: model,
		Messages: []openai.ChatCompletionMessageParamUnion{
			openai.SystemMessage("You answer with the tools you have. Call independent tools in parallel."),
			openai.UserMessage(prompt),
		},
	}
	result, err := adapter.RunChat(ctx, &client.Chat.Completions, params, agent.Options{MaxSteps: maxSteps, OnEvent: printEvents(w)})
	if err != nil {
		var apiErr *openai.Error
		if errors.As(err, &apiErr) {
			return fmt.Errorf("the model endpoint failed (HTTP %d); check OPENAI_API_KEY, OPENAI_BASE_URL and OPENAI_MODEL: %w", apiErr.StatusCode, err)
		}
		return err
	}
	fmt.Fprintf(w, "assistant: %s\n", result.Answer())
	fmt.Fprintf(w, "(%d model calls)\n", result.Steps())
	return nil
}
