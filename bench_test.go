package toolreg

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// The small tool of the performance issue: Args {City, Count}, a string
// result, and the arguments below.
type benchArgs struct {
	City  string `json:"city"`
	Count int    `json:"count"`
}

var (
	benchJSON = json.RawMessage(`{"city":"Paris","count":3}`)
	benchFn   = func(_ context.Context, a benchArgs) (string, error) { return a.City, nil }
	benchSink string
)

// BenchmarkBaseline is the bar: encoding/json into the struct and a direct
// call, with no validation at all.
func BenchmarkBaseline(b *testing.B) {
	b.ReportAllocs()
	ctx := context.Background()
	for b.Loop() {
		var a benchArgs
		if err := json.Unmarshal(benchJSON, &a); err != nil {
			b.Fatal(err)
		}
		s, err := benchFn(ctx, a)
		if err != nil {
			b.Fatal(err)
		}
		benchSink = s
	}
}

func BenchmarkInvoke(b *testing.B) {
	tool := MustNew("bench", "Benchmark tool.", benchFn)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		out := tool.Invoke(ctx, benchJSON)
		if out.IsError {
			b.Fatal(out.Text)
		}
		benchSink = out.Text
	}
}

func BenchmarkRegistryCall(b *testing.B) {
	reg := NewRegistry()
	reg.MustAdd(MustNew("bench", "Benchmark tool.", benchFn))
	ctx := context.Background()
	benchCalls(b, reg, ctx)
}

// BenchmarkNew measures a declaration: reflection, post-processing and
// validator compilation, paid once per tool.
func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := New("bench", "Benchmark tool.", benchFn); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInvokeCancellable is Invoke under a context that can end: the
// function runs on the caller's goroutine all the same.
func BenchmarkInvokeCancellable(b *testing.B) {
	tool := MustNew("bench", "Benchmark tool.", benchFn)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.ReportAllocs()
	for b.Loop() {
		out := tool.Invoke(ctx, benchJSON)
		if out.IsError {
			b.Fatal(out.Text)
		}
		benchSink = out.Text
	}
}

// BenchmarkRegistryCallContexts is Registry.Call under a context that can
// end, a cancellable one and one with a deadline, bare and behind a
// pass-through middleware: the calls a run makes, on the caller's
// goroutine unless the registry isolates its calls (bench/contexts_test.go
// measures both).
func BenchmarkRegistryCallContexts(b *testing.B) {
	pass := func(next Handler) Handler {
		return HandlerFunc(func(ctx context.Context, call ToolCall) Output { return next.HandleCall(ctx, call) })
	}
	for _, bc := range []struct {
		name       string
		ctx        func() (context.Context, context.CancelFunc)
		middleware bool
	}{
		{"cancellable", func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }, false},
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), time.Hour)
		}, false},
		{"background_middleware", func() (context.Context, context.CancelFunc) { return context.Background(), func() {} }, true},
		{"cancellable_middleware", func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }, true},
		{"deadline_middleware", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), time.Hour)
		}, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			reg := NewRegistry()
			reg.MustAdd(MustNew("bench", "Benchmark tool.", benchFn))
			if bc.middleware {
				reg.Use(pass)
			}
			ctx, cancel := bc.ctx()
			defer cancel()
			benchCalls(b, reg, ctx)
		})
	}
}

// BenchmarkRegistryCallTimeout is Registry.Call of a registry with a
// WithDefaultTimeout, under a context that cannot end: every call gets a
// deadline of its own.
func BenchmarkRegistryCallTimeout(b *testing.B) {
	reg := NewRegistry(WithDefaultTimeout(time.Hour))
	reg.MustAdd(MustNew("bench", "Benchmark tool.", benchFn))
	ctx := context.Background()
	benchCalls(b, reg, ctx)
}

// benchCalls measures reg.Call of the bench tool under ctx.
func benchCalls(b *testing.B, reg *Registry, ctx context.Context) {
	b.ReportAllocs()
	for b.Loop() {
		out := reg.Call(ctx, "bench", benchJSON)
		if out.IsError {
			b.Fatal(out.Text)
		}
		benchSink = out.Text
	}
}

// BenchmarkRegistryCallLongResult is Registry.Call of a tool whose result
// is long but within the default result limit: the limit reads the
// result's length, never its bytes, so the call costs what a short one
// does (compare BenchmarkRegistryCall).
func BenchmarkRegistryCallLongResult(b *testing.B) {
	long := string(make([]byte, 90_000))
	reg := NewRegistry()
	reg.MustAdd(MustNew("bench", "Benchmark tool.", func(context.Context, benchArgs) (string, error) { return long, nil }))
	benchCalls(b, reg, context.Background())
}
