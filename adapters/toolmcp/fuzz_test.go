package toolmcp

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolreg/toolreg"
)

// FuzzDispatch sends arbitrary tool names and arguments through a real
// client session: the server never panics, and a known tool always answers
// with a result (isError for bad arguments), never a protocol error.
func FuzzDispatch(f *testing.F) {
	f.Add("echo", []byte(`{"s":"x"}`))
	f.Add("echo", []byte(`{"s":1,"t":null}`))
	f.Add("nope", []byte(`[]`))
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("echo", "Echoes.", func(_ context.Context, a struct {
		S string `json:"s,omitempty"`
	}) (string, error) {
		return a.S, nil
	}))
	srv, _ := newServer(f, reg)
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		f.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fuzz", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		f.Fatal(err)
	}
	defer cs.Close()
	f.Fuzz(func(t *testing.T, name string, args []byte) {
		var arguments any
		if json.Valid(args) {
			arguments = json.RawMessage(args)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: arguments})
		if name == "echo" && json.Valid(args) && err != nil {
			t.Fatalf("known tool gave a protocol error: %v", err)
		}
		if err == nil && res == nil {
			t.Fatal("no result and no error")
		}
	})
}

// FuzzForm reads arbitrary questions and answers as forms: no panic, a
// form only for a schema MCP allows, and an answer the form accepts is
// valid JSON.
func FuzzForm(f *testing.F) {
	f.Add([]byte(`{"message":"Pay?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}}`), []byte(`{"ok":true}`))
	f.Add([]byte(`"Which hotel?"`), []byte(`{"answer":"Savoy"}`))
	f.Add([]byte(`{"message":"x","requestedSchema":{"type":"object","properties":{"a":{"type":"array","items":{"enum":["x"]}}}}}`), []byte(`{"a":["x"]}`))
	f.Add([]byte(`{"requestedSchema":{"type":"object","properties":{"a":{"properties":{}}}}}`), []byte(`{}`))
	f.Fuzz(func(t *testing.T, question, answer []byte) {
		form, err := formOf(question)
		if err != nil {
			return
		}
		if err := flatSchema(form.schema); err != nil {
			t.Fatalf("a form with a schema MCP does not allow: %v", err)
		}
		var content map[string]any
		if json.Unmarshal(answer, &content) != nil {
			return
		}
		if got, err := form.content(content); err == nil && !json.Valid(got) {
			t.Fatalf("accepted answer is not JSON: %q", got)
		}
	})
}
