package toolreg_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/toolreg/toolreg"
)

// Two tools share one database connection: in group "db", whose limit is
// one call at a time unless WithGroupLimit says otherwise, a turn of four
// calls runs them one after the other, while a free tool runs beside them.
func ExampleWithGroup() {
	var inDB, most atomic.Int32
	query := func(answer string) func(context.Context, struct{}) (string, error) {
		return func(context.Context, struct{}) (string, error) {
			n := inDB.Add(1)
			defer inDB.Add(-1)
			if n > most.Load() {
				most.Store(n)
			}
			time.Sleep(time.Millisecond)
			return answer, nil
		}
	}
	reg := toolreg.NewRegistry()
	reg.MustAdd(
		toolreg.MustNew("orders", "Lists orders.", query("3 orders"), toolreg.WithGroup("db")),
		toolreg.MustNew("stock", "Reads the stock.", query("12 in stock"), toolreg.WithGroup("db")),
		toolreg.MustNew("clock", "Tells the time.", func(context.Context, struct{}) (string, error) { return "noon", nil }),
	)
	outs := reg.CallAll(context.Background(), []toolreg.ToolCall{
		{Name: "orders"}, {Name: "stock"}, {Name: "clock"}, {Name: "orders"}, {Name: "stock"},
	})
	for _, out := range outs {
		fmt.Println(out.Text)
	}
	fmt.Println("at most", most.Load(), "call in the database at once")
	// Output:
	// 3 orders
	// 12 in stock
	// noon
	// 3 orders
	// 12 in stock
	// at most 1 call in the database at once
}

// A rate-limited API takes two requests at once: WithGroupLimit gives the
// group its bound in this registry.
func ExampleWithGroupLimit() {
	var running, most atomic.Int32
	fetch := func(context.Context, struct{}) (string, error) {
		n := running.Add(1)
		defer running.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		for end := time.Now().Add(time.Second); most.Load() < 2 && time.Now().Before(end); {
			time.Sleep(time.Millisecond) // the first request waits for a second one
		}
		return "ok", nil
	}
	reg := toolreg.NewRegistry(toolreg.WithGroupLimit("api", 2))
	reg.MustAdd(toolreg.MustNew("fetch", "Fetches a page.", fetch, toolreg.WithGroup("api")))
	calls := make([]toolreg.ToolCall, 6)
	for i := range calls {
		calls[i] = toolreg.ToolCall{Name: "fetch"}
	}
	reg.CallAll(context.Background(), calls)
	fmt.Println("at most", most.Load(), "requests at once")
	// Output: at most 2 requests at once
}

// A tool that rewrites one file runs one call at a time, whoever calls it.
func ExampleWithSequential() {
	reg := toolreg.NewRegistry()
	save := toolreg.MustNew("save", "Saves the notes.", func(context.Context, struct{}) (string, error) {
		return "saved", nil
	}, toolreg.WithSequential())
	reg.MustAdd(save)
	fmt.Println(save.Sequential(), reg.Call(context.Background(), "save", nil).Text)
	// Output: true saved
}
