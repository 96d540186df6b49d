package toolreg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// gauge counts the calls running at once and keeps the peak.
type gauge struct{ running, peak atomic.Int32 }

func (g *gauge) enter() int32 {
	n := g.running.Add(1)
	for p := g.peak.Load(); n > p && !g.peak.CompareAndSwap(p, n); p = g.peak.Load() {
	}
	return n
}

func (g *gauge) leave() { g.running.Add(-1) }

// await returns once ch is closed, or an error saying what never happened
// after 5 s.
func await(ch <-chan struct{}, never string) error {
	select {
	case <-ch:
		return nil
	case <-time.After(5 * time.Second):
		return errors.New(never)
	}
}

// grouped is a hand-written tool that joins a group through its optional
// method, and may panic.
type grouped struct {
	name, group string
	run         func(ctx context.Context) Output
}

func (g grouped) Name() string                  { return g.name }
func (g grouped) Description() string           { return "A hand-written tool in a group." }
func (g grouped) InputSchema() json.RawMessage  { return json.RawMessage(`{"type":"object"}`) }
func (g grouped) OutputSchema() json.RawMessage { return nil }
func (g grouped) Group() string                 { return g.group }
func (g grouped) Invoke(ctx context.Context, _ json.RawMessage) Output {
	return g.run(ctx)
}

