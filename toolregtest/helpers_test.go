package toolregtest

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/toolreg/toolreg"
)

// fakeT records what a helper reports instead of failing the real test.
// Fatalf stops the goroutine, as testing.T's does; run calls the helper on
// a goroutine of its own for that.
type fakeT struct {
	testing.TB // the real test: Name, Context, TempDir, Cleanup

	mu     sync.Mutex
	errors []string
	logs   []string
	fatal  bool
}

func (f *fakeT) Helper() {}

func (f *fakeT) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}

func (f *fakeT) Fatalf(format string, args ...any) {
	f.Errorf(format, args...)
	f.mu.Lock()
	f.fatal = true
	f.mu.Unlock()
	runtime.Goexit()
}

func (f *fakeT) Logf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.logs = append(f.logs, fmt.Sprintf(format, args...))
}

func (f *fakeT) Failed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.errors) > 0
}

// failures runs fn with a fakeT and returns what it reported.
func failures(t *testing.T, fn func(tb testing.TB)) *fakeT {
	t.Helper()
	f := &fakeT{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(f)
	}()
	<-done
	return f
}

func (f *fakeT) text() string { return strings.Join(f.errors, "\n") }

type WeatherArgs struct {
	City string `json:"city" jsonschema:"description=City name\\, e.g. Paris or Lyon"`
	Days *int   `json:"days,omitempty" jsonschema:"description=Forecast length in days,minimum=1,maximum=7"`
	Unit string `json:"unit,omitempty" jsonschema:"description=Temperature unit: celsius unless the user asks otherwise,enum=celsius,enum=fahrenheit"`
}

type Forecast struct {
	City  string  `json:"city"`
	TempC float64 `json:"temp_c"`
}

func getWeather() *toolreg.Tool[WeatherArgs, Forecast] {
	return toolreg.MustNew("get_weather",
		"Weather forecast for a city. Use it for questions about weather <today> & later, not for climate.",
		func(ctx context.Context, a WeatherArgs) (Forecast, error) {
			return Forecast{City: a.City, TempC: 18}, nil
		})
}

func getTime() *toolreg.Tool[struct{}, string] {
	return toolreg.MustNew("get_time", "The current time, for questions about the time of day.",
		func(ctx context.Context, _ struct{}) (string, error) { return "12:00", nil })
}

func registry(tools ...toolreg.AnyTool) *toolreg.Registry {
	r := toolreg.NewRegistry()
	r.MustAdd(tools...)
	return r
}

func reflectTag(s string) reflect.StructTag { return reflect.StructTag(s) }
