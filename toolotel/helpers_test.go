package toolotel_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/toolreg/toolreg/toolotel"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// recorder holds what the SDK recorded: spans in memory, metrics on
// demand.
type recorder struct {
	spans   *tracetest.SpanRecorder
	metrics *sdkmetric.ManualReader
	tp      *sdktrace.TracerProvider
	opts    []toolotel.Option // the providers, and the options given
}

func newRecorder(t testing.TB, opts ...toolotel.Option) *recorder {
	r := &recorder{spans: tracetest.NewSpanRecorder(), metrics: sdkmetric.NewManualReader()}
	r.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(r.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.metrics))
	t.Cleanup(func() {
		r.tp.Shutdown(context.Background())
		mp.Shutdown(context.Background())
	})
	r.opts = append([]toolotel.Option{toolotel.WithTracerProvider(r.tp), toolotel.WithMeterProvider(mp)}, opts...)
	return r
}

// span is what a test checks of a recorded span.
type span struct {
	Name   string
	Kind   string
	Parent string // the parent's name; "" for a root, "remote" for a remote parent
	Attrs  map[string]string
	Status string   // "" when unset, else "Error: description"
	Events []string // names
}

// ended waits until n spans have ended, at most 5 seconds, and returns
// them in order of their names and attributes.
func (r *recorder) ended(t testing.TB, n int) []span {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for len(r.spans.Ended()) < n && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	got := r.spans.Ended()
	if len(got) != n {
		t.Fatalf("%d spans ended, want %d", len(got), n)
	}
	byID := map[trace.SpanID]string{}
	for _, s := range got {
		byID[s.SpanContext().SpanID()] = s.Name()
	}
	out := make([]span, len(got))
	for i, s := range got {
		v := span{Name: s.Name(), Kind: s.SpanKind().String(), Attrs: attrs(s.Attributes())}
		switch p := s.Parent(); {
		case p.IsRemote():
			v.Parent = "remote"
		case p.IsValid():
			v.Parent = byID[p.SpanID()]
		}
		if st := s.Status(); st.Code.String() != "Unset" {
			v.Status = st.Code.String() + ": " + st.Description
		}
		for _, e := range s.Events() {
			v.Events = append(v.Events, e.Name)
		}
		out[i] = v
	}
	sort.Slice(out, func(i, j int) bool { return key(out[i]) < key(out[j]) })
	return out
}

func key(s span) string {
	return fmt.Sprint(s.Name, s.Attrs["toolreg.step"], s.Attrs["gen_ai.tool.call.id"])
}

func attrs(kvs []attribute.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.Emit()
	}
	return m
}

// point is one data point of a metric: a counter's sum or a histogram's
// count, under its attributes.
type point struct {
	Metric string
	Attrs  string // k=v,... sorted
	Value  int64
}

// collectN waits until n metric points have been recorded, and returns
// them as collect does.
func (r *recorder) collectN(t testing.TB, n int) []point {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	got := r.collect(t)
	for len(got) < n && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
		got = r.collect(t)
	}
	return got
}

// collect reads every metric point recorded so far, in order: a counter's
// sum, a duration histogram's count, a token histogram's sum.
func (r *recorder) collect(t testing.TB) []point {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.metrics.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var out []point
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != toolotel.ScopeName {
			t.Errorf("scope %q, want %q", sm.Scope.Name, toolotel.ScopeName)
		}
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, dp := range d.DataPoints {
					out = append(out, point{m.Name, set(dp.Attributes), dp.Value})
				}
			case metricdata.Histogram[float64]:
				for _, dp := range d.DataPoints {
					out = append(out, point{m.Name, set(dp.Attributes), int64(dp.Count)})
				}
			case metricdata.Histogram[int64]:
				for _, dp := range d.DataPoints {
					// Token counts: the sum is the value checked.
					out = append(out, point{m.Name, set(dp.Attributes), dp.Sum})
				}
			default:
				t.Errorf("metric %s: unexpected data %T", m.Name, m.Data)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Metric+out[i].Attrs < out[j].Metric+out[j].Attrs })
	return out
}

func set(s attribute.Set) string {
	var parts []string
	for _, kv := range s.ToSlice() { // sorted by key
		parts = append(parts, string(kv.Key)+"="+kv.Value.Emit())
	}
	return strings.Join(parts, ",")
}
