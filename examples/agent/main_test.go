package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOfflineRun runs the README's first command as a test: the offline
// transcript must show the parallel calls, the refused call, its correction
// and an answer built from the tools' results.
func TestOfflineRun(t *testing.T) {
	var out bytes.Buffer
	noEnv := func(string) string { return "" }
	if err := run(context.Background(), &out, noEnv, "", options{maxSteps: 8}); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	got := out.String()
	steps := []string{
		`[step 1] assistant calls get_weather {"city":"Paris","days":2}`,
		`[step 1] assistant calls get_weather {"city":"Rome","days":2}`,
		`[step 1]   get_weather result: {"city":"Paris","highs_c":[`,
		`[step 1]   get_weather result: {"city":"Rome","highs_c":[`,
		`[step 2]   convert_temperature error: invalid arguments for tool "convert_temperature":`,
		`- from: "C" is not allowed; allowed values: "celsius", "fahrenheit"`,
		`- value: expected number, got "20"`,
		`[step 3] assistant calls convert_temperature {"value":20,"from":"celsius","to":"fahrenheit"}`,
		`[step 3]   convert_temperature result: 68 fahrenheit`,
		`assistant: Rome will be warmer tomorrow, with a high of 20 °C (68 fahrenheit).`,
		`(4 model calls)`,
	}
	last := 0
	for _, s := range steps {
		i := strings.Index(got[last:], s)
		if i < 0 {
			t.Fatalf("transcript lacks %q (in order):\n%s", s, got)
		}
		last += i + len(s)
	}
	if regexp.MustCompile(`panic|goroutine`).MatchString(got) {
		t.Errorf("transcript leaks internals:\n%s", got)
	}
}

// TestOfflineRunREADME: the README's "Set up" shows the offline
// transcript as the program prints it.
func TestOfflineRunREADME(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, shown, _ := strings.Cut(string(readme), "runs a small agent offline")
	_, shown, _ = strings.Cut(shown, "```\n")
	shown, _, _ = strings.Cut(shown, "```")
	var out bytes.Buffer
	if err := run(context.Background(), &out, func(string) string { return "" }, "", options{maxSteps: 8}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(shown, out.String()); diff != "" {
		t.Errorf("README's transcript (-README +printed):\n%s", diff)
	}
}

func TestMaxStepsReported(t *testing.T) {
	var out bytes.Buffer
	err := run(context.Background(), &out, func(string) string { return "" }, "", options{maxSteps: 2})
	if err == nil || !strings.Contains(err.Error(), "maximum number of steps") {
		t.Fatalf("err = %v", err)
	}
}

// A key that is set but an endpoint that fails gives a clear error.
func TestEndpointFailureIsClear(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`)
	}))
	defer srv.Close()
	env := map[string]string{
		"OPENAI_API_KEY": "bad", "OPENAI_BASE_URL": srv.URL + "/v1/",
		"ANTHROPIC_API_KEY": "bad", "ANTHROPIC_BASE_URL": srv.URL,
	}
	getenv := func(k string) string { return env[k] }
	var out bytes.Buffer
	err := run(context.Background(), &out, getenv, "hi", options{maxSteps: 3})
	if err == nil || !strings.Contains(err.Error(), "the model endpoint failed (HTTP 401)") {
		t.Errorf("openai: %v", err)
	}
	err = runAnthropic(context.Background(), &out, getenv, "hi", 3)
	if err == nil || !strings.Contains(err.Error(), "the Anthropic endpoint failed (HTTP 401)") {
		t.Errorf("anthropic: %v", err)
	}
	if err := runAnthropic(context.Background(), &out, func(string) string { return "" }, "hi", 3); err == nil || !strings.Contains(err.Error(), "needs ANTHROPIC_API_KEY") {
		t.Errorf("anthropic without a key: %v", err)
	}
}

// TestOfflineApprove: with -approve each get_weather call waits for the
// host; a declined one reaches the model as such, and its answer says so.
func TestOfflineApprove(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out, func(string) string { return "" }, "", options{maxSteps: 8, approve: true, answers: strings.NewReader("y\nn\n")}); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		"(paused: 2 calls wait for approval; the state is ",
		`approve get_weather {"city":"Paris","days":2}? y`,
		`approve get_weather {"city":"Rome","days":2}? n`,
		`[step 1]   get_weather error: the host did not allow this call of "get_weather": the user declined`,
		"assistant: I have no forecast for Rome; Paris will have a high of 16 °C (60.8 fahrenheit) tomorrow.",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestOfflineStream: with -stream the answer is printed as it streams, and
// the run is the same.
func TestOfflineStream(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out, func(string) string { return "" }, "", options{maxSteps: 8, stream: true}); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		`[step 2]   convert_temperature error: invalid arguments for tool "convert_temperature":`,
		"assistant (streaming): Rome will be warmer tomorrow, with a high of 20 °C (68 fahrenheit).\n(4 model calls)",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
