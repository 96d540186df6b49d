package toolreg

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// stuck is a tool that ignores its context and blocks until release is
// closed: the worst a tool can do to a caller.
func stuck(name string, release chan struct{}, opts ...Option) *Tool[struct{}, string] {
	return MustNew(name, "Blocks.", func(context.Context, struct{}) (string, error) {
		<-release
		return "late", nil
	}, opts...)
}

func TestTimeoutOfAToolThatIgnoresItsContext(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	tests := []struct {
		name string
		call func() Output
		text string
	}{
		{"tool timeout", func() Output {
			return stuck("slow", release, WithTimeout(30*time.Millisecond)).Invoke(context.Background(), nil)
		}, `tool "slow" did not finish within 30ms`},
		{"registry default timeout", func() Output {
			r := NewRegistry(WithDefaultTimeout(30 * time.Millisecond))
			r.MustAdd(stuck("slow", release))
			return r.Call(context.Background(), "slow", nil)
		}, `tool "slow" did not finish within 30ms`},
		{"caller deadline under WithIsolatedCalls", func() Output {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
			defer cancel()
			r := NewRegistry(WithIsolatedCalls())
			r.MustAdd(stuck("slow", release))
			return r.Call(ctx, "slow", nil)
		}, `tool "slow" did not finish before its deadline`},
		{"hand-written tool, caller deadline under WithIsolatedCalls", func() Output {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
			defer cancel()
			r := NewRegistry(WithIsolatedCalls())
			r.MustAdd(blockingDyn{release})
			return r.Call(ctx, "dyn_block", nil)
		}, `tool "dyn_block" did not finish before its deadline`},
		{"hand-written tool under the registry timeout", func() Output {
			r := NewRegistry(WithDefaultTimeout(30 * time.Millisecond))
			r.MustAdd(blockingDyn{release})
			return r.Call(context.Background(), "dyn_block", nil)
		}, `tool "dyn_block" did not finish within 30ms`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			out := tt.call()
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("returned after %v", d)
			}
			if !out.IsError || !errors.Is(out.Err, ErrTimeout) || !errors.Is(out.Err, context.DeadlineExceeded) || !strings.HasPrefix(out.Text, tt.text) {
				t.Errorf("got %+v", out)
			}
		})
	}
}

type blockingDyn struct{ release chan struct{} }

func (blockingDyn) Name() string                  { return "dyn_block" }
func (blockingDyn) Description() string           { return "Blocks." }
func (blockingDyn) InputSchema() json.RawMessage  { return json.RawMessage(`{"type":"object"}`) }
func (blockingDyn) OutputSchema() json.RawMessage { return nil }
func (b blockingDyn) Invoke(context.Context, json.RawMessage) Output {
	<-b.release
	return Output{Text: "late"}
}

// A tool that honours its context gets the timeout result too, not its own
// "context deadline exceeded" error text.
func TestTimeoutOfAToolThatHonoursItsContext(t *testing.T) {
	tool := MustNew("polite", "Waits.", func(ctx context.Context, _ struct{}) (string, error) {
		<-ctx.Done()
		return "", fmt.Errorf("fetching: %w", ctx.Err())
	}, WithTimeout(20*time.Millisecond))
	out := tool.Invoke(context.Background(), nil)
	if !errors.Is(out.Err, ErrTimeout) || !strings.Contains(out.Text, "did not finish within 20ms") {
		t.Errorf("got %+v", out)
	}
}

func TestCallAllCancelledReturnsPromptlyForToolsThatIgnoreIt(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	r := NewRegistry(WithMaxConcurrency(2), WithIsolatedCalls())
	r.MustAdd(stuck("stuck", release), echoTool("echo"))
	calls := []ToolCall{{ID: "1", Name: "stuck"}, {ID: "2", Name: "echo", Arguments: json.RawMessage(`{"s":"x"}`)}, {ID: "3", Name: "stuck"}, {ID: "4", Name: "stuck"}}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	outs := r.CallAll(ctx, calls)
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("CallAll returned after %v", d)
	}
	if len(outs) != 4 {
		t.Fatalf("%d outputs", len(outs))
	}
	for i, o := range outs {
		if i == 1 {
			if o.Text != "echo:x" {
				t.Errorf("call 2 = %+v", o)
			}
			continue
		}
		if !o.IsError || !errors.Is(o.Err, context.Canceled) {
			t.Errorf("call %d = %+v", i+1, o)
		}
	}
}

