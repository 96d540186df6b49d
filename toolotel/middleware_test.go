package toolotel_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/toolotel"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// secret is what the model sends and the tools answer in these tests:
// nothing of it may reach telemetry unless content recording is on.
const secret = "sk-secret-4711"

type weatherArgs struct {
	City string `json:"city"`
	Days *int   `json:"days,omitempty" jsonschema:"minimum=1,maximum=7"`
}

type forecast struct {
	City string `json:"city"`
	High int    `json:"high"`
}

// testRegistry holds a tool for every way a call can end.
func testRegistry() *toolreg.Registry {
	reg := toolreg.NewRegistry()
	reg.MustAdd(
		toolreg.MustNew("get_weather", "Forecast for a city.", func(_ context.Context, a weatherArgs) (forecast, error) {
			if a.City == "Atlantis" {
				return forecast{}, errors.New("no station in Atlantis; the key " + secret + " was refused")
			}
			return forecast{City: a.City + " " + secret, High: 21}, nil
		}),
		toolreg.MustNew("find_city", "Finds a city.", func(context.Context, struct{}) (string, error) {
			return "", toolreg.Retry(errors.New("no such city; spell it out"))
		}),
		toolreg.MustNew("spend", "Spends the budget.", func(context.Context, struct{}) (string, error) {
			return "", toolreg.StopRun(errors.New("the budget is spent"))
		}),
		toolreg.MustNew("pay", "Pays.", func(context.Context, struct{}) (string, error) {
			return "", toolreg.Interrupt(map[string]bool{"confirm": true})
		}),
		toolreg.MustNew("crash", "Crashes.", func(context.Context, struct{}) (string, error) {
			panic("boom " + secret)
		}),
		toolreg.MustNew("nan", "Returns no number.", func(context.Context, struct{}) (float64, error) {
			return math.NaN(), nil
		}),
		toolreg.MustNew("wait", "Waits for its deadline.", func(ctx context.Context, _ struct{}) (string, error) {
			<-ctx.Done()
			return "", ctx.Err()
		}, toolreg.WithTimeout(10*time.Millisecond)),
		toolreg.MustNew("stuck", "Ignores its deadline.", func(context.Context, struct{}) (string, error) {
			time.Sleep(100 * time.Millisecond)
			return "done", nil
		}, toolreg.WithTimeout(10*time.Millisecond)),
	)
	return reg
}

// deny answers calls of "forbidden" itself, with an error that wraps no
// toolreg sentinel, as an authorising middleware might.
func deny(next toolreg.Handler) toolreg.Handler {
	return toolreg.HandlerFunc(func(ctx context.Context, c toolreg.ToolCall) toolreg.Output {
		if c.Name == "forbidden" {
			return toolreg.Output{Text: "not allowed", IsError: true, Err: errors.New("denied")}
		}
		return next.HandleCall(ctx, c)
	})
}

// toolSpan is the span the middleware should record for a call of tool
// with id call_1: failure is its error.type ("" for none).
func toolSpan(tool, failure string, events ...string) span {
	s := span{Name: "execute_tool " + tool, Kind: "internal", Attrs: map[string]string{
		"gen_ai.operation.name": "execute_tool",
		"gen_ai.tool.name":      tool,
		"gen_ai.tool.type":      "function",
		"gen_ai.tool.call.id":   "call_1",
	}, Events: events}
	if failure != "" {
		s.Attrs["error.type"] = failure
		s.Status = "Error: " + failure
	}
	return s
}

// toolPoints are the metric points of one call of tool (named in metrics
// as metricTool) with that outcome.
func toolPoints(metricTool, outcome string) []point {
	duration := "gen_ai.tool.name=" + metricTool + ",gen_ai.tool.type=function"
	if outcome != "ok" && outcome != "interrupted" {
		duration = "error.type=" + outcome + "," + duration
	}
	return []point{
		{"gen_ai.execute_tool.duration", duration, 1},
		{"toolreg.tool.calls", "gen_ai.tool.name=" + metricTool + ",toolreg.outcome=" + outcome, 1},
	}
}

