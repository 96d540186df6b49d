package toolreg

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// eventually polls cond until it holds or a second has passed.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after ten seconds", what)
		}
	}
}

func TestAbandonedCallsAreBoundedAndCounted(t *testing.T) {
	release := make(chan struct{})
	r := NewRegistry(WithDefaultTimeout(5*time.Millisecond), WithMaxAbandoned(10))
	r.MustAdd(stuck("slow", release), echoTool("echo"))
	before := runtime.NumGoroutine()

	var timeouts, refused int
	for range 200 {
		out := r.Call(context.Background(), "slow", nil)
		switch {
		case errors.Is(out.Err, ErrTimeout):
			timeouts++
		case errors.Is(out.Err, ErrOverloaded):
			refused++
			if !strings.Contains(out.Text, "go on without it or try again later") {
				t.Errorf("refusal reads %q", out.Text)
			}
		default:
			t.Fatalf("unexpected %+v", out)
		}
	}
	if timeouts != 10 || refused != 190 || r.Abandoned() != 10 {
		t.Errorf("%d timeouts, %d refusals, %d abandoned; want 10, 190, 10", timeouts, refused, r.Abandoned())
	}
	if grown := runtime.NumGoroutine() - before; grown > 15 {
		t.Errorf("200 calls of a tool that ignores its context left %d goroutines", grown)
	}
	// Any tool is refused while the bound is reached: the goroutines are
	// the registry's.
	if out := r.Call(context.Background(), "echo", []byte(`{"s":"x"}`)); !errors.Is(out.Err, ErrOverloaded) {
		t.Errorf("echo while overloaded: %+v", out)
	}

	close(release)
	eventually(t, "abandoned calls counted down", func() bool { return r.Abandoned() == 0 })
	if out := r.Call(context.Background(), "echo", []byte(`{"s":"x"}`)); out.IsError {
		t.Errorf("echo after the abandoned calls ended: %+v", out)
	}
}

func TestCancelledCallAllLeavesOneCountedGoroutinePerCall(t *testing.T) {
	release := make(chan struct{})
	r := NewRegistry(WithIsolatedCalls())
	var entered sync.WaitGroup // cancel once every call runs, however loaded the machine
	entered.Add(8)
	r.MustAdd(MustNew("slow", "Blocks.", func(context.Context, struct{}) (string, error) {
		entered.Done()
		<-release
		return "late", nil
	}))
	// Goroutines of earlier tests that have answered their caller may still
	// be on their way out: count once they are gone.
	before := settledGoroutines()
	ctx, cancel := context.WithCancel(context.Background())
	calls := make([]ToolCall, 8)
	for i := range calls {
		calls[i] = ToolCall{Name: "slow"}
	}
	go func() { entered.Wait(); cancel() }()
	outs := r.CallAll(ctx, calls)
	for _, out := range outs {
		if !errors.Is(out.Err, context.Canceled) {
			t.Fatalf("got %+v", out)
		}
	}
	eventually(t, "one goroutine per call, each counted", func() bool {
		return runtime.NumGoroutine()-before == 8 && r.Abandoned() == 8
	})
	close(release)
	eventually(t, "no goroutine left", func() bool { return runtime.NumGoroutine() <= before && r.Abandoned() == 0 })
}

// TestMiddlewareSeesTheTimeout: whichever deadline ends a call of a tool
// that ignores its context, the middleware gets the timeout Output from
// next at the deadline, and the caller gets what the middleware returns.
func TestMiddlewareSeesTheTimeout(t *testing.T) {
	const d = 20 * time.Millisecond
	tests := []struct {
		name string
		reg  []RegistryOption
		tool []Option
		ctx  func() (context.Context, context.CancelFunc)
	}{
		{"registry timeout", []RegistryOption{WithDefaultTimeout(d)}, nil, func() (context.Context, context.CancelFunc) {
			return context.WithCancel(context.Background())
		}},
		{"caller deadline under WithIsolatedCalls", []RegistryOption{WithIsolatedCalls()}, nil, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), d)
		}},
		{"tool timeout", nil, []Option{WithTimeout(d)}, func() (context.Context, context.CancelFunc) {
			return context.Background(), func() {}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			release := make(chan struct{})
			defer close(release)
			reg := NewRegistry(tt.reg...)
			reg.MustAdd(stuck("slow", release, tt.tool...))
			if tt.tool == nil {
				reg.MustAdd(blockingDyn{release}) // a hand-written tool runs on a goroutine of its own, Invoke and all
			}
			var seen Output
			reg.Use(func(next Handler) Handler {
				return HandlerFunc(func(ctx context.Context, call ToolCall) Output {
					seen = next.HandleCall(ctx, call)
					seen.Text = "seen: " + seen.Text
					return seen
				})
			})
			for _, name := range []string{"slow", "dyn_block"} {
				if _, ok := reg.Lookup(name); !ok {
					continue
				}
				ctx, cancel := tt.ctx()
				defer cancel()
				start := time.Now()
				out := reg.Call(ctx, name, nil)
				if d := time.Since(start); d > time.Second {
					t.Errorf("%s: returned after %v", name, d)
				}
				if !errors.Is(seen.Err, ErrTimeout) || !strings.HasPrefix(seen.Text, `seen: tool "`+name+`" did not finish`) {
					t.Errorf("%s: the middleware saw %+v, want the timeout", name, seen)
				}
				if diff := cmp.Diff(seen, out, cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
					t.Errorf("%s: the caller got another Output than the middleware's (-middleware +caller):\n%s", name, diff)
				}
			}
		})
	}
}

