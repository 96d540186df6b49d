package args

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// TestByteScannerAccepts holds the byte scanner to the calls it is for:
// valid ones, however spelt, which it accepts with the reference path's
// value.
func TestByteScannerAccepts(t *testing.T) {
	c := checkerFor[richArgs](t)
	for _, args := range []string{
		`{"city":"Paris","small":1}`,
		` { "city" : "Paris" , "small" : -128 } `,
		`{"city":"New York","small":-128,"unit":"fahrenheit","days":7,"count":99,"ratio":0.5,"f32":1.5,"tags":["a","b","c"],"pair":[1,2],"scores":{"x":1.5,"y":-2e3},"when":"2024-01-02T03:04:05+02:00","blob":"aGk=","stops":[{"name":"s"},{"name":"t","hours":3}],"tree":{"value":1,"children":[{"value":2},{"value":3,"children":[]}]},"flag":true,"maybe":null}`,
		`{"city":"Par\u0069s","small":0,"tags":["\"q\"","a\\b","\/\b\f\n\r\t"],"maybe":"x"}`,
		`{"city":"Par\u0069s","small":0,"tags":["\u00e9\ud83d\ude00","\u0000",""]}`,
		`{"city":"Oslo","small":1,"tags":["é","日本","😀"],"stops":[],"scores":{},"count":-0}`,
		`{"city":"Oslo","small":1,"pair":[0,-1],"tags":[]}`,
		`{"city":"Oslo","small":1,"ratio":1e-1,"f32":-3.4e38}`,
		`{"city":"Abcdefghij\u006Bl","small":1}`,                             // 12 characters, one escaped
		`{"city":"Oslo","small":1,"tags":["\u00e9t\u00e9 é\n","日\"本","\\"]}`, // escapes beside characters beyond ASCII
	} {
		var got richArgs
		if !c.fast.accept([]byte(args), testLimits, reflect.ValueOf(&got).Elem()) {
			t.Errorf("the byte scanner does not accept %s", args)
			continue
		}
		var want richArgs
		problems, err := c.reference([]byte(args), reflect.ValueOf(&want).Elem())
		if err != nil || problems != nil {
			t.Fatalf("%s: the reference path says %v %q", args, err, problems)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-reference +scanner):\n%s", args, diff)
		}
	}
}

