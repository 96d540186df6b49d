package toolreg

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// goroutineID is the id runtime.Stack prints for the calling goroutine:
// the tests below tell with it where a function ran.
func goroutineID() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	id, _, _ := bytes.Cut(bytes.TrimPrefix(buf, []byte("goroutine ")), []byte(" "))
	return string(id)
}

// TestWhereACallRuns: by default a call runs on its caller's goroutine,
// whatever its caller's context; a timeout of the library or
// WithIsolatedCalls puts a call whose context can end on a goroutine of
// its own.
func TestWhereACallRuns(t *testing.T) {
	cancellable := func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }
	deadline := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.Background(), time.Hour)
	}
	background := func() (context.Context, context.CancelFunc) { return context.Background(), func() {} }
	tests := []struct {
		name   string
		reg    []RegistryOption
		tool   []Option
		ctx    func() (context.Context, context.CancelFunc)
		inline bool
	}{
		{"background", nil, nil, background, true},
		{"cancellable", nil, nil, cancellable, true},
		{"deadline", nil, nil, deadline, true},
		{"registry timeout", []RegistryOption{WithDefaultTimeout(time.Hour)}, nil, background, false},
		{"tool timeout", nil, []Option{WithTimeout(time.Hour)}, background, false},
		{"isolated, cancellable", []RegistryOption{WithIsolatedCalls()}, nil, cancellable, false},
		{"isolated, deadline", []RegistryOption{WithIsolatedCalls()}, nil, deadline, false},
		{"isolated, background", []RegistryOption{WithIsolatedCalls()}, nil, background, true}, // nothing can end it
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ran string
			r := NewRegistry(tt.reg...)
			r.MustAdd(MustNew("where", "Tells where it ran.", func(context.Context, struct{}) (string, error) {
				ran = goroutineID()
				return "ok", nil
			}, tt.tool...))
			ctx, cancel := tt.ctx()
			defer cancel()
			if out := r.Call(ctx, "where", nil); out.Text != "ok" {
				t.Fatalf("got %+v", out)
			}
			if inline := ran == goroutineID(); inline != tt.inline {
				t.Errorf("ran on the caller's goroutine: %v, want %v", inline, tt.inline)
			}
		})
	}
}

// TestCallerContextReachesTheFunction: by default, a cancellation or a
// deadline of the caller reaches a function that honours its context, and
// the caller gets the cancellation or timeout Output at once; a function
// that ignores it holds its caller, whose Output is then the function's
// own: it did its work.
func TestCallerContextReachesTheFunction(t *testing.T) {
	t.Run("honours", func(t *testing.T) {
		for _, end := range []struct {
			ctx  func() (context.Context, context.CancelFunc)
			want error
		}{
			{func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }, context.Canceled},
			{func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 20*time.Millisecond)
			}, context.DeadlineExceeded},
		} {
			r := NewRegistry()
			entered := make(chan struct{})
			r.MustAdd(MustNew("wait", "Waits.", func(ctx context.Context, _ struct{}) (string, error) {
				close(entered)
				<-ctx.Done()
				return "", ctx.Err()
			}))
			ctx, cancel := end.ctx()
			defer cancel()
			if end.want == context.Canceled {
				go func() { <-entered; cancel() }()
			}
			start := time.Now()
			out := r.Call(ctx, "wait", nil)
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("returned after %v", d)
			}
			if !out.IsError || !errors.Is(out.Err, end.want) {
				t.Errorf("got %+v, want an Output wrapping %v", out, end.want)
			}
			if errors.Is(end.want, context.DeadlineExceeded) && !errors.Is(out.Err, ErrTimeout) {
				t.Errorf("a deadline: got %+v, want ErrTimeout", out)
			}
		}
	})
	t.Run("ignores", func(t *testing.T) {
		release := make(chan struct{})
		r := NewRegistry()
		r.MustAdd(stuck("slow", release))
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		answered := make(chan Output, 1)
		go func() { answered <- r.Call(ctx, "slow", nil) }()
		select {
		case out := <-answered:
			// Invoke refuses a call whose context is already done: the
			// function never ran.
			if !errors.Is(out.Err, context.Canceled) {
				t.Fatalf("a call under a done context: got %+v", out)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a call under a done context did not return")
		}

		ctx, cancel = context.WithCancel(context.Background())
		defer cancel()
		entered := make(chan struct{})
		r2 := NewRegistry()
		r2.MustAdd(MustNew("slow", "Ignores its context.", func(context.Context, struct{}) (string, error) {
			close(entered)
			<-release
			return "late", nil
		}))
		go func() { answered <- r2.Call(ctx, "slow", nil) }()
		<-entered
		cancel()
		select {
		case out := <-answered:
			t.Fatalf("returned before the function did: %+v", out)
		case <-time.After(30 * time.Millisecond):
		}
		close(release)
		if out := <-answered; out.Text != "late" || out.IsError {
			t.Errorf("got %+v, want the function's own result", out)
		}
	})
}

