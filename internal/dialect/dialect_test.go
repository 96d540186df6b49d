package dialect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/toolreg/toolreg"

	"github.com/toolreg/toolreg/internal/jsonvalue"
)

var update = flag.Bool("update", false, "rewrite the golden files and core-made schemas under testdata")

// dialects are the lowerings under test, each with the rule walker of its
// provider.
var dialects = []struct {
	name  string
	lower func(json.RawMessage) (json.RawMessage, error)
	rules func([]byte) violations
}{
	{"compact", Compact, compactRules},
	{"openai_strict", OpenAIStrict, openAIStrictRules},
	{"anthropic", Anthropic, anthropicRules},
	{"anthropic_strict", AnthropicStrict, anthropicStrictRules},
	{"gemini_json", GeminiJSONSchema, geminiJSONRules},
	{"gemini_schema", GeminiSchema, geminiSchemaRules},
}

// Argument types whose canonical schemas the core makes for the golden
// tests (testdata/canonical/core_*.json).
type (
	optionalArgs struct {
		Name   string   `json:"name" jsonschema:"description=Who to greet"`
		Count  *int     `json:"count,omitempty" jsonschema:"description=How many times"`
		Loud   bool     `json:"loud,omitempty"`
		Ratio  float64  `json:"ratio,omitempty"`
		Prefix string   `json:"prefix" jsonschema:"default=Hello"`
		Tags   []string `json:"tags,omitempty"`
	}
	address struct {
		Street string  `json:"street"`
		City   string  `json:"city" jsonschema:"description=City name"`
		Zip    *string `json:"zip,omitempty"`
	}
	note struct {
		Text   string `json:"text"`
		Pinned *bool  `json:"pinned,omitempty"`
	}
	nestedArgs struct {
		Home  address   `json:"home"`
		Work  *address  `json:"work,omitempty" jsonschema:"description=Office (if any)"`
		Stops []address `json:"stops"`
		Notes []note    `json:"notes,omitempty"`
	}
	enumArgs struct {
		Unit  string  `json:"unit" jsonschema:"enum=celsius,enum=fahrenheit"`
		Level int     `json:"level" jsonschema:"enum=1,enum=2,enum=3"`
		Mode  *string `json:"mode,omitempty" jsonschema:"enum=fast,enum=slow,description=Speed"`
	}
	boundsArgs struct {
		Days  int      `json:"days" jsonschema:"minimum=1,maximum=7,description=Forecast length"`
		Small uint8    `json:"small"`
		Big   int64    `json:"big,omitempty"`
		Ratio float32  `json:"ratio,omitempty"`
		Code  string   `json:"code" jsonschema:"minLength=2,maxLength=8,pattern=^[A-Z]+$"`
		Items []int    `json:"items" jsonschema:"minItems=2,maxItems=5"`
		One   []string `json:"one" jsonschema:"minItems=1"`
	}
	treeNode struct {
		Name     string     `json:"name"`
		Children []treeNode `json:"children,omitempty"`
	}
	treeArgs struct {
		Root  treeNode  `json:"root"`
		Focus *treeNode `json:"focus,omitempty"`
	}
	denseNode struct { // recursion through a required property only
		Name string      `json:"name"`
		Kids []denseNode `json:"kids"`
	}
	denseTreeArgs struct {
		Root denseNode `json:"root"`
	}
	mapArgs struct {
		Labels map[string]string `json:"labels"`
		Counts map[string]int    `json:"counts,omitempty"`
	}
	anyArgs struct {
		Payload any             `json:"payload"`
		Raw     json.RawMessage `json:"raw,omitempty"`
	}
	specialArgs struct {
		At   time.Time `json:"at"`
		Addr net.IP    `json:"addr"`
		Blob []byte    `json:"blob,omitempty"`
	}
	emptyArgs  struct{}
	treeResult struct {
		Tree  *treeNode `json:"tree"`
		Note  *string   `json:"note"`
		Count int       `json:"count"`
		List  []int     `json:"list"`
	}
)