// TestAGroupOfOneNeverRunsTwo: the tools of a group without a limit, typed
// and hand-written, and a sequential tool, never run two calls at once,
// whoever calls them at the same time: Registry.Call, CallAll, a view.
func TestAGroupOfOneNeverRunsTwo(t *testing.T) {
	var db, seq gauge
	busy := func(g *gauge) {
		g.enter()
		defer g.leave()
		time.Sleep(50 * time.Microsecond) // long enough for others to overlap
	}
	r := NewRegistry(WithMaxConcurrency(8))
	r.MustAdd(
		MustNew("read", "Reads.", func(ctx context.Context, _ struct{}) (string, error) { busy(&db); return "read", nil }, WithGroup("db"), WithTags("v")),
		MustNew("write", "Writes.", func(ctx context.Context, _ struct{}) (string, error) { busy(&db); return "write", nil }, WithGroup("db"), WithTags("v")),
		grouped{name: "raw", group: "db", run: func(context.Context) Output { busy(&db); return Output{Text: "raw"} }},
		MustNew("seq", "One at a time.", func(ctx context.Context, _ struct{}) (string, error) { busy(&seq); return "seq", nil }, WithSequential(), WithTags("v")),
		MustNew("free", "Runs beside anything.", func(ctx context.Context, _ struct{}) (string, error) { return "free", nil }),
	)
	view := r.Select(Tagged("v"))
	names := []string{"read", "write", "raw", "seq", "free"}
	var wg sync.WaitGroup
	errs := make(chan string, 1000)
	for w := range 6 {
		wg.Go(func() {
			for i := range 20 {
				name := names[(w+i)%len(names)]
				var got []Output
				switch w % 3 {
				case 0:
					got = []Output{r.Call(context.Background(), name, nil)}
				case 1:
					calls := make([]ToolCall, 8)
					for j := range calls {
						calls[j] = ToolCall{Name: names[(w+i+j)%len(names)]}
					}
					got = r.CallAll(context.Background(), calls)
				case 2:
					if name == "raw" || name == "free" {
						name = "read"
					}
					got = []Output{view.Call(context.Background(), name, nil)}
				}
				for _, out := range got {
					if out.IsError {
						errs <- out.Text
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if p := db.peak.Load(); p != 1 {
		t.Errorf("group db ran %d calls at once, want 1", p)
	}
	if p := seq.peak.Load(); p != 1 {
		t.Errorf("the sequential tool ran %d calls at once, want 1", p)
	}
}

// TestAGroupLimitIsReached: a group with a limit of n runs n calls at
// once, never more, however many the turn and the registry's bound allow.
func TestAGroupLimitIsReached(t *testing.T) {
	for _, tc := range []struct{ limit, calls, bound int }{{3, 8, 16}, {2, 8, 2}, {1, 4, 16}, {5, 16, 8}} {
		var g gauge
		want := int32(min(tc.limit, tc.calls, tc.bound))
		all := make(chan struct{})
		var once sync.Once
		r := NewRegistry(WithGroupLimit("api", tc.limit), WithMaxConcurrency(tc.bound))
		r.MustAdd(MustNew("fetch", "Fetches.", func(ctx context.Context, _ struct{}) (string, error) {
			if g.enter() == want {
				once.Do(func() { close(all) })
			}
			defer g.leave()
			if err := await(all, "the limit was never reached"); err != nil {
				return "", err
			}
			return Info(ctx).ID, nil
		}, WithGroup("api")))
		calls := make([]ToolCall, tc.calls)
		var want2, got []string
		for i := range calls {
			calls[i] = ToolCall{ID: fmt.Sprint(i), Name: "fetch"}
			want2 = append(want2, calls[i].ID)
		}
		for _, out := range r.CallAll(context.Background(), calls) {
			got = append(got, out.Text)
		}
		if diff := cmp.Diff(want2, got); diff != "" {
			t.Errorf("%+v: outputs (-want +got):\n%s", tc, diff)
		}
		if p := g.peak.Load(); p != want {
			t.Errorf("%+v: peak %d, want %d", tc, p, want)
		}
	}
}

// TestFreeCallsRunBesideTheGroupsQueue: in a turn of 8 calls, 4 of a
// sequential tool and 4 free, the free ones run at once while the group's
// calls queue: the waiting calls hold none of the turn's slots.
func TestFreeCallsRunBesideTheGroupsQueue(t *testing.T) {
	for _, bound := range []int{16, 5} {
		var seq, free gauge
		allFree := make(chan struct{})
		var once sync.Once
		r := NewRegistry(WithMaxConcurrency(bound))
		r.MustAdd(
			MustNew("seq", "One at a time.", func(ctx context.Context, _ struct{}) (string, error) {
				seq.enter()
				defer seq.leave()
				// The first call holds the group until the free calls ran together.
				if err := await(allFree, "the free calls never ran together"); err != nil {
					return "", err
				}
				return "seq", nil
			}, WithSequential()),
			MustNew("free", "Runs beside anything.", func(ctx context.Context, _ struct{}) (string, error) {
				if free.enter() == 4 {
					once.Do(func() { close(allFree) })
				}
				defer free.leave()
				if err := await(allFree, "the free calls never ran together"); err != nil {
					return "", err
				}
				return "free", nil
			}),
		)
		var calls []ToolCall
		var want []string
		for i := range 8 {
			name := []string{"seq", "free"}[i%2]
			calls = append(calls, ToolCall{Name: name})
			want = append(want, name)
		}
		var got []string
		for _, out := range r.CallAll(context.Background(), calls) {
			got = append(got, out.Text)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("bound %d: outputs (-want +got):\n%s", bound, diff)
		}
		if p := seq.peak.Load(); p != 1 {
			t.Errorf("bound %d: the sequential tool ran %d calls at once", bound, p)
		}
		if p := free.peak.Load() + seq.peak.Load(); p > int32(bound) {
			t.Errorf("bound %d: %d calls ran at once", bound, p)
		}
	}
}

// waitForWaiter returns once a call waits for the group key of r.
func waitForWaiter(t *testing.T, r *Registry, key groupKey, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for r.sema(key).Waiting() < n {
		if time.Now().After(deadline) {
			t.Fatalf("no call waits for %+v", key)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestAWaitForTheGroupEndsWithItsContext: a call waiting for its group is
// cancelled or timed out as its context says, with the Output the model
// reads, and never runs; the call holding the group is unaffected.
func TestAWaitForTheGroupEndsWithItsContext(t *testing.T) {
	hold := make(chan struct{})
	var ran atomic.Int32
	r := NewRegistry()
	r.MustAdd(MustNew("seq", "One at a time.", func(ctx context.Context, _ struct{}) (string, error) {
		if ran.Add(1) == 1 {
			<-hold
		}
		return "done", nil
	}, WithSequential()))
	first := make(chan Output)
	go func() { first <- r.Call(context.Background(), "seq", nil) }()
	for ran.Load() == 0 {
		time.Sleep(time.Millisecond)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancelled := make(chan Output)
	go func() { cancelled <- r.Call(ctx, "seq", nil) }()
	waitForWaiter(t, r, groupKey{name: "seq", tool: true}, 1)
	cancel()
	if out := <-cancelled; !out.IsError || !errors.Is(out.Err, context.Canceled) || out.Text != `the call to tool "seq" was cancelled` {
		t.Errorf("cancelled wait: got %+v", out)
	}

	ctx, cancel = context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	outs := r.CallAll(ctx, []ToolCall{{Name: "seq"}, {Name: "seq"}})
	for i, out := range outs {
		if !errors.Is(out.Err, ErrTimeout) {
			t.Errorf("timed-out wait, call %d: got %+v", i, out)
		}
	}
	if n := ran.Load(); n != 1 {
		t.Errorf("%d calls ran, want only the first", n)
	}
	close(hold)
	if out := <-first; out.Text != "done" {
		t.Errorf("the call holding the group: got %+v", out)
	}
	if out := r.Call(context.Background(), "seq", nil); out.Text != "done" {
		t.Errorf("after the waits: got %+v", out)
	}
}

// TestPanicsAndTimeoutsGiveTheGroupBack: a call that panics gives its slot
// back; one abandoned at its deadline keeps it until its function returns,
// since what the group guards is still in use.
func TestPanicsAndTimeoutsGiveTheGroupBack(t *testing.T) {
	r := NewRegistry(WithDefaultTimeout(time.Hour))
	release := make(chan struct{})
	var running atomic.Int32
	r.MustAdd(
		MustNew("boom", "Panics.", func(ctx context.Context, _ struct{}) (string, error) { panic("boom") }, WithGroup("db")),
		grouped{name: "rawboom", group: "db", run: func(context.Context) Output { panic("raw boom") }},
		MustNew("stuck", "Ignores its context.", func(ctx context.Context, _ struct{}) (string, error) {
			running.Add(1)
			defer running.Add(-1)
			<-release
			return "late", nil
		}, WithGroup("db"), WithTimeout(10*time.Millisecond)),
		MustNew("ok", "Fine.", func(ctx context.Context, _ struct{}) (string, error) { return "ok", nil }, WithGroup("db")),
	)
	for _, name := range []string{"boom", "rawboom", "boom"} {
		var pe *PanicError
		if out := r.Call(context.Background(), name, nil); !errors.As(out.Err, &pe) {
			t.Errorf("%s: got %+v", name, out)
		}
	}
	if out := r.Call(context.Background(), "ok", nil); out.Text != "ok" {
		t.Fatalf("after the panics: got %+v", out)
	}
	if out := r.Call(context.Background(), "stuck", nil); !errors.Is(out.Err, ErrTimeout) {
		t.Fatalf("stuck: got %+v", out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if out := r.Call(ctx, "ok", nil); !errors.Is(out.Err, ErrTimeout) {
		t.Errorf("while the abandoned call runs, the group is still taken: got %+v", out)
	}
	close(release)
	deadline := time.Now().Add(5 * time.Second)
	for running.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if out := r.Call(context.Background(), "ok", nil); out.Text != "ok" {
		t.Errorf("once the abandoned call returned: got %+v", out)
	}
}

// TestAnEmptyGroupNameIsRefused: WithGroup("") is a declaration error.
func TestAnEmptyGroupNameIsRefused(t *testing.T) {
	_, err := New("t", "A tool.", func(context.Context, struct{}) (string, error) { return "", nil }, WithGroup(""))
	if !errors.Is(err, ErrInvalidDeclaration) {
		t.Errorf("got %v, want ErrInvalidDeclaration", err)
	}
}
