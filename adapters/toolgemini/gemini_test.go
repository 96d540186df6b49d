package toolgemini

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/internal/adapt/adapttest"
	"google.golang.org/genai"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// fakeGemini plays generateContent with the given replies.
func fakeGemini(replies ...string) *adapttest.API {
	return &adapttest.API{Replies: replies, Error: func(msg string) string {
		return `{"error":{"code":500,"message":` + msg + `,"status":"INTERNAL"}}`
	}}
}

func newClient(t *testing.T, f *adapttest.API) *genai.Client {
	t.Helper()
	return newVersionClient(t, f, "")
}

// newVersionClient is newClient on the API version named, the SDK's
// default ("v1" since genai v1.78) when version is empty.
func newVersionClient(t *testing.T, f *adapttest.API, version string) *genai.Client {
	t.Helper()
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: "test", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: f.Serve(t), APIVersion: version},
	})
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// reply is a generateContent response whose one candidate is content,
// given as JSON.
func reply(content string) string {
	return `{"candidates":[{"content":` + content + `,"finishReason":"STOP","index":0}],` +
		`"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":5,"totalTokenCount":15},"modelVersion":"gemini-test"}`
}

func answer(text string) string {
	b, _ := json.Marshal(map[string]any{"role": "model", "parts": []any{map[string]any{"text": text}}})
	return reply(string(b))
}

func parse(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%v in %s", err, s)
	}
	return v
}

// TestRequestTools sends the declarations through the real SDK and checks
// the tools of the request body against golden files, and ToolsJSON
// against what the SDK sent.
func TestRequestTools(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []Option
	}{
		{"tools.json", nil},
		{"tools_legacy.json", []Option{WithLegacySchema()}},
		{"tools_no_response.json", []Option{WithoutResponseSchema()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The SDK's default version (v1) and v1beta are sent the
			// same tools, byte for byte: one golden file for both.
			var sent []any
			for _, version := range []string{"", "v1beta"} {
				f := fakeGemini(answer("hi"))
				client := newVersionClient(t, f, version)
				a := New(adapttest.Registry(nil), tc.opts...)
				tools, err := a.Tools()
				if err != nil {
					t.Fatal(err)
				}
				_, err = client.Models.GenerateContent(context.Background(), "gemini-test",
					genai.Text("hi"), &genai.GenerateContentConfig{Tools: tools})
				if err != nil {
					t.Fatal(err)
				}
				want := "/v1/models/gemini-test:generateContent"
				if version != "" {
					want = "/" + version + "/models/gemini-test:generateContent"
				}
				if f.Paths[0] != want {
					t.Errorf("path %s, want %s", f.Paths[0], want)
				}
				sent = append(sent, f.Requests[0]["tools"])
			}
			if diff := cmp.Diff(sent[0], sent[1]); diff != "" {
				t.Errorf("v1 and v1beta are sent other tools (-v1 +v1beta):\n%s", diff)
			}
			f := fakeGemini(answer("hi"))
			client := newClient(t, f)
			a := New(adapttest.Registry(nil), tc.opts...)
			tools, err := a.Tools()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := client.Models.GenerateContent(context.Background(), "gemini-test",
				genai.Text("hi"), &genai.GenerateContentConfig{Tools: tools}); err != nil {
				t.Fatal(err)
			}
			adapttest.GoldenValue(t, tc.name, f.Requests[0]["tools"], *update)
			wire, err := a.ToolsJSON()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(f.Requests[0]["tools"], parse(t, string(wire))); diff != "" {
				t.Errorf("ToolsJSON differs from what the SDK sends (-sdk +json):\n%s", diff)
			}
		})
	}
}

// TestToolsJSONKeepsPropertyOrder checks that ToolsJSON writes the
// properties in declaration order, not sorted, and no propertyOrdering.
func TestToolsJSONKeepsPropertyOrder(t *testing.T) {
	type args struct {
		Zeta  string `json:"zeta"`
		Alpha string `json:"alpha"`
		Mid   string `json:"mid"`
	}
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("order", "Keeps order.", func(context.Context, args) (string, error) { return "", nil }))
	wire, err := New(reg).ToolsJSON()
	if err != nil {
		t.Fatal(err)
	}
	s := string(wire)
	z, a, m := strings.Index(s, `"zeta":{`), strings.Index(s, `"alpha":{`), strings.Index(s, `"mid":{`)
	if !(0 <= z && z < a && a < m) {
		t.Errorf("property order lost: %s", s)
	}
	// No propertyOrdering: it would repeat every name on every request, for
	// an order the arguments (an unordered Struct) do not keep anyway.
	tools, err := New(reg, WithLegacySchema()).Tools()
	if err != nil {
		t.Fatal(err)
	}
	if got := tools[0].FunctionDeclarations[0].Parameters.PropertyOrdering; got != nil {
		t.Errorf("legacy propertyOrdering %v, want none", got)
	}
	if strings.Contains(s, "propertyOrdering") {
		t.Errorf("propertyOrdering sent: %s", s)
	}
}

