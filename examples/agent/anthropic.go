package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/toolreg/toolreg/adapters/toolanthropic"
	"github.com/toolreg/toolreg/agent"
)

// runAnthropic runs the same tools against Anthropic's Messages API.
func runAnthropic(ctx context.Context, w io.Writer, getenv func(string) string, prompt string, maxSteps int) error {
	key := getenv("ANTHROPIC_API_KEY")
	if key == "" {
		return errors.New("-provider anthropic needs ANTHROPIC_API_KEY (the offline demo speaks the OpenAI protocol: drop -provider to run it)")
	}
	opts := []option.RequestOption{option.WithAPIKey(key)}
	if base := getenv("ANTHROPIC_BASE_URL"); base != "" {
		opts = append(opts, option.WithBaseURL(base))
	}
	model := anthropic.Model(getenv("ANTHROPIC_MODEL"))
	if model == "" {
		model = anthropic.ModelClaudeSonnet4_6
	}
	if prompt == "" {
		prompt = offlinePrompt
	}
	client := anthropic.NewClient(opts...)
	fmt.Fprintf(w, "model: %s\nuser: %s\n", model, prompt)
	result, err := toolanthropic.New(registry()).Run(ctx, &client.Messages, anthropic.MessageNewParams{
		Model:     model,
		MaxTokens: 2048,
		System:    []anthropic.TextBlockParam{{Text: "You answer with the tools you have. Call independent tools in parallel."}},
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(prompt))},
	}, nil, agent.Options{MaxSteps: maxSteps, OnEvent: printEvents(w)})
	if err != nil {
		var apiErr *anthropic.Error
		if errors.As(err, &apiErr) {
			return fmt.Errorf("the Anthropic endpoint failed (HTTP %d); check ANTHROPIC_API_KEY and ANTHROPIC_MODEL: %w", apiErr.StatusCode, err)
		}
		return err
	}
	fmt.Fprintf(w, "assistant: %s\n(%d model calls)\n", result.Answer(), result.Steps())
	return nil
}
