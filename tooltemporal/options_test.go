package tooltemporal

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/tooltemporal/internal/offline"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// timedTool is a tool that reports its timeout, as a tool with an exported
// Timeout accessor does.
type timedTool struct {
	toolreg.AnyTool
	d time.Duration
}

func (t timedTool) Timeout() time.Duration { return t.d }

func plainTool(name string) toolreg.AnyTool {
	return toolreg.MustNew(name, "A tool of the options test.", func(context.Context, cityArgs) (string, error) { return "ok", nil })
}

func TestToolActivityOptions(t *testing.T) {
	reg := toolreg.NewRegistry()
	reg.MustAdd(plainTool("plain"), timedTool{plainTool("timed"), 30 * time.Second}, plainTool("tuned"))
	policy := &temporal.RetryPolicy{MaximumAttempts: 7}
	a := New(reg, Options{
		Tool:  ToolOptions{HeartbeatTimeout: time.Minute},
		Tools: map[string]ToolOptions{"tuned": {Timeout: time.Hour, Retry: policy}, "timed": {HeartbeatTimeout: 5 * time.Second}},
	})
	tests := []struct {
		tool string
		want workflow.ActivityOptions
	}{
		{"plain", workflow.ActivityOptions{StartToCloseTimeout: DefaultToolTimeout, HeartbeatTimeout: time.Minute, RetryPolicy: defaultRetry(), Summary: "plain"}},
		{"timed", workflow.ActivityOptions{StartToCloseTimeout: 30*time.Second + TimeoutGrace, HeartbeatTimeout: 5 * time.Second, RetryPolicy: defaultRetry(), Summary: "timed"}},
		{"tuned", workflow.ActivityOptions{StartToCloseTimeout: time.Hour, HeartbeatTimeout: time.Minute, RetryPolicy: policy, Summary: "tuned"}},
		{"unknown", workflow.ActivityOptions{StartToCloseTimeout: DefaultToolTimeout, HeartbeatTimeout: time.Minute, RetryPolicy: defaultRetry(), Summary: "unknown"}},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, a.callOptions(tt.tool)); diff != "" {
				t.Errorf("activity options (-want +got):\n%s", diff)
			}
		})
	}
	want := workflow.ActivityOptions{StartToCloseTimeout: DefaultModelTimeout, RetryPolicy: defaultRetry()}
	if diff := cmp.Diff(want, New(reg, Options{}).askOptions()); diff != "" {
		t.Errorf("model call options (-want +got):\n%s", diff)
	}
}

// TestToolsRunUnderTheirOptions: a call's activity runs under its tool's
// timeout and retry policy, heartbeats while a long tool runs, and a tool
// that outlives its own timeout is retried, then reported to the model.
func TestToolsRunUnderTheirOptions(t *testing.T) {
	var infos []activity.Info
	var stuck atomic.Int32
	record := func(ctx context.Context) { infos = append(infos, activity.GetInfo(ctx)) }
	reg := toolreg.NewRegistry()
	reg.MustAdd(
		timedTool{toolreg.MustNew("report", "A long report.", func(ctx context.Context, a cityArgs) (string, error) {
			record(ctx)
			time.Sleep(200 * time.Millisecond)
			return "report on " + a.City, nil
		}), time.Minute},
		toolreg.MustNew("stuck", "Never answers.", func(ctx context.Context, a cityArgs) (string, error) {
			stuck.Add(1)
			<-ctx.Done()
			return "", ctx.Err()
		}, toolreg.WithTimeout(20*time.Millisecond)),
	)
	script := &offline.Script{Replies: []offline.Reply{reply(call("r", "report", "Oslo"), call("s", "stuck", "Oslo")), say("Done.")}}
	a := newAgent(t, reg, script, Options{Tools: map[string]ToolOptions{
		"report": {HeartbeatTimeout: 30 * time.Millisecond},
		"stuck":  {Retry: &temporal.RetryPolicy{InitialInterval: time.Millisecond, MaximumAttempts: 2}},
	}})
	env := newEnv(t)
	var beats atomic.Int32
	env.SetOnActivityHeartbeatListener(func(*activity.Info, converter.EncodedValues) { beats.Add(1) })
	r := runIn(t, env, a, Input{Model: "scripted", State: firstState(t, reg, "report")}, nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	want := []string{"user: report", `assistant calls report {"city":"Oslo"}, stuck {"city":"Oslo"}`, "tool r: report on Oslo",
		`tool s: tool "stuck" did not finish within 20ms; try again later, perhaps with a smaller request, or go on without it`, "assistant: Done."}
	if diff := cmp.Diff(want, transcript(t, r.res.State)); diff != "" {
		t.Errorf("transcript (-want +got):\n%s", diff)
	}
	if len(infos) != 1 || infos[0].StartToCloseTimeout != time.Minute+TimeoutGrace || infos[0].HeartbeatTimeout != 30*time.Millisecond {
		t.Errorf("report ran under %+v", infos)
	}
	if n := beats.Load(); n < 2 {
		t.Errorf("%d heartbeats while the report ran for 200ms, one due every 10ms", n)
	}
	if n := stuck.Load(); n != 2 {
		t.Errorf("the stuck tool ran %d times, want 2 (its retry policy's attempts)", n)
	}
}