// TestByteScannerLeaves holds the byte scanner to what it leaves to the
// token reader: anything wrong, anything that needs exact arithmetic or a
// kind it does not read. Decode then answers as it did without it.
func TestByteScannerLeaves(t *testing.T) {
	c := checkerFor[richArgs](t)
	for _, args := range []string{
		`{"city":"Paris"}`,                                             // required
		`{"city":"Paris","small":1,"nope":1}`,                          // unknown
		`{"city":"Paris","small":1,"small":1}`,                         // twice
		`{"city":"Paris","small":1,"scores":{"a":1,"a":1}}`,            // twice in a map
		`{"City":"Paris","small":1}`,                                   // exact case
		`{"ci\u0074y":"Paris","small":1}`,                              // an escaped name
		"{\"city\":\"Par\xffis\",\"small\":1}",                         // not UTF-8
		"{\"city\":\"Par\tis\",\"small\":1}",                           // a control character
		`{"city":"Par\ud800is","small":1}`,                             // a lone surrogate
		`{"city":"Par\udc00is","small":1}`,                             // a lone low surrogate
		`{"city":"Par\ud83dis","small":1}`,                             // a high surrogate alone
		`{"city":"Par\xis","small":1}`,                                 // no such escape
		`{"city":"Abcdefghij\u006Blm","small":1}`,                      // maxLength, one character escaped
		"{\"city\":\"Paris\",\"small\":1,\"tags\":[\"a\\n\xff\"]}",     // not UTF-8 after an escape
		"{\"city\":\"Paris\",\"small\":1,\"tags\":[\"a\xc3\\u00e9\"]}", // a character cut by an escape
		"{\"city\":\"Paris\",\"small\":1,\"tags\":[\"a\\n\tb\"]}",      // a control character after an escape
		"{\"city\":\"Paris\",\"small\":1,\"tags\":[\"a\\n",             // cut short after an escape
		`{"city":"Paris","small":1.0}`,                                 // an integer as a float
		`{"city":"Paris","small":1e1}`,                                 // an integer with an exponent
		`{"city":"Paris","small":128}`,                                 // beyond int8
		`{"city":"Paris","small":01}`,                                  // a leading zero
		`{"city":"Paris","small":-}`,                                   // no digits
		`{"city":"Paris","small":1.}`,                                  // no fraction
		`{"city":"Paris","small":1,"count":100}`,                       // exclusiveMaximum
		`{"city":"Paris","small":1,"count":-1}`,                        // a negative uint
		`{"city":"Paris","small":1,"ratio":1}`,                         // on a bound: exact
		`{"city":"Paris","small":1,"ratio":1e999}`,                     // beyond the limits
		`{"city":"Paris","small":1,"f32":3.5e38}`,                      // beyond float32
		`{"city":"Paris","small":1,"unit":"kelvin"}`,                   // enum
		`{"city":"P","small":1}`,                                       // minLength
		`{"city":"P1","small":1}`,                                      // pattern
		`{"city":"Paris","small":1,"tags":["a","b","c","d"]}`,          // maxItems
		`{"city":"Paris","small":1,"pair":[1,2,3]}`,                    // beyond a Go array
		`{"city":"Paris","small":1,"when":"2024-02-30T00:00:00Z"}`,     // format
		`{"city":"Paris","small":1,"blob":"aGk"}`,                      // base64
		`{"city":"Paris","small":1,"days":null}`,                       // null, not nullable
		`{"city":"Paris","small":1,"maybe":1}`,                         // a nullable of another type
		`{"city":"Paris","small":1,"extra":1}`,                         // an any
		`{"city":"Paris","small":1,"raw":1}`,                           // a json.RawMessage
		`{"city":"Paris","small":1} x`,                                 // trailing data
		`{"city":"Paris","small":1,}`,                                  // a trailing comma
		`{"city":"Paris","small":1`,                                    // cut short
		`{"city":"Paris" "small":1}`,                                   // no comma
		`{"city":"Paris","small":tru}`,                                 // a word cut short
		`{"city":"Paris","small":1,"flag":truex}`,                      // a word too long
		`[]`,
	} {
		var got richArgs
		if c.fast.accept([]byte(args), testLimits, reflect.ValueOf(&got).Elem()) {
			t.Errorf("the byte scanner accepts %s", args)
		}
	}
}

// TestByteScannerLimits holds the byte scanner to the limits: it accepts
// no call that scan would refuse, and accepts one just within them.
func TestByteScannerLimits(t *testing.T) {
	c := checkerFor[richArgs](t)
	tags := func(n int) string {
		return `{"city":"Paris","small":1,"tags":[` + strings.TrimSuffix(strings.Repeat(`"a",`, n), ",") + `]}`
	}
	tree := func(n int) string {
		return `{"city":"Paris","small":1,"tree":` + strings.Repeat(`{"value":1,"children":[`, n) + `{"value":1}` + strings.Repeat(`]}`, n) + `}`
	}
	for _, tc := range []struct {
		args   string
		limits Limits
	}{ // just within
		{tags(3), Limits{MaxBytes: 1 << 20, MaxDepth: 2, MaxValues: 6}},
		{tree(2), Limits{MaxBytes: 1 << 20, MaxDepth: 6, MaxValues: 10}},
	} {
		_, _, p := scan([]byte(tc.args), tc.limits)
		var got richArgs
		accepted := c.fast.accept([]byte(tc.args), tc.limits, reflect.ValueOf(&got).Elem())
		if accepted && p != nil {
			t.Errorf("the byte scanner accepts %s, which breaks %+v: %s", tc.args, tc.limits, p.Message)
		}
		if !accepted && p == nil {
			t.Errorf("the byte scanner leaves %s, within %+v", tc.args, tc.limits)
		}
	}
	for _, tc := range []struct {
		args   string
		limits Limits
	}{
		{tags(3), Limits{MaxBytes: 1 << 20, MaxDepth: 2, MaxValues: 5}},
		{tags(3), Limits{MaxBytes: 1 << 20, MaxDepth: 1, MaxValues: 100}},
		{tree(2), Limits{MaxBytes: 1 << 20, MaxDepth: 5, MaxValues: 100}},
		{tree(2), Limits{MaxBytes: 1 << 20, MaxDepth: 6, MaxValues: 9}},
	} {
		var got richArgs
		_, _, p := scan([]byte(tc.args), tc.limits)
		if p == nil {
			t.Fatalf("%s is within %+v", tc.args, tc.limits)
		}
		if c.fast.accept([]byte(tc.args), tc.limits, reflect.ValueOf(&got).Elem()) {
			t.Errorf("the byte scanner accepts %s, which breaks %+v: %s", tc.args, tc.limits, p.Message)
		}
	}
}