// TestFixtures checks the declarations of the get_weather tool against
// the golden fixtures in testdata.
func TestFixtures(t *testing.T) {
	type args struct {
		Location string `json:"location" jsonschema:"description=City name\\, e.g. Paris"`
		Unit     string `json:"unit,omitempty" jsonschema:"enum=celsius,enum=fahrenheit,description=Temperature unit"`
		Days     *int   `json:"days,omitempty" jsonschema:"minimum=1,maximum=7,description=Forecast length in days"`
	}
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("get_weather", "Get the weather forecast for a city.",
		func(context.Context, args) (string, error) { return "", nil }))
	for _, tc := range []struct {
		fixture string
		opts    []Option
	}{
		{"gemini.tool.json", nil},
		{"gemini.tool.schema-form.json", []Option{WithLegacySchema()}},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", "fixtures", tc.fixture))
			if err != nil {
				t.Fatal(err)
			}
			wire, err := New(reg, tc.opts...).ToolsJSON()
			if err != nil {
				t.Fatal(err)
			}
			got := parse(t, string(wire)).([]any)[0].(map[string]any)
			decl := got["functionDeclarations"].([]any)[0].(map[string]any)
			if ps, ok := decl["parametersJsonSchema"].(map[string]any); ok {
				// The fixture leaves out additionalProperties:false, which
				// parametersJsonSchema accepts.
				if ps["additionalProperties"] != false {
					t.Errorf("additionalProperties = %v, want false", ps["additionalProperties"])
				}
				delete(ps, "additionalProperties")
			}
			fixture := parse(t, string(want))
			// The fixture's parameters list propertyOrdering, which we
			// leave out (see TestToolsJSONKeepsPropertyOrder).
			fd := fixture.(map[string]any)["functionDeclarations"].([]any)[0].(map[string]any)
			if p, ok := fd["parameters"].(map[string]any); ok {
				delete(p, "propertyOrdering")
			}
			if diff := cmp.Diff(fixture, any(got)); diff != "" {
				t.Errorf("(-fixture +got):\n%s", diff)
			}
		})
	}
}