func TestArgumentLimits(t *testing.T) {
	tool := MustNew("t", "d", func(_ context.Context, a struct {
		S   string `json:"s,omitempty"`
		Any any    `json:"any,omitempty"`
	}) (string, error) {
		return a.S, nil
	}, WithMaxArgumentBytes(100), WithMaxDepth(3))
	tests := []struct {
		args string
		want string
	}{
		{`{"s":"` + strings.Repeat("x", 200) + `"}`, "the arguments are 208 bytes long; the limit is 100: send less"},
		{`{"any":[[[1]]]}`, "the arguments nest objects and arrays deeper than 3 levels"},
		{`{"any":[["[[[[{{{{"]]}`, ""}, // brackets inside strings do not count
	}
	for _, tt := range tests {
		out := tool.Invoke(context.Background(), json.RawMessage(tt.args))
		if tt.want == "" {
			if out.IsError {
				t.Errorf("%s: %s", tt.args, out.Text)
			}
			continue
		}
		var ae *ArgumentError
		if !errors.As(out.Err, &ae) || len(ae.Problems) != 1 || ae.Problems[0].Message != tt.want {
			t.Errorf("%.40s: got %+v", tt.args, out)
		}
	}
	// The defaults hold without options.
	deep := strings.Repeat("[", DefaultMaxDepth+1) + strings.Repeat("]", DefaultMaxDepth+1)
	plain := MustNew("t", "d", func(context.Context, struct {
		Any any `json:"any"`
	}) (string, error) {
		return "", nil
	})
	if out := plain.Invoke(context.Background(), json.RawMessage(`{"any":`+deep+`}`)); !errors.Is(out.Err, ErrInvalidArguments) {
		t.Errorf("default depth not enforced: %+v", out)
	}
	if out := plain.Invoke(context.Background(), bytes.Repeat([]byte(" "), DefaultMaxArgumentBytes+1)); !errors.Is(out.Err, ErrInvalidArguments) {
		t.Errorf("default size not enforced: %+v", out)
	}
}

func TestMiddleware(t *testing.T) {
	r := NewRegistry()
	r.MustAdd(echoTool("echo"))
	var trace []string
	mw := func(tag string) Middleware {
		return func(next Handler) Handler {
			return HandlerFunc(func(ctx context.Context, c ToolCall) Output {
				trace = append(trace, fmt.Sprintf("%s>%s#%s %s", tag, c.Name, c.ID, c.Arguments))
				out := next.HandleCall(ctx, c)
				trace = append(trace, fmt.Sprintf("%s<%s", tag, out.Text))
				return out
			})
		}
	}
	r.Use(mw("a"), mw("b"))
	r.Use(mw("c"))
	r.Call(context.Background(), "echo", json.RawMessage(`{"s":"1"}`))
	r.CallAll(context.Background(), []ToolCall{{ID: "x", Name: "echo", Arguments: json.RawMessage(`{"s":"2"}`)}})
	want := []string{
		`a>echo# {"s":"1"}`, `b>echo# {"s":"1"}`, `c>echo# {"s":"1"}`, "c<echo:1", "b<echo:1", "a<echo:1",
		`a>echo#x {"s":"2"}`, `b>echo#x {"s":"2"}`, `c>echo#x {"s":"2"}`, "c<echo:2", "b<echo:2", "a<echo:2",
	}
	if diff := cmp.Diff(want, trace); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// A middleware that panics is an Output, not a crash.
	r.Use(func(Handler) Handler {
		return HandlerFunc(func(context.Context, ToolCall) Output { panic("middleware bug") })
	})
	out := r.Call(context.Background(), "echo", nil)
	if !errors.Is(out.Err, ErrInternal) || errors.Is(out.Err, ErrToolPanic) || strings.Contains(out.Text, "middleware bug") {
		t.Errorf("got %+v", out)
	}
	// The host gets the stack as a PanicError's, never in the error's text.
	var pe *PanicError
	if !errors.As(out.Err, &pe) || !pe.Internal || len(pe.Stack) == 0 {
		t.Errorf("Err %#v: want a *PanicError, Internal, with its stack", out.Err)
	} else if msg := out.Err.Error(); strings.Contains(msg, "\n") || strings.Contains(msg, "goroutine") || !strings.Contains(msg, "middleware bug") {
		t.Errorf("Err.Error() = %q: want one line with the panic value and no stack", msg)
	}
}

