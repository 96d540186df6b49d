package args

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	rs "github.com/toolreg/toolreg/internal/reflectschema"
)

// richArgs exercises every keyword the fast path checks itself.
type richArgs struct {
	City   string             `json:"city" jsonschema:"minLength=2,maxLength=12,pattern=^[A-Za-z ]+$"`
	Unit   string             `json:"unit,omitempty" jsonschema:"enum=celsius,enum=fahrenheit,default=celsius"`
	Days   *int               `json:"days,omitempty" jsonschema:"minimum=1,maximum=7"`
	Small  int8               `json:"small"`
	Count  uint16             `json:"count,omitempty" jsonschema:"exclusiveMaximum=100"`
	Ratio  float64            `json:"ratio,omitempty" jsonschema:"minimum=0,maximum=1"`
	F32    float32            `json:"f32,omitempty"`
	Tags   []string           `json:"tags,omitempty" jsonschema:"maxItems=3"`
	Pair   [2]int             `json:"pair,omitempty"`
	Scores map[string]float64 `json:"scores,omitempty"`
	When   *time.Time         `json:"when,omitempty"`
	Blob   []byte             `json:"blob,omitempty"`
	Extra  any                `json:"extra,omitempty"`
	Raw    json.RawMessage    `json:"raw,omitempty"`
	Stops  []richStop         `json:"stops,omitempty"`
	Tree   *treeNode          `json:"tree,omitempty"`
	Flag   bool               `json:"flag,omitempty"`
	Maybe  *string            `json:"maybe,omitempty" jsonschema:"nullable"`
}

type richStop struct {
	Name  string `json:"name"`
	Hours int    `json:"hours" jsonschema:"default=1"`
}

type treeNode struct {
	Value    int         `json:"value"`
	Children []*treeNode `json:"children,omitempty"`
}

var testLimits = Limits{MaxBytes: 1 << 20, MaxDepth: 64, MaxValues: 10_000}

// checkerFor compiles the checker of Args type A, as New does.
func checkerFor[A any](t testing.TB) *Checker {
	t.Helper()
	shape, schema, err := rs.Args(reflect.TypeFor[A]())
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compile(shape, schema, testLimits)
	if err != nil {
		t.Fatal(err)
	}
	if c.fast == nil {
		t.Fatalf("%T has no fast path", *new(A))
	}
	return c
}

// outcome is what one path made of a call.
type outcome[A any] struct {
	verdict  verdict
	problems []Problem
	value    A
}

// bothPaths runs one call through each path on its own.
func bothPaths[A any](t testing.TB, c *Checker, args string) (fast, ref outcome[A]) {
	t.Helper()
	b := trimSpace([]byte(args))
	if len(b) == 0 || string(b) == "null" {
		b = []byte("{}")
	}
	sameOrder[A](t, c, b)
	var scanned A
	byScanner := c.fast.accept(b, testLimits, reflect.ValueOf(&scanned).Elem())
	_, sizes, p := scan(b, testLimits)
	if p != nil {
		if byScanner {
			t.Fatalf("%s: the byte scanner accepts what breaks the limits: %s", b, p.Message)
		}
		t.Skipf("refused before either path reads it: %s", p.Message)
	}
	fast.verdict, fast.problems = c.fast.run(b, sizes, reflect.ValueOf(&fast.value).Elem())
	problems, err := c.reference(b, reflect.ValueOf(&ref.value).Elem())
	if err != nil {
		t.Fatal(err)
	}
	ref.verdict, ref.problems = accepted, problems
	if problems != nil {
		ref.verdict = rejected
	}
	if byScanner {
		if ref.verdict != accepted {
			t.Fatalf("%s: the byte scanner accepts, the reference path says %q", b, ref.problems)
		}
		if diff := cmp.Diff(ref.value, scanned); diff != "" {
			t.Fatalf("the byte scanner and the reference path decode %s differently (-reference +scanner):\n%s", b, diff)
		}
	}
	return fast, ref
}

