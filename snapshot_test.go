package toolreg

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// manyTools are n hand-written tools named prefix0, prefix1, ….
func manyTools(prefix string, n int) []AnyTool {
	tools := make([]AnyTool, n)
	for i := range tools {
		tools[i] = dynTool{name: fmt.Sprintf("%s%d", prefix, i)}
	}
	return tools
}

func TestRegistryOfManyToolsAddedOneAtATime(t *testing.T) {
	n := 100_000
	if testing.Short() {
		n = 10_000
	}
	tools := manyTools("tool_", n)
	r := NewRegistry()
	view := r.Select(func(t AnyTool) bool { return len(t.Name()) == len("tool_12") })
	calls := 0
	r.OnAdd(func(added []AnyTool) { calls += len(added) })
	for i, tool := range tools {
		if err := r.Add(tool); err != nil {
			t.Fatal(err)
		}
		if i%1000 == 0 && view.Len() != min(i+1, 100)-min(i+1, 10) { // a view in use while tools are added
			t.Fatalf("after %d tools the view holds %d", i+1, view.Len())
		}
	}
	if r.Len() != n || calls != n || view.Len() != 90 {
		t.Fatalf("Len = %d, listeners told of %d, view holds %d", r.Len(), calls, view.Len())
	}
	for _, i := range []int{0, 1, n / 2, n - 1} {
		if got, ok := r.Lookup(tools[i].Name()); !ok || got != tools[i] {
			t.Errorf("Lookup(%q) = %v, %v", tools[i].Name(), got, ok)
		}
	}
	if _, ok := view.Lookup("tool_100"); ok {
		t.Error("the view holds a tool it does not keep")
	}
	if diff := cmp.Diff(names(tools), names(r.Tools())); diff != "" {
		t.Errorf("Tools (-want +got):\n%s", diff)
	}
}

func TestRegistryAddOfABatchIsAllOrNothing(t *testing.T) {
	for _, size := range []int{3, 50} { // searched, and through a set
		r := NewRegistry()
		r.MustAdd(manyTools("old_", 40)...)
		batch := manyTools("new_", size)
		tests := map[string][]AnyTool{
			"twice in the batch": append(append([]AnyTool{}, batch...), batch[size-1]),
			"already registered": append(append([]AnyTool{}, batch...), dynTool{name: "old_7"}),
			"an invalid name":    append(append([]AnyTool{}, batch...), dynTool{name: "no spaces"}),
			"a nil tool":         append(append([]AnyTool{}, batch...), nil),
		}
		for name, tools := range tests {
			if err := r.Add(tools...); !errors.Is(err, ErrDuplicateTool) && !errors.Is(err, ErrInvalidDeclaration) {
				t.Errorf("%d, %s: Add = %v", size, name, err)
			}
			if _, ok := r.Lookup(batch[0].Name()); ok || r.Len() != 40 || len(r.Tools()) != 40 {
				t.Errorf("%d, %s: a refused Add added tools: Len = %d", size, name, r.Len())
			}
		}
		// What the refused Adds left behind cannot get in the way.
		if err := r.Add(batch...); err != nil {
			t.Fatalf("%d: %v", size, err)
		}
		if got, ok := r.Lookup(batch[size-1].Name()); !ok || got != batch[size-1] || r.Len() != 40+size {
			t.Errorf("%d: after the batch: Lookup = %v, %v; Len = %d", size, got, ok, r.Len())
		}
	}
}

// shiftyTool answers a different name each time it is asked, as a tool
// built on stored state that changes might.
type shiftyTool struct {
	dynTool
	asked *atomic.Int64
}

func (s shiftyTool) Name() string { return fmt.Sprintf("%s_%d", s.name, s.asked.Add(1)) }

func TestRegistryKeepsTheNameAToolWasAddedUnder(t *testing.T) {
	r := NewRegistry()
	shifty := shiftyTool{dynTool{name: "shifty"}, new(atomic.Int64)}
	r.MustAdd(shifty)
	r.MustAdd(manyTools("t", 100)...) // the name table grows: every tool is placed anew
	view := r.Select(func(AnyTool) bool { return true })
	for _, reg := range []*Registry{r, view} {
		if got, ok := reg.Lookup("shifty_1"); !ok || got != AnyTool(shifty) {
			t.Errorf("Lookup(shifty_1) = %v, %v", got, ok)
		}
		if out := reg.Call(context.Background(), "shifty_1", nil); out.IsError {
			t.Errorf("the call: %s", out.Text)
		}
	}
}

func TestRegistryConcurrentAddAndLookup(t *testing.T) {
	const writers, each = 4, 2000
	r := NewRegistry()
	view := r.Select(func(t AnyTool) bool { return t.Name()[0] == 'w' })
	var added [writers]atomic.Int64 // how many of each writer's tools Add has returned for
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i, tool := range manyTools(fmt.Sprintf("w%d_", w), each) {
				r.MustAdd(tool)
				added[w].Store(int64(i + 1))
			}
		})
	}
	done := make(chan struct{})
	var readers sync.WaitGroup
	for range 2 {
		readers.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				for w := range writers {
					n := added[w].Load()
					if n == 0 {
						continue
					}
					name := fmt.Sprintf("w%d_%d", w, n-1) // added before n was stored
					for _, reg := range []*Registry{r, view} {
						if got, ok := reg.Lookup(name); !ok || got.Name() != name {
							t.Errorf("Lookup(%q) = %v, %v", name, got, ok)
							return
						}
					}
				}
				tools := r.Tools()
				for _, tool := range tools[max(0, len(tools)-10):] {
					if _, ok := r.Lookup(tool.Name()); !ok {
						t.Errorf("Tools lists %q and Lookup does not find it", tool.Name())
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(done)
	readers.Wait()
	if r.Len() != writers*each || view.Len() != writers*each {
		t.Errorf("Len = %d, the view's %d", r.Len(), view.Len())
	}
}

func TestRegistryLookupAllocatesNothing(t *testing.T) {
	r := NewRegistry()
	r.MustAdd(manyTools("t", 1000)...)
	if n := testing.AllocsPerRun(100, func() { r.Lookup("t500"); r.Lookup("none") }); n != 0 {
		t.Errorf("Lookup allocates %v times", n)
	}
}
