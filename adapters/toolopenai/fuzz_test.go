package toolopenai

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/internal/adapt/adapttest"
)

func fuzzRegistry() *toolreg.Registry {
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("get_weather", "Forecast.", func(_ context.Context, a adapttest.WeatherArgs) (adapttest.Forecast, error) {
		return adapttest.Forecast{City: a.City}, nil
	}))
	return reg
}

// FuzzDispatch feeds arbitrary provider payloads to both dispatch paths:
// never a panic, one tool message per call, valid JSON out.
func FuzzDispatch(f *testing.F) {
	f.Add([]byte(`[{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\"}"}}]`))
	f.Add([]byte(`[{"id":"c1","type":"function","function":{"name":"get_weather","arguments":{"city":"Oslo","days":null}}},{"id":"c2","function":{"name":"x"}}]`))
	f.Add([]byte(`[{"id":1,"function":"nope"}]`))
	strict := NewChat(fuzzRegistry(), WithStrict())
	plain := NewChat(fuzzRegistry())
	f.Fuzz(func(t *testing.T, payload []byte) {
		for _, a := range []*Chat{plain, strict} {
			out, err := a.CallAllJSON(context.Background(), payload)
			if err == nil && !json.Valid(out) {
				t.Fatalf("invalid JSON out: %s", out)
			}
			var msg openai.ChatCompletionMessage
			if json.Unmarshal([]byte(`{"role":"assistant","tool_calls":`+string(payload)+`}`), &msg) == nil {
				if got := a.CallAll(context.Background(), msg); len(got) != len(msg.ToolCalls) {
					t.Fatalf("%d messages for %d calls", len(got), len(msg.ToolCalls))
				}
			}
		}
	})
}
