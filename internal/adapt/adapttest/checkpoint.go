package adapttest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
)

// worker is a process's side of a run that may crash: its tool "work"
// counts its side effects by call (step and id, the run's id left out),
// and at its crashAt'th call the process dies: the run's context ends,
// and nothing of the process happens after, neither a side effect nor a
// save.
type worker struct {
	mu      sync.Mutex
	ran     map[string]int // side effects done, by call
	ids     []string       // the RunID and ID each call saw, in order
	calls   int
	crashAt int
	dead    bool
	cancel  context.CancelFunc
	saved   []byte // the JSON of the last checkpoint
	saves   int
	failAt  int   // the save that fails with errDisk; 0 for none
	inSave  int32 // checkpoints running at once
	overlap bool  // two checkpoints ran at once
}

var errDisk = errors.New("the disk is full")

// registry holds the tool "work", and "book", which needs approval;
// concurrency bounds the calls that run at once.
func (w *worker) registry(concurrency int) *toolreg.Registry {
	reg := toolreg.NewRegistry(toolreg.WithMaxConcurrency(concurrency))
	reg.MustAdd(
		toolreg.MustNew("work", "Does the nth piece of work.", func(ctx context.Context, a struct {
			N int `json:"n"`
		}) (string, error) {
			return w.do(ctx, fmt.Sprintf("worked %d", a.N))
		}),
		toolreg.MustNew("book", "Books a trip to a city.", func(ctx context.Context, a struct {
			City string `json:"city"`
		}) (string, error) {
			return w.do(ctx, "booked "+a.City)
		}, toolreg.WithApproval()),
	)
	return reg
}

// do is a call's side effect, counted, unless the process crashes at it or
// is gone.
func (w *worker) do(ctx context.Context, result string) (string, error) {
	info := toolreg.Info(ctx)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.dead {
		return "", errors.New("the process is gone")
	}
	w.calls++
	w.ids = append(w.ids, info.RunID+" "+info.ID)
	if w.calls == w.crashAt {
		w.dead = true
		w.cancel()
		return "", errors.New("crashed")
	}
	w.ran[fmt.Sprintf("%d/%s", info.Step, strings.TrimPrefix(info.ID, info.RunID+"."))]++
	return result, nil
}

// save is the run's Checkpoint: it keeps the State's JSON, as a file
// would, and checks that it is valid and that no two saves overlap.
func (w *worker) save(_ context.Context, st *agent.State) error {
	if atomic.AddInt32(&w.inSave, 1) > 1 {
		w.overlap = true
	}
	defer atomic.AddInt32(&w.inSave, -1)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.dead {
		return nil // the process is gone: nothing is written
	}
	if err := st.Validate(); err != nil {
		return err
	}
	w.saves++
	if w.saves == w.failAt {
		return errDisk
	}
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	w.saved = b
	return nil
}

// loaded is the last checkpoint, as a new process reads it.
func (w *worker) loaded(t *testing.T) *agent.State {
	t.Helper()
	if w.saved == nil {
		t.Fatal("nothing was saved")
	}
	var st agent.State
	if err := json.Unmarshal(w.saved, &st); err != nil {
		t.Fatal(err)
	}
	return &st
}

