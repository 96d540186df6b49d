// Package adapttest holds the fixtures the adapters' tests share: a small
// registry of weather tools, a fake provider API, golden files, a
// hand-written tool and a middleware that counts calls.
package adapttest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
)

// WeatherArgs are get_weather's arguments: a required field, an optional
// one with bounds, and an enum with a default.
type WeatherArgs struct {
	City string `json:"city" jsonschema:"description=City name"`
	Days *int   `json:"days,omitempty" jsonschema:"minimum=1,maximum=7"`
	Unit string `json:"unit,omitempty" jsonschema:"enum=celsius,enum=fahrenheit,default=celsius"`
}

// Forecast is get_weather's structured result.
type Forecast struct {
	City string `json:"city"`
	Days int    `json:"days"`
	Unit string `json:"unit"`
}

// ErrNoStation is get_weather's error for Atlantis.
var ErrNoStation = errors.New("no weather station in Atlantis; try a real city")

// Received records the arguments get_weather was called with.
type Received struct {
	mu   sync.Mutex
	args []WeatherArgs
}

// Args returns the arguments so far, in the order the calls ran.
func (r *Received) Args() []WeatherArgs {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]WeatherArgs(nil), r.args...)
}

func (r *Received) add(a WeatherArgs) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.args = append(r.args, a)
	r.mu.Unlock()
}

// Registry returns a registry of two tools: get_weather, which fails for
// Atlantis and records its arguments in rec (if not nil), and get_time,
// which takes no arguments and returns text.
func Registry(rec *Received) *toolreg.Registry {
	weather := toolreg.MustNew("get_weather", "Forecast for a city.", func(ctx context.Context, a WeatherArgs) (Forecast, error) {
		rec.add(a)
		return Weather(ctx, a)
	})
	now := toolreg.MustNew("get_time", "The current time, for questions about time.", func(context.Context, struct{}) (string, error) {
		return "2026-12-02T10:00:00Z", nil
	})
	reg := toolreg.NewRegistry()
	reg.MustAdd(weather, now)
	return reg
}

// Weather is what get_weather does: a forecast of one day unless asked
// for more, and ErrNoStation for Atlantis. A test that declares its own
// arguments type (other tags, so another schema) converts it to
// WeatherArgs.
func Weather(_ context.Context, a WeatherArgs) (Forecast, error) {
	if a.City == "Atlantis" {
		return Forecast{}, ErrNoStation
	}
	days := 1
	if a.Days != nil {
		days = *a.Days
	}
	return Forecast{City: a.City, Days: days, Unit: a.Unit}, nil
}

// Tag is a tool whose "labels" field is an open map, which no strict mode
// and no legacy schema form can express.
var Tag = toolreg.MustNew("tag", "Tags.", func(context.Context, struct {
	Labels map[string]string `json:"labels"`
}) (string, error) {
	return "", nil
})

// WantUnsupported fails t unless err is the error of a tool the dialect
// cannot express: it matches toolreg.ErrUnsupportedSchema and names the
// tool and the field.
func WantUnsupported(t testing.TB, err error, tool, field string) {
	t.Helper()
	if !errors.Is(err, toolreg.ErrUnsupportedSchema) || !strings.Contains(err.Error(), strconv.Quote(tool)) || !strings.Contains(err.Error(), field) {
		t.Errorf("err = %v, want toolreg.ErrUnsupportedSchema naming %q and %s", err, tool, field)
	}
}

// CountCalls adds to reg a middleware that counts its calls, as a host
// observes them, and returns the count.
func CountCalls(reg *toolreg.Registry) *atomic.Int64 {
	var n atomic.Int64
	reg.Use(func(next toolreg.Handler) toolreg.Handler {
		return toolreg.HandlerFunc(func(ctx context.Context, c toolreg.ToolCall) toolreg.Output {
			n.Add(1)
			return next.HandleCall(ctx, c)
		})
	})
	return &n
}

// RawTool is a hand-written AnyTool with any schemas, for shapes
// toolreg.New never makes. It holds slices, so it is not comparable.
type RawTool struct {
	ToolName      string
	Input, Output json.RawMessage
}

func (r RawTool) Name() string                  { return r.ToolName }
func (r RawTool) Description() string           { return "A hand-written tool." }
func (r RawTool) InputSchema() json.RawMessage  { return r.Input }
func (r RawTool) OutputSchema() json.RawMessage { return r.Output }

// Invoke answers every call with {"x":1}, as text and as structured JSON.
func (r RawTool) Invoke(context.Context, json.RawMessage) toolreg.Output {
	return toolreg.Output{Text: `{"x":1}`, Structured: json.RawMessage(`{"x":1}`)}
}

// GoldenValue compares v, as indented JSON, with testdata/name; with
// update, it writes the file instead.
func GoldenValue(t testing.TB, name string, v any, update bool) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, name, b, update)
}

// GoldenJSON compares raw, indented but in the order it was sent (key
// order on the wire is part of what is checked), with testdata/name; with
// update, it writes the file instead.
func GoldenJSON(t testing.TB, name string, raw json.RawMessage, update bool) {
	t.Helper()
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		t.Fatal(err)
	}
	golden(t, name, b.Bytes(), update)
}

func golden(t testing.TB, name string, got []byte, update bool) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if update {
		if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(bytes.TrimSpace(want)), string(got)); diff != "" {
		t.Errorf("%s changed (-want +got):\n%s", path, diff)
	}
}

// SameJSON fails t unless got, what a function named what wrote, is the
// same JSON value as sent, what the SDK sent.
func SameJSON(t testing.TB, what string, sent, got []byte) {
	t.Helper()
	var s, g any
	if err := json.Unmarshal(sent, &s); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s wrote %s: %v", what, got, err)
	}
	if diff := cmp.Diff(s, g); diff != "" {
		t.Errorf("%s differs from what the SDK sends (-sdk +%s):\n%s", what, what, diff)
	}
}
