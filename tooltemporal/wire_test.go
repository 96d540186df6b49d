package tooltemporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/agent"
)

// TestErrorsCrossAsData: an error sent through JSON matches the same
// sentinels on the other side, and keeps an Interrupt's question.
func TestErrorsCrossAsData(t *testing.T) {
	reg := toolreg.NewRegistry()
	reg.MustAdd(
		toolreg.MustNew("retry", "Asks for a retry.", func(context.Context, cityArgs) (string, error) {
			return "", toolreg.Retry(errors.New("no such city"))
		}),
		toolreg.MustNew("stop", "Stops.", func(context.Context, cityArgs) (string, error) { return "", toolreg.StopRun(errors.New("done")) }),
		toolreg.MustNew("ask", "Asks.", func(context.Context, cityArgs) (string, error) { return "", toolreg.Interrupt([]string{"a", "b"}) }),
	)
	out := func(name, args string) error {
		return reg.CallAll(context.Background(), []toolreg.ToolCall{{ID: "1", Name: name, Arguments: json.RawMessage(args)}})[0].Err
	}
	tests := []struct {
		name         string
		err          error
		want         []error
		wantQuestion string
	}{
		{"retry", out("retry", `{"city":"x"}`), []error{toolreg.ErrToolFailed, toolreg.ErrRetry}, ""},
		{"stop", out("stop", `{"city":"x"}`), []error{toolreg.ErrToolFailed, toolreg.ErrStopRun}, ""},
		{"interrupt", out("ask", `{"city":"x"}`), []error{toolreg.ErrInterrupt}, `["a","b"]`},
		{"invalid arguments", out("stop", `{}`), []error{toolreg.ErrInvalidArguments}, ""},
		{"unknown tool", out("nope", `{}`), []error{toolreg.ErrUnknownTool}, ""},
		{"run errors", errors.Join(fmt.Errorf("%w (3)", toolreg.ErrMaxSteps), context.Canceled), []error{toolreg.ErrMaxSteps, context.Canceled}, ""},
		{"decisions", fmt.Errorf("%w: b", agent.ErrNoSuchCall), []error{agent.ErrNoSuchCall}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(encodeError(tt.err))
			if err != nil {
				t.Fatal(err)
			}
			var w wireError
			if err := json.Unmarshal(b, &w); err != nil {
				t.Fatal(err)
			}
			got := w.err()
			if got.Error() != tt.err.Error() {
				t.Errorf("text %q, want %q", got, tt.err)
			}
			var matched, wantMatched []string
			for _, s := range sentinels {
				if errors.Is(got, s.err) {
					matched = append(matched, s.name)
				}
				if errors.Is(tt.err, s.err) {
					wantMatched = append(wantMatched, s.name)
				}
			}
			if diff := cmp.Diff(wantMatched, matched); diff != "" {
				t.Errorf("sentinels (-want +got):\n%s", diff)
			}
			for _, s := range tt.want {
				if !errors.Is(got, s) {
					t.Errorf("%v does not match %v", got, s)
				}
			}
			var ie *toolreg.InterruptError
			if errors.As(got, &ie) != (tt.wantQuestion != "") || ie != nil && string(ie.Question) != tt.wantQuestion {
				t.Errorf("interrupt %+v, want question %q", ie, tt.wantQuestion)
			}
		})
	}
}
