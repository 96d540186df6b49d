package toolopenai

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolreg/toolreg/internal/specs"
)

// TestGoldensMatchPublishedSchema checks each golden request part
// against OpenAI's published request schema, set where it goes in a
// body. The bodies the other tests send are checked as they are
// received (adapttest.API).
func TestGoldensMatchPublishedSchema(t *testing.T) {
	chat := `{"model":"gpt-test","messages":[{"role":"user","content":"hi"}]}`
	responses := `{"model":"gpt-test","input":"hi"}`
	for _, tc := range []struct {
		golden string
		req    specs.Request
		base   string
		field  string
	}{
		{"chat_tools.json", specs.OpenAIChat, chat, "tools"},
		{"chat_tools_strict.json", specs.OpenAIChat, chat, "tools"},
		{"chat_media_kinds.json", specs.OpenAIChat, chat, "messages"},
		{"chat_media_turn_bound.json", specs.OpenAIChat, chat, "messages"},
		{"responses_tools.json", specs.OpenAIResponses, responses, "tools"},
		{"responses_namespaces.json", specs.OpenAIResponses, responses, "tools"},
		{"responses_media_kinds.json", specs.OpenAIResponses, responses, "input"},
		{"responses_media_turn_bound.json", specs.OpenAIResponses, responses, "input"},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			part, err := os.ReadFile(filepath.Join("testdata", tc.golden))
			if err != nil {
				t.Fatal(err)
			}
			var body map[string]json.RawMessage
			if err := json.Unmarshal([]byte(tc.base), &body); err != nil {
				t.Fatal(err)
			}
			body[tc.field] = part
			raw, err := json.Marshal(body)
			if err != nil {
				t.Fatal(err)
			}
			vs, err := specs.Check(tc.req, raw)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range vs {
				t.Errorf("%s as %s breaks %s at %s: %s", tc.golden, tc.field, tc.req.Root, v.Path, v.Message)
			}
		})
	}
}
