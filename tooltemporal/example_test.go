package tooltemporal_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/tooltemporal"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
)

// A worker process: every machine of the task queue runs the same.
func Example_worker() {
	c, err := client.Dial(client.Options{HostPort: "localhost:7233"})
	if err != nil {
		panic(err)
	}
	defer c.Close()

	reg := toolreg.NewRegistry() // the same tools, in the same order, on every worker
	// reg.MustAdd(...)
	agents := tooltemporal.New(reg, tooltemporal.Options{
		Tools: map[string]tooltemporal.ToolOptions{
			"book_hotel": {Retry: &temporal.RetryPolicy{MaximumAttempts: 5}},
		},
	})
	oai := openai.NewClient() // OPENAI_API_KEY from the environment
	adapter := toolopenai.NewChat(reg)
	agents.Model("gpt", func(_ context.Context, st *agent.State, _ json.RawMessage) (agent.Model, error) {
		return adapter.Model(&oai.Chat.Completions, openai.ChatCompletionNewParams{Model: openai.ChatModelGPT4_1Mini}, st)
	})

	w := worker.New(c, "agents", worker.Options{})
	agents.Register(w)
	if err := w.Run(worker.InterruptCh()); err != nil {
		panic(err)
	}
}

// The host: start a run, decide what waits for it, read the answer.
func Example_host() {
	ctx := context.Background()
	c, err := client.Dial(client.Options{HostPort: "localhost:7233"})
	if err != nil {
		panic(err)
	}
	defer c.Close()

	// A new run's State holds the first messages, as the provider's model
	// saves them.
	var first agent.State
	m, _ := toolopenai.NewChat(toolreg.NewRegistry()).Model(nil, openai.ChatCompletionNewParams{
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Book me a hotel in Rome.")},
	}, &first)
	m.Save(&first)

	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "trip-42", TaskQueue: "agents"},
		tooltemporal.DefaultName, tooltemporal.Input{Model: "gpt", State: first})
	if err != nil {
		panic(err)
	}

	// Later, from any process (a web handler, a chat bot):
	pending, _ := tooltemporal.Pending(ctx, c, "trip-42", "")
	for _, call := range pending {
		fmt.Println(call.Name, string(call.Arguments), call.Status)
		tooltemporal.Decide(ctx, c, "trip-42", "", tooltemporal.Approve(call.Key()))
	}

	res, err := tooltemporal.Get(ctx, run)
	if err != nil {
		panic(err)
	}
	var msgs []openai.ChatCompletionMessage
	json.Unmarshal(res.State.Transcript, &msgs)
	fmt.Println(msgs[len(msgs)-1].Content)
}