func inputOf[A any]() (json.RawMessage, error) {
	t, err := toolreg.New("t", "A test tool.", func(context.Context, A) (string, error) { return "", nil })
	if err != nil {
		return nil, err
	}
	return t.InputSchema(), nil
}

func outputOf[R any]() (json.RawMessage, error) {
	t, err := toolreg.New("t", "A test tool.", func(context.Context, emptyArgs) (R, error) { var r R; return r, nil })
	if err != nil {
		return nil, err
	}
	return t.OutputSchema(), nil
}

// coreSchemas are canonical schemas as the root package makes them.
var coreSchemas = []struct {
	name   string
	schema func() (json.RawMessage, error)
}{
	{"core_optional", inputOf[optionalArgs]},
	{"core_nested", inputOf[nestedArgs]},
	{"core_enums", inputOf[enumArgs]},
	{"core_bounds", inputOf[boundsArgs]},
	{"core_tree", inputOf[treeArgs]},
	{"core_densetree", inputOf[denseTreeArgs]},
	{"core_maps", inputOf[mapArgs]},
	{"core_any", inputOf[anyArgs]},
	{"core_special", inputOf[specialArgs]},
	{"core_empty", inputOf[emptyArgs]},
	{"core_result", outputOf[treeResult]},
}

// TestCoreSchemas keeps testdata/canonical/core_*.json equal to what the
// root package emits today, so the golden tests run on the real shape. A
// failure here means the core changed its output: rerun with -update and
// review the golden diffs it causes.
func TestCoreSchemas(t *testing.T) {
	for _, c := range coreSchemas {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.schema()
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join("testdata", "canonical", c.name+".json")
			if *update {
				writeFile(t, file, indent(t, got))
			}
			want := compactJSON(t, readFile(t, file))
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("the core's schema differs from %s (-want +got):\n%s", file, diff)
			}
		})
	}
}

// TestGolden lowers every canonical schema under testdata/canonical with
// every dialect, compares the result with testdata/golden/<schema>/<dialect>.golden,
// and checks it against the provider's rules.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "canonical", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no canonical schemas: %v", err)
	}
	for _, file := range files {
		input := readFile(t, file)
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		for _, d := range dialects {
			t.Run(name+"/"+d.name, func(t *testing.T) {
				before := bytes.Clone(input)
				out, err := d.lower(input)
				if !bytes.Equal(before, input) {
					t.Fatal("the input bytes changed")
				}
				var got []byte
				if err != nil {
					var de *Error
					if !errors.As(err, &de) || !errors.Is(err, ErrUnsupported) {
						t.Fatalf("error %v (%T) is not an *Error matching ErrUnsupported", err, err)
					}
					got = []byte("error: " + err.Error() + "\n")
				} else {
					got = indent(t, out)
					for _, v := range d.rules(out) {
						t.Errorf("breaks the %s rules: %s", d.name, v)
					}
					again, _ := d.lower(input)
					if !bytes.Equal(out, again) {
						t.Errorf("not deterministic:\n%s\n%s", out, again)
					}
				}
				golden := filepath.Join("testdata", "golden", name, d.name+".golden")
				if *update {
					writeFile(t, golden, got)
				}
				if diff := cmp.Diff(string(readFile(t, golden)), string(got)); diff != "" {
					t.Errorf("%s (-want +got):\n%s", golden, diff)
				}
			})
		}
	}
}