func TestMiddlewareOutcomes(t *testing.T) {
	for _, tc := range []struct {
		name, tool, args string
		span             span
		points           []point
	}{
		{"ok", "get_weather", `{"city":"Paris"}`, toolSpan("get_weather", ""), toolPoints("get_weather", "ok")},
		{"invalid arguments", "get_weather", `{"city":"` + secret + `","days":9}`,
			toolSpan("get_weather", "invalid_arguments"), toolPoints("get_weather", "invalid_arguments")},
		{"tool error", "get_weather", `{"city":"Atlantis"}`, toolSpan("get_weather", "tool_error"), toolPoints("get_weather", "tool_error")},
		{"retry", "find_city", `{}`, toolSpan("find_city", "retry"), toolPoints("find_city", "retry")},
		{"stop run", "spend", `{}`, toolSpan("spend", "stop_run"), toolPoints("spend", "stop_run")},
		{"interrupt", "pay", `{}`, toolSpan("pay", "", "the tool asked the host a question"), toolPoints("pay", "interrupted")},
		{"panic", "crash", `{}`, toolSpan("crash", "panic"), toolPoints("crash", "panic")},
		{"invalid result", "nan", `{}`, toolSpan("nan", "invalid_result"), toolPoints("nan", "invalid_result")},
		{"timeout", "wait", `{}`, toolSpan("wait", "timeout"), toolPoints("wait", "timeout")},
		{"timeout, tool ignores it", "stuck", `{}`, toolSpan("stuck", "timeout"), toolPoints("stuck", "timeout")},
		{"unknown tool", "get_wether", `{}`, toolSpan("get_wether", "unknown_tool"), toolPoints("_OTHER", "unknown_tool")},
		{"another middleware's error", "forbidden", `{}`, toolSpan("forbidden", "_OTHER"), toolPoints("forbidden", "_OTHER")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := newRecorder(t)
			reg := testRegistry()
			reg.Use(toolotel.Middleware(rec.opts...), deny)
			reg.CallAll(context.Background(), []toolreg.ToolCall{{ID: "call_1", Name: tc.tool, Arguments: json.RawMessage(tc.args)}})
			if diff := cmp.Diff([]span{tc.span}, rec.ended(t, 1)); diff != "" {
				t.Errorf("span (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.points, rec.collectN(t, len(tc.points))); diff != "" {
				t.Errorf("metrics (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMiddlewareNoContent checks that by default nothing the model sent
// or read reaches a span or a metric, whatever the outcome; and that
// WithContent records the arguments and the result under the
// conventions' names.
func TestMiddlewareNoContent(t *testing.T) {
	calls := []toolreg.ToolCall{
		{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"` + secret + `"}`)},
		{ID: "call_2", Name: "get_weather", Arguments: json.RawMessage(`{"city":"` + secret + `","days":9}`)},
		{ID: "call_3", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Atlantis","note":"` + secret + `"}`)},
		{ID: "call_4", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Atlantis"}`)},
		{ID: "call_5", Name: "crash", Arguments: json.RawMessage(`{}`)},
	}
	rec := newRecorder(t)
	reg := testRegistry()
	reg.Use(toolotel.Middleware(rec.opts...))
	reg.CallAll(context.Background(), calls)
	for _, s := range rec.ended(t, len(calls)) {
		for k, v := range s.Attrs {
			if strings.Contains(v, secret) || k == "gen_ai.tool.call.arguments" || k == "gen_ai.tool.call.result" {
				t.Errorf("span %s %s: %s = %q: content recorded by default", s.Name, s.Attrs["gen_ai.tool.call.id"], k, v)
			}
		}
		if strings.Contains(s.Status, secret) || strings.Contains(strings.Join(s.Events, " "), secret) {
			t.Errorf("span %s: status %q, events %q: content recorded by default", s.Name, s.Status, s.Events)
		}
	}
	for _, p := range rec.collect(t) {
		if strings.Contains(p.Attrs, secret) {
			t.Errorf("metric %s {%s}: content recorded", p.Metric, p.Attrs)
		}
	}

	rec = newRecorder(t, toolotel.WithContent())
	reg = testRegistry()
	reg.Use(toolotel.Middleware(rec.opts...))
	reg.CallAll(context.Background(), calls[:2])
	var got []map[string]string
	for _, s := range rec.ended(t, 2) {
		got = append(got, map[string]string{
			"arguments": s.Attrs["gen_ai.tool.call.arguments"],
			"result":    s.Attrs["gen_ai.tool.call.result"],
			"status":    s.Status,
		})
	}
	want := []map[string]string{
		{"arguments": string(calls[0].Arguments), "result": `{"city":"` + secret + " " + secret + `","high":21}`, "status": ""},
		{"arguments": string(calls[1].Arguments), "result": "", "status": "Error: invalid arguments for tool \"get_weather\":\n- days: 9 is greater than the maximum 7\nFix the arguments and call the tool again."},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("WithContent (-want +got):\n%s", diff)
	}
}

// TestMiddlewareParent checks that a call's span is a child of the span
// in its context, and that a name longer than any tool's is cut.
func TestMiddlewareParent(t *testing.T) {
	rec := newRecorder(t)
	reg := testRegistry()
	reg.Use(toolotel.Middleware(rec.opts...))
	ctx, parent := rec.tp.Tracer("test").Start(context.Background(), "handler")
	long := strings.Repeat("x", 100)
	reg.Call(ctx, long, nil)
	parent.End()
	cut := strings.Repeat("x", 64) + "…"
	want := []span{
		toolSpan(cut, "unknown_tool"),
		{Name: "handler", Kind: "internal", Attrs: map[string]string{}},
	}
	want[0].Parent = "handler"
	delete(want[0].Attrs, "gen_ai.tool.call.id") // the call has no id
	if diff := cmp.Diff(want, rec.ended(t, 2)); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
}

// TestMiddlewareDuration checks that a call's duration metric is its
// span's duration, as the conventions ask.
func TestMiddlewareDuration(t *testing.T) {
	rec := newRecorder(t)
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("nap", "Naps.", func(context.Context, struct{}) (string, error) {
		time.Sleep(20 * time.Millisecond)
		return "rested", nil
	}))
	reg.Use(toolotel.Middleware(rec.opts...))
	reg.Call(context.Background(), "nap", nil)
	spans := rec.spans.Ended()
	if len(spans) != 1 {
		t.Fatalf("%d spans, want 1", len(spans))
	}
	want := spans[0].EndTime().Sub(spans[0].StartTime()).Seconds()
	var rm metricdata.ResourceMetrics
	if err := rec.metrics.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var got []float64
	for _, m := range rm.ScopeMetrics[0].Metrics {
		if h, ok := m.Data.(metricdata.Histogram[float64]); ok && m.Name == "gen_ai.execute_tool.duration" {
			for _, dp := range h.DataPoints {
				got = append(got, dp.Sum)
			}
		}
	}
	if diff := cmp.Diff([]float64{want}, got); diff != "" || want < 0.02 {
		t.Errorf("gen_ai.execute_tool.duration (-span's +metric's), span %vs:\n%s", want, diff)
	}
}

// TestMiddlewareRecordsATimeoutWhenItHappens checks that a call of a tool
// that ignores its 100 ms timeout is recorded as the timeout the caller
// read, by the time the call returns (give or take a moment), and that
// what the tool returns later is recorded nowhere.
func TestMiddlewareRecordsATimeoutWhenItHappens(t *testing.T) {
	release := make(chan struct{})
	returned := make(chan struct{})
	rec := newRecorder(t)
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("slow", "Ignores its deadline.", func(context.Context, struct{}) (string, error) {
		<-release
		defer close(returned)
		return "done", nil
	}, toolreg.WithTimeout(100*time.Millisecond)))
	reg.Use(toolotel.Middleware(rec.opts...))

	out := reg.CallAll(context.Background(), []toolreg.ToolCall{{ID: "call_1", Name: "slow"}})[0]
	if !errors.Is(out.Err, toolreg.ErrTimeout) {
		t.Fatalf("the caller got %+v, want a timeout", out)
	}
	// A moment's grace: the span and the metrics are recorded before the
	// call returns, but the test asks no more than "at the deadline".
	grace := time.Now().Add(50 * time.Millisecond)
	for len(rec.spans.Ended()) == 0 && time.Now().Before(grace) {
		time.Sleep(time.Millisecond)
	}
	check := func(when string) {
		t.Helper()
		if diff := cmp.Diff([]span{toolSpan("slow", "timeout")}, rec.ended(t, len(rec.spans.Ended()))); diff != "" {
			t.Errorf("%s: spans (-want +got):\n%s", when, diff)
		}
		if diff := cmp.Diff(toolPoints("slow", "timeout"), rec.collect(t)); diff != "" {
			t.Errorf("%s: metrics (-want +got):\n%s", when, diff)
		}
	}
	check("when the call returned")

	close(release) // the tool now returns "done", which nobody reads
	<-returned
	time.Sleep(20 * time.Millisecond)
	check("after the tool returned")
}
