package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
)

// TestOfflineRun runs the README's first command as a test: the offline
// transcript must show the parallel calls, the refused call, its correction
// and an answer built from the tools' results.
func TestOfflineRun(t *testing.T) {
	var out bytes.Buffer
	noEnv := func(string) string { return "" }
	if err := run(context.Background(), &out, noEnv, "", 8); err != nil {
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

func TestMaxStepsReported(t *testing.T) {
	var out bytes.Buffer
	err := run(context.Background(), &out, func(string) string { return "" }, "", 2)
	if err == nil || !strings.Contains(err.Error(), "maximum number of steps") {
		t.Fatalf("err = %v", err)
	}
}