// TestFixtures lowers the research fixture's canonical schema and compares
// with the provider payloads written by hand in testdata/fixtures.
func TestFixtures(t *testing.T) {
	canonical := readFile(t, "testdata/fixtures/canonical.schema.json")
	tests := []struct {
		name    string
		lower   func(json.RawMessage) (json.RawMessage, error)
		fixture string
		path    []string // to the schema inside the fixture
		adjust  func(got, want map[string]any)
	}{
		{"openai_chat", OpenAIStrict, "openai_chat.tool.json", []string{"function", "parameters"}, nil},
		{"anthropic_strict", AnthropicStrict, "anthropic.tool.json", []string{"input_schema"}, nil},
		{"anthropic", Anthropic, "mcp.tool.json", []string{"inputSchema"}, nil}, // the canonical schema, less $schema
		{"gemini_json", GeminiJSONSchema, "gemini.tool.json", []string{"functionDeclarations", "0", "parametersJsonSchema"},
			// We also send additionalProperties:false, in Gemini's keyword
			// list, which the fixture leaves out.
			func(got, _ map[string]any) { delete(got, "additionalProperties") }},
		{"gemini_schema", GeminiSchema, "gemini.tool.schema-form.json", []string{"functionDeclarations", "0", "parameters"},
			// The fixture lists propertyOrdering, which we leave out (see
			// GeminiSchema).
			func(_, want map[string]any) { delete(want, "propertyOrdering") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := tt.lower(canonical)
			if err != nil {
				t.Fatal(err)
			}
			got, err := decodeJSON(out)
			if err != nil {
				t.Fatal(err)
			}
			want, err := decodeJSON(readFile(t, filepath.Join("testdata", "fixtures", tt.fixture)))
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range tt.path {
				switch w := want.(type) {
				case map[string]any:
					want = w[p]
				case []any:
					want = w[0]
				}
			}
			if tt.adjust != nil {
				tt.adjust(got.(map[string]any), want.(map[string]any))
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("lowered schema differs from the fixture %s (-want +got):\n%s", tt.fixture, diff)
			}
		})
	}
}

