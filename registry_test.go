package toolreg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

type echoArgs struct {
	S string `json:"s"`
}

func echoTool(name string) *Tool[echoArgs, string] {
	return MustNew(name, "Echoes s.", func(_ context.Context, a echoArgs) (string, error) { return name + ":" + a.S, nil })
}

func names(tools []AnyTool) []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.Name()
	}
	return out
}

func TestRegistryAddLookupTools(t *testing.T) {
	r := NewRegistry()
	r.MustAdd(echoTool("zeta"), echoTool("alpha"))
	r.MustAdd(echoTool("mid"))
	if diff := cmp.Diff([]string{"zeta", "alpha", "mid"}, names(r.Tools())); diff != "" {
		t.Errorf("Tools not in registration order (-want +got):\n%s", diff)
	}
	if got, ok := r.Lookup("alpha"); !ok || got.Name() != "alpha" {
		t.Errorf("Lookup(alpha) = %v, %v", got, ok)
	}
	if _, ok := r.Lookup("ALPHA"); ok {
		t.Error("Lookup is case-insensitive")
	}
	if r.Len() != 3 {
		t.Errorf("Len = %d", r.Len())
	}
	// The returned slice is the caller's.
	ts := r.Tools()
	ts[0] = nil
	if r.Tools()[0] == nil {
		t.Error("Tools exposes the registry's slice")
	}
}

// dynTool is an AnyTool written by hand, as a dynamic tool would be.
type dynTool struct{ name string }

func (d dynTool) Name() string                  { return d.name }
func (d dynTool) Description() string           { return "dynamic" }
func (d dynTool) InputSchema() json.RawMessage  { return json.RawMessage(`{"type":"object"}`) }
func (d dynTool) OutputSchema() json.RawMessage { return nil }
func (d dynTool) Invoke(context.Context, json.RawMessage) Output {
	return Output{Text: "dyn"}
}

func TestRegistryAddRefusesAndAddsNothing(t *testing.T) {
	tests := []struct {
		name  string
		tools []AnyTool
		want  error
	}{
		{"duplicate of a registered tool", []AnyTool{echoTool("new1"), echoTool("taken")}, ErrDuplicateTool},
		{"duplicate within the call", []AnyTool{echoTool("new1"), echoTool("new1")}, ErrDuplicateTool},
		{"invalid name of a hand-written tool", []AnyTool{echoTool("new1"), dynTool{"bad.name"}}, ErrInvalidName},
		{"nil tool", []AnyTool{echoTool("new1"), nil}, ErrInvalidDeclaration},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRegistry()
			r.MustAdd(echoTool("taken"))
			err := r.Add(tt.tools...)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Add = %v, want %v", err, tt.want)
			}
			if diff := cmp.Diff([]string{"taken"}, names(r.Tools())); diff != "" {
				t.Errorf("a failed Add changed the registry (-want +got):\n%s", diff)
			}
		})
	}
	r := NewRegistry()
	r.MustAdd(dynTool{"dyn"})
	if out := r.Call(context.Background(), "dyn", nil); out.Text != "dyn" {
		t.Errorf("hand-written tool not dispatched: %+v", out)
	}
}

