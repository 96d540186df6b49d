package toolregtest

import (
	"regexp/syntax"
	"strings"
)

// fromPattern makes a string that matches pattern and that ok accepts. It
// walks the pattern's syntax tree (Go's RE2 syntax, the one the validator
// compiles patterns with), repeating each unbounded repetition reps more
// times than its minimum, for a growing reps, so that a length bound can
// be met; the minimum and maximum length are tried as reps too.
func (g *generator) fromPattern(pattern string, ok func(string) bool, minL, maxL int) (string, bool) {
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	reps := []int{0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64}
	if minL > 0 {
		reps = append(reps, minL)
	}
	if maxL > 0 {
		reps = append(reps, maxL)
	}
	for _, r := range reps {
		for range 3 {
			var b strings.Builder
			if g.writeRegexp(&b, tree, r) {
				if x := b.String(); ok(x) {
					return x, true
				}
			}
		}
	}
	return "", false
}

// maxPatternBytes bounds a string made from a pattern: nested repetitions
// multiply.
const maxPatternBytes = 1 << 16

// writeRegexp writes a string re matches; false when it matches nothing or
// the string grows past maxPatternBytes. Anchors and word boundaries write
// nothing: the caller checks the whole string against the pattern.
func (g *generator) writeRegexp(b *strings.Builder, re *syntax.Regexp, reps int) bool {
	if b.Len() > maxPatternBytes {
		return false
	}
	repeat := func(n int) bool {
		for range n {
			at := b.Len()
			if !g.writeRegexp(b, re.Sub[0], reps) {
				return false
			}
			if b.Len() == at {
				// The sub-expression matched the empty string: the
				// repetitions left may match it too, and writing
				// nothing they would not meet maxPatternBytes.
				break
			}
		}
		return true
	}
	switch re.Op {
	case syntax.OpNoMatch:
		return false
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		r, ok := g.pickRune(re.Rune)
		if !ok {
			return false
		}
		b.WriteRune(r)
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte(byte('a' + g.rng.IntN(26)))
	case syntax.OpCapture:
		return g.writeRegexp(b, re.Sub[0], reps)
	case syntax.OpStar:
		return repeat(reps)
	case syntax.OpPlus:
		return repeat(1 + reps)
	case syntax.OpQuest:
		return repeat(g.rng.IntN(2))
	case syntax.OpRepeat:
		n := re.Min + reps
		if re.Max >= 0 && n > re.Max {
			n = re.Max
		}
		return repeat(n)
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !g.writeRegexp(b, sub, reps) {
				return false
			}
		}
	case syntax.OpAlternate:
		return g.writeRegexp(b, re.Sub[g.rng.IntN(len(re.Sub))], reps)
	}
	return true
}

// pickRune picks a rune of a character class (pairs of lo, hi), a
// printable ASCII one when the class has some.
func (g *generator) pickRune(ranges []rune) (rune, bool) {
	if len(ranges) < 2 {
		return 0, false
	}
	type span struct{ lo, hi rune }
	var printable, all []span
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		all = append(all, span{lo, hi})
		if plo, phi := max(lo, '!'), min(hi, '~'); plo <= phi {
			printable = append(printable, span{plo, phi})
		}
	}
	if len(printable) > 0 {
		all = printable
	}
	s := all[g.rng.IntN(len(all))]
	r := s.lo + rune(g.rng.IntN(int(min(s.hi-s.lo, 1<<16))+1))
	if 0xD800 <= r && r <= 0xDFFF {
		r = s.lo
	}
	return r, true
}