// manyProps is an object schema of n optional string properties.
func manyProps(n int) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"p` + strconv.Itoa(i) + `":{"type":"string"}`)
	}
	b.WriteString(`},"additionalProperties":false}`)
	return b.String()
}

// deep is an object schema whose objects nest levels deep: a.a.a...
func deep(levels int) string {
	s := `{"type":"string"}`
	for range levels {
		s = `{"type":"object","properties":{"a":` + s + `},"required":["a"],"additionalProperties":false}`
	}
	return s
}

// enums is an object schema of props properties, each an enum of n
// strings of about size characters.
func enums(props, n, size int) string {
	var vals []string
	for i := range n {
		vals = append(vals, `"`+strings.Repeat("x", size)+strconv.Itoa(i)+`"`)
	}
	var ps []string
	for i := range props {
		ps = append(ps, `"e`+strconv.Itoa(i)+`":{"type":"string","enum":[`+strings.Join(vals, ",")+`]}`)
	}
	return `{"type":"object","properties":{` + strings.Join(ps, ",") + `},"additionalProperties":false}`
}

// unions is an object schema of n nullable string properties.
func unions(n int) string {
	var props []string
	for i := range n {
		props = append(props, `"u`+strconv.Itoa(i)+`":{"type":["string","null"]}`)
	}
	return `{"type":"object","properties":{` + strings.Join(props, ",") + `},"additionalProperties":false}`
}

func TestErrors(t *testing.T) {
	core := func(name string) string { return string(readFile(t, "testdata/canonical/"+name+".json")) }

	tests := []struct {
		name   string
		lower  func(json.RawMessage) (json.RawMessage, error)
		schema string
		path   string // "*" for any
		reason string // a part of the reason; "" when the schema must pass
	}{
		{"not json", OpenAIStrict, `{"type":`, "", "not valid JSON"},
		{"root array", Anthropic, `[]`, "", "root"},
		{"root not object", GeminiJSONSchema, `{"type":"string"}`, "", "root schema of type object"},
		{"root anyOf", Anthropic, `{"type":"object","anyOf":[{"type":"object"}]}`, "", "anyOf at the root"},
		{"root ref", AnthropicStrict, `{"type":"object","$ref":"#/$defs/A","$defs":{"A":{"type":"object"}}}`, "", "$ref at the root"},
		{"too deep", Anthropic, strings.Repeat("[", 600) + strings.Repeat("]", 600), "", "nests more than"},

		{"openai map", OpenAIStrict, core("core_maps"), "labels", "open map"},
		{"openai free object", OpenAIStrict, `{"type":"object","properties":{"o":{"type":"object"}},"additionalProperties":false}`, "o", "without declared properties"},
		{"openai any", OpenAIStrict, core("core_any"), "payload", "any JSON value"},
		{"openai empty schema", OpenAIStrict, `{"type":"object","properties":{"e":{"description":"anything"}},"additionalProperties":false}`, "e", "any JSON value"},
		{"openai not", OpenAIStrict, `{"type":"object","properties":{"a":{"type":"string","not":{"const":"x"}}}}`, "a", `"not"`},
		{"openai allOf", OpenAIStrict, `{"type":"object","properties":{"a":{"allOf":[{"type":"integer"},{"minimum":1}]}}}`, "a", "allOf with several"},
		{"openai prefixItems", OpenAIStrict, `{"type":"object","properties":{"a":{"type":"array","prefixItems":[{"type":"integer"}]}}}`, "a", `"prefixItems"`},
		{"openai external ref", OpenAIStrict, `{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json"}}}`, "a", "not a local reference"},
		{"openai missing def", OpenAIStrict, `{"type":"object","properties":{"a":{"$ref":"#/$defs/Nope"}}}`, "a", "names no definition"},
		{"openai ref conflict", OpenAIStrict, `{"type":"object","$defs":{"A":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/A","type":"integer"}}}`, "a", "conflicts"},
		{"openai 5001 properties", OpenAIStrict, manyProps(5001), "", "at most 5000 object properties"},
		{"openai 11 levels", OpenAIStrict, deep(11), "a.a.a.a.a.a.a.a.a.a", "at most 10 levels"},
		{"openai 10 levels pass", OpenAIStrict, deep(10), "", ""},
		{"openai 1000 enum values pass", OpenAIStrict, enums(4, 250, 1), "", ""},
		{"openai 1001 enum values", OpenAIStrict, enums(7, 143, 1), "", "at most 1000 enum values"},
		{"openai big enum", OpenAIStrict, enums(1, 251, 60), "e0", "at most 15000 characters"},
		{"openai 120k characters", OpenAIStrict, enums(5, 200, 140), "", "at most 120000 characters"},

		{"openai dag depth", OpenAIStrict, dagSchema(40, false), "x" + strings.Repeat(".l", 39), "at most 10 levels"},
		{"gemini json dag", GeminiJSONSchema, dagSchema(40, false), "", ""},
		{"anthropic strict dag", AnthropicStrict, dagSchema(40, false), "*", "too large once its $refs are inlined"},
		{"gemini schema dag", GeminiSchema, dagSchema(40, false), "*", "too large once its $refs are inlined"},
		{"openai anyOf dag", OpenAIStrict, dagSchema(60, true), "", ""},
		{"anthropic strict recursion", AnthropicStrict, core("core_tree"), "root.children[]", "recursive"},
		{"anthropic strict map", AnthropicStrict, core("core_maps"), "labels", "open map"},
		{"anthropic strict any", AnthropicStrict, core("core_any"), "payload", "any JSON value"},
		{"anthropic strict object enum", AnthropicStrict, `{"type":"object","properties":{"e":{"enum":[{"a":1}]}}}`, "e", "primitive values"},
		{"anthropic strict 25 optional", AnthropicStrict, manyProps(25), "", "at most 24 optional properties"},
		{"anthropic strict 17 unions", AnthropicStrict, unions(17), "", "at most 16 properties using anyOf"},

		{"gemini json required recursion", GeminiJSONSchema, core("core_densetree"), "$defs.denseNode.kids[]", "only through optional properties"},
		{"gemini json boolean enum", GeminiJSONSchema, `{"type":"object","properties":{"b":{"enum":[true,false]}}}`, "b", "strings and numbers"},
		{"gemini json if", GeminiJSONSchema, `{"type":"object","properties":{"b":{"if":{"type":"string"}}}}`, "b", `"if"`},

		{"gemini schema recursion", GeminiSchema, core("core_tree"), "root.children[]", "recursive"},
		{"gemini schema map", GeminiSchema, core("core_maps"), "labels", "open map"},
		{"gemini schema any", GeminiSchema, core("core_any"), "payload", "any JSON value"},
		{"gemini schema property name", GeminiSchema, `{"type":"object","properties":{"a-b":{"type":"string"}}}`, "a-b", "property names"},
		{"gemini schema several types", GeminiSchema, `{"type":"object","properties":{"v":{"type":["string","integer"]}}}`, "v", "several types"},
		{"gemini schema boolean enum", GeminiSchema, `{"type":"object","properties":{"b":{"type":"boolean","enum":[true]}}}`, "b", "only string enum values"},
		{"gemini schema fractional minLength", GeminiSchema, `{"type":"object","properties":{"s":{"type":"string","minLength":1.5}}}`, "s", "minLength must be an integer"},
		{"gemini schema string maximum", GeminiSchema, `{"type":"object","properties":{"n":{"type":"number","maximum":"7"}}}`, "n", "maximum must be a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := tt.lower(json.RawMessage(tt.schema))
			if tt.reason == "" { // at a limit, not over it
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error; got %s", out)
			}
			var de *Error
			if !errors.As(err, &de) || !errors.Is(err, ErrUnsupported) {
				t.Fatalf("error %v (%T) is not an *Error matching ErrUnsupported", err, err)
			}
			if de.Path != tt.path && tt.path != "*" || !strings.Contains(de.Reason, tt.reason) {
				t.Errorf("got path %q reason %q; want path %q, a reason containing %q", de.Path, de.Reason, tt.path, tt.reason)
			}
		})
	}
}

