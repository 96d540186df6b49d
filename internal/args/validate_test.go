package args

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestProblemsOfWrappedError: a validation error reads as problems at its
// fields even when wrapped; any other error is one problem with its text.
func TestProblemsOfWrappedError(t *testing.T) {
	s, err := compileSchema([]byte(`{"type":"object","properties":{"days":{"type":"integer","maximum":7}}}`))
	if err != nil {
		t.Fatal(err)
	}
	instance := map[string]any{"days": 9.0}
	verr := s.Validate(instance)
	if verr == nil {
		t.Fatal("days 9 validates against maximum 7")
	}
	atDays := problems(verr, instance, nil, s)
	if len(atDays) != 1 || atDays[0].Path != "days" {
		t.Fatalf("problems of the validation error itself: %+v", atDays)
	}
	for _, tc := range []struct {
		name string
		err  error
		want []Problem
	}{
		{"validation error", verr, atDays},
		{"wrapped validation error", fmt.Errorf("validating: %w", verr), atDays},
		{"another error", errors.New("the validator failed"), []Problem{{Message: "the validator failed"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, problems(tc.err, instance, nil, s)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}