// TestCallAllReachesItsBound: a turn of calls that wait runs them all at
// once up to the concurrency bound, never above it, however the
// goroutines are started; a turn of quick calls runs all of them.
func TestCallAllReachesItsBound(t *testing.T) {
	for _, tc := range []struct{ calls, bound int }{{8, 16}, {8, 8}, {64, 16}, {3, 1}, {1, 4}} {
		var running, peak atomic.Int32
		want := int32(min(tc.calls, tc.bound))
		all := make(chan struct{})
		var once sync.Once
		r := NewRegistry(WithMaxConcurrency(tc.bound))
		r.MustAdd(MustNew("wait", "Waits for the others.", func(ctx context.Context, _ struct{}) (string, error) {
			n := running.Add(1)
			defer running.Add(-1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			if n == want {
				once.Do(func() { close(all) })
			}
			select {
			case <-all: // every call that may run at once is running
			case <-time.After(5 * time.Second):
				return "", errors.New("the bound was never reached")
			}
			return Info(ctx).ID, nil
		}))
		calls := make([]ToolCall, tc.calls)
		var want2 []string
		for i := range calls {
			calls[i] = ToolCall{ID: string(rune('a' + i%26)), Name: "wait"}
			want2 = append(want2, calls[i].ID)
		}
		var got []string
		for _, out := range r.CallAll(context.Background(), calls) {
			got = append(got, out.Text)
		}
		if diff := cmp.Diff(want2, got); diff != "" {
			t.Errorf("%d calls, bound %d: outputs out of order or failed (-want +got):\n%s", tc.calls, tc.bound, diff)
		}
		if p := peak.Load(); p != want {
			t.Errorf("%d calls, bound %d: peak concurrency %d, want %d", tc.calls, tc.bound, p, want)
		}
	}
}

// TestCancelledCallAllAnswersEveryCall: when the context ends, the calls
// not yet started get a cancellation Output at once, the running ones
// theirs when their functions return, and CallAll leaves no goroutine
// behind.
func TestCancelledCallAllAnswersEveryCall(t *testing.T) {
	before := runtime.NumGoroutine()
	r := NewRegistry(WithMaxConcurrency(2))
	var ran atomic.Int32
	entered := make(chan struct{}, 2)
	r.MustAdd(MustNew("wait", "Waits for its context.", func(ctx context.Context, _ struct{}) (string, error) {
		ran.Add(1)
		entered <- struct{}{}
		<-ctx.Done()
		return "", ctx.Err()
	}))
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-entered; <-entered; cancel() }()
	calls := make([]ToolCall, 10)
	for i := range calls {
		calls[i] = ToolCall{Name: "wait"}
	}
	for i, out := range r.CallAll(ctx, calls) {
		if !errors.Is(out.Err, context.Canceled) {
			t.Errorf("call %d: %+v", i, out)
		}
	}
	if n := ran.Load(); n != 2 {
		t.Errorf("%d functions ran, want the 2 running when the context ended", n)
	}
	eventually(t, "no goroutine left", func() bool { return runtime.NumGoroutine() <= before })
}

// TestBoundsHoldWhateverTheMiddlewareDoes: a middleware that renames the
// call on its way to the tool (a misspelling mapped onto the real name)
// keeps the registry's timeout and WithIsolatedCalls, and under
// WithIsolatedCalls a deadline the middleware adds binds as the caller's
// does.
func TestBoundsHoldWhateverTheMiddlewareDoes(t *testing.T) {
	lower := func(next Handler) Handler {
		return HandlerFunc(func(ctx context.Context, call ToolCall) Output {
			call.Name = strings.ToLower(call.Name)
			return next.HandleCall(ctx, call)
		})
	}
	ownDeadline := func(next Handler) Handler {
		return HandlerFunc(func(ctx context.Context, call ToolCall) Output {
			ctx, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
			defer cancel()
			return next.HandleCall(ctx, call)
		})
	}
	tests := []struct {
		name string
		reg  []RegistryOption
		mw   Middleware
		ctx  func() (context.Context, context.CancelFunc)
		call string
	}{
		{"renamed, registry timeout", []RegistryOption{WithDefaultTimeout(30 * time.Millisecond)}, lower,
			func() (context.Context, context.CancelFunc) { return context.Background(), func() {} }, "SLOW"},
		{"renamed, isolated", []RegistryOption{WithIsolatedCalls()}, lower,
			func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 30*time.Millisecond)
			}, "SLOW"},
		{"middleware's deadline, isolated", []RegistryOption{WithIsolatedCalls()}, ownDeadline,
			func() (context.Context, context.CancelFunc) { return context.Background(), func() {} }, "slow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			release := make(chan struct{})
			defer close(release)
			r := NewRegistry(tt.reg...)
			r.Use(tt.mw)
			r.MustAdd(stuck("slow", release))
			ctx, cancel := tt.ctx()
			defer cancel()
			answered := make(chan Output, 1)
			go func() { answered <- r.Call(ctx, tt.call, nil) }()
			select {
			case out := <-answered:
				if !errors.Is(out.Err, ErrTimeout) {
					t.Errorf("got %+v, want the timeout", out)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the call was not ended at its deadline")
			}
		})
	}
}

// overriding embeds a Tool and has an Invoke of its own, as a host's
// wrapper may.
type overriding struct {
	*Tool[struct{}, string]
}

func (o overriding) Invoke(ctx context.Context, args json.RawMessage) Output {
	out := o.Tool.Invoke(ctx, args)
	out.Text = "wrapped: " + out.Text
	return out
}

// TestAWrapperOfAToolKeepsItsInvoke: the registry calls the Invoke of a
// type that embeds a Tool, not the embedded Tool's.
func TestAWrapperOfAToolKeepsItsInvoke(t *testing.T) {
	r := NewRegistry()
	r.MustAdd(overriding{MustNew("inner", "Answers.", func(context.Context, struct{}) (string, error) { return "ok", nil })})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, ctx := range []context.Context{context.Background(), ctx} {
		if out := r.Call(ctx, "inner", nil); out.Text != "wrapped: ok" {
			t.Errorf("got %+v, want the wrapper's Invoke", out)
		}
	}
}
