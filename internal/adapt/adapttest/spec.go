package adapttest

import (
	"crypto/sha256"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/toolreg/toolreg/internal/specs"
)

// specGap is a place where the published schema lags the API and the
// SDK: a body that breaks the schema there is not reported.
type specGap struct {
	request specs.Request
	path    *regexp.Regexp // of the value, a JSON pointer
	message *regexp.Regexp
	why     string
}

// specGaps are the published schemas' known gaps, each with why the body
// is right and the schema is not.
var specGaps = []specGap{{
	request: specs.GeminiAPI,
	path:    regexp.MustCompile(`^/toolConfig/includeServerSideToolInvocations$`),
	message: regexp.MustCompile(`^not a property the schema defines$`),
	why: "a field of the Gemini API alone (genai's ToolConfig: \"not supported in Vertex AI\"), " +
		"which a caller's config sets; Vertex's schema stands in for the Gemini API's",
}}

// checkSpecs validates every body f recorded against the provider's
// published request schema (where internal/specs has one for its path)
// and reports each violation, named by the test and the request's number,
// with the JSON pointer of the value that breaks it.
func (f *API) checkSpecs(t testing.TB) {
	if _, bench := t.(*testing.B); bench {
		return // a benchmark's thousands of identical bodies are checked by its tests
	}
	f.mu.Lock()
	raw, paths := f.Raw, f.Paths
	f.mu.Unlock()
	seen := map[[32]byte]bool{}
	for i, body := range raw {
		req, ok := specs.ForPath(paths[i])
		sum := sha256.Sum256(body)
		if !ok || seen[sum] {
			continue
		}
		seen[sum] = true
		vs, err := specs.Check(req, body)
		if err != nil {
			t.Errorf("%s request %d to %s: checking against the published schema: %v", t.Name(), i+1, paths[i], err)
			continue
		}
		for _, v := range vs {
			if !knownGap(req, v) {
				t.Errorf("%s request %d to %s breaks %s (%s) at %s: %s", t.Name(), i+1, paths[i], req.Root, req.API, v.Path, v.Message)
			}
		}
	}
}

func knownGap(req specs.Request, v specs.Violation) bool {
	for _, g := range specGaps {
		if g.request == req && g.path.MatchString(v.Path) && g.message.MatchString(v.Message) {
			return true
		}
	}
	return false
}

// GoldenPart is a golden file that holds a part of a request body: the
// value of Field, or one element of it when Element is set.
type GoldenPart struct {
	File    string
	Field   string
	Element bool
}

// CheckGoldenParts checks each golden part, read from testdata and set
// into the body base, against req's published request schema, and
// reports every violation with the file's name and the value's JSON
// pointer.
func CheckGoldenParts(t *testing.T, req specs.Request, base string, parts []GoldenPart) {
	t.Helper()
	for _, p := range parts {
		t.Run(p.File, func(t *testing.T) {
			part, err := os.ReadFile(filepath.Join("testdata", p.File))
			if err != nil {
				t.Fatal(err)
			}
			if p.Element {
				part = append(append([]byte("["), part...), ']')
			}
			var body map[string]json.RawMessage
			if err := json.Unmarshal([]byte(base), &body); err != nil {
				t.Fatal(err)
			}
			body[p.Field] = part
			raw, err := json.Marshal(body)
			if err != nil {
				t.Fatal(err)
			}
			vs, err := specs.Check(req, raw)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range vs {
				if knownGap(req, v) {
					continue
				}
				t.Errorf("%s as %s breaks %s (%s) at %s: %s", p.File, p.Field, req.Root, req.API, v.Path, v.Message)
			}
		})
	}
}