// TestLimitErrors: a schema over a documented limit is refused with an
// error naming that limit; no other refusal names one.
func TestLimitErrors(t *testing.T) {
	limits := []error{ErrOpenAIProperties, ErrOpenAIDepth, ErrAnthropicOptional, ErrAnthropicUnions}
	for _, tc := range []struct {
		name   string
		lower  func(json.RawMessage) (json.RawMessage, error)
		schema string
		want   error // the limit; nil for a refusal of another kind
	}{
		{"openai 5001 properties", OpenAIStrict, manyProps(5001), ErrOpenAIProperties},
		{"openai 11 levels", OpenAIStrict, deep(11), ErrOpenAIDepth},
		{"anthropic strict 25 optional", AnthropicStrict, manyProps(25), ErrAnthropicOptional},
		{"anthropic strict 17 unions", AnthropicStrict, unions(17), ErrAnthropicUnions},
		{"openai 1001 enum values", OpenAIStrict, enums(7, 143, 1), nil},
		{"openai map", OpenAIStrict, `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"string"}}}}`, nil},
		{"anthropic strict recursion", AnthropicStrict, string(readFile(t, "testdata/canonical/core_tree.json")), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.lower(json.RawMessage(tc.schema))
			if !errors.Is(err, ErrUnsupported) {
				t.Fatalf("error %v does not match ErrUnsupported", err)
			}
			var got []error
			for _, l := range limits {
				if errors.Is(err, l) {
					got = append(got, l)
				}
			}
			var want []error
			if tc.want != nil {
				want = []error{tc.want}
			}
			if diff := cmp.Diff(want, got, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("%v: the limits it matches (-want +got):\n%s", err, diff)
			}
		})
	}
}

// TestAnthropicStrictCounts: the counts of a lowered schema are those
// AnthropicStrict checks one schema against.
func TestAnthropicStrictCounts(t *testing.T) {
	for _, tc := range []struct {
		name             string
		schema           string
		optional, unions int
	}{
		{"required only", deep(3), 0, 0},
		{"optional", manyProps(24), 24, 0},
		{"nullable", unions(16), 16, 16},
		{"nested optional in a nullable", `{"type":"object","properties":{"o":{"anyOf":[{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a"],"additionalProperties":false},{"type":"null"}]}},"additionalProperties":false}`, 2, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lowered, err := AnthropicStrict(json.RawMessage(tc.schema))
			if err != nil {
				t.Fatal(err)
			}
			optional, unions, err := AnthropicStrictCounts(lowered)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([2]int{tc.optional, tc.unions}, [2]int{optional, unions}); diff != "" {
				t.Errorf("optional and unions (-want +got):\n%s", diff)
			}
		})
	}
	if _, _, err := AnthropicStrictCounts(json.RawMessage(`{"type":`)); err == nil {
		t.Error("no error for a schema that is not JSON")
	}
}