func TestEmptyOutputFromMiddlewareIsAnInternalError(t *testing.T) {
	empty := MustNew("empty", "Returns the empty string.", func(context.Context, struct{}) (string, error) { return "", nil })
	tests := []struct {
		name string
		mw   Middleware
		want error // nil: an empty success
	}{
		{"answers without the tool", func(Handler) Handler {
			return HandlerFunc(func(context.Context, ToolCall) Output { return Output{} })
		}, ErrInternal},
		{"passes the tool's empty result on", func(next Handler) Handler { return next }, nil},
		{"calls the tool, returns its own empty Output", func(next Handler) Handler {
			return HandlerFunc(func(ctx context.Context, call ToolCall) Output { next.HandleCall(ctx, call); return Output{} })
		}, nil},
	}
	for _, tt := range tests {
		for _, ctx := range []context.Context{context.Background(), t.Context()} {
			r := NewRegistry()
			r.MustAdd(empty)
			r.Use(tt.mw)
			out := r.Call(ctx, "empty", nil)
			if tt.want == nil && out.IsError || tt.want != nil && !errors.Is(out.Err, tt.want) {
				t.Errorf("%s: got %+v, want %v", tt.name, out, tt.want)
			}
			if tt.want != nil && strings.Contains(out.Text, "middleware") {
				t.Errorf("%s: the model reads an internal detail: %q", tt.name, out.Text)
			}
		}
	}
}

func TestOnAddListenersInOrderAndAPanicCannotBreakAdd(t *testing.T) {
	var logged bytes.Buffer
	r := NewRegistry(WithLogger(slog.New(slog.NewTextHandler(&logged, nil))))
	var order []string
	for _, name := range []string{"first", "panics", "third", "fourth"} {
		r.OnAdd(func(added []AnyTool) {
			order = append(order, name)
			if name == "panics" {
				panic("listener bug")
			}
		})
	}
	remove := r.OnAdd(func([]AnyTool) { order = append(order, "removed") })
	remove()
	for range 3 {
		order = nil
		if err := r.Add(echoTool("echo" + string(rune('a'+r.Len())))); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"first", "panics", "third", "fourth"}, order); diff != "" {
			t.Errorf("listeners called (-want +got):\n%s", diff)
		}
	}
	if r.Len() != 3 {
		t.Errorf("%d tools", r.Len())
	}
	if !strings.Contains(logged.String(), "listener bug") || strings.Count(logged.String(), "OnAdd listener panicked") != 3 {
		t.Errorf("log:\n%s", logged.String())
	}
}

// TestMiddlewareSeesAnOverloadedRefusal: a call refused because too many
// calls run past their deadline is recorded by the middleware, with the
// refusal the model reads, and the tool does not run.
func TestMiddlewareSeesAnOverloadedRefusal(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	r := NewRegistry(WithDefaultTimeout(5*time.Millisecond), WithMaxAbandoned(1))
	var ran atomic.Int64
	r.MustAdd(stuck("slow", release), MustNew("count", "Counts.", func(context.Context, struct{}) (string, error) {
		ran.Add(1)
		return "ok", nil
	}))
	var seen []error
	r.Use(func(next Handler) Handler {
		return HandlerFunc(func(ctx context.Context, call ToolCall) Output {
			out := next.HandleCall(ctx, call)
			seen = append(seen, out.Err)
			return out
		})
	})
	r.Call(context.Background(), "slow", nil) // abandoned: the bound is reached
	out := r.Call(context.Background(), "count", nil)
	if !errors.Is(out.Err, ErrOverloaded) || ran.Load() != 0 {
		t.Fatalf("out %+v, the tool ran %d times", out, ran.Load())
	}
	if len(seen) != 2 || !errors.Is(seen[1], ErrOverloaded) {
		t.Errorf("the middleware saw %v", seen)
	}
}

// settledGoroutines is runtime.NumGoroutine once it has not fallen for a
// while.
func settledGoroutines() int {
	n := runtime.NumGoroutine()
	for range 100 {
		time.Sleep(time.Millisecond)
		m := runtime.NumGoroutine()
		if m == n {
			return n
		}
		n = m
	}
	return n
}
