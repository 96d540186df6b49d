package adapttest

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/toolreg/toolreg"
)

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
