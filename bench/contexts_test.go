package bench

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/toolreg/toolreg"
)

// The calls a host makes: under the context of an HTTP handler or of a
// run, which can end, not under context.Background(). Each group's
// "baseline" row is Registry.Call of the small tool under Background, so
// the table's "× baseline" column is the cost of the context.

// contextKinds are the contexts a call runs under, with the registry
// options of the row.
var contextKinds = []struct {
	name string
	ctx  func() (context.Context, context.CancelFunc)
	reg  []toolreg.RegistryOption
}{
	{"baseline", background, nil},
	{"Registry.Call_cancellable", cancellable, nil},
	{"Registry.Call_deadline", deadline, nil},
	{"Registry.Call_cancellable_isolated", cancellable, []toolreg.RegistryOption{toolreg.WithIsolatedCalls()}},
	{"Registry.Call_deadline_isolated", deadline, []toolreg.RegistryOption{toolreg.WithIsolatedCalls()}},
	{"Registry.Call_registry_timeout", background, []toolreg.RegistryOption{toolreg.WithDefaultTimeout(time.Hour)}},
}

func background() (context.Context, context.CancelFunc) { return context.Background(), func() {} }

func cancellable() (context.Context, context.CancelFunc) {
	return context.WithCancel(context.Background())
}

func deadline() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), time.Hour)
}

// BenchmarkContexts is Registry.Call of the small tool under each kind of
// context.
func BenchmarkContexts(b *testing.B) {
	for _, k := range contextKinds {
		b.Run(k.name, func(b *testing.B) {
			reg := smallRegistry(k.reg...)
			ctx, cancel := k.ctx()
			defer cancel()
			b.ReportAllocs()
			for b.Loop() {
				s, err := outputText(reg.Call(ctx, toolName, small.args))
				if err != nil || s != small.want {
					b.Fatalf("got %q, %v", s, err)
				}
				sink = s
			}
		})
	}
}

// BenchmarkCallAll is Registry.CallAll of turns of 8 and 64 calls of the
// small tool, under a cancellable context: ns/op is per call, so that
// "× baseline" compares a call of a turn with one Registry.Call under
// Background.
func BenchmarkCallAll(b *testing.B) {
	b.Run("baseline", func(b *testing.B) {
		reg := smallRegistry()
		b.ReportAllocs()
		for b.Loop() {
			sink = reg.Call(context.Background(), toolName, small.args).Text
		}
	})
	for _, n := range []int{8, 64} {
		for _, isolated := range []bool{false, true} {
			name := fmt.Sprintf("%d_calls_cancellable", n)
			var opts []toolreg.RegistryOption
			if isolated {
				name += "_isolated"
				opts = append(opts, toolreg.WithIsolatedCalls())
			}
			b.Run(name, func(b *testing.B) {
				reg := smallRegistry(opts...)
				calls := make([]toolreg.ToolCall, n)
				for i := range calls {
					calls[i] = toolreg.ToolCall{ID: fmt.Sprint(i), Name: toolName, Arguments: small.args}
				}
				ctx, cancel := cancellable()
				defer cancel()
				b.ReportAllocs()
				for i := 0; i < b.N; i += n { // ns/op is per call
					for _, out := range reg.CallAll(ctx, calls) {
						if out.Text != small.want {
							b.Fatalf("got %+v", out)
						}
					}
				}
			})
		}
	}
}

// BenchmarkCancelLatency measures how soon a caller whose context ends
// gets its answer: ns-to-answer is the time from cancel() to Registry.Call
// returning, for a function that honours its context and for one that
// ignores it and runs 2 ms more, with and without WithIsolatedCalls.
func BenchmarkCancelLatency(b *testing.B) {
	const late = 2 * time.Millisecond
	for _, ignores := range []bool{false, true} {
		for _, isolated := range []bool{false, true} {
			name := "honours"
			if ignores {
				name = "ignores_2ms"
			}
			var opts []toolreg.RegistryOption
			if isolated {
				name += "_isolated"
				opts = append(opts, toolreg.WithIsolatedCalls())
			}
			b.Run(name, func(b *testing.B) {
				entered, returned := make(chan struct{}), make(chan struct{}, 1)
				reg := toolreg.NewRegistry(opts...)
				reg.MustAdd(toolreg.MustNew("wait", "Waits.", func(ctx context.Context, _ struct{}) (string, error) {
					entered <- struct{}{}
					if ignores {
						defer func() { returned <- struct{}{} }()
						time.Sleep(late)
						return "late", nil
					}
					<-ctx.Done()
					return "", ctx.Err()
				}))
				var waited time.Duration
				for b.Loop() {
					ctx, cancel := context.WithCancel(context.Background())
					answered := make(chan toolreg.Output, 1)
					go func() { answered <- reg.Call(ctx, "wait", nil) }()
					<-entered
					start := time.Now()
					cancel()
					out := <-answered
					waited += time.Since(start)
					if !ignores || isolated {
						if !errors.Is(out.Err, context.Canceled) {
							b.Fatalf("got %+v", out)
						}
					} else if out.Text != "late" {
						b.Fatalf("got %+v", out)
					}
					if ignores {
						<-returned // one abandoned call at a time: the registry's bound is not what is measured
					}
				}
				b.ReportMetric(float64(waited.Nanoseconds())/float64(b.N), "ns-to-answer")
			})
		}
	}
}

func smallRegistry(opts ...toolreg.RegistryOption) *toolreg.Registry {
	reg := toolreg.NewRegistry(opts...)
	reg.MustAdd(toolreg.MustNew(toolName, toolDesc, small.fn))
	return reg
}