// TestRegistryAddNameTwiceInOneCall: a name given twice in one Add is a
// mistake of that call, not a clash with the registry, and the error says
// which two tools clash.
func TestRegistryAddNameTwiceInOneCall(t *testing.T) {
	r := NewRegistry()
	r.MustAdd(echoTool("taken"))
	err := r.Add(echoTool("a"), echoTool("same"), echoTool("b"), echoTool("same"))
	if !errors.Is(err, ErrDuplicateTool) {
		t.Fatalf("Add = %v, want ErrDuplicateTool", err)
	}
	msg := err.Error()
	if strings.Contains(msg, "already registered") {
		t.Errorf("error says the name is registered, but the registry does not hold it: %s", msg)
	}
	for _, want := range []string{`"same"`, "2 and 4", "this Add call"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
	// A clash with the registry is still worded as one.
	if err := r.Add(echoTool("taken")); !errors.Is(err, ErrDuplicateTool) || !strings.Contains(err.Error(), "already registered") {
		t.Errorf("Add of a registered name = %v", err)
	}
}

// TestInvalidNameIsInvalidDeclaration: a host that branches on
// ErrInvalidDeclaration sees a refused name too, and ErrInvalidName still
// tells it apart.
func TestInvalidNameIsInvalidDeclaration(t *testing.T) {
	_, newErr := New("bad.name", "d", func(context.Context, struct{}) (string, error) { return "", nil })
	errs := map[string]error{
		"ValidName":    ValidName("bad name"),
		"New":          newErr,
		"Registry.Add": NewRegistry().Add(dynTool{"1bad"}),
	}
	for where, err := range errs {
		if !errors.Is(err, ErrInvalidDeclaration) || !errors.Is(err, ErrInvalidName) {
			t.Errorf("%s: %v matches ErrInvalidDeclaration %v, ErrInvalidName %v; want both",
				where, err, errors.Is(err, ErrInvalidDeclaration), errors.Is(err, ErrInvalidName))
		}
	}
}

func TestRegistryCall(t *testing.T) {
	r := NewRegistry()
	r.MustAdd(echoTool("get_weather"), echoTool("get_time"), echoTool("send_email"))
	out := r.Call(context.Background(), "get_time", json.RawMessage(`{"s":"x"}`))
	if diff := cmp.Diff(Output{Text: "get_time:x"}, out); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	out = r.Call(context.Background(), "get_wether", nil)
	if !out.IsError || !errors.Is(out.Err, ErrUnknownTool) {
		t.Fatalf("unknown tool: %+v", out)
	}
	want := `there is no tool named "get_wether"; available tools: get_weather, get_time, send_email`
	if out.Text != want {
		t.Errorf("text = %q\nwant   %q", out.Text, want)
	}
	// Odd names from a model are quoted and bounded.
	out = r.Call(context.Background(), "x\"\n"+strings.Repeat("y", 10000), nil)
	if !out.IsError || strings.Contains(out.Text, "\n") || len(out.Text) > 300 {
		t.Errorf("odd name not sanitized: %q", out.Text)
	}
	empty := NewRegistry().Call(context.Background(), "x", nil)
	if empty.Text != `there is no tool named "x"` {
		t.Errorf("empty registry: %q", empty.Text)
	}
}

func TestRegistryCallAllKeepsCallOrder(t *testing.T) {
	r := NewRegistry()
	// Later calls finish first: the outputs must still follow the calls.
	r.MustAdd(MustNew("sleep", "Sleeps.", func(_ context.Context, a struct {
		MS int `json:"ms"`
	}) (string, error) {
		time.Sleep(time.Duration(a.MS) * time.Millisecond)
		return fmt.Sprint(a.MS), nil
	}))
	r.MustAdd(echoTool("echo"))
	calls := []ToolCall{
		{ID: "1", Name: "sleep", Arguments: json.RawMessage(`{"ms":30}`)},
		{ID: "2", Name: "nope", Arguments: nil},
		{ID: "3", Name: "sleep", Arguments: json.RawMessage(`{"ms":1}`)},
		{ID: "4", Name: "echo", Arguments: json.RawMessage(`{"s":1}`)},
		{ID: "5", Name: "echo", Arguments: json.RawMessage(`{"s":"ok"}`)},
	}
	outs := r.CallAll(context.Background(), calls)
	got := make([]string, len(outs))
	for i, o := range outs {
		got[i] = fmt.Sprintf("%v %s", o.IsError, strings.SplitN(o.Text, "\n", 2)[0])
	}
	want := []string{
		"false 30",
		`true there is no tool named "nope"; available tools: sleep, echo`,
		"false 1",
		`true invalid arguments for tool "echo":`,
		"false echo:ok",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if len(r.CallAll(context.Background(), nil)) != 0 {
		t.Error("CallAll(nil) returned outputs")
	}
}

func TestRegistryCallAllRunsConcurrentlyWithinBound(t *testing.T) {
	const bound = 3
	var running, peak atomic.Int32
	r := NewRegistry(WithMaxConcurrency(bound))
	r.MustAdd(MustNew("work", "Works.", func(context.Context, struct{}) (string, error) {
		n := running.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
		running.Add(-1)
		return "done", nil
	}))
	calls := make([]ToolCall, 12)
	for i := range calls {
		calls[i] = ToolCall{Name: "work"}
	}
	for _, o := range r.CallAll(context.Background(), calls) {
		if o.IsError {
			t.Fatalf("call failed: %s", o.Text)
		}
	}
	// Never above the bound; above 1, so the calls did overlap. (Exactly
	// the bound would depend on the scheduler of a loaded machine.)
	if p := peak.Load(); p > bound || p < 2 {
		t.Errorf("peak concurrency = %d, want 2..%d", p, bound)
	}
}

func TestRegistryCallAllCancelled(t *testing.T) {
	r := NewRegistry(WithMaxConcurrency(1))
	started := make(chan struct{}, 10)
	r.MustAdd(MustNew("block", "Blocks until cancelled.", func(ctx context.Context, _ struct{}) (string, error) {
		started <- struct{}{}
		<-ctx.Done()
		return "", ctx.Err()
	}))
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	calls := []ToolCall{{Name: "block"}, {Name: "block"}, {Name: "block"}}
	done := make(chan []Output)
	go func() { done <- r.CallAll(ctx, calls) }()
	select {
	case outs := <-done:
		if len(outs) != len(calls) {
			t.Fatalf("%d outputs for %d calls", len(outs), len(calls))
		}
		for i, o := range outs {
			if !o.IsError || !errors.Is(o.Err, context.Canceled) {
				t.Errorf("call %d: %+v", i, o)
			}
		}
	case <-time.After(5 * time.Second):
		t.Fatal("CallAll did not return after cancellation")
	}
}

func TestRegistryConcurrentAddAndCall(t *testing.T) {
	r := NewRegistry()
	r.MustAdd(echoTool("base"))
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			r.MustAdd(echoTool(fmt.Sprintf("t%d", i)))
		}()
		go func() {
			defer wg.Done()
			for j := range 50 {
				s := fmt.Sprintf("%d-%d", i, j)
				out := r.Call(context.Background(), "base", json.RawMessage(`{"s":"`+s+`"}`))
				if out.Text != "base:"+s {
					t.Errorf("got %q, want base:%s", out.Text, s)
				}
				r.Tools()
			}
		}()
	}
	wg.Wait()
	if r.Len() != 21 {
		t.Errorf("Len = %d, want 21", r.Len())
	}
}

