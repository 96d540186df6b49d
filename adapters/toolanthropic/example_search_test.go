package toolanthropic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolanthropic"
	"github.com/toolreg/toolreg/agent"
)

// printTools stands in for the Messages API: it prints the tools of each
// request, and answers.
func printTools() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Tools []struct {
				Name         string `json:"name"`
				DeferLoading bool   `json:"defer_loading"`
			} `json:"tools"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		var names []string
		for _, t := range req.Tools {
			names = append(names, t.Name+map[bool]string{true: " (deferred)"}[t.DeferLoading])
		}
		fmt.Println(strings.Join(names, ", "))
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
			"content": []any{map[string]any{"type": "text", "text": "Hi."}}, "stop_reason": "end_turn", "usage": map[string]int{"input_tokens": 1, "output_tokens": 1}})
	}))
}

// Deferred tools are searched with Anthropic's tool search tool: sent with
// defer_loading, the tool search tool after them. WithClientToolSearch
// leaves them out and declares the loop's own search instead.
func ExampleWithClientToolSearch() {
	srv := printTools()
	defer srv.Close()
	client := anthropic.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"))
	reg := toolreg.NewRegistry()
	reg.MustAdd(getWeather, toolreg.MustNew("export_report", "Exports the quarter's report.",
		func(context.Context, struct{}) (string, error) { return "done", nil }, toolreg.WithDeferred()))
	toolanthropic.New(reg).Run(context.Background(), &client.Messages, params("Hi"), nil, agent.Options{})
	toolanthropic.New(reg, toolanthropic.WithClientToolSearch()).Run(context.Background(), &client.Messages, params("Hi"), nil, agent.Options{})
	// Output:
	// get_weather, export_report (deferred), tool_search_tool_bm25
	// get_weather, search_tools
}