// TestTurn drives a whole turn through the SDK: a model turn with parallel
// calls (success, tool error, invalid arguments, unknown tool, a
// no-argument tool, a call without id) and a thoughtSignature, then the
// follow-up request, which must carry the model turn unchanged and one
// functionResponse per call, in call order and in Gemini's shape.
func TestTurn(t *testing.T) {
	sig := base64.StdEncoding.EncodeToString([]byte("opaque thought signature \x00\xff"))
	modelTurn := `{"role":"model","parts":[
		{"text":"Let me check."},
		{"functionCall":{"id":"fc-1","name":"get_weather","args":{"city":"Paris","days":2}},"thoughtSignature":"` + sig + `"},
		{"functionCall":{"id":"fc-2","name":"get_weather","args":{"city":"Atlantis"}}},
		{"functionCall":{"id":"fc-3","name":"get_weather","args":{"city":"Rome","days":"two"}}},
		{"functionCall":{"id":"fc-4","name":"get_wether","args":{"city":"Oslo"}}},
		{"functionCall":{"id":"fc-5","name":"get_time"}},
		{"functionCall":{"name":"get_weather","args":{"city":"Lima","unit":"fahrenheit"}}}]}`
	f := fakeGemini(reply(modelTurn), answer("Paris: 2 days. The time is 10:00."))
	client := newClient(t, f)
	a := New(adapttest.Registry(nil))
	tools, err := a.Tools()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	config := &genai.GenerateContentConfig{Tools: tools}
	history := genai.Text("plan my week")
	resp, err := client.Models.GenerateContent(ctx, "gemini-test", history, config)
	if err != nil {
		t.Fatal(err)
	}
	model := resp.Candidates[0].Content
	if got := string(model.Parts[1].ThoughtSignature); got != "opaque thought signature \x00\xff" {
		t.Fatalf("the SDK decoded the signature as %q", got)
	}
	results := a.CallAll(ctx, model)
	history = append(history, model, results)
	resp, err = client.Models.GenerateContent(ctx, "gemini-test", history, config)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text() != "Paris: 2 days. The time is 10:00." {
		t.Errorf("answer %q", resp.Text())
	}
	if len(f.Requests) != 2 {
		t.Fatalf("%d requests", len(f.Requests))
	}
	contents := f.Requests[1]["contents"].([]any)
	if len(contents) != 3 {
		t.Fatalf("follow-up has %d contents: %v", len(contents), contents)
	}
	if diff := cmp.Diff(parse(t, modelTurn), contents[1]); diff != "" {
		t.Errorf("the model turn did not go back unchanged (-received +sent):\n%s", diff)
	}
	want := parse(t, `{"role":"user","parts":[
		{"functionResponse":{"id":"fc-1","name":"get_weather","response":{"output":{"city":"Paris","days":2,"unit":"celsius"}}}},
		{"functionResponse":{"id":"fc-2","name":"get_weather","response":{"error":"no weather station in Atlantis; try a real city"}}},
		{"functionResponse":{"id":"fc-3","name":"get_weather","response":{"error":"invalid arguments for tool \"get_weather\":\n- days: expected integer, got \"two\"\nFix the arguments and call the tool again."}}},
		{"functionResponse":{"id":"fc-4","name":"get_wether","response":{"error":"there is no tool named \"get_wether\"; available tools: get_weather, get_time"}}},
		{"functionResponse":{"id":"fc-5","name":"get_time","response":{"output":"2026-12-02T10:00:00Z"}}},
		{"functionResponse":{"name":"get_weather","response":{"output":{"city":"Lima","days":1,"unit":"fahrenheit"}}}}]}`)
	if diff := cmp.Diff(want, contents[2]); diff != "" {
		t.Errorf("function responses (-want +got):\n%s", diff)
	}
}

func TestToolCalls(t *testing.T) {
	a := New(adapttest.Registry(nil))
	for _, tc := range []struct {
		name    string
		content *genai.Content
		want    []toolreg.ToolCall
	}{
		{"nil", nil, nil},
		{"text only", genai.NewContentFromText("hello", genai.RoleModel), nil},
		{"calls among other parts", &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{
			nil,
			{Text: "thinking", Thought: true, ThoughtSignature: []byte("s")},
			{FunctionCall: &genai.FunctionCall{ID: "a", Name: "get_weather", Args: map[string]any{"city": "Oslo", "days": 3.0}}},
			{FunctionCall: &genai.FunctionCall{Name: "get_time"}},
			{FunctionCall: &genai.FunctionCall{Name: "get_time", Args: map[string]any{}}},
		}}, []toolreg.ToolCall{
			{ID: "a", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Oslo","days":3}`)},
			{Name: "get_time", Arguments: json.RawMessage(`{}`)},
			{Name: "get_time", Arguments: json.RawMessage(`{}`)},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, a.ToolCalls(tc.content)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if got := a.CallAll(context.Background(), genai.NewContentFromText("hello", genai.RoleModel)); got != nil {
		t.Errorf("a turn without calls was answered: %+v", got)
	}
}

// TestCallUnencodableArgs: args that cannot be JSON never reach the tool
// as "no arguments".
func TestCallUnencodableArgs(t *testing.T) {
	out := New(adapttest.Registry(nil)).CallAll(context.Background(), &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{
		{FunctionCall: &genai.FunctionCall{Name: "get_weather", Args: map[string]any{"city": "Oslo", "days": math.NaN()}}},
	}})
	resp := out.Parts[0].FunctionResponse.Response
	if _, ok := resp["error"]; !ok || len(resp) != 1 {
		t.Errorf("response = %v, want an error", resp)
	}
}

// TestCallStructuredResult checks the Go value of a structured output:
// the result's JSON, held as raw bytes.
func TestCallStructuredResult(t *testing.T) {
	out := New(adapttest.Registry(nil)).CallAll(context.Background(), &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{
		{FunctionCall: &genai.FunctionCall{ID: "x", Name: "get_weather", Args: map[string]any{"city": "Oslo"}}},
	}})
	want := &genai.Content{Role: "user", Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{
		ID: "x", Name: "get_weather",
		Response: map[string]any{"output": json.RawMessage(`{"city":"Oslo","days":1,"unit":"celsius"}`)},
	}}}}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestCallAllJSON runs the fixtures in testdata: the model turn of