// TestByteScannerNumber holds json.Number to any literal, as the token
// reader keeps it.
func TestByteScannerNumber(t *testing.T) {
	type numArgs struct {
		N json.Number `json:"n"`
	}
	c := checkerFor[numArgs](t)
	for _, lit := range []string{"0", "-0", "1.5e-7", "12345678901234567890123"} {
		var got numArgs
		if !c.fast.accept([]byte(`{"n":`+lit+`}`), testLimits, reflect.ValueOf(&got).Elem()) {
			t.Errorf("the byte scanner leaves %s", lit)
		}
		if got.N != json.Number(lit) {
			t.Errorf("got %q, want %q", got.N, lit)
		}
	}
}

type benchSmall struct {
	City  string `json:"city"`
	Count int    `json:"count"`
}

// BenchmarkDecodeSmall is Decode alone on the small call of the root
// benchmarks, beside encoding/json.
func BenchmarkDecodeSmall(b *testing.B) {
	c := checkerFor[benchSmall](b)
	args := []byte(`{"city":"Paris","count":3}`)
	b.Run("Decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var a benchSmall
			if ps, err := c.Decode(args, reflect.ValueOf(&a).Elem()); ps != nil || err != nil {
				b.Fatal(ps, err)
			}
		}
	})
	b.Run("json.Unmarshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var a benchSmall
			if err := json.Unmarshal(args, &a); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestPlainRun holds the eight-bytes-at-a-time search of plainRun to the
// plain one, on random text where every kind of byte stands at every
// offset of a word.
func TestPlainRun(t *testing.T) {
	naive := func(b []byte, j int) (int, bool) {
		high := false
		for ; j < len(b); j++ {
			if c := b[j]; c < ' ' || c == '"' || c == '\\' {
				break
			}
			high = high || b[j] >= 0x80
		}
		return j, high
	}
	alphabet := []byte{'a', 'Z', ' ', '!', '"', '#', '[', '\\', ']', 0, 0x1f, 0x7f, 0x80, 0xa2, 0xc3, 0xdc, 0xff, '\n'}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200_000 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			if rng.IntN(4) == 0 {
				b[i] = alphabet[rng.IntN(len(alphabet))]
			} else {
				b[i] = 'a' + byte(rng.IntN(26))
			}
		}
		start := 0
		if len(b) > 0 {
			start = rng.IntN(len(b) + 1)
		}
		got, high := plainRun(b, start)
		want, wantHigh := naive(b, start)
		if got != want || (high != 0) != wantHigh {
			t.Fatalf("plainRun(%q, %d) = %d, %v; want %d, %v", b, start, got, high != 0, want, wantHigh)
		}
	}
}

