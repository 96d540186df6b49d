package fakebedrock_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolreg/toolreg/agent"
	"github.com/toolreg/toolreg/toolregtest/fakemodel"
)

// TestRecordReplay records a run on Converse and ConverseStream from a
// scripted model standing in for Bedrock (AWS itself checks signatures
// made for its own host), then replays it with nothing behind it: the
// event-stream is kept as events and framed again.
func TestRecordReplay(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(map[bool]string{false: "converse", true: "stream"}[stream], func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "bedrock.json")
			want := []fakemodel.Called{
				{Name: "get_weather", Args: `{"city":"Paris"}`, Result: "18°C in Paris"},
				{Name: "get_weather", Args: `{"city":"Atlantis"}`, Result: "no station in Atlantis", IsError: true},
			}
			check := func(t *testing.T, s *fakemodel.Server) {
				r, err := run(t, s, agent.Options{Stream: stream})
				if err != nil {
					t.Fatal(err)
				}
				if r.Answer() != "It is 18°C in Paris." || r.Steps() != 2 {
					t.Errorf("answer %q, steps %d", r.Answer(), r.Steps())
				}
				s.AssertCalls(want...)
			}
			t.Run("record", func(t *testing.T) {
				live := fakemodel.New(t,
					fakemodel.Calls(fakemodel.ToolCall{Name: "get_weather", Args: `{"city":"Paris"}`}, fakemodel.ToolCall{Name: "get_weather", Args: `{"city":"Atlantis"}`}),
					fakemodel.Text("It is 18°C in Paris."))
				check(t, fakemodel.Replay(t, file, fakemodel.Record(), fakemodel.Upstream(fakemodel.Bedrock, live.URL())))
			})
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if stream != strings.Contains(string(data), `{"event":"contentBlockDelta","data":{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{\"c"}}}}`) {
				t.Errorf("the stream is not kept as events:\n%s", data)
			}
			t.Run("replay", func(t *testing.T) { check(t, fakemodel.Replay(t, file)) })
		})
	}
}
