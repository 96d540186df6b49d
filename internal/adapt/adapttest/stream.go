package adapttest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
)

// Pieces cuts s into pieces of n bytes, as a model streams arguments.
func Pieces(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

// Events records a run's events, as a test reads them: its Record is the
// run's OnEvent.
type Events struct {
	// Kinds lists the events as "step kind call-id", all but the
	// ArgumentsDelta events, which come many to a call and are joined in
	// Args instead, by call id.
	Kinds []string
	Args  map[string]string
	// Text joins the TextDelta events; Usage holds each step's.
	Text  string
	Usage []agent.Usage
}

// Record records e.
func (r *Events) Record(e agent.Event) {
	switch e.Kind {
	case agent.ArgumentsDelta:
		if r.Args == nil {
			r.Args = map[string]string{}
		}
		r.Args[e.Call.ID] += e.Delta
		return
	case agent.TextDelta:
		r.Text += e.Text
	case agent.StepDone:
		r.Usage = append(r.Usage, e.Usage)
	}
	r.Kinds = append(r.Kinds, fmt.Sprintf("%d %s %s", e.Step, e.Kind, e.Call.ID))
}

// Streamer is an adapter's streaming runner as StreamTests drive it, with
// replies written in the provider's own framing (server-sent events, as
// SSE writes them).
type Streamer struct {
	// Runner gives the fake API, a streamed final Answer, and how to read
	// a turn's Results.
	Runner
	// Stream runs reg's tools with one user message through the streaming
	// runner against api.
	Stream func(ctx context.Context, api *API, reg *toolreg.Registry, opts agent.Options) error
	// Early is a reply asking for the tools "first" and then "second",
	// without arguments, that writes Wait once first's call is complete
	// and before second's is.
	Early string
	// Writing is a reply that writes some text, then Wait.
	Writing string
	// Broken are replies asking for get_weather that break off.
	Broken []Broken
}

// Broken is a streamed reply that breaks off, and the error that ends the
// run: it holds Want, and matches Is unless that is nil.
type Broken struct {
	Name  string
	Reply string
	Want  string
	Is    error
}

// StreamTests checks what every streaming runner does alike: a call whose
// arguments are complete starts while the model still writes the next; a
// stream that breaks off ends the run with a clear error, and no call runs
// on arguments that did not arrive whole; cancelling while the model
// writes returns at once and leaves no goroutine behind.
func StreamTests(t *testing.T, s Streamer) {
	t.Run("calls start early", func(t *testing.T) {
		// The stream goes on only once first has started, so a runner
		// that waited for the whole response would never finish.
		hold := make(chan struct{})
		reg := EarlyRegistry(hold)
		api := s.API(s.Early, s.Answer("ok"))
		api.Hold = hold
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Stream(ctx, api, reg, agent.Options{}); err != nil {
			t.Fatal(err)
		}
		got := s.Results(t, api.Requests[1])
		if diff := cmp.Diff([]Result{{Text: "first done"}, {Text: "second done"}}, got); diff != "" {
			t.Errorf("results (-want +got):\n%s", diff)
		}
	})
	for _, b := range s.Broken {
		t.Run(b.Name, func(t *testing.T) {
			reg := Registry(nil)
			calls := CountCalls(reg) // even one the registry would refuse
			err := s.Stream(context.Background(), s.API(b.Reply), reg, agent.Options{})
			if err == nil || !strings.Contains(err.Error(), b.Want) || (b.Is != nil && !errors.Is(err, b.Is)) {
				t.Errorf("err = %v, want %q (matching %v)", err, b.Want, b.Is)
			}
			if n := calls.Load(); n != 0 {
				t.Errorf("%d calls ran on arguments that did not arrive whole", n)
			}
		})
	}
	t.Run("cancelled", func(t *testing.T) {
		before := runtime.NumGoroutine()
		api := s.API(s.Writing)
		api.Hold = make(chan struct{}) // never closed
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var once bool
		err := s.Stream(ctx, api, Registry(nil), agent.Options{OnEvent: func(e agent.Event) {
			if e.Kind == agent.TextDelta && !once {
				once = true
				cancel()
			}
		}})
		if !errors.Is(err, context.Canceled) || !once {
			t.Errorf("err = %v, text seen %v", err, once)
		}
		NoGoroutinesLeft(t, before)
	})
}

// EarlyRegistry holds two tools without arguments, "first" and "second",
// which answer "first done" and "second done"; first closes hold as it
// runs. Set API.Hold to hold and put Wait in a streamed reply between the
// two calls: the stream goes on only once first has started, so a runner
// that waited for the whole response before running a call never ends.
func EarlyRegistry(hold chan struct{}) *toolreg.Registry {
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("first", "Runs first.", func(context.Context, struct{}) (string, error) {
		close(hold)
		return "first done", nil
	}), toolreg.MustNew("second", "Runs second.", func(context.Context, struct{}) (string, error) { return "second done", nil }))
	return reg
}

// NoGoroutinesLeft fails t if, within two seconds, more goroutines run
// than before (counted with runtime.NumGoroutine) and the two a test
// server's connection may keep a moment longer.
func NoGoroutinesLeft(t testing.TB, before int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before+2 {
		t.Errorf("%d goroutines left behind", n-before)
	}
}
