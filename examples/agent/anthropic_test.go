package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg/toolregtest/fakemodel"
)

// TestAnthropicRun runs -provider anthropic against a scripted Messages
// API: the events print the calls and their results as the OpenAI run's
// do.
func TestAnthropicRun(t *testing.T) {
	s := fakemodel.New(t,
		fakemodel.Call("convert_temperature", `{"value":"20","from":"C","to":"fahrenheit"}`),
		fakemodel.Call("convert_temperature", `{"value":20,"from":"celsius","to":"fahrenheit"}`),
		fakemodel.Text("20 °C is 68 °F."))
	env := map[string]string{"ANTHROPIC_API_KEY": "test", "ANTHROPIC_BASE_URL": s.URL()}
	var out bytes.Buffer
	if err := runAnthropic(context.Background(), &out, func(k string) string { return env[k] }, "20 °C in Fahrenheit?", 5); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	want := `user: 20 °C in Fahrenheit?
[step 1] assistant calls convert_temperature {"value":"20","from":"C","to":"fahrenheit"}
[step 1]   convert_temperature error: invalid arguments for tool "convert_temperature":
           - from: "C" is not allowed; allowed values: "celsius", "fahrenheit"
           - value: expected number, got "20"
           Fix the arguments and call the tool again.
[step 2] assistant calls convert_temperature {"value":20,"from":"celsius","to":"fahrenheit"}
[step 2]   convert_temperature result: 68 fahrenheit
assistant: 20 °C is 68 °F.
(3 model calls)
`
	got := out.String()
	if i := strings.Index(got, "user:"); i >= 0 {
		got = got[i:]
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}
