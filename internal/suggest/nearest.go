package suggest

import (
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ListAll is the most names a message lists whole (Listing); NearestShown
// is how many of the nearest it lists of more.
const (
	ListAll      = 20
	NearestShown = 5
)

// Listing is what a message tells a model that used a name it may not of
// the count names it may use: every one of them, closest first, when there
// are at most ListAll (all is true), else the NearestShown nearest. A list
// of a few names is the kinder message; one of thousands costs the model
// more than it helps, and a misspelt name is near the one meant.
func Listing(name string, names iter.Seq[string], count int) (list []string, all bool) {
	if count <= ListAll {
		return Nearest(name, names, count), true
	}
	return Nearest(name, names, NearestShown), false
}

// probeRunes bounds the distance work for a huge name: tool names are 64
// bytes at most.
const probeRunes = 128

// Nearest returns up to n of names nearest to name by Distance, closest
// first, names at the same distance in the order given. It reads names
// once and works on each only as far as it could still be among the n
// nearest found so far: a length or a bag of letters that differs by more
// is skipped at once, and the distance is computed within that bound.
// A long list of names costs little more than reading it.
func Nearest(name string, names iter.Seq[string], n int) []string {
	if n <= 0 {
		return nil
	}
	probe := []rune(name)
	if len(probe) > probeRunes {
		probe = probe[:probeRunes]
	}
	var bag *[128]int8 // the probe's letters, when all are ASCII
	if ascii(probe) {
		bag = new([128]int8)
		for _, r := range probe {
			if bag[r]++; bag[r] > 100 {
				bag = nil // a count to overflow: no bag
				break
			}
		}
	}
	type near struct {
		name string
		d    int
	}
	top := make([]near, 0, min(n, 64))
	var buf []rune
	var rows []int
	for b := range names {
		var limit int
		if len(top) < n {
			limit = len(probe) + utf8.RuneCountInString(b) // no name is further
		} else {
			limit = top[n-1].d - 1 // a tie stays behind the names before it
			if limit < 0 {
				break
			}
			// A lower bound of the distance: the letters one has more of
			// than the other, else the difference of lengths.
			lower := -1
			if bag != nil {
				lower = bagDistance(bag, len(probe), b)
			}
			if lower < 0 {
				lower = max(utf8.RuneCountInString(b)-len(probe), len(probe)-utf8.RuneCountInString(b))
			}
			if lower > limit {
				continue
			}
		}
		buf = buf[:0]
		for _, r := range b {
			buf = append(buf, r)
		}
		var d int
		d, rows = within(probe, buf, limit, rows)
		if d > limit {
			continue
		}
		i, _ := slices.BinarySearchFunc(top, d+1, func(e near, d int) int { return e.d - d }) // after every name at distance ≤ d
		if len(top) == n {
			top = top[:n-1]
		}
		top = slices.Insert(top, i, near{name: b, d: d})
	}
	out := make([]string, len(top))
	for i, e := range top {
		out[i] = e.name
	}
	return out
}

func ascii(rs []rune) bool {
	for _, r := range rs {
		if r >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// bagDistance is a lower bound of the distance between a probe of n
// letters counted in bag and b: the letters one has more of than the
// other, each of which takes an edit; -1 when b is not ASCII.
func bagDistance(bag *[128]int8, n int, b string) int {
	if len(b) > 100 {
		return -1
	}
	cnt := *bag
	extra := 0 // letters of b beyond those of the probe
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c >= utf8.RuneSelf {
			return -1
		}
		if cnt[c]--; cnt[c] < 0 {
			extra++
		}
	}
	return max(extra, extra+n-len(b)) // the probe's letters beyond b's: extra + n - len(b)
}

// within is the Levenshtein distance between a and b when it is at most
// limit, else a number above limit; rows is scratch space. It computes
// only the cells within limit of the diagonal.
func within(a, b []rune, limit int, rows []int) (int, []int) {
	for len(a) > 0 && len(b) > 0 && a[0] == b[0] {
		a, b = a[1:], b[1:]
	}
	for len(a) > 0 && len(b) > 0 && a[len(a)-1] == b[len(b)-1] {
		a, b = a[:len(a)-1], b[:len(b)-1]
	}
	if len(a) == 0 || len(b) == 0 {
		return len(a) + len(b), rows
	}
	m, far := len(b), limit+1 // far stands for any distance beyond limit
	if m-len(a) > limit || len(a)-m > limit {
		return far, rows
	}
	rows = slices.Grow(rows[:0], 2*(m+1))[:2*(m+1)]
	prev, cur := rows[:m+1], rows[m+1:]
	for j := range prev {
		prev[j] = min(j, far)
	}
	for i := 1; i <= len(a); i++ {
		lo, hi := max(1, i-limit), min(m, i+limit)
		if lo > hi {
			return far, rows
		}
		if lo == 1 {
			cur[0] = min(i, far)
		} else {
			cur[lo-1] = far
		}
		least := far
		for j := lo; j <= hi; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost, far)
			least = min(least, cur[j])
		}
		if hi < m {
			cur[hi+1] = far
		}
		if least > limit {
			return far, rows
		}
		prev, cur = cur, prev
	}
	return prev[m], rows
}

// ListTools names the tools a model may call after it called name, for
// the end of an error text: every one, closest first, when there are at
// most ListAll ("<all>: a, b, c"), else the NearestShown nearest and how
// many there are ("there are 100 <many>, the nearest to this name: a, b");
// "" for none.
func ListTools(name string, names []string, all, many string) string {
	switch list, whole := Listing(name, slices.Values(names), len(names)); {
	case len(list) == 0:
		return ""
	case whole:
		return all + ": " + strings.Join(list, ", ")
	default:
		return fmt.Sprintf("there are %d %s, the nearest to this name: %s", len(names), many, strings.Join(list, ", "))
	}
}

// UnknownTool is the text of a call of a tool named name that is none of
// names, and name as the text shows it (quoted, bounded).
func UnknownTool(name string, names []string) (text, shown string) {
	shown = strconv.Quote(name)
	if len(name) > 64 {
		shown = strconv.Quote(name[:64] + "…")
	}
	text = "there is no tool named " + shown
	if list := ListTools(name, names, "available tools", "tools"); list != "" {
		text += "; " + list
	}
	return text, shown
}