// TestDescribe checks how moved keywords read in the description.
func TestDescribe(t *testing.T) {
	tests := []struct {
		name  string
		lower func(json.RawMessage) (json.RawMessage, error)
		prop  string // the property schema
		want  string // the lowered property schema
	}{
		{"anthropic bounds in schema order", AnthropicStrict, `{"type":"integer","maximum":7,"minimum":1,"description":"Days"}`,
			`{"type":"integer","description":"Days\n\n{minimum: 1, maximum: 7}"}`},
		{"anthropic type-range bounds left out", AnthropicStrict, `{"type":"integer","minimum":-9223372036854775808,"maximum":7}`,
			`{"type":"integer","description":"{maximum: 7}"}`},
		{"anthropic only type-range bounds", AnthropicStrict, `{"type":"number","minimum":-1e308,"exclusiveMaximum":9007199254740992,"description":"d"}`,
			`{"type":"number","description":"d"}`},
		{"anthropic without description", AnthropicStrict, `{"type":"string","maxLength":5}`,
			`{"type":"string","description":"{maxLength: 5}"}`},
		{"anthropic minItems 1 kept, 2 moved", AnthropicStrict, `{"type":"array","items":{"type":"string","minItems":1},"minItems":2}`,
			`{"type":"array","items":{"type":"string","minItems":1},"description":"{minItems: 2}"}`},
		{"anthropic unsupported format", AnthropicStrict, `{"type":"string","format":"slug"}`,
			`{"type":"string","description":"{format: slug}"}`},
		{"anthropic lookahead pattern", AnthropicStrict, `{"type":"string","pattern":"^(?=a)a+$"}`,
			`{"type":"string","description":"{pattern: ^(?=a)a+$}"}`},
		{"anthropic simple pattern kept", AnthropicStrict, `{"type":"string","pattern":"^\\d{3}-[a-z]+$"}`,
			`{"type":"string","pattern":"^\\d{3}-[a-z]+$"}`},
		{"openai string lengths and default", OpenAIStrict, `{"type":"string","minLength":1,"default":"x","description":"Name"}`,
			`{"type":"string","description":"Name\n\n{minLength: 1, default: x}"}`},
		{"openai default null dropped", OpenAIStrict, `{"type":"string","default":null}`,
			`{"type":"string"}`},
		{"openai composite values as JSON", OpenAIStrict, `{"type":"array","items":{"type":"integer"},"default":[1,2],"uniqueItems":true}`,
			`{"type":"array","items":{"type":"integer"},"description":"{uniqueItems: true, default: [1,2]}"}`},
		{"gemini json pattern", GeminiJSONSchema, `{"type":"string","pattern":"^a$","maxLength":3}`,
			`{"type":"string","description":"{maxLength: 3, pattern: ^a$}"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			schema := `{"type":"object","properties":{"p":` + tt.prop + `},"required":["p"],"additionalProperties":false}`
			out, err := tt.lower(json.RawMessage(schema))
			if err != nil {
				t.Fatal(err)
			}
			root, _ := jsonvalue.Parse(out)
			got := string(root.Get("properties").Get("p").Encode())
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestOpenAINullable checks the two nullable forms and the properties
// left alone.
func TestOpenAINullable(t *testing.T) {
	tests := []struct {
		name     string
		prop     string
		required bool
		want     string
	}{
		{"primitive", `{"type":"integer","minimum":1}`, false, `{"type":["integer","null"],"minimum":1}`},
		{"enum", `{"type":"string","enum":["a"],"description":"d"}`, false, `{"anyOf":[{"type":"string","enum":["a"]},{"type":"null"}],"description":"d"}`},
		{"array", `{"type":"array","items":{"type":"string"}}`, false, `{"anyOf":[{"type":"array","items":{"type":"string"}},{"type":"null"}]}`},
		{"anyOf gains a null branch", `{"type":"string","anyOf":[{"format":"ipv4"},{"format":"ipv6"}]}`, false,
			`{"anyOf":[{"type":"string","format":"ipv4"},{"type":"string","format":"ipv6"},{"type":"null"}]}`},
		{"already nullable", `{"type":["string","null"]}`, false, `{"type":["string","null"]}`},
		{"required stays", `{"type":"integer"}`, true, `{"type":"integer"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := `[]`
			if tt.required {
				req = `["p"]`
			}
			schema := `{"type":"object","properties":{"p":` + tt.prop + `},"required":` + req + `,"additionalProperties":false}`
			out, err := OpenAIStrict(json.RawMessage(schema))
			if err != nil {
				t.Fatal(err)
			}
			root, _ := jsonvalue.Parse(out)
			if diff := cmp.Diff(tt.want, string(root.Get("properties").Get("p").Encode())); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(`["p"]`, string(root.Get("required").Encode())); diff != "" {
				t.Errorf("required (-want +got):\n%s", diff)
			}
		})
	}
}