// TestItemsLeft holds the count that sizes slices and maps to the items
// there are, over strings with quotes, escapes and brackets in them.
func TestItemsLeft(t *testing.T) {
	for _, tc := range []struct {
		rest string // after the opening bracket
		want int
	}{
		{`1]`, 1},
		{`1,2,3]`, 3},
		{`"a,b","c]",["d","e"],{"f":[1,2]}]`, 4},
		{`"a\",b","c\\",3]`, 3},
		{"\"a\x01,b\",2]", 2},
		{`"x\\\\\"y,"]`, 1},
		{`{"a":1,"b":2},{"c":"]"}]`, 2},
	} {
		s := byteScanner{b: []byte(tc.rest), limits: testLimits, budget: len(tc.rest)}
		if got := s.itemsLeft(); got != tc.want {
			t.Errorf("itemsLeft(%s) = %d, want %d", tc.rest, got, tc.want)
		}
	}
	// Cut short anywhere, an escape last included, it counts what it read
	// and never reads past its budget, which it spends.
	rest := []byte(`"a\",["b\"]],"c"]`)
	for n := range len(rest) + 1 {
		s := byteScanner{b: rest, limits: testLimits, budget: n}
		s.itemsLeft()
		if s.budget < 0 || s.budget > n {
			t.Errorf("budget %d: %d left", n, s.budget)
		}
		s.itemsLeft() // with what is left
	}
}

type benchRich struct {
	City   string `json:"city" jsonschema:"description=City name"`
	Units  string `json:"units" jsonschema:"enum=celsius,enum=fahrenheit"`
	Days   []int  `json:"days" jsonschema:"minItems=1,maxItems=14,minimum=0,maximum=13"`
	Filter struct {
		Min int `json:"min"`
		Max int `json:"max"`
	} `json:"filter"`
}

// BenchmarkDecodeRich is Decode alone on the rich call of the bench
// module.
func BenchmarkDecodeRich(b *testing.B) {
	c := checkerFor[benchRich](b)
	args := []byte(`{"city":"Paris","units":"celsius","days":[0,1,2,3,4,5,6],"filter":{"min":-5,"max":30}}`)
	b.ReportAllocs()
	for b.Loop() {
		var a benchRich
		if ps, err := c.Decode(args, reflect.ValueOf(&a).Elem()); ps != nil || err != nil {
			b.Fatal(ps, err)
		}
	}
}

// listArgs hold lists of every kind the byte scanner reads: scalars
// stored in place, structs, pointers and lists of lists.
type listArgs struct {
	Words []string   `json:"words,omitempty" jsonschema:"maxItems=5000"`
	Nums  []int64    `json:"nums,omitempty"`
	Flags []bool     `json:"flags,omitempty"`
	Rows  []richStop `json:"rows,omitempty"`
	Grid  [][]uint16 `json:"grid,omitempty"`
	Tree  *treeNode  `json:"tree,omitempty"`
	Pts   []point    `json:"pts,omitempty"`
	Legs  []leg      `json:"legs,omitempty"`
}

// leg is an item whose fields are not all stored in their slots: a list,
// a pointer, a default.
type leg struct {
	From  string   `json:"from"`
	Stops []string `json:"stops,omitempty"`
	Wait  *int     `json:"wait,omitempty"`
	Mode  string   `json:"mode,omitempty" jsonschema:"default=walk"`
}

type point struct {
	X int `json:"x"`
	Y int `json:"y,omitempty"`
}

// longList is n items made by item, as a JSON array.
func longList(n int, item func(i int) string) string {
	items := make([]string, n)
	for i := range items {
		items[i] = item(i)
	}
	return "[" + strings.Join(items, ",") + "]"
}

