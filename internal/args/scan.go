package args

import (
	"fmt"
	"slices"
)

// trimSpace trims the white space JSON allows, and no other.
func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// withinLimits reports whether args are too short to break l whatever
// they hold: valid JSON deeper than l.MaxDepth takes 2*(l.MaxDepth+1)
// bytes, and each value counted takes one byte at least. scan can then
// wait until the fast path has not accepted them.
func withinLimits(args []byte, l Limits) bool {
	return len(args) < 2*(l.MaxDepth+1) && len(args) <= l.MaxValues
}

// span is the number of items of one array or object, by the offset of
// its opening bracket: the decoders size what they make from it.
type span struct {
	at, n int32
}

// sizedFrom is the least number of items for which scan records a span:
// smaller containers grow cheaply.
const sizedFrom = 8

// scan measures args before any parser sees them: the nesting of objects
// and arrays, the number of values (array items and object members, at
// every depth), and the size of each container of sizedFrom items or more,
// sorted by offset. It counts brackets and commas outside strings; the
// parsers refuse what is not JSON.
func scan(b []byte, l Limits) (values int, sizes []span, p *Problem) {
	var small [64]span
	open := small[:0] // the containers being read, innermost last
	inString, first := false, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
			continue
		}
		if first && c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			// The first value of a container; commas count the others.
			first = false
			if c != '}' && c != ']' {
				values++
				open[len(open)-1].n++
			}
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			if len(open) >= l.MaxDepth {
				return values, nil, &Problem{Message: fmt.Sprintf("the arguments nest objects and arrays deeper than %d levels", l.MaxDepth)}
			}
			open = append(open, span{at: int32(i)})
			first = true
		case '}', ']':
			if len(open) > 0 {
				if top := open[len(open)-1]; top.n >= sizedFrom {
					sizes = append(sizes, top)
				}
				open = open[:len(open)-1]
			}
		case ',':
			values++
			if len(open) > 0 {
				open[len(open)-1].n++
			}
		}
		if values > l.MaxValues {
			return values, nil, &Problem{Message: fmt.Sprintf("the arguments hold more than %d values (array items and object members); send fewer", l.MaxValues)}
		}
	}
	slices.SortFunc(sizes, func(a, b span) int { return int(a.at - b.at) })
	return values, sizes, nil
}

// sizeAt is the number of items of the container opening at offset at, or
// 0 when it has fewer than sizedFrom.
func sizeAt(sizes []span, at int64) int {
	i, ok := slices.BinarySearchFunc(sizes, int32(at), func(s span, at int32) int { return int(s.at - at) })
	if !ok {
		return 0
	}
	return int(sizes[i].n)
}
