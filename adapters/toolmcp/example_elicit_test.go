package toolmcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolmcp"
)

// A served tool that asks the host a question (toolreg.Interrupt) asks the
// MCP client: the client's user sees the message and a form for the
// requestedSchema, and the tool runs again with the answer. A client of
// 2025-11-25 is asked over its session; one of 2026-07-28 (here) gets an
// input_required result, which its SDK answers and calls again with.
func ExampleAddTools_interrupt() {
	pay := toolreg.MustNew("pay", "Pays a sum, once the user confirms it.",
		func(ctx context.Context, a struct {
			Sum int `json:"sum"`
		}) (string, error) {
			answer := toolreg.Info(ctx).Answer
			if answer == nil {
				return "", toolreg.Interrupt(mcp.ElicitParams{
					Message:         fmt.Sprintf("Pay %d EUR?", a.Sum),
					RequestedSchema: json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`),
				})
			}
			var c struct{ Confirm bool }
			if err := json.Unmarshal(answer, &c); err != nil || !c.Confirm {
				return "not paid", err
			}
			return fmt.Sprintf("paid %d EUR", a.Sum), nil
		})
	reg := toolreg.NewRegistry()
	reg.MustAdd(pay)
	server := mcp.NewServer(&mcp.Implementation{Name: "bank", Version: "v1.0.0"}, nil)
	if _, err := toolmcp.AddTools(server, reg); err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1.0.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			fmt.Println("the user is asked:", req.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
		},
	})
	session, err := client.Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "pay", Arguments: map[string]any{"sum": 10}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// the user is asked: Pay 10 EUR?
	// paid 10 EUR
}

// An imported server that asks the user a question during a call pauses
// the run: set Elicit as the client's ElicitationHandler. The call's
// result is an interrupt whose question is an Elicitation; the host
// answers it, now or a day later from a stored agent.State, with
// Elicitation.Accept (or Decline, Cancel) and State.Answer, and the
// resumed run calls the tool again, which now answers the server. Here
// the runner's part is played by hand: the answer reaches the call as
// toolreg.Info(ctx).Answer, as a runner passes it.
func ExampleImporter_Elicit() {
	// A server that asks before it transfers, as servers of 2026-07-28
	// do (the SDK asks older clients over their session).
	upstream := mcp.NewServer(&mcp.Implementation{Name: "bank", Version: "v1.0.0"}, nil)
	upstream.AddTool(&mcp.Tool{Name: "transfer", Description: "Transfers a sum.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			answer, ok := req.Params.InputResponses["confirm"].(*mcp.ElicitResult)
			if !ok {
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"confirm": &mcp.ElicitParams{
					Message:         "Transfer 10 EUR to Bob?",
					RequestedSchema: json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`),
				}}}, nil
			}
			if answer.Action != "accept" || answer.Content["confirm"] != true {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "not transferred"}}}, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "transferred 10 EUR"}}}, nil
		})

	reg := toolreg.NewRegistry()
	im, err := toolmcp.NewImporter(reg, toolmcp.Prefix("bank__"))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := upstream.Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "v1.0.0"},
		&mcp.ClientOptions{ToolListChangedHandler: im.ToolListChanged, ElicitationHandler: im.Elicit})
	session, err := client.Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	if err := im.Import(ctx, session); err != nil {
		log.Fatal(err)
	}

	args := json.RawMessage(`{"sum":10}`)
	out := reg.Call(ctx, "bank__transfer", args)
	var ie *toolreg.InterruptError
	if !errors.As(out.Err, &ie) {
		log.Fatal(out.Err)
	}
	// In a run: the run pauses (agent.ErrPaused), and the question is
	// State.Pending()[i].Question.
	q, _ := toolmcp.ElicitationOf(ie.Question)
	fmt.Printf("%s asks: %s\n", q.Server, q.Message)
	answer, err := q.Accept(map[string]any{"confirm": true}) // checked against the server's schema
	if err != nil {
		log.Fatal(err)
	}
	// In a run: state.Answer(call.Key(), answer), then resume.
	b, _ := json.Marshal(answer)
	resumed := toolreg.WithCallInfo(ctx, func(c toolreg.ToolCall) toolreg.CallInfo { return toolreg.CallInfo{ID: c.ID, Answer: b} })
	fmt.Println(reg.Call(resumed, "bank__transfer", args).Text)
	// Output:
	// bank asks: Transfer 10 EUR to Bob?
	// transferred 10 EUR
}

// A host that holds a paused run tells an imported server's question from
// its own tools' with ElicitationOf, and answers it with Accept, Decline or
// Cancel: Accept refuses content the server's schema does not allow.
func ExampleElicitationOf() {
	// A question as a stored agent.State holds it.
	question := json.RawMessage(`{"kind":"mcp.elicitation","server":"bank","tool":"transfer","message":"Transfer 10 EUR to Bob?",
		"requestedSchema":{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]},"key":"k1"}`)
	q, ok := toolmcp.ElicitationOf(question)
	fmt.Println(ok, q.Message)

	_, err := q.Accept(map[string]any{"confirm": "yes"})
	fmt.Println(errors.Is(err, toolmcp.ErrElicitation))

	answer := q.Decline() // give it to state.Answer(call.Key(), answer)
	b, _ := json.Marshal(answer)
	fmt.Println(string(b))

	_, ok = toolmcp.ElicitationOf(json.RawMessage(`"Which hotel?"`)) // a Go tool's question
	fmt.Println(ok)
	// Output:
	// true Transfer 10 EUR to Bob?
	// true
	// {"mcpElicitationAnswers":{"k1":{"action":"decline"}}}
	// false
}