// TestByteScannerLongLists holds the byte scanner to the reference path
// on lists too long to count first, which it reads into a pooled slice:
// the same value, at every length around the doubling of that slice, and
// the pooled slice holds zeros after the call, accepted or not.
func TestByteScannerLongLists(t *testing.T) {
	c := checkerFor[listArgs](t)
	tree := func(n int) string {
		return `{"value":1,"children":` + longList(n, func(i int) string {
			return fmt.Sprintf(`{"value":%d,"children":%s}`, i, longList(i%3*40, func(j int) string { return fmt.Sprintf(`{"value":%d}`, j) }))
		}) + `}`
	}
	for _, n := range []int{1, 7, 8, 9, 63, 64, 65, 300, 400} { // within the values limit
		args := `{"words":` + longList(n, func(i int) string { return fmt.Sprintf(`"word \u00e9 %d"`, i) }) +
			`,"nums":` + longList(n, func(i int) string { return fmt.Sprint(i*7919 - 5000) }) +
			`,"flags":` + longList(n, func(i int) string { return fmt.Sprint(i%2 == 0) }) +
			`,"rows":` + longList(n, func(i int) string {
			if i%3 == 0 {
				return fmt.Sprintf(`{"name":"stop\n%d"}`, i) // the default hours
			}
			return fmt.Sprintf(`{"name":"stop %d","hours":%d}`, i, i)
		}) +
			`,"grid":` + longList(n, func(i int) string { return longList(i%20, func(j int) string { return fmt.Sprint(j) }) }) +
			`,"tree":` + tree(n%50) +
			`,"pts":` + longList(n, func(i int) string {
			if (i+n)%2 == 0 {
				return fmt.Sprintf(`{"x":%d,"y":%d}`, i, i)
			}
			return fmt.Sprintf(`{"x":%d}`, i) // y as the call before may have set it
		}) +
			`,"legs":` + longList(n, func(i int) string {
			if i%2 == 0 {
				return fmt.Sprintf(`{"from":"a%d","stops":["x","y"],"wait":%d}`, i, i) // the default mode
			}
			return `{"mode":"bus","from":"b"}`
		}) + `}`
		var got listArgs
		if !c.fast.accept([]byte(args), testLimits, reflect.ValueOf(&got).Elem()) {
			t.Fatalf("%d items: the byte scanner does not accept %.200s", n, args)
		}
		if !checkPaths[listArgs](t, c, args) {
			t.Fatalf("%d items: the fast path leaves the call", n)
		}
		for _, l := range []int{len(got.Words), len(got.Nums), len(got.Flags), len(got.Rows), len(got.Grid), len(got.Pts), len(got.Legs)} {
			if l != n {
				t.Fatalf("%d items: a list of %d", n, l)
			}
		}
	}
	// Wrong late in a long list: left to the token reader, which words it.
	bad := `{"words":["a","b"],"grid":[[1],[2]],"rows":` + longList(500, func(i int) string {
		if i == 480 {
			return `{"name":"x","hours":"three"}`
		}
		return `{"name":"x","hours":1}`
	}) + `}`
	good := `{"words":` + longList(100, func(i int) string { return fmt.Sprintf(`"w%d"`, i) }) +
		`,"grid":` + longList(100, func(i int) string { return `[1,2]` }) + `}`
	for _, tc := range []struct {
		args  string
		lists []*fnode // the long lists of the call, read into pooled slices
	}{
		{good, []*fnode{c.fast.fields[0], c.fast.fields[4]}},
		{bad, []*fnode{c.fast.fields[3]}},
	} {
		var got listArgs
		if accepted := c.fast.accept([]byte(tc.args), testLimits, reflect.ValueOf(&got).Elem()); accepted != (tc.args == good) {
			t.Fatalf("the byte scanner accepts %.100s: %v", tc.args, accepted)
		}
		// Every pooled slice of items with pointers holds zeros: it keeps
		// nothing of a call alive.
		for _, f := range tc.lists {
			sc := f.scratch.Get().(*scratch)
			if sc.v.Cap() == 0 && !raceEnabled { // the race detector drops some of what is pooled
				t.Errorf("%v: the pooled slice did not come back", sc.v.Type())
			}
			all := sc.v.Slice(0, sc.v.Cap())
			for i := range all.Len() {
				if !all.Index(i).IsZero() {
					t.Errorf("%v: item %d of the pooled slice is %v", all.Type(), i, all.Index(i))
					break
				}
			}
			f.scratch.Put(sc)
		}
	}
	checkPaths[listArgs](t, c, bad)
}

