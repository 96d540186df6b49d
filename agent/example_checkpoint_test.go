package agent_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/agent"
)

// A run saves a checkpoint when the model's reply comes and after each
// call. The process crashes while the second invoice is sent; another
// resumes the run from the last checkpoint: the first invoice, sent, is
// not sent again, and the second runs with the id it had, on which the
// tool can key its side effect.
func ExampleOptions_checkpoint() {
	srv := offlineModel(`send_invoice {"to":"Ann"}; send_invoice {"to":"Bob"}`, "Both invoices are sent.")
	defer srv.Close()
	client := openai.NewClient(option.WithBaseURL(srv.URL()), option.WithAPIKey("test"))
	store := map[string][]byte{} // a database table, by run
	sent := map[string]int{}
	process := func(crash func()) (*toolopenai.Chat, agent.Options) {
		invoice := toolreg.MustNew("send_invoice", "Sends an invoice.", func(ctx context.Context, a struct {
			To string `json:"to"`
		}) (string, error) {
			if a.To == "Bob" && crash != nil {
				crash() // the process dies here
				return "", ctx.Err()
			}
			sent[a.To]++
			fmt.Printf("sent to %s, call %s\n", a.To, toolreg.Info(ctx).ID)
			return "sent to " + a.To, nil
		})
		reg := toolreg.NewRegistry(toolreg.WithMaxConcurrency(1)) // one call at a time, for the output's order
		reg.MustAdd(invoice)
		save := func(ctx context.Context, st *agent.State) error {
			if err := ctx.Err(); err != nil {
				return err // a dead process writes nothing
			}
			b, err := json.Marshal(st)
			store["run-1"] = b
			return err
		}
		return toolopenai.NewChat(reg), agent.Options{Checkpoint: save}
	}

	ctx, crash := context.WithCancel(context.Background())
	adapter, opts := process(crash)
	_, err := adapter.Run(ctx, &client.Chat.Completions, params("Send the invoices."), nil, opts)
	fmt.Println("crashed:", err)

	var state agent.State
	json.Unmarshal(store["run-1"], &state)
	adapter, opts = process(nil)
	run, err := adapter.Run(context.Background(), &client.Chat.Completions, params("Send the invoices."), &state, opts)
	fmt.Println(run.Answer(), err, sent)
	// Output:
	//   (the model is offered [send_invoice], tool_choice "auto")
	// sent to Ann, call call_1_1
	// crashed: agent: saving a checkpoint: context canceled
	// sent to Bob, call call_1_2
	//   (the model is offered [send_invoice], tool_choice "auto")
	// Both invoices are sent. <nil> map[Ann:1 Bob:1]
}