func TestLoggingMiddleware(t *testing.T) {
	var buf bytes.Buffer
	r := NewRegistry()
	r.MustAdd(echoTool("echo"))
	r.Use(Logging(slog.New(slog.NewJSONHandler(&buf, nil))))
	r.CallAll(context.Background(), []ToolCall{{ID: "c1", Name: "echo", Arguments: json.RawMessage(`{"s":"secret-value"}`)}})
	r.Call(context.Background(), "nope", nil)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("log:\n%s", buf.String())
	}
	var first, second map[string]any
	json.Unmarshal([]byte(lines[0]), &first)
	json.Unmarshal([]byte(lines[1]), &second)
	if first["msg"] != "tool call" || first["tool"] != "echo" || first["call_id"] != "c1" || first["args_bytes"] != 20.0 {
		t.Errorf("first line: %v", first)
	}
	if second["level"] != "WARN" || !strings.Contains(fmt.Sprint(second["error"]), "unknown tool") {
		t.Errorf("second line: %v", second)
	}
	if strings.Contains(buf.String(), "secret-value") {
		t.Error("the log holds argument content")
	}
}

func TestErrorTextMiddleware(t *testing.T) {
	leaky := errors.New("dial tcp 10.0.0.7:5432: password authentication failed for user admin")
	r := NewRegistry()
	r.MustAdd(MustNew("db", "Queries.", func(context.Context, struct{}) (string, error) { return "", leaky }), echoTool("echo"))
	r.Use(ErrorText(func(error) string { return "the database is unavailable; try again later" }))
	out := r.Call(context.Background(), "db", nil)
	if out.Text != "the database is unavailable; try again later" || !errors.Is(out.Err, leaky) || !errors.Is(out.Err, ErrToolFailed) {
		t.Errorf("got %+v", out)
	}
	// Argument errors keep their (safe, useful) text.
	if out := r.Call(context.Background(), "echo", json.RawMessage(`{}`)); !strings.Contains(out.Text, "s: required field is missing") {
		t.Errorf("got %+v", out)
	}
}

// TestLoad makes 10,000 calls across 100 tools while more tools are being
// added, and checks that every result belongs to its call: none lost,
// duplicated or attached to another call ID.
func TestLoad(t *testing.T) {
	r := NewRegistry()
	for i := range 100 {
		r.MustAdd(echoTool(fmt.Sprintf("tool_%03d", i)))
	}
	const batches, perBatch = 100, 100
	var wg sync.WaitGroup
	var bad atomic.Int64
	wg.Add(1)
	go func() { // tools added during the load
		defer wg.Done()
		for i := range 50 {
			r.MustAdd(echoTool(fmt.Sprintf("late_%03d", i)))
		}
	}()
	for b := range batches {
		wg.Add(1)
		go func() {
			defer wg.Done()
			calls := make([]ToolCall, perBatch)
			for i := range calls {
				id := fmt.Sprintf("%d-%d", b, i)
				calls[i] = ToolCall{ID: id, Name: fmt.Sprintf("tool_%03d", (b*perBatch+i)%100), Arguments: json.RawMessage(`{"s":"` + id + `"}`)}
			}
			outs := r.CallAll(context.Background(), calls)
			if len(outs) != len(calls) {
				bad.Add(1)
				return
			}
			for i, c := range calls {
				if want := c.Name + ":" + c.ID; outs[i].Text != want {
					bad.Add(1)
					t.Errorf("call %s: got %q, want %q", c.ID, outs[i].Text, want)
				}
			}
		}()
	}
	wg.Wait()
	if bad.Load() != 0 || r.Len() != 150 {
		t.Errorf("%d bad results, %d tools", bad.Load(), r.Len())
	}
}

