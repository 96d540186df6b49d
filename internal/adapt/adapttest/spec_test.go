package adapttest

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolreg/toolreg/internal/specs"
)

// recorder is a test whose errors are kept, not reported.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// TestCheckSpecs: the bodies an API received are checked against the
// published schema of their path, each once, and what no schema covers
// is let through.
func TestCheckSpecs(t *testing.T) {
	lie := `{"model":"m","input":[{"type":"function_call_output","call_id":"c","output":"ok","is_error":true}]}`
	f := &API{
		Raw: [][]byte{
			[]byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`),
			[]byte(lie),
			[]byte(lie),
			[]byte(`{"anything":"goes"}`),
		},
		Paths: []string{"/v1/chat/completions", "/v1/responses", "/v1/responses", "/v1/messages"},
	}
	r := &recorder{TB: t}
	f.checkSpecs(r)
	want := []string{t.Name() + " request 2 to /v1/responses breaks CreateResponse (OpenAI Responses) at /input/0/is_error: not a property the schema defines"}
	if diff := cmp.Diff(want, r.errs); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// TestSpecGaps: a violation at a known gap of the published schema is
// not reported; one beside it still is.
func TestSpecGaps(t *testing.T) {
	saved := specGaps
	t.Cleanup(func() { specGaps = saved })
	specGaps = []specGap{{
		request: specs.OpenAIResponses,
		path:    regexp.MustCompile(`^/input/\d+/is_error$`),
		message: regexp.MustCompile(`^not a property`),
		why:     "a field the SDK sends that the document lacks",
	}}
	f := &API{
		Raw:   [][]byte{[]byte(`{"model":"m","input":[{"type":"function_call_output","call_id":"c","output":"ok","is_error":true}],"tools":[{"type":"function","name":"f","strict":"yes","parameters":null}]}`)},
		Paths: []string{"/v1/responses"},
	}
	r := &recorder{TB: t}
	f.checkSpecs(r)
	want := []string{t.Name() + " request 1 to /v1/responses breaks CreateResponse (OpenAI Responses) at /tools/0/strict: got string, want boolean or null"}
	if diff := cmp.Diff(want, r.errs); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}
