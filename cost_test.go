package toolreg

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
)

// What one call may cost: the hostile inputs, each as large as the
// default limits let it be (1 MiB, 10,000 values), and the bound they are
// held to: at most costFactor times the bytes of the arguments, plus
// costSlack for what any call costs.
const (
	costFactor = 10
	costSlack  = 64 << 10
)

type costArgs struct {
	Name   string          `json:"name,omitempty"`
	Small  int8            `json:"small,omitempty" jsonschema:"maximum=10"`
	Any    any             `json:"any,omitempty"`
	Ints   []int           `json:"ints,omitempty"`
	Floats []float64       `json:"floats,omitempty" jsonschema:"minimum=0,maximum=1"`
	Strs   []string        `json:"strs,omitempty"`
	Map    map[string]int  `json:"map,omitempty"`
	Stops  []costStop      `json:"stops,omitempty"`
	Raw    json.RawMessage `json:"raw,omitempty"`
}

type costStop struct {
	Name  string `json:"name"`
	Hours int    `json:"hours,omitempty" jsonschema:"default=1"`
}

// repeat writes prefix, n items made by item(i) joined by commas, suffix.
func repeat(prefix string, n int, item func(i int) string, suffix string) string {
	var b strings.Builder
	b.WriteString(prefix)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(item(i))
	}
	b.WriteString(suffix)
	return b.String()
}

func same(s string) func(int) string { return func(int) string { return s } }

// costCases are the hostile calls: valid and invalid, through both paths.
var costCases = []struct {
	name  string
	args  string
	valid bool
	// goValue marks a value whose Go form alone is larger than the bound:
	// an empty JSON object in an any is a Go map of 48 bytes. Such a call
	// is held to what encoding/json allocates for the same arguments.
	goValue bool
}{
	{"any numbers", repeat(`{"any":[`, 9_999, same("1"), `]}`), true, false},
	{"any long numbers", repeat(`{"any":[`, 9_999, same("123456789.5"), `]}`), true, false},
	{"any empty objects", repeat(`{"any":[`, 9_999, same("{}"), `]}`), true, true},
	{"any empty arrays", repeat(`{"any":[`, 9_999, same("[]"), `]}`), true, false},
	{"any strings", repeat(`{"any":[`, 9_999, same(`"a"`), `]}`), true, false},
	{"any object members", repeat(`{"any":{`, 9_999, func(i int) string { return fmt.Sprintf(`"%d":1`, i) }, `}}`), true, false},
	{"ints", repeat(`{"ints":[`, 9_999, same("1"), `]}`), true, false},
	{"ints, escaped key", repeat(`{"\u0069nts":[`, 9_999, same("1"), `]}`), true, false},
	{"ints written 1.0", repeat(`{"ints":[`, 9_999, same("1.0"), `]}`), true, false},
	{"floats on a bound", repeat(`{"floats":[`, 9_999, same("1.0000000000000000000"), `]}`), true, false},
	{"strings", repeat(`{"strs":[`, 9_999, same(`"a"`), `]}`), true, false},
	{"escaped strings", repeat(`{"strs":[`, 9_999, same(`"\u00e9"`), `]}`), true, false},
	{"map members", repeat(`{"map":{`, 9_999, func(i int) string { return fmt.Sprintf(`"%d":1`, i) }, `}}`), true, false},
	{"structs with defaults", repeat(`{"stops":[`, 4_999, same(`{"name":"a"}`), `]}`), true, false},
	{"long string", `{"name":"` + strings.Repeat("x", 1<<20-12) + `"}`, true, false},
	{"long raw", repeat(`{"raw":[`, 9_990, same(`"`+strings.Repeat("x", 90)+`"`), `]}`), true, false},
	{"raw object members", repeat(`{"raw":{`, 9_999, func(i int) string { return fmt.Sprintf(`"%d":1`, i) }, `}}`), true, false},
	{"a duplicate deep in raw", repeat(`{"raw":{`, 9_990, func(i int) string { return fmt.Sprintf(`"%d":1`, i) }, `,"9989":2}}`), false, false},
	{"wrong item types", repeat(`{"ints":[`, 9_999, same(`"x"`), `]}`), false, false},
	{"unknown members", repeat(`{`, 9_999, func(i int) string { return fmt.Sprintf(`"u%d":1`, i) }, `}`), false, false},
	{"a duplicate at the end", repeat(`{"ints":[`, 9_990, same("1"), `],"small":1,"small":2}`), false, false},
	{"broken at the end", repeat(`{"ints":[`, 9_999, same("1"), `]`), false, false},
	{"small and invalid: the reference path", repeat(`{"ints":[`, 250, same(`"x"`), `]}`), false, false},
	{"small escaped and invalid", repeat(`{"\u0069nts":[`, 250, same(`1.5`), `]}`), false, false},
	{"too many values", repeat(`{"ints":[`, 20_000, same("1"), `]}`), false, false},
}

func costTool() *Tool[costArgs, string] {
	return MustNew("cost", "Hostile inputs.", func(context.Context, costArgs) (string, error) { return "ok", nil })
}

// BenchmarkInvokeHostile is the worst case beside BenchmarkInvoke, the
// normal one: "B/argbyte" is what a call allocates per byte of its
// arguments.
func BenchmarkInvokeHostile(b *testing.B) {
	tool := costTool()
	ctx := context.Background()
	for _, c := range costCases {
		b.Run(strings.ReplaceAll(c.name, " ", "_"), func(b *testing.B) {
			args := json.RawMessage(c.args)
			b.ReportAllocs()
			b.SetBytes(int64(len(args)))
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			for b.Loop() {
				if out := tool.Invoke(ctx, args); out.IsError == c.valid {
					b.Fatalf("IsError %v: %.200s", out.IsError, out.Text)
				}
			}
			runtime.ReadMemStats(&m1)
			b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/float64(b.N)/float64(len(args)), "B/argbyte")
		})
	}
}

// TestCostIsProportional holds every hostile call to the bound.
func TestCostIsProportional(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates for itself")
	}
	tool := costTool()
	ctx := context.Background()
	for _, c := range costCases {
		t.Run(c.name, func(t *testing.T) {
			args := json.RawMessage(c.args)
			tool.Invoke(ctx, args) // compile the validator, fill the pools
			perCall := allocated(func() {
				if out := tool.Invoke(ctx, args); out.IsError == c.valid {
					t.Fatalf("IsError %v: %.300s", out.IsError, out.Text)
				}
			})
			bound := uint64(costFactor*len(args) + costSlack)
			if c.goValue {
				bound = allocated(func() {
					var a costArgs
					if err := json.Unmarshal(args, &a); err != nil {
						t.Fatal(err)
					}
				})
			}
			t.Logf("%d bytes of arguments: %d bytes allocated (%.1f×), bound %d", len(args), perCall, float64(perCall)/float64(len(args)), bound)
			if perCall > bound {
				t.Errorf("%d bytes of arguments allocate %d bytes per call, over the bound of %d", len(args), perCall, bound)
			}
		})
	}
}

// allocated is what one call of f allocates: the least of three rounds of
// five calls, so that a garbage collection that empties the pools in one
// round (and makes the next calls fill them again) does not count.
func allocated(f func()) uint64 {
	const rounds, n = 3, 5
	least := uint64(math.MaxUint64)
	for range rounds {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		for range n {
			f()
		}
		runtime.ReadMemStats(&m1)
		least = min(least, (m1.TotalAlloc-m0.TotalAlloc)/n)
	}
	return least
}