// TestProbe holds the count that sizes short slices: whole only when the
// closing bracket is within reach, and then exact.
func TestProbe(t *testing.T) {
	for _, tc := range []struct {
		rest  string // after the opening bracket
		count int
		whole bool
	}{
		{`1,2,3]`, 3, true},
		{`"a,b",["c,d"],{"e":[1,2]}]`, 3, true},
		{strings.Repeat(`1,`, probeBytes/2) + `1]`, 0, false},
		{strings.Repeat(`1,`, probeBytes/2-1) + `1]`, probeBytes / 2, true},
		{`1,2`, 0, false}, // cut short
	} {
		s := byteScanner{b: []byte(tc.rest), limits: testLimits, budget: len(tc.rest)}
		count, whole := s.probe()
		if whole != tc.whole || whole && count != tc.count {
			t.Errorf("probe(%.40s…) = %d, %v; want %d, %v", tc.rest, count, whole, tc.count, tc.whole)
		}
	}
	// A spent budget probes nothing.
	s := byteScanner{b: []byte(`1]`), limits: testLimits, budget: 0}
	if _, whole := s.probe(); whole {
		t.Errorf("probe with no budget reads")
	}
}

// TestKeptStringsAreCopies holds the byte scanner's strings to copies of
// the arguments, whatever their length and wherever they fall across the
// chunks keep copies them into: a caller may write over its bytes once
// Decode returns, and the function's strings must not change.
func TestKeptStringsAreCopies(t *testing.T) {
	c := checkerFor[listArgs](t)
	r := rand.New(rand.NewPCG(1, 2))
	for _, total := range []int{100, 600, 5_000, 40_000} {
		var words []string
		for n := 0; n < total; {
			w := strings.Repeat("abcdefghij", r.IntN(12)) + fmt.Sprint(n) // up to 120 bytes
			if r.IntN(50) == 0 {
				w = strings.Repeat("x", arenaChunk/4+r.IntN(3)-1) // about the longest a chunk takes
			}
			words = append(words, w)
			n += len(w) + 3
		}
		want, err := json.Marshal(listArgs{Words: words, Rows: []richStop{{Name: words[0], Hours: 1}, {Name: words[len(words)-1], Hours: 2}}})
		if err != nil {
			t.Fatal(err)
		}
		args := bytes.Clone(want)
		var got listArgs
		if !c.fast.accept(args, Limits{MaxBytes: 1 << 20, MaxDepth: 8, MaxValues: 1 << 20}, reflect.ValueOf(&got).Elem()) {
			t.Fatalf("%d bytes: the byte scanner does not accept the call", len(args))
		}
		for i := range args {
			args[i] = '#'
		}
		var wantArgs listArgs
		if err := json.Unmarshal(want, &wantArgs); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(wantArgs, got); diff != "" {
			t.Fatalf("%d bytes, after the arguments were written over (-want +got):\n%.2000s", len(args), diff)
		}
	}
}

// TestRuneCount holds the count of characters of the byte scanner to
// utf8.RuneCountInString on valid UTF-8 of every width, at every offset
// of a word.
func TestRuneCount(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	chars := []string{"a", " ", "é", "ß", "日", "本", "😀", "\u0080", "\u07ff", "\u0800", "\uffff", "\U00010000", "\U0010ffff"}
	for range 2000 {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteString(chars[r.IntN(len(chars))])
		}
		s := b.String()
		if got, want := runeCount(s), utf8.RuneCountInString(s); got != want {
			t.Fatalf("runeCount(%q) = %d, want %d", s, got, want)
		}
	}
}
