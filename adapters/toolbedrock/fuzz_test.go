package toolbedrock

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/toolreg/toolreg/internal/adapt/adapttest"
)

// FuzzTranscript reads any State transcript: a transcript that reads
// writes back to JSON that reads the same, and the calls of each of its
// messages have JSON arguments (or ones the registry refuses) and go
// through the registry without a panic.
func FuzzTranscript(f *testing.F) {
	f.Add([]byte(`[{"role":"assistant","content":[{"text":"Hi."},{"toolUse":{"toolUseId":"t1","name":"get_weather","input":{"city":"Oslo","days":2}}}]}]`))
	f.Add([]byte(`[{"role":"user","content":[{"toolResult":{"toolUseId":"t1","content":[{"json":{"x":1e400}},{"text":""}],"status":"error"}}]}]`))
	f.Add([]byte(`[{"role":"assistant","content":[{"reasoningContent":{"redactedContent":"aGk="}},{"toolUse":{"toolUseId":"t2","name":"x","input":[1,"2",null]}}]}]`))
	a := New(adapttest.Registry(nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs, err := decodeMessages(data)
		if err != nil {
			return
		}
		first, err := encodeMessages(msgs)
		if err != nil {
			t.Fatalf("read %s, cannot write it back: %v", data, err)
		}
		back, err := decodeMessages(first)
		if err != nil {
			t.Fatalf("cannot read what was written: %v\n%s", err, first)
		}
		if again, _ := encodeMessages(back); !bytes.Equal(first, again) {
			t.Fatalf("written twice differently:\n%s\n%s", first, again)
		}
		for _, m := range msgs {
			for _, c := range a.ToolCalls(m) {
				if !json.Valid(c.Arguments) && !bytes.HasPrefix(c.Arguments, []byte("unencodable input")) {
					t.Fatalf("arguments %q", c.Arguments)
				}
			}
			a.CallAll(t.Context(), m)
		}
	})
}
