package tooltemporal

import (
	"context"
	"fmt"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/toolreg/toolreg/adapters/toolopenai"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/tooltemporal/internal/offline"
)

// BenchmarkStep measures what the workflow costs on top of the plain
// runner, on the same run: a model call that asks for one tool call, the
// call, and a model call that answers, against the same scripted model
// over loopback HTTP. The workflow runs in the SDK's test environment: its
// cost is the SDK's (coroutines, payloads, activity dispatch) and this
// package's, without a server's round trips.
//
//	go test -run '^$' -bench BenchmarkStep -benchmem
func BenchmarkStep(b *testing.B) {
	var s seen
	reg := testRegistry(&s)
	script := &offline.Script{Replies: []offline.Reply{reply(call("w", "weather", "Oslo")), say("Sunny.")}}
	chat, stop := script.Client()
	defer stop()
	first := firstState(b, reg, "weather?")

	b.Run("Run", func(b *testing.B) {
		adapter := toolopenai.NewChat(reg)
		params := openai.ChatCompletionNewParams{Model: "scripted"}
		b.ReportAllocs()
		for b.Loop() {
			st := first
			if _, err := adapter.Run(context.Background(), &chat, params, &st, agent.Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("test_environment_alone", func(b *testing.B) {
		a := newAgent(b, reg, script, Options{})
		b.ReportAllocs()
		for b.Loop() {
			a.Register(newEnv(b))
		}
	})
	b.Run("workflow", func(b *testing.B) {
		benchWorkflow(b, newAgent(b, reg, script, Options{}), Input{Model: "scripted", State: first})
	})
}

// benchWorkflow runs the workflow of a, from in, in a test environment
// each time.
func benchWorkflow(b *testing.B, a *Agent, in Input) {
	b.ReportAllocs()
	for b.Loop() {
		env := newEnv(b)
		a.Register(env)
		env.ExecuteWorkflow(a.Name(), in)
		if err := env.GetWorkflowError(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInlineCalls runs a workflow whose model asks for a turn of 10
// calls of one tool, then answers: as activities, and inline. The
// difference of the two, over 10, is what an inline call saves.
//
//	go test -run '^$' -bench BenchmarkInlineCalls -benchmem
func BenchmarkInlineCalls(b *testing.B) {
	var s seen
	reg := testRegistry(&s)
	var calls []offline.Call
	for i := range 10 {
		calls = append(calls, call(fmt.Sprintf("w%d", i), "weather", "Oslo"))
	}
	script := &offline.Script{Replies: []offline.Reply{reply(calls...), say("Sunny.")}}
	first := firstState(b, reg, "weather?")
	for _, bc := range []struct {
		name string
		opts Options
	}{{"activities", Options{}}, {"inline", Options{Tools: map[string]ToolOptions{"weather": {Inline: true}}}}} {
		b.Run(bc.name, func(b *testing.B) {
			benchWorkflow(b, newAgent(b, reg, script, bc.opts), Input{Model: "scripted", State: first})
		})
	}
}
