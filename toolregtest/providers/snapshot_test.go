package providers

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/internal/jsonvalue"
	"github.com/toolreg/toolreg/toolregtest/internal/fixture"
)

// setUpdate sets TOOLREG_UPDATE for the rest of the test.
func setUpdate(t *testing.T, v bool) {
	if v {
		t.Setenv(updateEnv, "1")
	} else {
		t.Setenv(updateEnv, "")
	}
}

// WeatherArgsV2 is WeatherArgs after a change a reviewer must see: a new
// required field.
type WeatherArgsV2 struct {
	fixture.WeatherArgs
	Country string `json:"country" jsonschema:"description=ISO country code of the city"`
}

func getWeatherV2() *toolreg.Tool[WeatherArgsV2, fixture.Forecast] {
	return toolreg.MustNew("get_weather", fixture.Weather().Description(),
		func(ctx context.Context, a WeatherArgsV2) (fixture.Forecast, error) { return fixture.Forecast{}, nil })
}

func TestSnapshotCatchesStaleGolden(t *testing.T) {
	golden := filepath.Join(t.TempDir(), "tools.golden")
	setUpdate(t, true)
	if f := fixture.Run(t, func(tb testing.TB) { Snapshot(tb, fixture.Registry(fixture.Weather(), fixture.Time()), golden) }); f.Failed() {
		t.Fatalf("writing the golden file: %s", f.Text())
	}
	setUpdate(t, false)
	before, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}

	if f := fixture.Run(t, func(tb testing.TB) { Snapshot(tb, fixture.Registry(fixture.Weather(), fixture.Time()), golden) }); f.Failed() {
		t.Fatalf("the same registry does not match its own golden file:\n%s", f.Text())
	}

	for _, tc := range []struct {
		name string
		reg  *toolreg.Registry
		want []string // lines of the diff: "+" or "-", then text the line holds
	}{
		{"field added", fixture.Registry(getWeatherV2(), fixture.Time()), []string{`+"country": {`, `+"description": "ISO country code of the city"`, `-"city"`, `+"country"`}},
		{"description changed", fixture.Registry(fixture.Weather(), toolreg.MustNew("get_time", "The current time in UTC, for questions about the time of day.",
			func(ctx context.Context, _ struct{}) (string, error) { return "", nil })), []string{`-"description": "The current time, for`, `+"description": "The current time in UTC`}},
		{"tool removed", fixture.Registry(fixture.Weather()), []string{"-# Tool definitions as each provider receives them: 2 tools", "+# Tool definitions as each provider receives them: 1 tools", "-=== get_time"}},
		{"order changed", fixture.Registry(fixture.Time(), fixture.Weather()), []string{"-=== get_weather", "+=== get_time"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := fixture.Run(t, func(tb testing.TB) { Snapshot(tb, tc.reg, golden) })
			if len(f.Errors) != 1 {
				t.Fatalf("got %d failures, want 1:\n%s", len(f.Errors), f.Text())
			}
			msg := f.Errors[0]
			for _, w := range []string{"differ from " + golden + " (-golden +current)", "TOOLREG_UPDATE=1 go test -run '^" + t.Name() + "$'"} {
				if !strings.Contains(msg, w) {
					t.Errorf("the failure does not say %q:\n%s", w, msg)
				}
			}
			for _, w := range tc.want {
				if !diffHas(msg, w[:1], w[1:]) {
					t.Errorf("the diff has no line %q:\n%s", w, msg)
				}
			}
			after, _ := os.ReadFile(golden)
			if string(after) != string(before) {
				t.Error("a failed comparison changed the golden file")
			}
		})
	}
}

// diffHas reports whether a cmp.Diff of two strings has a line marked sign
// ("+" or "-") that holds text. go-cmp varies the spaces of its output
// (U+00A0 or U+0020) so that nobody depends on them.
func diffHas(diff, sign, text string) bool {
	for _, line := range strings.Split(diff, "\n") {
		line = strings.TrimLeft(line, " \u00a0")
		if strings.HasPrefix(line, sign) && strings.Contains(line, text) {
			return true
		}
	}
	return false
}

