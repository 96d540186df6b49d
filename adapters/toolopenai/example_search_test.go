package toolopenai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/agent"
)

// Deferred tools are searched with the Responses API's tool_search: sent
// with defer_loading, tool_search after them. WithClientToolSearch leaves
// them out and declares the loop's own search instead.
func ExampleWithClientToolSearch() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Tools []struct {
				Type, Name   string
				DeferLoading bool `json:"defer_loading"`
			} `json:"tools"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		var names []string
		for _, t := range req.Tools {
			names = append(names, strings.TrimSpace(t.Type+" "+t.Name+map[bool]string{true: " (deferred)"}[t.DeferLoading]))
		}
		fmt.Println(strings.Join(names, ", "))
		answerHi(w)
	}))
	defer srv.Close()
	client := openai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"))
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("now", "The current time.", func(context.Context, struct{}) (string, error) { return "noon", nil }),
		toolreg.MustNew("export_report", "Exports the quarter's report.",
			func(context.Context, struct{}) (string, error) { return "done", nil }, toolreg.WithDeferred()))
	params := responsesParams("Hi")
	toolopenai.NewResponses(reg).Run(context.Background(), &client.Responses, params, nil, agent.Options{})
	toolopenai.NewResponses(reg, toolopenai.WithClientToolSearch()).Run(context.Background(), &client.Responses, params, nil, agent.Options{})
	// Output:
	// function now, function export_report (deferred), tool_search
	// function now, function search_tools
}

// Deferred tools imported from two servers, each with its prefix, are
// grouped in a namespace per server; the tool not deferred stays on its
// own.
func ExampleWithNamespaces() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Tools []struct {
				Type, Name string
				Tools      []struct{ Name string } `json:"tools"`
			} `json:"tools"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		for _, t := range req.Tools {
			var in []string
			for _, f := range t.Tools {
				in = append(in, f.Name)
			}
			fmt.Println(strings.TrimSpace(t.Type+" "+t.Name), in)
		}
		answerHi(w)
	}))
	defer srv.Close()
	client := openai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"))
	tool := func(name string, opts ...toolreg.Option) toolreg.AnyTool {
		return toolreg.MustNew(name, "Does "+name+".", func(context.Context, struct{}) (string, error) { return "ok", nil }, opts...)
	}
	reg := toolreg.NewRegistry()
	reg.MustAdd(tool("now"),
		tool("github__create_issue", toolreg.WithDeferred()), tool("github__list_pulls", toolreg.WithDeferred()),
		tool("jira__create_ticket", toolreg.WithDeferred()))
	rule := toolopenai.NamespaceByPrefix(map[string]toolopenai.Namespace{
		"github__": {Name: "github", Description: "Issues and pull requests on GitHub."},
		"jira__":   {Name: "jira", Description: "Tickets in Jira."},
	})
	toolopenai.NewResponses(reg, toolopenai.WithNamespaces(rule)).Run(context.Background(), &client.Responses, responsesParams("Hi"), nil, agent.Options{})
	// Output:
	// function now []
	// namespace github [github__create_issue github__list_pulls]
	// namespace jira [jira__create_ticket]
	// tool_search []
}

// answerHi writes a Responses reply that says "Hi.".
func answerHi(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"id": "resp_1", "object": "response", "status": "completed", "model": "m",
		"output": []any{map[string]any{"type": "message", "id": "m", "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": "Hi.", "annotations": []any{}}}}}})
}