// gemini.call.json must be answered by gemini.result.json.
func TestCallAllJSON(t *testing.T) {
	type args struct {
		Location string `json:"location"`
		Unit     string `json:"unit,omitempty" jsonschema:"enum=celsius,enum=fahrenheit"`
	}
	type result struct {
		TemperatureC float64 `json:"temperature_c"`
		Conditions   string  `json:"conditions"`
	}
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("get_weather", "Get the weather forecast for a city.",
		func(_ context.Context, a args) (result, error) {
			if a.Location != "Paris" || a.Unit != "celsius" {
				return result{}, errors.New("unexpected arguments")
			}
			return result{TemperatureC: 18, Conditions: "partly cloudy"}, nil
		}))
	a := New(reg)
	call, err := os.ReadFile("testdata/fixtures/gemini.call.json")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/fixtures/gemini.result.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := a.CallAllJSON(context.Background(), call)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(parse(t, string(want)), parse(t, string(got))); diff != "" {
		t.Errorf("(-fixture +got):\n%s", diff)
	}

	// The exact bytes: the structured result verbatim, no HTML escaping,
	// no id for a call without one, arguments as sent (a float64 would
	// have made 9007199254740993 ...992).
	got, err = New(adapttest.Registry(nil)).CallAllJSON(context.Background(), json.RawMessage(`{"role":"model","parts":[
		{"text":"<hm>"},
		{"functionCall":{"name":"get_weather","args":{"city":"Tromsø & <Bodø>","days":3}}},
		{"functionCall":{"id":"big","name":"get_weather","args":{"city":"Oslo","days":9007199254740993}}},
		{"functionCall":{"id":"t","name":"get_time","args":null}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	wantJSON := `{"role":"user","parts":[` +
		`{"functionResponse":{"name":"get_weather","response":{"output":{"city":"Tromsø & <Bodø>","days":3,"unit":"celsius"}}}},` +
		`{"functionResponse":{"id":"big","name":"get_weather","response":{"error":"invalid arguments for tool \"get_weather\":\n- days: 9007199254740993 is greater than the maximum 7\nFix the arguments and call the tool again."}}},` +
		`{"functionResponse":{"id":"t","name":"get_time","response":{"output":"2026-12-02T10:00:00Z"}}}]}`
	if diff := cmp.Diff(wantJSON, string(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	got, err = a.CallAllJSON(context.Background(), json.RawMessage(`{"role":"model","parts":[{"text":"done"}]}`))
	if err != nil || string(got) != "null" {
		t.Errorf("a turn without calls: %s, %v", got, err)
	}
	for _, bad := range []string{`[]`, `{"parts":{}}`, `{"parts":[{"functionCall":[]}]}`, `nope`} {
		if _, err := a.CallAllJSON(context.Background(), json.RawMessage(bad)); err == nil {
			t.Errorf("%s was accepted", bad)
		}
	}
}

type tree struct {
	Name     string `json:"name"`
	Children []tree `json:"children"`
}

type optionalTree struct {
	Name     string         `json:"name"`
	Children []optionalTree `json:"children,omitempty"`
}

// TestUnsupportedSchemas: a tool the chosen form cannot express is an
// error naming the tool and the field, never a weaker schema.
func TestUnsupportedSchemas(t *testing.T) {
	type required struct {
		Root tree `json:"root"`
	}
	type optional struct {
		Root optionalTree `json:"root"`
	}
	for _, tc := range []struct {
		name   string
		tool   toolreg.AnyTool
		legacy string // the field the legacy form refuses, "" if accepted
		json   string // the field parametersJsonSchema refuses, "" if accepted
	}{
		{"map", adapttest.Tag, "labels", ""},
		{"recursive through required", toolreg.MustNew("plant", "Plants.", func(context.Context, required) (string, error) { return "", nil }), "root", "children"},
		{"recursive through optional", toolreg.MustNew("grow", "Grows.", func(context.Context, optional) (string, error) { return "", nil }), "root", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := toolreg.NewRegistry()
			reg.MustAdd(tc.tool)
			for _, mode := range []struct {
				opts  []Option
				field string
			}{{nil, tc.json}, {[]Option{WithLegacySchema()}, tc.legacy}} {
				tools, err := New(reg, mode.opts...).Tools()
				if mode.field == "" {
					if err != nil || len(tools[0].FunctionDeclarations) != 1 {
						t.Errorf("opts %d: %v", len(mode.opts), err)
					}
					continue
				}
				adapttest.WantUnsupported(t, err, tc.tool.Name(), mode.field)
				if tools != nil {
					t.Errorf("opts %d: tools returned with the error", len(mode.opts))
				}
			}
		})
	}
}

// TestResponseSchemaOnlyWhenExpressible: responseJsonSchema is declared for
// structured results the dialect accepts, and left out for the others.
func TestResponseSchemaOnlyWhenExpressible(t *testing.T) {
	reg := toolreg.NewRegistry()
	reg.MustAdd(
		toolreg.MustNew("text", "Text.", func(context.Context, struct{}) (string, error) { return "", nil }),
		toolreg.MustNew("list", "List.", func(context.Context, struct{}) ([]string, error) { return nil, nil }),
		toolreg.MustNew("tree", "Tree.", func(context.Context, struct{}) (tree, error) { return tree{}, nil }),
		toolreg.MustNew("fc", "Forecast.", func(context.Context, struct{}) (adapttest.Forecast, error) { return adapttest.Forecast{}, nil }),
	)
	tools, err := New(reg).Tools()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, d := range tools[0].FunctionDeclarations {
		got[d.Name] = d.ResponseJsonSchema != nil
	}
	want := map[string]bool{"text": false, "list": false, "tree": false, "fc": true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("has responseJsonSchema (-want +got):\n%s", diff)
	}
	legacy, err := New(reg, WithLegacySchema()).Tools()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range legacy[0].FunctionDeclarations {
		if d.Response != nil || d.ResponseJsonSchema != nil || d.ParametersJsonSchema != nil {
			t.Errorf("legacy %s declares more than parameters: %+v", d.Name, d)
		}
	}
}

// TestToolsCacheAndLateTools: declarations are built once per tool, and a
// tool added later shows up.
func TestToolsCacheAndLateTools(t *testing.T) {
	reg := adapttest.Registry(nil)
	a := New(reg)
	first, err := a.Tools()
	if err != nil {
		t.Fatal(err)
	}
	reg.MustAdd(toolreg.MustNew("get_date", "Today's date.", func(context.Context, struct{}) (string, error) { return "", nil }))
	second, err := a.Tools()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range second[0].FunctionDeclarations {
		names = append(names, d.Name)
	}
	if diff := cmp.Diff([]string{"get_weather", "get_time", "get_date"}, names); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	p1 := first[0].FunctionDeclarations[0].ParametersJsonSchema.(json.RawMessage)
	p2 := second[0].FunctionDeclarations[0].ParametersJsonSchema.(json.RawMessage)
	if &p1[0] != &p2[0] {
		t.Error("the schema was lowered again")
	}
	if first[0].FunctionDeclarations[0] == second[0].FunctionDeclarations[0] {
		t.Error("Tools handed out the cached declaration itself")
	}
	empty, err := New(toolreg.NewRegistry()).Tools()
	if empty != nil || err != nil {
		t.Errorf("empty registry: %v, %v", empty, err)
	}
	wire, err := New(toolreg.NewRegistry()).ToolsJSON()
	if string(wire) != "[]" || err != nil {
		t.Errorf("empty registry: %s, %v", wire, err)
	}
}

func TestDecodeSchemaRefusesUnknownKeys(t *testing.T) {
	if _, err := decodeSchema(json.RawMessage(`{"type":"OBJECT","additionalProperties":false}`)); err == nil || !strings.Contains(err.Error(), "additionalProperties") {
		t.Errorf("err = %v", err)
	}
	s, err := decodeSchema(json.RawMessage(`{"type":"OBJECT","properties":{"a":{"type":"INTEGER","minimum":1}},"propertyOrdering":["a"]}`))
	if err != nil || s.Properties["a"].Type != genai.TypeInteger || *s.Properties["a"].Minimum != 1 {
		t.Errorf("%+v, %v", s, err)
	}
}

type address struct {
	Street string  `json:"street"`
	Zip    *string `json:"zip,omitempty" jsonschema:"pattern=^[0-9]{5}$"`
}

type richArgs struct {
	Name    string      `json:"name" jsonschema:"minLength=1,maxLength=40"`
	Home    address     `json:"home"`
	Work    *address    `json:"work,omitempty"`
	Past    []address   `json:"past,omitempty" jsonschema:"maxItems=3"`
	Scores  []float64   `json:"scores" jsonschema:"minItems=1"`
	Level   int         `json:"level" jsonschema:"enum=1,enum=2,enum=3"`
	When    time.Time   `json:"when"`
	Note    *string     `json:"note,omitempty"`
	Matrix  [][]int     `json:"matrix,omitempty"`
	Flag    *bool       `json:"flag,omitempty"`
	Ratio   float64     `json:"ratio" jsonschema:"minimum=0,maximum=1"`
	Choices []string    `json:"choices,omitempty" jsonschema:"enum=a,enum=b"`
	Nested  [][]address `json:"nested,omitempty"`
}

// genaiSchemaKeys are the JSON names of genai.Schema's fields.
var genaiSchemaKeys = map[string]bool{
	"anyOf": true, "default": true, "description": true, "enum": true, "example": true, "format": true,
	"items": true, "maxItems": true, "maxLength": true, "maxProperties": true, "maximum": true,
	"minItems": true, "minLength": true, "minProperties": true, "minimum": true, "nullable": true,
	"pattern": true, "properties": true, "propertyOrdering": true, "required": true, "title": true, "type": true,
}

var genaiTypes = map[string]bool{"STRING": true, "NUMBER": true, "INTEGER": true, "BOOLEAN": true, "ARRAY": true, "OBJECT": true, "NULL": true}

// TestLegacySchemaWalk walks every lowered legacy schema as sent: no
// $ref/$defs, upper-case single types, only keys genai.Schema has.
func TestLegacySchemaWalk(t *testing.T) {
	reg := toolreg.NewRegistry()
	reg.MustAdd(
		toolreg.MustNew("rich", "Many shapes.", func(context.Context, richArgs) (string, error) { return "", nil }),
		toolreg.MustNew("plain", "No arguments.", func(context.Context, struct{}) (string, error) { return "", nil }),
		adapttest.RawTool{ToolName: "refs", Input: json.RawMessage(`{"type":"object","properties":{
			"a":{"$ref":"#/$defs/P"},
			"b":{"type":["string","null"]},
			"c":{"anyOf":[{"type":"integer"},{"type":"null"}],"description":"nullable"},
			"d":{"type":"array","items":{"$ref":"#/$defs/P"}},
			"e":{"const":"x"},
			"f":{"oneOf":[{"type":"string"},{"type":"integer"}]},
			"g":{"type":"number","exclusiveMinimum":0,"multipleOf":0.5}},
			"required":["a"],"additionalProperties":false,
			"$defs":{"P":{"type":"object","properties":{"x":{"type":["number","null"]}},"additionalProperties":false}}}`)},
	)
	wire, err := New(reg, WithLegacySchema()).ToolsJSON()
	if err != nil {
		t.Fatal(err)
	}
	decls := parse(t, string(wire)).([]any)[0].(map[string]any)["functionDeclarations"].([]any)
	if len(decls) != 3 {
		t.Fatalf("%d declarations", len(decls))
	}
	nodes := 0
	var walk func(path string, s any)
	walk = func(path string, s any) {
		nodes++
		obj, ok := s.(map[string]any)
		if !ok {
			t.Errorf("%s: schema is %T, not an object", path, s)
			return
		}
		for k, v := range obj {
			if !genaiSchemaKeys[k] {
				t.Errorf("%s: key %q is not a genai.Schema field", path, k)
			}
			switch k {
			case "type":
				if ty, ok := v.(string); !ok || !genaiTypes[ty] {
					t.Errorf("%s: type %v is not one upper-case genai type", path, v)
				}
			case "properties":
				for name, p := range v.(map[string]any) {
					walk(path+"."+name, p)
				}
			case "items":
				walk(path+"[]", v)
			case "anyOf":
				for i, b := range v.([]any) {
					walk(fmt.Sprintf("%s.anyOf[%d]", path, i), b)
				}
			}
		}
		if _, ok := obj["type"]; !ok && obj["anyOf"] == nil {
			t.Errorf("%s: no type", path)
		}
	}
	for _, d := range decls {
		d := d.(map[string]any)
		walk(d["name"].(string), d["parameters"])
	}
	if nodes < 40 {
		t.Errorf("walked only %d schemas", nodes)
	}
}
