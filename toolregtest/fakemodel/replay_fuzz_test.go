package fakemodel_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReplay: whatever a recording holds, Replay refuses it with a
// failure or plays it, and whatever the client then sends on any
// provider's path, the server answers and reads the run without a panic.
func FuzzReplay(f *testing.F) {
	exchange := func(path, response string) string {
		return `{"exchanges":[{"request":{"method":"POST","path":"` + path + `","body":{}},"response":` + response + `}]}`
	}
	for _, seed := range []struct{ file, path, body string }{
		{exchange("/v1/chat/completions", `{"status":200,"header":{"Content-Type":"text/event-stream"},"events":[{"data":{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{"}}]}}]}},{"text":"[DONE]"}]}`), "/v1/chat/completions", `{}`},
		{exchange("/v1/messages", `{"status":200,"body":{"type":"message","content":[{"type":"tool_use","id":"t","name":"f","input":7}]}}`), "/v1/messages", `{}`},
		{exchange("/v1/messages", `{"status":200,"header":{"Content-Type":"text/event-stream"},"events":[{"event":"content_block_start","data":{"type":"content_block_start","index":{},"content_block":{"type":"tool_use"}}},{"text":"a\nb"}]}`), "/v1/messages", `{}`},
		{exchange("/v1/responses", `{"status":200,"events":[{"data":{"type":"response.output_item.done","item":[]}}]}`), "/v1/responses", `{}`},
		{exchange("/v1beta/models/g:generateContent", `{"status":429,"header":{"Retry-After":"x"},"body":{"candidates":[{"content":{"parts":[{"functionCall":{"name":1}}]}}]}}`), "/v1beta/models/g:generateContent", `{}`},
		{exchange("/model/m/converse-stream", `{"status":200,"header":{"Content-Type":"application/vnd.amazon.eventstream"},"events":[{"event":"contentBlockDelta","data":{"contentBlockIndex":null,"delta":{"toolUse":{"input":1}}}}]}`), "/model/m/converse-stream", `{}`},
		{exchange("/x", `{"status":200,"text":"plain"}`), "/x", `not json`},
		{`{"exchanges":[{}]}`, "/", ``},
	} {
		f.Add(seed.file, seed.path, seed.body)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, file, path, body string) {
		name := filepath.Join(dir, "x.json") // one at a time in a process
		if err := os.WriteFile(name, []byte(file), 0o644); err != nil {
			t.Fatal(err)
		}
		rec := &recorder{}
		s := replay(rec, name)
		if s != nil {
			for range 2 {
				w := httptest.NewRecorder()
				req := httptest.NewRequest(http.MethodPost, "http://fake/", strings.NewReader(body))
				req.URL.Path = path
				s.ServeHTTP(w, req)
				if w.Code < 200 || w.Code > 599 {
					t.Errorf("status %d", w.Code)
				}
			}
			for _, r := range s.Requests() {
				r.ToolResults()
			}
			s.Calls()
		}
		rec.end()
	})
}