// FuzzRegistryCall: any name and any bytes give an Output, never a panic,
// and the Output is consistent with itself.
func FuzzRegistryCall(f *testing.F) {
	f.Add("rich", []byte(`{"city":"Paris","small":1}`))
	f.Add("rich", []byte(`{"city":"Paris","small":1.0,"tags":["a"]}`))
	f.Add("get_weather", []byte(`{"city":`))
	f.Add("a\x00b\"c", []byte(`null`))
	r := NewRegistry()
	r.MustAdd(MustNew("rich", "Rich arguments.", func(context.Context, agRich) (string, error) { return "", nil }), echoTool("echo"))
	f.Fuzz(func(t *testing.T, name string, args []byte) {
		out := r.Call(context.Background(), name, args)
		if out.IsError != (out.Err != nil) {
			t.Fatalf("IsError %v with Err %v", out.IsError, out.Err)
		}
		if _, ok := r.Lookup(name); !ok && !errors.Is(out.Err, ErrUnknownTool) {
			t.Fatalf("unknown %q gave %+v", name, out)
		}
		if out.IsError && (strings.Contains(out.Text, "goroutine ") || strings.Contains(out.Text, ".go:")) {
			t.Fatalf("internal detail in %q", out.Text)
		}
	})
}

// TestWhatAToolsErrorTellsTheModel: a tool's own error reaches the model
// verbatim, wrapped errors included, unless the registry uses ErrorText;
// either way Err keeps the whole error for the host, and a Retry's text,
// written for the model, is kept.
func TestWhatAToolsErrorTellsTheModel(t *testing.T) {
	dsn := errors.New(`connecting to "postgres://admin:hunter2@10.0.0.7:5432/orders": password authentication failed`)
	tool := MustNew("orders", "Lists orders.", func(_ context.Context, a struct {
		Retry bool `json:"retry,omitempty"`
	}) (string, error) {
		if a.Retry {
			return "", Retry(errors.New("say which month; the orders are kept by month"))
		}
		return "", fmt.Errorf("loading orders: %w", dsn)
	})
	const generic = "the order database is unavailable; go on without it"
	for _, tc := range []struct {
		name      string
		mws       []Middleware
		args      string
		text      string // what the model reads
		wantError error
	}{
		{"default: verbatim", nil, `{}`,
			`loading orders: connecting to "postgres://admin:hunter2@10.0.0.7:5432/orders": password authentication failed`, dsn},
		{"ErrorText", []Middleware{ErrorText(func(error) string { return generic })}, `{}`, generic, dsn},
		{"ErrorText keeps a Retry's text", []Middleware{ErrorText(func(error) string { return generic })}, `{"retry":true}`,
			"say which month; the orders are kept by month\nFix this and call the tool again.", ErrRetry},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := NewRegistry()
			reg.MustAdd(tool)
			reg.Use(tc.mws...)
			for _, ctx := range []context.Context{context.Background(), t.Context()} { // inline and on a goroutine of its own
				out := reg.Call(ctx, "orders", json.RawMessage(tc.args))
				if diff := cmp.Diff(tc.text, out.Text); diff != "" {
					t.Errorf("the model reads (-want +got):\n%s", diff)
				}
				if !out.IsError || !errors.Is(out.Err, ErrToolFailed) || !errors.Is(out.Err, tc.wantError) {
					t.Errorf("Err = %v, want one matching ErrToolFailed and %v", out.Err, tc.wantError)
				}
			}
		})
	}
	// Tool.Invoke is the model's path without a registry: verbatim.
	if out := tool.Invoke(context.Background(), nil); !strings.Contains(out.Text, "hunter2") || !errors.Is(out.Err, dsn) {
		t.Errorf("Invoke: %+v", out)
	}
}
