package toolgemini

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toolreg/toolreg"
	"google.golang.org/genai"
)

// FuzzDispatch feeds arbitrary model content to both dispatch paths: never
// a panic, one functionResponse per functionCall, valid JSON out.
func FuzzDispatch(f *testing.F) {
	f.Add([]byte(`{"role":"model","parts":[{"functionCall":{"id":"a","name":"echo","args":{"s":"x"}}},{"functionCall":{"name":"nope"}}]}`))
	f.Add([]byte(`{"role":"model","parts":[{"text":"hi","thoughtSignature":"AAAA"},{"functionCall":{"name":"echo","args":{"s":1}}}]}`))
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("echo", "Echoes.", func(_ context.Context, a struct {
		S string `json:"s,omitempty"`
	}) (string, error) {
		return a.S, nil
	}))
	a := New(reg)
	f.Fuzz(func(t *testing.T, content []byte) {
		out, err := a.CallAllJSON(context.Background(), content)
		if err == nil && out != nil && !json.Valid(out) {
			t.Fatalf("invalid JSON out: %s", out)
		}
		var c genai.Content
		if json.Unmarshal(content, &c) == nil {
			calls := 0
			for _, p := range c.Parts {
				if p != nil && p.FunctionCall != nil {
					calls++
				}
			}
			resp := a.CallAll(context.Background(), &c)
			if calls > 0 && (resp == nil || len(resp.Parts) != calls) {
				t.Fatalf("%d calls, response %+v", calls, resp)
			}
		}
	})
}
