// Package suggest finds the name a model most likely meant: a field or a
// tool it misspelt.
package suggest

import "strings"

// Closest suggests the allowed name nearest to a misspelt one: the same
// name in other case first, then the nearest close enough to be a typo,
// or "".
func Closest(name string, allowed []string) string {
	best, bestD := "", 3
	for _, a := range allowed {
		if strings.EqualFold(a, name) {
			return a
		}
		// One edit, or more in a long name: "citi" → "city", not "country" → "count".
		if d := Distance(name, a); d < bestD && (d == 1 || 4*d <= len(name)) {
			best, bestD = a, d
		}
	}
	return best
}

// Distance is the Levenshtein distance between a and b.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
