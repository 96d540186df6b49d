package suggest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// bruteNearest is Nearest's contract written plainly: every distance, a
// stable sort, the first n.
func bruteNearest(name string, names []string, n int) []string {
	probe := []rune(name)
	if len(probe) > probeRunes {
		probe = probe[:probeRunes]
	}
	sorted := slices.Clone(names)
	sort.SliceStable(sorted, func(i, j int) bool {
		return Distance(string(probe), sorted[i]) < Distance(string(probe), sorted[j])
	})
	return sorted[:min(n, len(sorted))]
}

func TestNearestAgreesWithSortingEveryName(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const letters = "abcde_-Z"
	word := func(max int) string {
		b := make([]byte, 1+rng.IntN(max))
		for i := range b {
			b[i] = letters[rng.IntN(len(letters))]
		}
		return string(b)
	}
	for round := range 300 {
		names := make([]string, rng.IntN(60))
		for i := range names {
			names[i] = word(9)
		}
		probe := word(9)
		if round%7 == 0 {
			probe += "é€" // runes of more than one byte
		}
		for _, n := range []int{1, 3, 5, 100} {
			got := Nearest(probe, slices.Values(names), n)
			if diff := cmp.Diff(bruteNearest(probe, names, n), got); diff != "" {
				t.Fatalf("Nearest(%q, %q, %d) (-want +got):\n%s", probe, names, n, diff)
			}
		}
	}
}

func TestNearestFindsTheMisspeltNameAmongMany(t *testing.T) {
	names := make([]string, 100_000)
	for i := range names {
		names[i] = fmt.Sprintf("tool_%d", i)
	}
	names[70_001] = "get_weather"
	names[70_002] = "get_weather_hourly"
	names[70_003] = "set_weather"
	got := Nearest("get_wether", slices.Values(names), 3)
	if diff := cmp.Diff([]string{"get_weather", "set_weather", "get_weather_hourly"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestListing(t *testing.T) {
	few := []string{"b", "get_time", "get_weather"}
	list, all := Listing("get_wether", slices.Values(few), len(few))
	if diff := cmp.Diff([]string{"get_weather", "get_time", "b"}, list); diff != "" || !all {
		t.Errorf("a few names: all = %v (-want +got):\n%s", all, diff)
	}
	var many []string
	for i := range ListAll + 1 {
		many = append(many, fmt.Sprintf("t%02d", i))
	}
	list, all = Listing("t1", slices.Values(many), len(many))
	if diff := cmp.Diff([]string{"t01", "t10", "t11", "t12", "t13"}, list); diff != "" || all {
		t.Errorf("more than ListAll: all = %v (-want +got):\n%s", all, diff)
	}
}

func BenchmarkNearest(b *testing.B) {
	names := make([]string, 100_000)
	verbs := []string{"get", "list", "create", "update", "delete", "search", "sync"}
	nouns := []string{"issue", "page", "invoice", "customer", "ticket", "file", "event", "report", "user", "order", "repo"}
	for i := range names {
		names[i] = fmt.Sprintf("%s_%s_%d", verbs[i%len(verbs)], nouns[i/len(verbs)%len(nouns)], i)
	}
	b.Run("reading_only", func(b *testing.B) {
		n := 0
		for b.Loop() {
			for s := range slices.Values(names) {
				n += len(s)
			}
		}
	})
	for _, probe := range []string{"gt_invoice_50000", "weather", "get_customer_7"} {
		b.Run(probe, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Nearest(probe, slices.Values(names), NearestShown)
			}
		})
	}
}