// sameOrder fails unless Decode, which runs the fast path before scan on
// short arguments, answers as scan first then the paths do.
func sameOrder[A any](t testing.TB, c *Checker, b []byte) {
	t.Helper()
	var got, want A
	gotProblems, err := c.Decode(b, reflect.ValueOf(&got).Elem())
	if err != nil {
		t.Fatal(err)
	}
	wantProblems, err := c.settle(b, reflect.ValueOf(&want).Elem(), pending, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantProblems, gotProblems); diff != "" {
		t.Fatalf("%s: Decode words the problems otherwise than scan first (-scan first +Decode):\n%s", b, diff)
	}
	if wantProblems == nil {
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%s: Decode decodes otherwise than scan first (-scan first +Decode):\n%s", b, diff)
		}
	}
}

// checkPaths runs one call through both paths and fails on any difference
// in verdict, in the value the function would receive, or in the problems
// the model would read. It reports whether the fast path decided.
func checkPaths[A any](t testing.TB, c *Checker, args string) (decided bool) {
	t.Helper()
	fast, ref := bothPaths[A](t, c, args)
	if fast.verdict == unsure {
		return false
	}
	if fast.verdict != ref.verdict {
		t.Fatalf("%s: the fast path says %v %q, the reference path %v %q", args, fast.verdict, fast.problems, ref.verdict, ref.problems)
	}
	if fast.verdict == accepted {
		if diff := cmp.Diff(ref.value, fast.value); diff != "" {
			t.Fatalf("paths decode %s differently (-reference +fast):\n%s", args, diff)
		}
		return true
	}
	if len(fast.problems) < maxProblems {
		if diff := cmp.Diff(ref.problems, fast.problems); diff != "" {
			t.Fatalf("paths word the problems of %s differently (-reference +fast):\n%s", args, diff)
		}
	}
	return true
}

func (v verdict) String() string {
	return [...]string{"unsure", "accepted", "rejected", "pending"}[v]
}

// TestShortArgumentsWithinLimits holds short arguments that break a limit,
// which Decode reads with the fast path before scan, to scan's words.
func TestShortArgumentsWithinLimits(t *testing.T) {
	c := checkerFor[richArgs](t)
	deep := `{"extra":` + strings.Repeat("[", 70) + `}`
	if !withinLimits([]byte(deep), testLimits) {
		t.Fatalf("%d bytes are not short", len(deep))
	}
	// The shortest valid JSON too deep is just too long for the fast path
	// to go first.
	valid := `[` + strings.Repeat("[", 64) + strings.Repeat("]", 64) + `]`
	for _, args := range []string{deep, `{"extra":` + valid + `}`} {
		var a richArgs
		problems, err := c.Decode([]byte(args), reflect.ValueOf(&a).Elem())
		if err != nil {
			t.Fatal(err)
		}
		want := []Problem{{Message: "the arguments nest objects and arrays deeper than 64 levels"}}
		if diff := cmp.Diff(want, problems); diff != "" {
			t.Errorf("Decode(%s) (-want +got):\n%s", args, diff)
		}
	}
	if withinLimits([]byte(valid), testLimits) {
		t.Errorf("%d bytes of valid JSON 65 levels deep are short", len(valid))
	}
	for _, args := range []string{deep, `{"city":"Paris","small":1,"tags":["a",1,true,null,[],{},"b"]}`, `{"city":"Paris","small":1e999}`, `{"city":`} {
		sameOrder[richArgs](t, c, []byte(args))
	}
}