// dagSchema chains n definitions, each naming the next twice (as two
// properties, or as two anyOf branches): 2^n paths through the $refs.
func dagSchema(n int, anyOf bool) string {
	var defs []string
	for i := range n {
		next := `{"$ref":"#/$defs/D` + strconv.Itoa(i+1) + `"}`
		if i == n-1 {
			next = `{"type":"string"}`
		}
		def := `{"type":"object","properties":{"l":` + next + `,"r":` + next + `},"required":["l","r"],"additionalProperties":false}`
		if anyOf {
			def = `{"anyOf":[` + next + `,` + next + `]}`
		}
		defs = append(defs, `"D`+strconv.Itoa(i)+`":`+def)
	}
	return `{"type":"object","$defs":{` + strings.Join(defs, ",") + `},"properties":{"x":{"$ref":"#/$defs/D0"}},"required":["x"],"additionalProperties":false}`
}

func readFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t testing.TB, name string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func indent(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, b, "", "  "); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	buf.WriteByte('\n')
	return buf.Bytes()
}

func compactJSON(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestOmitted checks what every dialect leaves out of what the model
// reads, and what it keeps, on Compact, which applies nothing else.
func TestOmitted(t *testing.T) {
	rfc3339, base64 := namedPatterns[0].pattern, namedPatterns[1].pattern
	quote := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	tests := []struct {
		name, prop, want string
	}{
		{"int64 limits", `{"type":"integer","maximum":9223372036854775807,"minimum":-9223372036854775808}`, `{"type":"integer"}`},
		{"uint64 limit, minimum 0 kept", `{"type":"integer","maximum":18446744073709551615,"minimum":0}`, `{"type":"integer","minimum":0}`},
		{"float64 limits", `{"type":"number","maximum":1.7976931348623157e308,"minimum":-1.7976931348623157e308}`, `{"type":"number"}`},
		{"float32 limits", `{"type":"number","exclusiveMaximum":340282356779733661637539395458142568448,"exclusiveMinimum":-340282356779733661637539395458142568448}`, `{"type":"number"}`},
		{"int32 limits", `{"type":"integer","maximum":2147483647,"minimum":-2147483648}`, `{"type":"integer"}`},
		{"uint32 limit", `{"type":"integer","maximum":4294967295,"minimum":0}`, `{"type":"integer","minimum":0}`},
		{"2^53 and a literal past float64", `{"type":"number","maximum":9007199254740992,"minimum":-1e400}`, `{"type":"number"}`},
		{"int64 with a tag's maximum", `{"type":"integer","maximum":7,"minimum":-9223372036854775808}`, `{"type":"integer","maximum":7}`},
		{"narrow types kept", `{"type":"integer","maximum":255,"minimum":0}`, `{"type":"integer","maximum":255,"minimum":0}`},
		{"int16 kept", `{"type":"integer","maximum":32767,"minimum":-32768}`, `{"type":"integer","maximum":32767,"minimum":-32768}`},
		{"below 2^53 kept", `{"type":"integer","maximum":9007199254740991,"minimum":2147483648}`, `{"type":"integer","maximum":9007199254740991,"minimum":2147483648}`},
		{"RFC 3339 pattern beside date-time", `{"type":"string","pattern":` + quote(rfc3339) + `,"format":"date-time"}`, `{"type":"string","format":"date-time"}`},
		{"base64 pattern beside contentEncoding", `{"type":"string","pattern":` + quote(base64) + `,"contentEncoding":"base64"}`, `{"type":"string","contentEncoding":"base64"}`},
		{"another pattern beside date-time kept", `{"type":"string","pattern":"^2025-","format":"date-time"}`, `{"type":"string","pattern":"^2025-","format":"date-time"}`},
		{"RFC 3339 pattern alone kept", `{"type":"string","pattern":` + quote(rfc3339) + `}`, `{"type":"string","pattern":` + quote(rfc3339) + `}`},
		{"in items, branches and definitions", `{"type":"array","items":{"anyOf":[{"type":"integer","maximum":9223372036854775807},{"type":"null"}]}}`,
			`{"type":"array","items":{"anyOf":[{"type":"integer"},{"type":"null"}]}}`},
		{"enum and default values are data", `{"type":"integer","enum":[9223372036854775807],"default":9223372036854775807}`,
			`{"type":"integer","enum":[9223372036854775807],"default":9223372036854775807}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			schema := `{"type":"object","properties":{"p":` + tt.prop + `,"maximum":{"type":"string"}},"required":["p"],"additionalProperties":false}`
			out, err := Compact(json.RawMessage(schema))
			if err != nil {
				t.Fatal(err)
			}
			root, err := jsonvalue.Parse(out)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(root.Get("properties").Get("p").Encode())); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if root.Get("properties").Get("maximum") == nil {
				t.Error("a property named maximum was dropped")
			}
		})
	}
}

// TestEveryDialectOmits lowers an int64 and a time.Time with every dialect:
// neither the int64 limits nor the RFC 3339 pattern reach the model, in any
// form, while the canonical schema keeps both.
func TestEveryDialectOmits(t *testing.T) {
	type args struct {
		ID    int64      `json:"id"`
		Since *time.Time `json:"since,omitempty"`
	}
	canonical, err := inputOf[args]()
	if err != nil {
		t.Fatal(err)
	}
	gone := []string{"9223372036854775807", "9223372036854775808", "922337203685477", "[0-5][0-9]"}
	for _, s := range gone {
		if !strings.Contains(string(canonical), s) {
			t.Fatalf("the canonical schema lost %s: %s", s, canonical)
		}
	}
	for _, d := range dialects {
		out, err := d.lower(canonical)
		if err != nil {
			t.Fatalf("%s: %v", d.name, err)
		}
		for _, s := range gone {
			if strings.Contains(string(out), s) {
				t.Errorf("%s sends %s: %s", d.name, s, out)
			}
		}
		if !strings.Contains(string(out), `"date-time"`) {
			t.Errorf("%s lost the format: %s", d.name, out)
		}
	}
}

// TestNamedPatterns checks that namedPatterns are the patterns the core
// writes, beside the keywords that name them.
func TestNamedPatterns(t *testing.T) {
	schema, err := inputOf[specialArgs]()
	if err != nil {
		t.Fatal(err)
	}
	root, err := jsonvalue.Parse(schema)
	if err != nil {
		t.Fatal(err)
	}
	props := root.Get("properties")
	for i, field := range []string{"at", "blob"} {
		np := namedPatterns[i]
		p := props.Get(field)
		if got := p.Get(np.keyword); !got.IsString() || got.Text != np.value {
			t.Errorf("%s: %s is %v, want %q", field, np.keyword, got, np.value)
		}
		if diff := cmp.Diff(np.pattern, p.Get("pattern").Text); diff != "" {
			t.Errorf("%s: the core's pattern differs from namedPatterns[%d] (-ours +core):\n%s", field, i, diff)
		}
	}
}
