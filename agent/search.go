package agent

import (
	"context"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/toolreg/toolreg"
)

// SearchToolName is the name of the tool search a run declares while it
// has deferred tools the model has not found (toolreg.WithDeferred,
// Options.Defer). The loop answers its calls itself, through the same gate
// as any call; a registry tool of this name in a run with deferred tools
// is refused at the run's start (toolreg.ErrDuplicateTool), unless the
// provider searches them natively (NativeSearcher): the run then declares
// no search of its own, and the registry's tool is an ordinary one.
const SearchToolName = "search_tools"

// Bounds of the tool search: the query's length in bytes, and how many
// tools one search finds (its limit argument, DefaultSearchLimit unless
// the model asks for another).
const (
	MaxSearchQuery     = 500
	DefaultSearchLimit = 5
	MaxSearchLimit     = 20
)

// ToolSearcher ranks the deferred tools a model searches for: Search
// returns the names of at most limit of candidates that match query, best
// first. A host plugs in its own (embeddings, a search index) with
// Options.Search; names that are not candidates' are left out, so a
// searcher cannot make the run declare a tool it should not.
type ToolSearcher interface {
	Search(ctx context.Context, query string, candidates []toolreg.AnyTool, limit int) ([]string, error)
}

// KeywordSearch is the default ToolSearcher: a BM25 ranking of the words
// of the query against each tool's name (its words count twice: a name
// split at "_", "-", "." and case changes), description and tags (a tool's
// Tags method, toolreg.WithTags). Words are compared lower-cased, with a
// plural "s" dropped; a query's small words ("a", "the", "for", ...) do
// not count. A query that is a tool's name finds it first. It
// needs no index: the candidates are ranked on each search, in time linear
// in their descriptions' length.
type KeywordSearch struct{}

// Search ranks candidates against query (ToolSearcher).
func (KeywordSearch) Search(_ context.Context, query string, candidates []toolreg.AnyTool, limit int) ([]string, error) {
	terms := slices.DeleteFunc(words(query), func(w string) bool { return stopWords[w] })
	if len(terms) == 0 || limit <= 0 {
		return nil, nil
	}
	docs := make([][]string, len(candidates))
	df := map[string]int{}
	total := 0
	for i, t := range candidates {
		name := words(t.Name())
		d := append(slices.Clone(name), name...)
		d = append(d, words(t.Description())...)
		if tt, ok := t.(interface{ Tags() []string }); ok {
			for _, tag := range tt.Tags() {
				d = append(d, words(tag)...)
			}
		}
		docs[i] = d
		total += len(d)
		seen := map[string]bool{}
		for _, w := range d {
			if !seen[w] {
				seen[w] = true
				df[w]++
			}
		}
	}
	const k1, b = 1.2, 0.75
	n := float64(len(candidates))
	avg := float64(total) / max(n, 1)
	type hit struct {
		i     int
		score float64
	}
	var hits []hit
	exact := strings.ToLower(strings.TrimSpace(query))
	for i, d := range docs {
		tf := map[string]int{}
		for _, w := range d {
			tf[w]++
		}
		score := 0.0
		for _, q := range terms {
			f := float64(tf[q])
			if f == 0 {
				continue
			}
			idf := math.Log(1 + (n-float64(df[q])+0.5)/(float64(df[q])+0.5))
			score += idf * f * (k1 + 1) / (f + k1*(1-b+b*float64(len(d))/avg))
		}
		if strings.ToLower(candidates[i].Name()) == exact {
			score += 1000
		}
		if score > 0 {
			hits = append(hits, hit{i, score})
		}
	}
	slices.SortStableFunc(hits, func(x, y hit) int {
		switch {
		case x.score > y.score:
			return -1
		case x.score < y.score:
			return 1
		}
		return 0
	})
	var names []string
	for _, h := range hits[:min(limit, len(hits))] {
		names = append(names, candidates[h.i].Name())
	}
	return names, nil
}

// stopWords are the small words of a query that say nothing of a tool.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields("a an the of for to in on at by with from and or is are be it its this that my me i you your we our " +
		"can could would should please want need some any all do doe how what which tool function call use") {
		stopWords[w] = true
	}
}

// words splits text into lower-cased words: at every character that is
// not a letter or digit, and where a lower-case letter meets an upper-case
// one (getWeather: get, weather); a plural "s" of a word longer than three
// letters is dropped.
func words(text string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			w := strings.ToLower(string(cur))
			if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
				w = w[:len(w)-1]
			}
			out = append(out, w)
			cur = cur[:0]
		}
	}
	var prev rune
	for _, r := range text {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	flush()
	return out
}