func TestPathsAgree(t *testing.T) {
	c := checkerFor[richArgs](t)
	accepted := []string{
		`{"city":"Paris","small":1}`,
		`{"city":"New York","small":-128,"unit":"fahrenheit","days":7,"count":99,"ratio":1,"f32":1.5,"tags":["a","b","c"],"pair":[1,2],"scores":{"x":1.5},"when":"2024-01-02T03:04:05+02:00","blob":"aGk=","extra":{"n":1},"raw":[1, {"b":2,"a":1}],"stops":[{"name":"s"},{"name":"t","hours":3}],"tree":{"value":1,"children":[{"value":2}]},"flag":true,"maybe":null}`,
		`{"city":"Rome","small":0,"ratio":0,"maybe":"x"}`,
		` {"city":"Oslo","small":127} `,
	}
	for _, a := range accepted {
		if !checkPaths[richArgs](t, c, a) {
			t.Errorf("fast path gave up on a plain valid call: %s", a)
		}
	}
	// However a client spells a call, the fast path decides it, with the
	// reference path's verdict, value and words.
	spelt := []string{
		`{"city":"Paris","small":1.0}`,                     // integral float
		`{"city":"Paris","small":1e1}`,                     // integral exponent
		`{"city":"Paris","small":1,"small":2}`,             // duplicate key
		`{"city":"Par\u0069s","small":1}`,                  // escaped string
		`{"ci\u0074y":"Paris","small":1}`,                  // escaped name
		`{"ci\u0074y":"Paris","small":1,"extra":[1e-401]}`, // a number beyond the limits
		`{"city":"Paris","small":1,"extra":[1e-401]}`,
		`{"city":"Paris","small":1,"ratio":1.0000000000000000000001}`, // on a bound, rounded
		`{"city":"Paris","small":1,"ratio":-0.0000000000000000000001}`,
		`{"city":"Paris","small":1,"count":99.0}`,
		`{"city":"Paris","small":1,"count":1e2}`,
		`{"city":"Paris","small":1,"count":-0}`,
		`{"city":"Paris","small":1,"f32":3.5e38}`,
		`{"city":"Paris","small":1,"f32":3.4028235e38}`,
		`{"city":"Paris","small":1,"stops":[{"name":"a","hours":1.5}]}`,
		`{"city":"Paris","small":1,"stops":[{"name":"a","name":"b"}]}`,
		`{"city":"Paris","small":1,"scores":{"a":1,"a":2}}`,
		`{"city":"Paris","small":1,"when":"2024-02-30T00:00:00Z"}`,
		`{"city":"Paris","small":1,"when":"2024-01-02T03:04:05.5+24:00"}`,
		`{"city":"Paris","small":1,"unit":"kelvin"}`,
		`{"city":"P","small":1}`,
		`{"city":"P1","small":1}`,
		`{"city":"Paris","small":1,"tags":["a","b","c","d"]}`,
		`{"city":"Paris","small":1,"pair":[1]}`,
		`{"city":"Paris","small":1,"pair":[1,2,3]}`,
		`{"city":"Paris","small":1,"blob":"aGk"}`,
		`{"city":"Paris","small":"1"}`,
		`{"city":["Paris"],"small":{}}`,
		`{"city":"Paris","small":1,"flag":1}`,
		`{"city":"Paris","small":1,"maybe":1}`,
		`{"city":"Paris","small":1,"tree":{"value":1,"children":[{"value":"x"}]}}`,
		`{"city":"Paris","small":1,"stops":[{"hours":2}]}`,
		`{"city":"Paris","small":1,"days":0}`,
		`{"city":"Paris","small":1,"days":99999999999999999999999}`,
		`{"city":"Paris","small":1e400}`,
		`{"city":"Paris","small":1,"extra":{"a":1,"a":2}}`,
		`{"city":"Paris","small":1,"raw":{"a":1,"b":[{"c":1,"\u0063":2}]}}`,
		`{"city":"Paris","small":1,"nope":{"a":1,"a":2}}`,
		`{"city":"Paris","small":1,"nope":1,"nope":2}`,
		`{"city":{"a":1,"a":2},"small":1}`,
		`{"city":"Paris","small":1,"scores":{"\u0061":1,"a":2}}`,
		"{\"city\":\"Par\xffis\",\"small\":1}",
		`{"city":"Paris","small":128}`, // out of range
		`{"city":"Paris","small":1,"count":100}`,
		`{"city":"Paris","small":1,"ratio":1.0000000000000001}`,
		`{"city":"Paris","small":1,"when":"2024-01-02t03:04:05z"}`,
		`{"city":"Paris","small":1,"days":null}`,
		`{"city":"Paris"}`,
		`{"city":"Paris","small":1,"nope":1}`,
		`{"city":"Paris","small":1} x`,
		`[]`,
	}
	for _, a := range spelt {
		if !checkPaths[richArgs](t, c, a) {
			t.Errorf("fast path left %s to the reference path", a)
		}
	}
}

