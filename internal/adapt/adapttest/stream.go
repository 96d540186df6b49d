package adapttest

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/toolreg/toolreg"
)

// What the streaming runners' tests share, whatever the provider's
// framing.

// Pieces cuts s into pieces of n bytes, as a model streams arguments.
func Pieces(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

// EarlyStart returns a registry of two tools without arguments, "first"
// and "second", whose results are "first done" and "second done", and the
// channel "first" closes when it runs. A streamed reply that waits on it
// (API.Hold at Wait) between the two calls finishes only if the runner
// starts the first call while the model still writes the second.
func EarlyStart() (*toolreg.Registry, chan struct{}) {
	hold := make(chan struct{})
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("first", "Runs first.", func(context.Context, struct{}) (string, error) {
		close(hold)
		return "first done", nil
	}), toolreg.MustNew("second", "Runs second.", func(context.Context, struct{}) (string, error) { return "second done", nil }))
	return reg, hold
}

// NoGoroutinesLeft fails t if more goroutines run than before, give or
// take the test server's own two, once they have had two seconds to end.
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