func TestSnapshotMissingGolden(t *testing.T) {
	golden := filepath.Join(t.TempDir(), "missing.golden")
	f := fixture.Run(t, func(tb testing.TB) { Snapshot(tb, fixture.Registry(fixture.Time()), golden) })
	if len(f.Errors) != 1 || !strings.Contains(f.Errors[0], "does not exist") || !strings.Contains(f.Errors[0], "TOOLREG_UPDATE=1 go test") {
		t.Errorf("want one failure saying the file is missing and how to create it, got:\n%s", f.Text())
	}
	if _, err := os.Stat(golden); err == nil {
		t.Error("a comparison without TOOLREG_UPDATE created the golden file")
	}
}

func TestSnapshotUpdate(t *testing.T) {
	golden := filepath.Join(t.TempDir(), "nested", "dir", "tools.golden")
	setUpdate(t, true)

	// Creates the file and its directories.
	f := fixture.Run(t, func(tb testing.TB) { Snapshot(tb, fixture.Registry(fixture.Weather()), golden) })
	if f.Failed() || len(f.Logs) != 1 || !strings.Contains(f.Logs[0], "wrote "+golden) {
		t.Fatalf("creating: failures %q, logs %q", f.Errors, f.Logs)
	}
	// Rewrites a stale file.
	f = fixture.Run(t, func(tb testing.TB) { Snapshot(tb, fixture.Registry(getWeatherV2()), golden) })
	if f.Failed() || len(f.Logs) != 1 {
		t.Fatalf("rewriting: failures %q, logs %q", f.Errors, f.Logs)
	}
	got, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != render(fixture.Registry(getWeatherV2())) {
		t.Error("TOOLREG_UPDATE=1 did not write the current definitions")
	}
	// Leaves an up-to-date file alone.
	f = fixture.Run(t, func(tb testing.TB) { Snapshot(tb, fixture.Registry(getWeatherV2()), golden) })
	if f.Failed() || len(f.Logs) != 0 {
		t.Errorf("up to date: failures %q, logs %q", f.Errors, f.Logs)
	}

	setUpdate(t, false)
	if f := fixture.Run(t, func(tb testing.TB) { Snapshot(tb, fixture.Registry(getWeatherV2()), golden) }); f.Failed() {
		t.Errorf("the rewritten file does not match:\n%s", f.Text())
	}
}

