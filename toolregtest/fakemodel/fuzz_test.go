package fakemodel_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolreg/toolreg/toolregtest/fakemodel"
)

// FuzzRequest: whatever a client sends, on any provider's path, the
// server answers (a turn or a 500) and reads the request without a panic.
func FuzzRequest(f *testing.F) {
	for _, seed := range []string{
		`{"messages":[{"role":"assistant","tool_calls":[{"id":"x"}]},{"role":"tool","tool_call_id":"x","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]}]}`,
		`{"input":[{"type":"function_call_output","call_id":"x","output":[{"type":"input_file","file_data":"data:;base64,%%"}]}],"tools":[{"name":1}]}`,
		`{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","is_error":"yes","content":[{"type":"document","source":{"type":"url"}}]}]}]}`,
		`{"contents":[{"role":"model"},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"error":{"x":[1]}}}},{"inlineData":{"data":7}}]}]}`,
		`{"messages":[{"role":"user","content":[{"toolResult":{"toolUseId":"x","content":[{"json":null},{"image":{"format":"png","source":{"bytes":"!"}}}]}}]}],"toolConfig":{"tools":[{"toolSpec":{}}]}}`,
		`[]`, `null`, `{"messages":"x","tools":{"a":1}}`,
	} {
		for _, path := range []string{"/v1/chat/completions", "/v1/responses", "/v1/messages", "/v1beta/models/g:streamGenerateContent", "/model/m/converse-stream"} {
			f.Add(path, seed)
		}
	}
	f.Fuzz(func(t *testing.T, path, body string) {
		rec := &recorder{}
		s := start(rec, fakemodel.Calls(fakemodel.ToolCall{ID: "x", Name: "f", Args: `{}`}), fakemodel.Text("ok"))
		for range 2 {
			w := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodPost, "http://fake/", strings.NewReader(body))
			req.URL.Path = path
			s.ServeHTTP(w, req)
			if w.Code != http.StatusOK && w.Code != http.StatusInternalServerError {
				t.Errorf("status %d", w.Code)
			}
		}
		for _, r := range s.Requests() {
			r.Tools()
			r.ToolResults()
			r.Media()
		}
		s.Calls()
		rec.end()
	})
}
