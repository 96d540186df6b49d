package toolgemini

import (
	"testing"

	"github.com/toolreg/toolreg/internal/adapt/adapttest"
	"github.com/toolreg/toolreg/internal/specs"
)

// TestGoldensMatchPublishedSchema checks each golden request part
// against the published request schema (Vertex AI's, standing in for the
// Gemini API's: see internal/specs), set where it goes in a body. The
// bodies the other tests send are checked as they are received
// (adapttest.API).
func TestGoldensMatchPublishedSchema(t *testing.T) {
	adapttest.CheckGoldenParts(t, specs.GeminiAPI, `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`, []adapttest.GoldenPart{
		{File: "tools.json", Field: "tools"},
		{File: "tools_legacy.json", Field: "tools"},
		{File: "tools_no_response.json", Field: "tools"},
		{File: "media_beside.json", Field: "contents", Element: true},
		{File: "media_kinds.json", Field: "contents", Element: true},
		{File: "media_turn_bound.json", Field: "contents", Element: true},
	})
}
