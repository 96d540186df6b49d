package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/openai/openai-go/v3/option"
)

const offlinePrompt = "I ran 5 miles this morning in 41 minutes. How far is that in km, and what was my pace per km? Log the run."

// offlineModel points the OpenAI client at a scripted model that answers
// in-process: an http.RoundTripper speaking the Chat Completions protocol,
// so that the real SDK client and the real runner do the work, without a
// network. Its script converts the distance (first with a unit the tool
// refuses, then corrected), then works out the pace and logs the run in
// parallel, and answers from the tools' results.
func offlineModel(prefix string) []option.RequestOption {
	return []option.RequestOption{
		option.WithAPIKey("offline"),
		option.WithBaseURL("http://scripted.invalid/v1/"),
		option.WithHTTPClient(&http.Client{Transport: script{prefix: prefix}}),
	}
}

type script struct{ prefix string }

// chatRequest is what the script reads of a request.
type chatRequest struct {
	Messages []struct {
		Role       string `json:"role"`
		Content    any    `json:"content"`
		ToolCallID string `json:"tool_call_id"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name   string `json:"name"`
			Strict bool   `json:"strict"`
		} `json:"function"`
	} `json:"tools"`
}

func (s script) RoundTrip(r *http.Request) (*http.Response, error) {
	var req chatRequest
	err := json.NewDecoder(r.Body).Decode(&req)
	r.Body.Close()
	status, body := http.StatusOK, []byte(nil)
	if err == nil {
		body, err = s.reply(req)
	}
	if err != nil {
		status = http.StatusBadRequest
		body, _ = json.Marshal(map[string]any{"error": map[string]any{"message": err.Error()}})
	}
	return &http.Response{StatusCode: status, Status: http.StatusText(status), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(bytes.NewReader(body)), Request: r}, nil
}

// reply is the script: one turn per assistant message so far.
func (s script) reply(req chatRequest) ([]byte, error) {
	convert, calculate := s.prefix+"convert_units", s.prefix+"calculate"
	strict := map[string]bool{}
	for _, t := range req.Tools {
		strict[t.Function.Name] = t.Function.Strict
	}
	for _, name := range []string{convert, calculate, "log_run"} {
		if !strict[name] {
			return nil, fmt.Errorf("the scripted model needs the tool %s, in strict mode", name)
		}
	}
	results := map[string]string{} // tool_call_id → content
	turns := 0
	for _, m := range req.Messages {
		switch m.Role {
		case "assistant":
			turns++
		case "tool":
			results[m.ToolCallID], _ = m.Content.(string)
		}
	}
	var calls []map[string]any
	call := func(id, name, args string) {
		calls = append(calls, map[string]any{"id": id, "type": "function", "function": map[string]any{"name": name, "arguments": args}})
	}
	var answer string
	switch turns {
	case 0:
		// A typical slip: a unit's name where the tool wants its symbol.
		call("call_1", convert, `{"value":5,"from":"miles","to":"km","precision":2}`)
	case 1:
		call("call_2", convert, `{"value":5,"from":"mi","to":"km","precision":2}`)
	case 2:
		km := number(results["call_2"], " = ")
		call("call_3", calculate, fmt.Sprintf(`{"operation":"divide","a":41,"b":%g}`, km))
		call("call_4", "log_run", fmt.Sprintf(`{"km":%g,"minutes":41}`, km))
	default:
		var pace struct{ Value float64 }
		json.Unmarshal([]byte(results["call_3"]), &pace)
		minutes := int(pace.Value)
		seconds := int((pace.Value-float64(minutes))*60 + 0.5)
		answer = fmt.Sprintf("5 miles is %g km, a pace of %d:%02d per km. Your log: %s.", number(results["call_2"], " = "), minutes, seconds, results["call_4"])
	}
	msg := map[string]any{"role": "assistant", "content": nil}
	finish := "tool_calls"
	if calls != nil {
		msg["tool_calls"] = calls
	} else {
		msg["content"], finish = answer, "stop"
	}
	return json.Marshal(map[string]any{"id": fmt.Sprintf("chatcmpl-offline-%d", turns+1), "object": "chat.completion", "created": 0,
		"model": "scripted-offline", "choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}})
}

// number reads the number after sep in a result such as "5 mi = 8.05 km".
func number(result, sep string) float64 {
	_, after, _ := strings.Cut(result, sep)
	f, _ := strconv.ParseFloat(strings.Fields(after + " 0")[0], 64)
	return f
}
