package toolreg

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
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

func richTool(t testing.TB) *Tool[richArgs, string] {
	tool, err := New("rich", "Rich arguments.", func(context.Context, richArgs) (string, error) { return "", nil })
	if err != nil {
		t.Fatal(err)
	}
	if tool.fast == nil {
		t.Fatal("rich tool has no fast path")
	}
	return tool
}

// checkPaths runs one instance through both paths. When the fast path
// accepts, the validator must accept too and the reference decoder must
// produce the same value.
func checkPaths(t *testing.T, tool *Tool[richArgs, string], args string) (fastAccepted bool) {
	t.Helper()
	var fast richArgs
	ok := fastDecode(tool.fast, []byte(args), reflect.ValueOf(&fast).Elem())
	tree, err := parseArguments([]byte(args))
	validator, cerr := tool.compiled()
	if cerr != nil {
		t.Fatal(cerr)
	}
	valid := err == nil && validator.Validate(tree) == nil
	if !ok {
		return false
	}
	if !valid {
		t.Fatalf("fast path accepted what the validator rejects: %s", args)
	}
	var slow richArgs
	if err := decode(tool.plan, reflect.ValueOf(&slow).Elem(), tree, ""); err != nil {
		t.Fatalf("reference decode failed on %s: %v", args, err)
	}
	// RawMessage: the fast path keeps the bytes, the reference re-encodes.
	if !jsonEqual(fast.Raw, slow.Raw) {
		t.Errorf("raw differs on %s: fast %s, slow %s", args, fast.Raw, slow.Raw)
	}
	fast.Raw, slow.Raw = nil, nil
	if diff := cmp.Diff(slow, fast); diff != "" {
		t.Errorf("paths decode %s differently (-reference +fast):\n%s", args, diff)
	}
	return true
}

func jsonEqual(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && cmp.Equal(x, y)
}

func TestFastPathAgreesWithValidator(t *testing.T) {
	tool := richTool(t)
	accepted := []string{
		`{"city":"Paris","small":1}`,
		`{"city":"New York","small":-128,"unit":"fahrenheit","days":7,"count":99,"ratio":1,"f32":1.5,"tags":["a","b","c"],"pair":[1,2],"scores":{"x":1.5},"when":"2024-01-02T03:04:05+02:00","blob":"aGk=","extra":{"n":1},"raw":[1, {"b":2,"a":1}],"stops":[{"name":"s"},{"name":"t","hours":3}],"tree":{"value":1,"children":[{"value":2}]},"flag":true,"maybe":null}`,
		`{"city":"Rome","small":0,"ratio":0,"maybe":"x"}`,
		` {"city":"Oslo","small":127} `,
	}
	for _, a := range accepted {
		if !checkPaths(t, tool, a) {
			t.Errorf("fast path gave up on a plain valid call: %s", a)
		}
	}
	// The fast path gives up on these; the reference path decides.
	undecided := []string{
		`{"city":"Paris","small":1.0}`,         // integral float
		`{"city":"Paris","small":1,"small":2}`, // duplicate key
		`{"city":"Par\u0069s","small":1}`,      // escaped string: decided by unquoting
		`{"ci\u0074y":"Paris","small":1}`,      // escaped name
		`{"city":"Paris","small":128}`,         // out of range
		`{"city":"Paris","small":1,"count":100}`,
		`{"city":"Paris","small":1,"ratio":1.0000000000000001}`,
		`{"city":"Paris","small":1,"when":"2024-01-02t03:04:05z"}`,
		`{"city":"Paris","small":1,"days":null}`,
		`{"city":"Paris"}`,
		`{"city":"Paris","small":1,"nope":1}`,
		`{"city":"Paris","small":1} x`,
		`[]`,
	}
	for _, a := range undecided {
		checkPaths(t, tool, a)
	}
}

// TestFastPathRandom mutates valid calls at random and checks that the fast
// path never accepts what the validator rejects, and decodes like the
// reference path.
func TestFastPathRandom(t *testing.T) {
	tool := richTool(t)
	rng := rand.New(rand.NewPCG(1, 2))
	accepted := 0
	const n = 3000
	for range n {
		args := randomRich(rng)
		if checkPaths(t, tool, args) {
			accepted++
		}
	}
	t.Logf("fast path decided %d of %d random calls", accepted, n)
	if accepted < n/10 {
		t.Errorf("fast path decided only %d of %d calls", accepted, n)
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

// FuzzFastPath: for any input, the fast path never accepts what the
// validator rejects, and decodes what it accepts like the reference path.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func FuzzFastPath(f *testing.F) {
	f.Add(`{"city":"Paris","small":1}`)
	f.Add(`{"city":"New York","small":-128,"tags":["a"],"stops":[{"name":"s"}],"tree":{"value":1,"children":[{"value":2}]}}`)
	f.Add(`{"city":"Rome","small":1,"when":"2024-01-02T03:04:05Z","blob":"aGk=","extra":[1,{"a":null}]}`)
	tool := richTool(f)
	f.Fuzz(func(t *testing.T, args string) {
		checkPaths(t, tool, args)
	})
}
