package bench

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/toolreg/toolreg"
)

// BenchmarkDeclare100 declares the 100 generated tools, each with its own
// Args type: reflection, schema post-processing and validator compilation,
// the start-up cost of a program with 100 tools. One op is all 100.
func BenchmarkDeclare100(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := declare100(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*100), "ns/tool")
}

// BenchmarkHeldPerTool measures the heap a registered tool keeps alive:
// the live heap after a GC, before and after declaring N tools and adding
// them to a registry, divided by N. ns/op and B/op are those of declaring
// and registering; the GCs are outside the timer.
func BenchmarkHeldPerTool(b *testing.B) {
	b.Run("distinct_types_100", func(b *testing.B) {
		heldPerTool(b, 100, func() ([]toolreg.AnyTool, error) { return declare100() })
	})
	b.Run("small_type_100", func(b *testing.B) {
		heldPerTool(b, 100, func() ([]toolreg.AnyTool, error) {
			tools := make([]toolreg.AnyTool, 100)
			for i := range tools {
				t, err := toolreg.New(fmt.Sprintf("tool_%03d", i), toolDesc, small.fn)
				if err != nil {
					return nil, err
				}
				tools[i] = t
			}
			return tools, nil
		})
	})
}

func heldPerTool(b *testing.B, n int, declare func() ([]toolreg.AnyTool, error)) {
	build := func() *toolreg.Registry {
		tools, err := declare()
		if err != nil {
			b.Fatal(err)
		}
		reg := toolreg.NewRegistry()
		reg.MustAdd(tools...)
		return reg
	}
	// One build first, so that caches filled once per process (the
	// encoding/json and reflect type caches) are not counted.
	runtime.KeepAlive(build())
	var (
		ms   runtime.MemStats
		held int64
	)
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&ms)
		before := ms.HeapAlloc
		b.StartTimer()

		reg := build()

		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&ms)
		held += int64(ms.HeapAlloc) - int64(before)
		if reg.Len() != n {
			b.Fatalf("registry holds %d tools, want %d", reg.Len(), n)
		}
		runtime.KeepAlive(reg)
		b.StartTimer()
	}
	b.ReportMetric(float64(held)/float64(b.N*n), "B/tool")
}

// TestDeclare100 checks that the generated tools declare and register.
func TestDeclare100(t *testing.T) {
	tools, err := declare100()
	if err != nil {
		t.Fatal(err)
	}
	reg := toolreg.NewRegistry()
	if err := reg.Add(tools...); err != nil {
		t.Fatal(err)
	}
	if reg.Len() != 100 {
		t.Errorf("registry holds %d tools, want 100", reg.Len())
	}
}
