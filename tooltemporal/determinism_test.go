package tooltemporal

import (
	"context"
	"runtime"
	"testing"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/internal/adapt"
)

// countingModel is a model whose every call notes how many goroutines run.
type countingModel struct {
	turns  [][]toolreg.ToolCall
	counts *[]int
}

func (m *countingModel) Info() agent.RunInfo { return agent.RunInfo{Provider: "count"} }
func (m *countingModel) Ask(context.Context, *agent.Step, func(agent.Event), func(int, toolreg.ToolCall)) (agent.Reply, error) {
	*m.counts = append(*m.counts, runtime.NumGoroutine())
	var r agent.Reply
	if len(m.turns) > 0 {
		r.Calls, m.turns = m.turns[0], m.turns[1:]
	}
	return r, nil
}
func (m *countingModel) Answer([]toolreg.ToolCall, []toolreg.Output) error {
	*m.counts = append(*m.counts, runtime.NumGoroutine())
	return nil
}
func (m *countingModel) Save(*agent.State) error { return nil }

// TestTheLoopStartsNoGoroutine: the loop, driven as the workflow drives it
// (an Exec, a Wait, a model that hands no call over early), runs on the
// caller's goroutine alone, as workflow code must: a goroutine of its own
// would run outside Temporal's scheduler, and differently on a replay.
func TestTheLoopStartsNoGoroutine(t *testing.T) {
	var s seen
	var counts []int
	before := runtime.NumGoroutine()
	note := func() { counts = append(counts, runtime.NumGoroutine()) }
	st := &agent.State{}
	r := &adapt.Run{
		Registry: testRegistry(&s),
		Model: &countingModel{counts: &counts, turns: [][]toolreg.ToolCall{
			{tc("w", "weather", `{"city":"Oslo"}`), tc("b", "book", `{"city":"Oslo"}`)},
			{tc("l", "lookup", `{"city":"x"}`)},
		}},
		State: st,
		Exec: func(_ context.Context, calls []toolreg.ToolCall, _ []toolreg.CallInfo) []toolreg.Output {
			note()
			outs := make([]toolreg.Output, len(calls))
			for i := range outs {
				outs[i] = toolreg.Output{Text: "ok"}
			}
			return outs
		},
		Wait: func(_ context.Context, st *agent.State) error {
			note()
			return st.Approve("b")
		},
	}
	if err := r.Do(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(counts) < 6 {
		t.Fatalf("only %d notes", len(counts))
	}
	for i, n := range counts {
		if n > before { // fewer is another test's goroutine ending
			t.Errorf("note %d: %d goroutines, %d before the run", i, n, before)
		}
	}
}
