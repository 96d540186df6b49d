package toolopenai

import (
	"testing"

	"github.com/toolreg/toolreg/internal/adapt/adapttest"
	"github.com/toolreg/toolreg/internal/specs"
)

// TestGoldensMatchPublishedSchema checks each golden request part
// against OpenAI's published request schema, set where it goes in a
// body. The bodies the other tests send are checked as they are
// received (adapttest.API).
func TestGoldensMatchPublishedSchema(t *testing.T) {
	adapttest.CheckGoldenParts(t, specs.OpenAIChat, `{"model":"gpt-test","messages":[{"role":"user","content":"hi"}]}`, []adapttest.GoldenPart{
		{File: "chat_tools.json", Field: "tools"},
		{File: "chat_tools_strict.json", Field: "tools"},
		{File: "chat_media_kinds.json", Field: "messages"},
		{File: "chat_media_turn_bound.json", Field: "messages"},
	})
	adapttest.CheckGoldenParts(t, specs.OpenAIResponses, `{"model":"gpt-test","input":"hi"}`, []adapttest.GoldenPart{
		{File: "responses_tools.json", Field: "tools"},
		{File: "responses_namespaces.json", Field: "tools"},
		{File: "responses_media_kinds.json", Field: "input"},
		{File: "responses_media_turn_bound.json", Field: "input"},
	})
}