func TestSnapshotCRLF(t *testing.T) {
	golden := filepath.Join(t.TempDir(), "tools.golden")
	text := render(fixture.Registry(fixture.Weather()))
	if err := os.WriteFile(golden, []byte(strings.ReplaceAll(text, "\n", "\r\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if f := fixture.Run(t, func(tb testing.TB) { Snapshot(tb, fixture.Registry(fixture.Weather()), golden) }); f.Failed() {
		t.Errorf("a golden file checked out with CRLF line ends does not match:\n%s", f.Text())
	}
}

// TestUpdateEnv: TOOLREG_UPDATE=1 (or another true value) rewrites, unset
// or false compares, and a value that is neither stops the test rather
// than guess.
func TestUpdateEnv(t *testing.T) {
	for _, tc := range []struct {
		value   string
		want    bool
		stopped bool
	}{
		{"", false, false},
		{"1", true, false},
		{"true", true, false},
		{"0", false, false},
		{"false", false, false},
		{"yes", false, true},
	} {
		t.Run(tc.value, func(t *testing.T) {
			t.Setenv(updateEnv, tc.value)
			var got bool
			f := fixture.Run(t, func(tb testing.TB) { got = updating(tb) })
			if got != tc.want || f.Stopped != tc.stopped {
				t.Errorf("%s=%q: updating %v, stopped %v; want %v, %v (%s)", updateEnv, tc.value, got, f.Stopped, tc.want, tc.stopped, f.Text())
			}
			if tc.stopped && !strings.Contains(f.Text(), "set it to 1") {
				t.Errorf("the failure does not say what to set: %s", f.Text())
			}
		})
	}
}

// TestNoFlags: importing providers, and with it toolregtest, registers no
// flag, so a test package may define -update and any other flag it likes.
func TestNoFlags(t *testing.T) {
	flag.VisitAll(func(f *flag.Flag) {
		if !strings.HasPrefix(f.Name, "test.") {
			t.Errorf("the flag -%s is registered", f.Name)
		}
	})
}

func TestSnapshotRecordsRefusals(t *testing.T) {
	text := render(fixture.Registry(fixture.Weather(), fixture.Labels()))
	_, labels, _ := strings.Cut(text, "=== set_labels\n")
	for _, want := range []string{
		"\n--- openai chat strict\nrefused: tool cannot be sent in strict mode: tool \"set_labels\": schema at labels: OpenAI strict mode cannot express an open map",
		"\n--- anthropic strict\nrefused: tool cannot be sent in strict mode: tool \"set_labels\": schema at labels:",
		"\n--- gemini legacy\nrefused: tool schema cannot be expressed for Gemini: tool \"set_labels\": schema at labels:",
	} {
		if !strings.Contains(labels, want) {
			t.Errorf("the snapshot does not record the refusal %q:\n%s", want, labels)
		}
	}
	if got := strings.Count(labels, "refused: "); got != 3 {
		t.Errorf("set_labels: %d refusals, want 3", got)
	}
	if strings.Contains(text, "=== request") {
		t.Error("refusals of single tools are also recorded as refusals of the request")
	}

	// A refusal is part of the snapshot, not a failure.
	golden := filepath.Join(t.TempDir(), "tools.golden")
	if err := os.WriteFile(golden, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if f := fixture.Run(t, func(tb testing.TB) { Snapshot(tb, fixture.Registry(fixture.Weather(), fixture.Labels()), golden) }); f.Failed() {
		t.Errorf("a dialect's refusal failed the snapshot:\n%s", f.Text())
	}
}

func TestSnapshotRecordsRequestRefusal(t *testing.T) {
	tools := func(n int) *toolreg.Registry {
		r := toolreg.NewRegistry()
		for i := range n {
			r.MustAdd(toolreg.MustNew(fmt.Sprintf("tool_%d", i), fmt.Sprintf("Tool number %d of the request-limit test.", i),
				func(ctx context.Context, _ struct{}) (string, error) { return "", nil }))
		}
		return r
	}
	if text := render(tools(20)); strings.Contains(text, "=== request") {
		t.Errorf("20 tools: a request section:\n%s", text[strings.Index(text, "=== request"):])
	}
	// With a tool strict mode refuses alone, the others still make a request.
	reg := tools(21)
	reg.MustAdd(fixture.Labels())
	text := render(reg)
	_, request, ok := strings.Cut(text, "\n=== request\n")
	if !ok {
		t.Fatal("21 tools: no request section")
	}
	want := "\n--- anthropic strict\nrefused: strict tools exceed a per-request limit: at most 20 strict tools, and 21 are strict"
	if !strings.HasPrefix(request, want) || strings.Count(request, "--- ") != 1 || strings.Contains(request, "set_labels") {
		t.Errorf("21 tools: request section\n%s\nwant only\n%s...", request, want)
	}
}

func TestSnapshotDialects(t *testing.T) {
	text := render(fixture.Registry(fixture.Weather(), fixture.Time()))
	if !strings.HasPrefix(text, "# Tool definitions as each provider receives them: 2 tools; dialects: canonical, openai chat, openai chat strict, openai responses, anthropic, anthropic strict, gemini, gemini legacy.\n") {
		t.Errorf("header:\n%s", text[:strings.Index(text, "\n\n")])
	}
	// Where each dialect keeps the tool's name.
	stringAt := func(o *jsonvalue.Value, key string) string {
		if v := o.Get(key); v.IsString() {
			return v.Text
		}
		return ""
	}
	nameOf := map[string]func(*jsonvalue.Value) string{
		"canonical":          func(o *jsonvalue.Value) string { return stringAt(o, "name") },
		"openai chat":        func(o *jsonvalue.Value) string { return stringAt(o.Get("function"), "name") },
		"openai chat strict": func(o *jsonvalue.Value) string { return stringAt(o.Get("function"), "name") },
		"openai responses":   func(o *jsonvalue.Value) string { return stringAt(o, "name") },
		"anthropic":          func(o *jsonvalue.Value) string { return stringAt(o, "name") },
		"anthropic strict":   func(o *jsonvalue.Value) string { return stringAt(o, "name") },
		"gemini":             func(o *jsonvalue.Value) string { return stringAt(o, "name") },
		"gemini legacy":      func(o *jsonvalue.Value) string { return stringAt(o, "name") },
	}
	if len(nameOf) != len(dialects) {
		t.Fatalf("the test knows %d dialects, the package %d", len(nameOf), len(dialects))
	}
	sections := strings.Split(text, "\n=== ")[1:]
	if len(sections) != 2 {
		t.Fatalf("%d tool sections, want 2", len(sections))
	}
	for i, tool := range []string{"get_weather", "get_time"} {
		parts := strings.Split(sections[i], "\n--- ")
		if parts[0] != tool+"\n" {
			t.Errorf("section %d is %q, want %s", i, parts[0], tool)
		}
		if len(parts)-1 != len(dialects) {
			t.Fatalf("%s: %d dialects, want %d", tool, len(parts)-1, len(dialects))
		}
		for j, d := range dialects {
			head, body, _ := strings.Cut(parts[j+1], "\n")
			if head != d.name {
				t.Errorf("%s: dialect %d is %q, want %q", tool, j, head, d.name)
				continue
			}
			o, err := jsonvalue.Parse([]byte(body))
			if err == nil && o.Kind != jsonvalue.Object {
				err = errors.New("not an object")
			}
			if err != nil {
				t.Errorf("%s, %s: not a JSON object (%v):\n%s", tool, d.name, err, body)
				continue
			}
			if got := nameOf[d.name](o); got != tool {
				t.Errorf("%s, %s: the definition names %q", tool, d.name, got)
			}
		}
	}
	// Strings read as written: no \u003c for "<".
	if !strings.Contains(text, "weather <today> & later") || strings.Contains(text, `\u003c`) {
		t.Error("the snapshot escapes <, > or & in strings")
	}
	if got := render(toolreg.NewRegistry()); !strings.HasPrefix(got, "# Tool definitions as each provider receives them: 0 tools;") || strings.Contains(got, "===") {
		t.Errorf("empty registry:\n%s", got)
	}
}

// TestSnapshotOmits checks that the snapshot shows each dialect as the
// model receives it: the canonical section keeps the int64 limits and the
// RFC 3339 pattern of a time.Time, and no provider's section has them.
func TestSnapshotOmits(t *testing.T) {
	type args struct {
		ID    int64      `json:"id" jsonschema:"description=Issue number"`
		Since *time.Time `json:"since,omitempty" jsonschema:"description=Only issues updated since"`
	}
	text := render(fixture.Registry(toolreg.MustNew("find_issue", "Finds one issue by number; use it when the number is known.",
		func(context.Context, args) (string, error) { return "", nil })))
	omitted := []string{"9223372036854775807", "[0-5][0-9]"}
	sections := strings.Split(text, "\n--- ")[1:]
	if len(sections) != len(dialects) {
		t.Fatalf("%d sections, want %d:\n%s", len(sections), len(dialects), text)
	}
	for _, s := range sections {
		name, body, _ := strings.Cut(s, "\n")
		if strings.HasPrefix(body, "refused") {
			t.Errorf("%s: %s", name, body)
			continue
		}
		for _, o := range omitted {
			if strings.Contains(body, o) != (name == "canonical") {
				t.Errorf("%s: contains %s: %v, want %v:\n%s", name, o, !(name == "canonical"), name == "canonical", body)
			}
		}
		if !strings.Contains(body, `"date-time"`) {
			t.Errorf("%s lost the format:\n%s", name, body)
		}
	}
}
