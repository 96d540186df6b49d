package toolreg

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRetryInterruptAndStopRun(t *testing.T) {
	errUnknownCity := errors.New(`no city called "Pariss"; check the spelling`)
	tests := []struct {
		name     string
		err      error
		wantIs   []error
		wantText string
	}{
		{"retry", Retry(errUnknownCity), []error{ErrToolFailed, ErrRetry, errUnknownCity}, `no city called "Pariss"; check the spelling` + "\nFix this and call the tool again."},
		{"stop", StopRun(errUnknownCity), []error{ErrToolFailed, ErrStopRun, errUnknownCity}, `no city called "Pariss"; check the spelling`},
		{"interrupt", Interrupt(map[string]string{"confirm": "pay 10 EUR?"}), []error{ErrInterrupt}, `tool "t" is waiting for an answer from the host, which this call cannot give`},
	}
	for _, tt := range tests {
		tool := MustNew("t", "A test tool.", func(context.Context, struct{}) (string, error) { return "", tt.err })
		out := tool.Invoke(context.Background(), nil)
		if !out.IsError || out.Text != tt.wantText {
			t.Errorf("%s: got %+v", tt.name, out)
		}
		for _, want := range tt.wantIs {
			if !errors.Is(out.Err, want) {
				t.Errorf("%s: %v does not match %v", tt.name, out.Err, want)
			}
		}
	}
	var ie *InterruptError
	out := MustNew("t", "A test tool.", func(context.Context, struct{}) (string, error) { return "", Interrupt([]int{1, 2}) }).Invoke(context.Background(), nil)
	if !errors.As(out.Err, &ie) || string(ie.Question) != "[1,2]" {
		t.Errorf("the question is lost: %v", out.Err)
	}
}

func TestErrorTextKeepsWhatARetrySays(t *testing.T) {
	r := NewRegistry()
	r.Use(ErrorText(func(error) string { return "the tool failed" }))
	r.MustAdd(
		MustNew("plain", "A failing tool.", func(context.Context, struct{}) (string, error) { return "", errors.New("secret: db at 10.0.0.1") }),
		MustNew("retry", "A failing tool.", func(context.Context, struct{}) (string, error) { return "", Retry(errors.New("say a date")) }),
	)
	if out := r.Call(context.Background(), "plain", nil); out.Text != "the tool failed" {
		t.Errorf("plain: %q", out.Text)
	}
	if out := r.Call(context.Background(), "retry", nil); !strings.HasPrefix(out.Text, "say a date") {
		t.Errorf("retry: %q", out.Text)
	}
}

func TestInfo(t *testing.T) {
	var got CallInfo
	tool := MustNew("t", "A test tool.", func(ctx context.Context, _ struct{}) (string, error) { got = Info(ctx); return "", nil })
	r := NewRegistry()
	r.MustAdd(tool)

	r.CallAll(context.Background(), []ToolCall{{ID: "call_1", Name: "t"}})
	if diff := cmp.Diff(CallInfo{ID: "call_1", Tool: "t"}, got); diff != "" {
		t.Errorf("plain call (-want +got):\n%s", diff)
	}
	ctx := WithCallInfo(t.Context(), func(c ToolCall) CallInfo {
		return CallInfo{ID: "ignored", Step: 3, Attempt: 2, Provider: "test", Answer: json.RawMessage(`"yes"`)}
	})
	r.CallAll(ctx, []ToolCall{{ID: "call_2", Name: "t"}})
	if diff := cmp.Diff(CallInfo{ID: "call_2", Tool: "t", Step: 3, Attempt: 2, Provider: "test", Answer: json.RawMessage(`"yes"`)}, got); diff != "" {
		t.Errorf("under a run (-want +got):\n%s", diff)
	}
	got = CallInfo{Tool: "unset"}
	tool.Invoke(context.Background(), nil)
	if diff := cmp.Diff(CallInfo{}, got); diff != "" {
		t.Errorf("outside a registry (-want +got):\n%s", diff)
	}
}
