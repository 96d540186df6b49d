// Package trip is the scenario of the durable example, of the recorded
// history and of its replay test: an agent that plans a trip with a
// scripted model. In one run it calls two tools at once, is asked by a
// tool to fix a call (toolreg.Retry), books a hotel that needs the host's
// approval, and picks a room with a tool that asks the host (an
// Interrupt). The replay test replays the recorded history against this
// code: change the tools' names, their order or their approval rule, or
// the workflow, and it fails.
package trip

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/tooltemporal"
	"github.com/toolreg/toolreg/tooltemporal/internal/offline"
)

// TaskQueue is the scenario's task queue, and Model the name its model is
// registered under.
const (
	TaskQueue = "trip"
	Model     = "offline"
	Prompt    = "Plan two days in Oslo or Rome, whichever is warmer, and book a hotel."
)

// CityArgs are the arguments of every tool.
type CityArgs struct {
	City string `json:"city" jsonschema:"description=City name"`
}

// Registry returns the trip's tools.
func Registry() *toolreg.Registry {
	reg := toolreg.NewRegistry()
	highs := map[string]int{"Oslo": 14, "Rome": 24}
	reg.MustAdd(
		toolreg.MustNew("get_weather", "Tomorrow's high in a city, in °C.", func(_ context.Context, a CityArgs) (string, error) {
			h, ok := highs[a.City]
			if !ok {
				return "", toolreg.Retry(fmt.Errorf("no forecast for %q; use Oslo or Rome", a.City))
			}
			return fmt.Sprintf("%s: %d °C", a.City, h), nil
		}),
		toolreg.MustNew("book_hotel", "Books a hotel in a city; a person approves each booking.", func(ctx context.Context, a CityArgs) (string, error) {
			// The call id is the booking's idempotency key: a retried
			// activity books once.
			return fmt.Sprintf("booked Hotel Artemide in %s (booking %s)", a.City, toolreg.Info(ctx).ID), nil
		}, toolreg.WithApproval()),
		toolreg.MustNew("pick_room", "Asks the traveller which room they want.", func(ctx context.Context, a CityArgs) (string, error) {
			var room string
			if ans := toolreg.Info(ctx).Answer; ans != nil {
				if err := json.Unmarshal(ans, &room); err != nil {
					return "", err
				}
				return "room: " + room, nil
			}
			return "", toolreg.Interrupt(map[string]any{"question": "Which room?", "options": []string{"single", "double"}})
		}),
	)
	return reg
}

// Script is the model's side of the trip.
func Script() *offline.Script {
	call := func(id, name, city string) offline.Call {
		return offline.Call{ID: id, Name: name, Arguments: fmt.Sprintf(`{"city":%q}`, city)}
	}
	return &offline.Script{Replies: []offline.Reply{
		{Calls: []offline.Call{call("call_1", "get_weather", "Oslo"), call("call_2", "get_weather", "Roma")}},
		{Calls: []offline.Call{call("call_3", "get_weather", "Rome")}},
		{Calls: []offline.Call{call("call_4", "book_hotel", "Rome"), call("call_5", "pick_room", "Rome")}},
		{Text: "Rome is warmer (24 °C against 14 °C). Hotel Artemide is booked, a double room."},
	}}
}

// Decisions are the host's: approve the booking, answer the room.
func Decisions() []tooltemporal.Decision {
	room, _ := tooltemporal.Answer("call_5", "double")
	return []tooltemporal.Decision{tooltemporal.Approve("call_4"), room}
}

// Agent is the trip's Agent, whose model asks chat through the OpenAI
// adapter.
func Agent(reg *toolreg.Registry, chat toolopenai.ChatClient) *tooltemporal.Agent {
	return AgentWith(reg, chat, tooltemporal.Options{})
}

// ContinueAfterSteps is the bound of the trip that continues as new: it
// does so when it pauses, after its third step.
const ContinueAfterSteps = 3

// Continued is the trip's Agent whose runs continue as new after
// ContinueAfterSteps steps.
func Continued(reg *toolreg.Registry, chat toolopenai.ChatClient) *tooltemporal.Agent {
	return AgentWith(reg, chat, tooltemporal.Options{ContinueAfterSteps: ContinueAfterSteps})
}

// AgentWith is the trip's Agent with opts.
func AgentWith(reg *toolreg.Registry, chat toolopenai.ChatClient, opts tooltemporal.Options) *tooltemporal.Agent {
	a := tooltemporal.New(reg, opts)
	adapter := toolopenai.NewChat(reg)
	a.Model(Model, func(_ context.Context, st *agent.State, _ json.RawMessage) (agent.Model, error) {
		return adapter.Model(chat, openai.ChatCompletionNewParams{Model: "scripted"}, st)
	})
	return a
}

// Input starts the trip: the prompt, in the transcript of a new chat.
func Input(reg *toolreg.Registry) (tooltemporal.Input, error) {
	var st agent.State
	m, err := toolopenai.NewChat(reg).Model(nil, openai.ChatCompletionNewParams{
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(Prompt)},
	}, &st)
	if err == nil {
		err = m.Save(&st)
	}
	return tooltemporal.Input{Model: Model, State: st}, err
}
