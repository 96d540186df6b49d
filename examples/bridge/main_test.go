package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func offline() config {
	return config{prefix: "mcp__", maxSteps: 8, getenv: func(string) string { return "" }}
}

// TestOfflineRun runs the README's command as a test: the transcript is
// the same on every run.
func TestOfflineRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out, offline()); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	want := `tools: log_run (Go), mcp__calculate (MCP calculate), mcp__convert_units (MCP convert_units), mcp__list_units (MCP list_units), mcp__text_stats (MCP text.stats)
model: scripted offline model (set OPENAI_API_KEY to use a real one)
user: I ran 5 miles this morning in 41 minutes. How far is that in km, and what was my pace per km? Log the run.
[step 1] calls mcp__convert_units {"value":5,"from":"miles","to":"km","precision":2} (MCP convert_units)
[step 1]   mcp__convert_units error: invalid arguments for tool "mcp__convert_units":
           - from: "miles" is not allowed; allowed values: "m", "km", "cm", "mi", "ft", "in", "kg", "g", "lb", "oz", "K", "C", "F"
           Fix the arguments and call the tool again.
[step 2] calls mcp__convert_units {"value":5,"from":"mi","to":"km","precision":2} (MCP convert_units)
[step 2]   mcp__convert_units ok: 5 mi = 8.05 km
[step 3] calls mcp__calculate {"operation":"divide","a":41,"b":8.05} (MCP calculate)
[step 3] calls log_run {"km":8.05,"minutes":41} (Go)
[step 3]   mcp__calculate ok: {"expression":"41 / 8.05","value":5.093167701863353}
[step 3]   log_run ok: 8.05 km in 41 min logged, the 3rd run this week
assistant: 5 miles is 8.05 km, a pace of 5:06 per km. Your log: 8.05 km in 41 min logged, the 3rd run this week.
(4 model calls)
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("transcript (-want +got):\n%s", diff)
	}
}

func TestRefusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  func(*config)
		want string
	}{
		{"another server offline", func(c *config) { c.server = []string{"npx", "some-server"} }, "the offline model knows only the bundled server's tools"},
		{"a prefix no name can begin with", func(c *config) { c.prefix = "9" }, `Prefix("9")`},
		{"too few steps", func(c *config) { c.maxSteps = 2 }, "maximum number of steps"},
	} {
		cfg := offline()
		tc.cfg(&cfg)
		err := run(context.Background(), io.Discard, cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

// A key that is set but an endpoint that fails gives a clear error.
func TestEndpointFailureIsClear(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":{"message":"invalid api key"}}`)
	}))
	defer srv.Close()
	cfg := offline()
	env := map[string]string{"OPENAI_API_KEY": "bad", "OPENAI_BASE_URL": srv.URL + "/v1/"}
	cfg.getenv = func(k string) string { return env[k] }
	err := run(context.Background(), io.Discard, cfg)
	if err == nil || !strings.Contains(err.Error(), "the model endpoint failed (HTTP 401)") {
		t.Errorf("err = %v", err)
	}
}