func TestRegistryOnAdd(t *testing.T) {
	r := NewRegistry()
	var got [][]string
	remove := r.OnAdd(func(added []AnyTool) {
		got = append(got, names(added))
		r.Tools() // the registry is usable from a listener
	})
	r.MustAdd(echoTool("a"), echoTool("b"))
	if err := r.Add(echoTool("a")); err == nil {
		t.Fatal("duplicate accepted")
	}
	r.MustAdd(echoTool("c"))
	remove()
	r.MustAdd(echoTool("d"))
	if diff := cmp.Diff([][]string{{"a", "b"}, {"c"}}, got); diff != "" {
		t.Errorf("listener saw (-want +got):\n%s", diff)
	}
}

// TestCallAllQuickTurnStartsNoGoroutine: a turn of quick calls runs on its
// caller's goroutine alone. A loaded machine may stretch a turn past the
// time after which more goroutines start, so one turn of many tries must
// start none.
func TestCallAllQuickTurnStartsNoGoroutine(t *testing.T) {
	sample := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		t.Skip("the runtime does not count the goroutines it creates")
	}
	r := NewRegistry()
	r.MustAdd(echoTool("echo"))
	calls := make([]ToolCall, 4)
	for i := range calls {
		calls[i] = ToolCall{Name: "echo", Arguments: json.RawMessage(`{"s":"ok"}`)}
	}
	least := uint64(math.MaxUint64)
	for range 50 {
		metrics.Read(sample)
		before := sample[0].Value.Uint64()
		for _, o := range r.CallAll(context.Background(), calls) {
			if o.Text != "echo:ok" {
				t.Fatalf("got %+v", o)
			}
		}
		metrics.Read(sample)
		least = min(least, sample[0].Value.Uint64()-before)
	}
	if least != 0 {
		t.Errorf("every turn of 4 quick calls started goroutines (at least %d)", least)
	}
}

// TestCallAllHelpsACallThatWaits: a call that waits for the next call of
// its turn to run does not hold it up: the turn gives the rest of its calls
// another goroutine, though no group or timeout says the call waits.
func TestCallAllHelpsACallThatWaits(t *testing.T) {
	r := NewRegistry(WithMaxConcurrency(2))
	second := make(chan struct{})
	r.MustAdd(MustNew("first", "Waits for the second.", func(ctx context.Context, _ struct{}) (string, error) {
		select {
		case <-second:
			return "after the second", nil
		case <-time.After(10 * time.Second):
			return "", errors.New("the second call never ran")
		}
	}))
	r.MustAdd(MustNew("second", "Runs.", func(context.Context, struct{}) (string, error) {
		close(second)
		return "ran", nil
	}))
	outs := r.CallAll(context.Background(), []ToolCall{{Name: "first"}, {Name: "second"}})
	got := []string{outs[0].Text, outs[1].Text}
	if diff := cmp.Diff([]string{"after the second", "ran"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