// TestFastPathRandom mutates valid calls at random and checks that the fast
// path never accepts what the validator rejects, and decodes like the
// reference path.
func TestPathsAgreeRandom(t *testing.T) {
	c := checkerFor[richArgs](t)
	rng := rand.New(rand.NewPCG(1, 2))
	accepted := 0
	const n = 3000
	for range n {
		args := randomRich(rng)
		if checkPaths[richArgs](t, c, args) {
			accepted++
		}
	}
	t.Logf("fast path decided %d of %d random calls", accepted, n)
	if accepted < n {
		t.Errorf("fast path left %d of %d calls to the reference path", n-accepted, n)
	}
}

func randomRich(rng *rand.Rand) string {
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	num := func() string {
		return pick("0", "1", "-1", "7", "8", "99", "100", "127", "128", "-128", "-129", "1.0", "1e2", "0.5", "1.0000000000000001",
			"3.4028234663852886e38", "3.5e38", "65535", "-0", "2", strconv.Itoa(rng.IntN(300)-150))
	}
	str := func() string {
		return pick(`"Paris"`, `"P"`, `"New York City!"`, `"celsius"`, `"kelvin"`, `"aGk="`, `"hello world"`,
			`"2024-01-02T03:04:05Z"`, `"2024-02-30T00:00:00Z"`, `"Ab\u00e9"`, `""`)
	}
	var val func(depth int) string
	val = func(depth int) string {
		switch rng.IntN(8) {
		case 0, 1:
			return num()
		case 2, 3:
			return str()
		case 4:
			return pick("true", "false", "null")
		case 5:
			if depth > 2 {
				return "[]"
			}
			return "[" + val(depth+1) + "," + val(depth+1) + "]"
		default:
			if depth > 2 {
				return "{}"
			}
			return `{"name":` + str() + `,"value":` + num() + `,"children":[]}`
		}
	}
	fields := map[string]func() string{
		"city": str, "unit": str, "days": num, "small": num, "count": num, "ratio": num, "f32": num,
		"tags":   func() string { return "[" + strings.Repeat(str()+",", rng.IntN(4)) + str() + "]" },
		"pair":   func() string { return "[" + num() + "," + num() + pick("", ","+num()) + "]" },
		"scores": func() string { return `{"a":` + num() + `}` },
		"when":   str, "blob": str, "extra": func() string { return val(0) }, "raw": func() string { return val(0) },
		"stops": func() string { return `[{"name":` + str() + pick("", `,"hours":`+num()) + `}]` },
		"tree":  func() string { return `{"value":` + num() + `,"children":[{"value":` + num() + `}]}` },
		"flag":  func() string { return pick("true", "false", "1") }, "maybe": func() string { return pick("null", `"x"`, "1") },
		"bogus": num,
	}
	// Values each field accepts, so that most calls are valid and the
	// decoders get compared, not just the verdicts.
	valid := map[string]func() string{
		"city": func() string { return pick(`"Paris"`, `"New York"`, `"Oslo"`) }, "unit": func() string { return pick(`"celsius"`, `"fahrenheit"`) },
		"days": func() string { return strconv.Itoa(1 + rng.IntN(7)) }, "small": func() string { return strconv.Itoa(rng.IntN(256) - 128) },
		"count": func() string { return strconv.Itoa(rng.IntN(100)) }, "ratio": func() string { return pick("0", "0.25", "1", "0.999") },
		"f32": func() string { return pick("1.5", "-3e10", "0") }, "tags": func() string { return pick(`[]`, `["a"]`, `["a","b","c"]`) },
		"pair": func() string { return "[" + strconv.Itoa(rng.IntN(9)) + ",-3]" }, "scores": func() string { return pick(`{}`, `{"a":1,"b":-2.5}`) },
		"when": func() string { return pick(`"2024-01-02T03:04:05Z"`, `"2023-12-31T23:59:59.123456789-07:00"`) },
		"blob": func() string { return pick(`"aGk="`, `""`, `"AAECAw=="`) }, "extra": func() string { return val(0) }, "raw": func() string { return val(0) },
		"stops": func() string { return pick(`[]`, `[{"name":"a"}]`, `[{"name":"a","hours":2},{"name":"b"}]`) },
		"tree":  func() string { return `{"value":1,"children":[{"value":2,"children":[]}]}` }, "flag": func() string { return pick("true", "false") },
		"maybe": func() string { return pick("null", `"x"`) },
	}
	var parts []string
	for _, name := range sortedKeys(fields) {
		required := name == "city" || name == "small"
		if !required && rng.IntN(3) != 0 || name == "bogus" && rng.IntN(10) != 0 {
			continue
		}
		gen := fields[name]
		if v, ok := valid[name]; ok && rng.IntN(10) != 0 {
			gen = v
		}
		parts = append(parts, strconv.Quote(name)+":"+gen())
	}
	rng.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
	if rng.IntN(20) == 0 && len(parts) > 0 {
		parts = parts[1:]
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// FuzzPaths is the differential target: for any input, the fast path and
// the reference path give the same verdict, the same value and the same
// problems.
func FuzzPaths(f *testing.F) {
	f.Add(`{"city":"Paris","small":1}`)
	f.Add(`{"city":"New York","small":-128,"tags":["a"],"stops":[{"name":"s"}],"tree":{"value":1,"children":[{"value":2}]}}`)
	f.Add(`{"city":"Rome","small":1,"when":"2024-01-02T03:04:05Z","blob":"aGk=","extra":[1,{"a":null}]}`)
	f.Add(`{"in":{"small":1000000},"in":{"name":"x"}}`)
	f.Add(`{"ci\u0074y":"Paris","small":1.0,"extra":[1e-401]}`)
	// Long enough for the byte scanner's word-at-a-time reads.
	f.Add(`{"city":"New York","small":1,"tags":["a long tag\nwith é and \u00e9","\ud83d\ude00 and more text"],"scores":{"k\u00e9y one":1.5},"stops":[{"name":"first stop of many"},{"name":"b","hours":2}]}`)
	// Lists too long to count first, read into a pooled slice.
	f.Add(`{"city":"Oslo","small":2,"stops":[` + strings.Repeat(`{"name":"a stop on the way","hours":2},{"name":"b"},`, 8) + `{"name":"last"}],"tree":{"value":1,"children":[` + strings.Repeat(`{"value":2,"children":[{"value":3},{"value":4}]},`, 12) + `{"value":5}]}}`)
	// Values of the wrong type, longer than a snippet reads from its bytes:
	// an object whose members are not in sorted order, one inside a list,
	// and a string written with escapes.
	long := strings.Repeat("x", 300)
	f.Add(`{"city":{"z":1,"a":"` + long + `"},"small":1}`)
	f.Add(`{"city":[{"z":1,"a":"` + long + `"}],"small":1}`)
	f.Add(`{"city":"Oslo","small":"\u0074` + long + `"}`)
	c := checkerFor[richArgs](f)
	f.Fuzz(func(t *testing.T, args string) {
		checkPaths[richArgs](t, c, args)
	})
}
