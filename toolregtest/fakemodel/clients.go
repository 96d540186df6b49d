package fakemodel

import (
	anthropicoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3/option"
	"google.golang.org/genai"
)

// OpenAIOptions point an OpenAI client (Chat Completions and Responses
// alike) at the server, with a placeholder key and no retries, so that an
// error turn reaches the code under test at once. A server of Replay that
// records sends OPENAI_API_KEY instead, for the provider to read:
//
//	client := openai.NewClient(s.OpenAIOptions()...)
//
// Append option.WithMaxRetries to test how the code retries.
func (s *Server) OpenAIOptions() []option.RequestOption {
	return []option.RequestOption{option.WithBaseURL(s.URL() + "/v1/"), option.WithAPIKey(s.key(OpenAI)), option.WithMaxRetries(0)}
}

// AnthropicOptions point an Anthropic client at the server, with a
// placeholder key (ANTHROPIC_API_KEY when a Replay records) and no
// retries:
//
//	client := anthropic.NewClient(s.AnthropicOptions()...)
func (s *Server) AnthropicOptions() []anthropicoption.RequestOption {
	return []anthropicoption.RequestOption{anthropicoption.WithBaseURL(s.URL()), anthropicoption.WithAPIKey(s.key(Anthropic)),
		anthropicoption.WithMaxRetries(0)}
}

// GeminiConfig points a client of the Gemini Developer API at the
// server, with a placeholder key (GEMINI_API_KEY or GOOGLE_API_KEY when a
// Replay records):
//
//	client, err := genai.NewClient(ctx, s.GeminiConfig())
func (s *Server) GeminiConfig() *genai.ClientConfig {
	return &genai.ClientConfig{APIKey: s.key(Gemini), Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: s.URL()}}
}

// VertexConfig points a client of Gemini on Vertex AI at the server, in
// express mode (a key, no project), which needs no Google credentials
// (GOOGLE_API_KEY or GEMINI_API_KEY when a Replay records).
func (s *Server) VertexConfig() *genai.ClientConfig {
	return &genai.ClientConfig{APIKey: s.key(Vertex), Backend: genai.BackendVertexAI, HTTPOptions: genai.HTTPOptions{BaseURL: s.URL()}}
}
