package specs

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCompile(t *testing.T) {
	for _, r := range []Request{OpenAIChat, OpenAIResponses, Vertex} {
		if _, err := schema(r); err != nil {
			t.Errorf("%v: %v", r, err)
		}
	}
}

// TestFilesRecordSource: each extracted file says where it came from and
// holds its roots.
func TestFilesRecordSource(t *testing.T) {
	for _, name := range []string{"openai.json", "vertex.json"} {
		raw, err := files.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		var s Schemas
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		if s.Source.Repo == "" || s.Source.Path == "" || s.Source.Commit == "" {
			t.Errorf("%s: source %+v lacks the repository, path or commit", name, s.Source)
		}
		for _, r := range s.Roots {
			if s.Defs[r] == nil {
				t.Errorf("%s: root %s is not in $defs", name, r)
			}
		}
	}
}

func TestForPath(t *testing.T) {
	for path, want := range map[string]Request{
		"/v1/chat/completions": OpenAIChat,
		"/v1/responses":        OpenAIResponses,
		"/v1beta1/publishers/google/models/gemini:streamGenerateContent":             Vertex,
		"/v1/projects/p/locations/l/publishers/google/models/gemini:generateContent": Vertex,
		"/v1/models/gemini:generateContent":                                          GeminiAPI,
		"/v1beta/models/gemini:streamGenerateContent":                                GeminiAPI,
	} {
		if got, ok := ForPath(path); !ok || got != want {
			t.Errorf("ForPath(%q) = %v, %v; want %v", path, got, ok, want)
		}
	}
	for _, path := range []string{"/v1/messages", "/v1beta/models/gemini:countTokens", "/model/m/converse", "/v1/responses/r1"} {
		if got, ok := ForPath(path); ok {
			t.Errorf("ForPath(%q) = %v; want none", path, got)
		}
	}
}

// TestCheck feeds bodies that lie about the API in the ways an adapter
// could: a field too many deep inside, a wrong type, a missing field.
func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		req  Request
		body string
		want []Violation
	}{
		{"chat valid", OpenAIChat, `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c","content":"ok"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"},"strict":true}}],"tool_choice":"auto","parallel_tool_calls":true}`, nil},
		{"chat unknown field in a tool message", OpenAIChat, `{"model":"m","messages":[{"role":"tool","tool_call_id":"c","content":"ok","is_error":true}]}`,
			[]Violation{{"/messages/0/is_error", "not a property the schema defines"}}},
		{"chat unknown top-level field", OpenAIChat, `{"model":"m","messages":[{"role":"user","content":"hi"}],"tool_search":true}`,
			[]Violation{{"/tool_search", "not a property the schema defines"}}},
		{"chat no messages", OpenAIChat, `{"model":"m"}`,
			[]Violation{{"/", "missing property 'messages'"}}},
		{"responses valid", OpenAIResponses, `{"model":"m","input":[{"type":"message","role":"user","content":"hi"},{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c","output":"ok"}],"tools":[{"type":"function","name":"f","parameters":{"type":"object","properties":{}},"strict":false},{"type":"namespace","name":"crm","description":"d","tools":[{"type":"function","name":"g","parameters":{"type":"object","required":["a"]}}]}],"previous_response_id":"r","store":true}`, nil},
		{"responses unknown field in an output", OpenAIResponses, `{"model":"m","input":[{"type":"function_call_output","call_id":"c","output":"ok","is_error":true}]}`,
			[]Violation{{"/input/0/is_error", "not a property the schema defines"}}},
		{"responses wrong type in a function tool", OpenAIResponses, `{"model":"m","input":"hi","tools":[{"type":"function","name":"f","strict":"yes"}]}`,
			// The published FunctionTool requires parameters (null allowed).
			[]Violation{{"/tools/0", "missing property 'parameters'"}, {"/tools/0/strict", "got string, want boolean or null"}}},
		{"vertex valid", Vertex, `{"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{"a":1}}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"ok":true},"parts":[{"inlineData":{"mimeType":"image/png","data":"AA=="}}]}}]}],"tools":[{"functionDeclarations":[{"name":"f","parametersJsonSchema":{"type":"object"}}]}],"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["f"]}},"generationConfig":{"maxOutputTokens":64,"candidateCount":null}}`, nil},
		{"vertex unknown field in a blob", Vertex, `{"contents":[{"role":"user","parts":[{"functionResponse":{"name":"f","response":{},"parts":[{"inlineData":{"mimeType":"image/png","data":"AA==","filename":"a.png"}}]}}]}]}`,
			[]Violation{{"/contents/0/parts/0/functionResponse/parts/0/inlineData/filename", "not a property the schema defines"}}},
		{"vertex snake_case enum value", Vertex, `{"contents":[],"toolConfig":{"functionCallingConfig":{"mode":"any"}}}`,
			[]Violation{{"/toolConfig/functionCallingConfig/mode", "value must be one of 'MODE_UNSPECIFIED', 'AUTO', 'ANY', 'NONE', 'VALIDATED', null"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Check(tc.req, []byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckNotJSON(t *testing.T) {
	if _, err := Check(OpenAIChat, []byte(`{"model":`)); err == nil {
		t.Error("a body that is not JSON passed")
	}
}