// CheckpointTests checks crash-resume through Options.Checkpoint, alike
// for every runner: a run that crashes at any of its tool calls, or at a
// model call, resumes from its last checkpoint in a new process (a new
// registry and client, the State from JSON) with every call run once and
// the model reading what it reads in a run that did not crash; a
// checkpoint that fails stops the run with its error and the State
// returned resumes; a checkpoint edited in its store is refused before
// anything runs.
func CheckpointTests(t *testing.T, c Control) {
	replies := []string{
		c.Calls("work", `{"n":1}`, "work", `{"n":2}`, "work", `{"n":3}`),
		c.Calls("work", `{"n":4}`),
		c.Answer("All done."),
	}
	key := []byte("a key of the host, 32 bytes long")
	type outcome struct {
		ran  map[string]int
		last map[string]any // the last request: what the model read
		st   *agent.State
	}
	// finish resumes w's last checkpoint in a new process, with key, and
	// returns what the runs of both processes did.
	finish := func(t *testing.T, w *worker, st *agent.State, opts agent.Options) outcome {
		t.Helper()
		st = stored(t, st)
		api := c.API(replies[st.Steps:]...)
		w2 := &worker{ran: w.ran, cancel: func() {}}
		opts.Checkpoint = w2.save
		st, err := c.Resume(context.Background(), api, w2.registry(1), st, opts)
		if err != nil {
			t.Fatalf("resumed: %v", err)
		}
		w.ids = append(w.ids, w2.ids...)
		return outcome{ran: w.ran, last: api.Requests[len(api.Requests)-1], st: st}
	}
	// uninterrupted is a run that does not crash.
	uninterrupted := func(t *testing.T) (outcome, *worker) {
		t.Helper()
		w := &worker{ran: map[string]int{}, cancel: func() {}}
		api := c.API(replies...)
		st, err := c.Start(context.Background(), api, w.registry(1), agent.Options{Checkpoint: w.save})
		if err != nil {
			t.Fatal(err)
		}
		return outcome{ran: w.ran, last: api.Requests[len(api.Requests)-1], st: st}, w
	}
	want, w := uninterrupted(t)
	// A save after each reply with calls and after each call.
	if w.saves != 2+4 || w.overlap {
		t.Errorf("%d checkpoints, want 6; two at once: %v", w.saves, w.overlap)
	}
	same := func(t *testing.T, got outcome) {
		t.Helper()
		if diff := cmp.Diff(want.ran, got.ran); diff != "" {
			t.Errorf("calls run, by step and id (-uninterrupted +crashed):\n%s", diff)
		}
		if diff := cmp.Diff(want.last, got.last); diff != "" {
			t.Errorf("the last request (-uninterrupted +crashed):\n%s", diff)
		}
		if got.st.Steps != want.st.Steps || got.st.Cursor != want.st.Cursor {
			t.Errorf("steps %d, cursor %q; uninterrupted: %d, %q", got.st.Steps, got.st.Cursor, want.st.Steps, want.st.Cursor)
		}
		var a, b any
		json.Unmarshal(want.st.Transcript, &a)
		json.Unmarshal(got.st.Transcript, &b)
		if diff := cmp.Diff(a, b); diff != "" {
			t.Errorf("transcript (-uninterrupted +crashed):\n%s", diff)
		}
	}
	for _, sealed := range []bool{false, true} {
		var opts agent.Options
		if sealed {
			opts.StateKey = key
		}
		for crashAt := 1; crashAt <= 4; crashAt++ {
			t.Run(fmt.Sprintf("sealed %v, crash at call %d", sealed, crashAt), func(t *testing.T) {
				w := &worker{ran: map[string]int{}, crashAt: crashAt}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				w.cancel = cancel
				opts := opts
				opts.Checkpoint = w.save
				c.Start(ctx, c.API(replies...), w.registry(1), opts) // it ends in the crash
				st := w.loaded(t)
				if sealed && st.Verify(key) != nil {
					t.Errorf("the checkpoint is not sealed: %v", st.Verify(key))
				}
				same(t, finish(t, w, st, opts))
				// The call that crashed ran again, with the ids it had.
				if crashed, again := w.ids[crashAt-1], w.ids[crashAt]; crashed != again {
					t.Errorf("the call that crashed saw %q, and %q when it ran again", crashed, again)
				}
			})
		}
	}
	for m := 1; m <= 2; m++ {
		t.Run(fmt.Sprintf("crash at model call %d", m+1), func(t *testing.T) {
			w := &worker{ran: map[string]int{}, cancel: func() {}}
			c.Start(context.Background(), c.API(replies[:m]...), w.registry(1), agent.Options{Checkpoint: w.save})
			same(t, finish(t, w, w.loaded(t), agent.Options{}))
		})
	}
	for failAt := 1; failAt <= 6; failAt++ {
		t.Run(fmt.Sprintf("checkpoint %d fails", failAt), func(t *testing.T) {
			w := &worker{ran: map[string]int{}, cancel: func() {}, failAt: failAt}
			st, err := c.Start(context.Background(), c.API(replies...), w.registry(1), agent.Options{Checkpoint: w.save})
			if !errors.Is(err, errDisk) {
				t.Fatalf("err = %v, want the checkpoint's", err)
			}
			same(t, finish(t, w, st, agent.Options{}))
		})
	}
	t.Run("calls at once", func(t *testing.T) {
		w := &worker{ran: map[string]int{}, cancel: func() {}}
		api := c.API(replies...)
		st, err := c.Start(context.Background(), api, w.registry(8), agent.Options{Checkpoint: w.save})
		if err != nil {
			t.Fatal(err)
		}
		same(t, outcome{ran: w.ran, last: api.Requests[len(api.Requests)-1], st: st})
		if w.saves != 6 || w.overlap {
			t.Errorf("%d checkpoints, want 6; two at once: %v", w.saves, w.overlap)
		}
	})
	t.Run("no call after a failed save", func(t *testing.T) {
		// One call at a time: the save of the first call's result fails,
		// and neither of the calls waiting for a slot starts, however the
		// goroutines are scheduled.
		for range 50 {
			w := &worker{ran: map[string]int{}, cancel: func() {}, failAt: 2}
			_, err := c.Start(context.Background(), c.API(replies...), w.registry(1), agent.Options{Checkpoint: w.save})
			if !errors.Is(err, errDisk) {
				t.Fatalf("err = %v, want the checkpoint's", err)
			}
			if w.calls != 1 {
				t.Fatalf("%d calls ran, want 1: a call started after the save failed", w.calls)
			}
		}
	})
	t.Run("once a turn", func(t *testing.T) {
		w := &worker{ran: map[string]int{}, cancel: func() {}}
		api := c.API(replies...)
		st, err := c.Start(context.Background(), api, w.registry(8), agent.Options{Checkpoint: w.save, CheckpointTurns: true})
		if err != nil {
			t.Fatal(err)
		}
		same(t, outcome{ran: w.ran, last: api.Requests[len(api.Requests)-1], st: st})
		if w.saves != 4 {
			t.Errorf("%d checkpoints, want 4", w.saves)
		}
	})
	for _, sealed := range []bool{false, true} {
		// A call the host approved that crashed as it ran: without a key
		// the host is asked again, with one its decision was saved.
		t.Run(fmt.Sprintf("sealed %v, approved, crash", sealed), func(t *testing.T) {
			var opts agent.Options
			if sealed {
				opts.StateKey = key
			}
			replies := []string{c.Calls("work", `{"n":1}`, "book", `{"city":"Oslo"}`), c.Answer("Booked.")}
			w := &worker{ran: map[string]int{}, crashAt: 2}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			w.cancel = cancel
			opts.Checkpoint = w.save
			api := c.API(replies...)
			st, err := c.Start(ctx, api, w.registry(1), opts)
			if !errors.Is(err, agent.ErrPaused) {
				t.Fatalf("err = %v, want ErrPaused", err)
			}
			st = stored(t, st)
			if err := st.Approve(st.Pending()[0].Key()); err != nil {
				t.Fatal(err)
			}
			c.Resume(ctx, api, w.registry(1), st, opts) // book crashes
			w2 := &worker{ran: w.ran, cancel: func() {}}
			opts.Checkpoint = w2.save
			api = c.API(replies[1:]...)
			st, err = c.Resume(context.Background(), api, w2.registry(1), w.loaded(t), opts)
			if !sealed {
				if !errors.Is(err, agent.ErrPaused) || len(st.Pending()) != 1 || st.Pending()[0].Name != "book" {
					t.Fatalf("err = %v, pending %+v, want book asked again", err, st.Pending())
				}
				st = stored(t, st)
				st.Approve(st.Pending()[0].Key())
				st, err = c.Resume(context.Background(), api, w2.registry(1), st, opts)
			}
			if err != nil {
				t.Fatal(err)
			}
			var counts []int
			for _, n := range w.ran {
				counts = append(counts, n)
			}
			if diff := cmp.Diff([]int{1, 1}, counts); diff != "" {
				t.Errorf("calls run, by step and id: %v, want work and book once each", w.ran)
			}
			if got := c.Results(t, api.Requests[len(api.Requests)-1]); !cmp.Equal(got, []Result{{"worked 1", false}, {"booked Oslo", false}}) {
				t.Errorf("results %v", got)
			}
		})
	}
	t.Run("scrambled", func(t *testing.T) {
		// A checkpoint written into at random ends in an error or a run,
		// never a panic.
		w := &worker{ran: map[string]int{}, cancel: func() {}, failAt: 3}
		c.Start(context.Background(), c.API(replies...), w.registry(1), agent.Options{Checkpoint: w.save})
		for i, st := range Scramble(t, w.loaded(t), 100, 31) {
			b, _ := json.Marshal(st)
			for _, p := range st.Pending() {
				st.Approve(p.Key())
			}
			func() {
				defer func() {
					if v := recover(); v != nil {
						t.Fatalf("checkpoint %d panicked: %v\n%s", i, v, b)
					}
				}()
				w := &worker{ran: map[string]int{}, cancel: func() {}}
				c.Resume(context.Background(), c.API(replies[1:]...), w.registry(1), st, agent.Options{Checkpoint: w.save})
			}()
		}
	})
	t.Run("edited", func(t *testing.T) {
		// The checkpoint after the first call of the first turn: call 0
		// done, 1 and 2 not run.
		edits := []struct {
			name   string
			sealed bool
			edit   func(st map[string]any)
			want   string
		}{
			{"done back to asked", false, func(st map[string]any) {
				TurnCall(st, 0)["status"] = "asked"
				delete(TurnCall(st, 0), "result")
			}, "ran already"},
			{"a result edited", true, func(st map[string]any) {
				TurnCall(st, 0)["result"] = map[string]any{"text": "worked 99"}
			}, "seal"},
			{"a call id twice", false, func(st map[string]any) {
				id, _ := TurnCall(st, 0)["id"].(string)
				if id == "" {
					id = "#0"
				}
				TurnCall(st, 1)["id"] = id
			}, "twice"},
			{"asked to approved", false, func(st map[string]any) { TurnCall(st, 1)["status"] = "approved" }, "status is approved"},
		}
		for _, e := range edits {
			t.Run(e.name, func(t *testing.T) {
				var opts agent.Options
				if e.sealed {
					opts.StateKey = key
				}
				w := &worker{ran: map[string]int{}, cancel: func() {}, failAt: 3}
				opts.Checkpoint = w.save
				c.Start(context.Background(), c.API(replies...), w.registry(1), opts)
				st := Edit(t, w.loaded(t), e.edit)
				api := c.API(replies[1:]...)
				w2 := &worker{ran: map[string]int{}, cancel: func() {}}
				_, err := c.Resume(context.Background(), api, w2.registry(1), st, opts)
				if !errors.Is(err, agent.ErrInvalidState) || !strings.Contains(err.Error(), e.want) {
					t.Errorf("err = %v, want agent.ErrInvalidState naming %s", err, e.want)
				}
				if len(api.Requests) != 0 || w2.calls != 0 {
					t.Errorf("%d model calls, %d tool calls after the resume, want none", len(api.Requests), w2.calls)
				}
			})
		}
	})
}
