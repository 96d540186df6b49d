package adapt

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
)

// TestEarlyStartsKeepToTheGroups: calls a streaming model hands over while
// it still writes run at once but for those of a sequential tool, which
// run one at a time, also against callers of the registry outside the run;
// the calls waiting for the group hold none of the early starts' slots, so
// the free ones run beside the group's queue.
func TestEarlyStartsKeepToTheGroups(t *testing.T) {
	var running, peak, free atomic.Int32
	allFree := make(chan struct{})
	var once sync.Once
	wait := func() error {
		select {
		case <-allFree:
			return nil
		case <-time.After(5 * time.Second):
			return errors.New("the free calls never ran together")
		}
	}
	reg := toolreg.NewRegistry(toolreg.WithMaxConcurrency(5))
	reg.MustAdd(
		toolreg.MustNew("seq", "One at a time.", func(ctx context.Context, a cityArgs) (string, error) {
			n := running.Add(1)
			defer running.Add(-1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			if a.City == "first" {
				if err := wait(); err != nil {
					return "", err
				}
			}
			time.Sleep(100 * time.Microsecond)
			return "seq " + a.City, nil
		}, toolreg.WithSequential()),
		toolreg.MustNew("free", "Runs beside anything.", func(ctx context.Context, a cityArgs) (string, error) {
			if free.Add(1) == 4 {
				once.Do(func() { close(allFree) })
			}
			if err := wait(); err != nil {
				return "", err
			}
			return "free " + a.City, nil
		}),
	)
	var turn []toolreg.ToolCall
	for i := range 8 {
		name, city := []string{"seq", "free"}[i%2], fmt.Sprint(i)
		if i == 0 {
			city = "first"
		}
		turn = append(turn, call(fmt.Sprint("c", i), name, fmt.Sprintf(`{"city":%q}`, city)))
	}
	p := &liar{script: script{replies: [][]toolreg.ToolCall{nil, {}}}}
	p.ask = func(ctx context.Context, s *agent.Step, emit func(agent.Event), ready func(int, toolreg.ToolCall)) (agent.Reply, error) {
		for i, c := range turn {
			ready(i, c)
		}
		if err := wait(); err != nil { // the free calls ran while the model "wrote"
			return agent.Reply{}, err
		}
		return agent.Reply{Calls: turn}, nil
	}
	outside := make(chan toolreg.Output, 20)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 5 {
				outside <- reg.Call(context.Background(), "seq", []byte(`{"city":"outside"}`))
			}
		})
	}
	r := newRun(reg, p, agent.Options{})
	err := r.Do(context.Background())
	wg.Wait()
	close(outside)
	if err != nil {
		t.Fatal(err)
	}
	for out := range outside {
		if out.Text != "seq outside" {
			t.Errorf("a call from outside the run: got %+v", out)
		}
	}
	got := lines(t, r.State)
	for i, c := range turn {
		want := fmt.Sprintf("%s -> %s %s", c.Name, c.Name, []string{"first", fmt.Sprint(i)}[min(i, 1)])
		if !contains(got, want) {
			t.Errorf("the transcript lacks %q: %q", want, got)
		}
	}
	if n := peak.Load(); n != 1 {
		t.Errorf("the sequential tool ran %d calls at once", n)
	}
}

func contains(lines []string, s string) bool {
	for _, l := range lines {
		if l == s {
			return true
		}
	}
	return false
}
