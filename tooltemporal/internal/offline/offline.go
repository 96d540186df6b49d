// Package offline is a scripted model that speaks the Chat Completions
// wire protocol over HTTP, so that the real OpenAI SDK client and the real
// adapter ask it. Its reply depends only on the request: the n-th reply of
// the script answers a conversation with n assistant messages. A retried
// or repeated request gets the same reply, as a durable run needs (an
// activity may run more than once).
package offline

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// Reply is one turn of the model: the calls it asks for, or, with none,
// its answer.
type Reply struct {
	Calls []Call
	Text  string
	// Truncated says the model was cut off by a token limit.
	Truncated bool
}

// Call is one tool call of a Reply.
type Call struct {
	ID, Name, Arguments string
}

// Script is the model: Replies in order.
type Script struct {
	Replies []Reply
	// Asked counts the requests served.
	Asked atomic.Int64

	mu      sync.Mutex
	offered [][]string
}

// Offered lists the tools each request offered, by name.
func (s *Script) Offered() [][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]string(nil), s.offered...)
}

// Client serves s on a loopback port and returns a client of it, and a
// func that stops the server.
func (s *Script) Client() (openai.ChatCompletionService, func()) {
	srv := httptest.NewServer(s)
	c := openai.NewClient(option.WithBaseURL(srv.URL+"/v1/"), option.WithAPIKey("offline"), option.WithMaxRetries(0))
	return c.Chat.Completions, srv.Close
}

type request struct {
	Model    string `json:"model"`
	Messages []struct {
		Role string `json:"role"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

func (s *Script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.Asked.Add(1)
	var req request
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"bad request body"}}`, http.StatusBadRequest)
		return
	}
	var names []string
	for _, t := range req.Tools {
		names = append(names, t.Function.Name)
	}
	s.mu.Lock()
	s.offered = append(s.offered, names)
	s.mu.Unlock()
	n := 0
	for _, m := range req.Messages {
		if m.Role == "assistant" {
			n++
		}
	}
	if n >= len(s.Replies) {
		http.Error(w, `{"error":{"message":"the script has no more replies"}}`, http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(completion(req.Model, n, s.Replies[n]))
}

func completion(model string, n int, r Reply) map[string]any {
	msg := map[string]any{"role": "assistant", "content": r.Text}
	finish := "stop"
	if len(r.Calls) > 0 {
		calls := make([]map[string]any, len(r.Calls))
		for i, c := range r.Calls {
			calls[i] = map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Arguments}}
		}
		msg["content"], msg["tool_calls"], finish = nil, calls, "tool_calls"
	}
	if r.Truncated {
		finish = "length"
	}
	return map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", n+1), "object": "chat.completion", "created": 1767225600, "model": model,
		"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 100 * (n + 1), "completion_tokens": 20, "total_tokens": 100*(n+1) + 20},
	}
}
