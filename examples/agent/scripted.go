package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"
)

// scriptedModel is a stand-in for a model: an HTTP server speaking the
// Chat Completions wire protocol, so that the real SDK client and the real
// runner do the work. Its script plans a picnic: two weather calls in
// parallel, a conversion sent with wrong arguments and then corrected, and
// an answer built from the tools' real results.
type scriptedModel struct {
	srv *http.Server
	url string
}

const offlinePrompt = "Paris or Rome: where is it warmer tomorrow? Give the high in Fahrenheit."

func startScriptedModel() (*scriptedModel, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	m := &scriptedModel{url: "http://" + ln.Addr().String() + "/v1/"}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", m.complete)
	m.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go m.srv.Serve(ln)
	return m, nil
}

func (m *scriptedModel) Close() { m.srv.Close() }

type wireMessage struct {
	Role       string `json:"role"`
	Content    any    `json:"content"`
	ToolCallID string `json:"tool_call_id"`
}

type wireRequest struct {
	Stream   bool          `json:"stream"`
	Messages []wireMessage `json:"messages"`
	Tools    []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

type toolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func call(id, name, args string) toolCall {
	c := toolCall{ID: id, Type: "function"}
	c.Function.Name, c.Function.Arguments = name, args
	return c
}

func (m *scriptedModel) complete(w http.ResponseWriter, r *http.Request) {
	var req wireRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"bad request body"}}`, http.StatusBadRequest)
		return
	}
	sent := map[string]bool{}
	for _, t := range req.Tools {
		sent[t.Function.Name] = true
	}
	if !sent["get_weather"] || !sent["convert_temperature"] {
		http.Error(w, `{"error":{"message":"the scripted model needs get_weather and convert_temperature"}}`, http.StatusBadRequest)
		return
	}
	results := map[string]string{} // tool_call_id → content
	turns := 0
	for _, msg := range req.Messages {
		switch msg.Role {
		case "assistant":
			turns++
		case "tool":
			results[msg.ToolCallID], _ = msg.Content.(string)
		}
	}
	var calls []toolCall
	content := ""
	switch turns {
	case 0:
		calls = []toolCall{
			call("call_paris", "get_weather", `{"city":"Paris","days":2}`),
			call("call_rome", "get_weather", `{"city":"Rome","days":2}`),
		}
	case 1:
		_, high := warmer(results["call_paris"], results["call_rome"])
		// A typical slip: the number as a string and an unknown unit.
		calls = []toolCall{call("call_convert_1", "convert_temperature", fmt.Sprintf(`{"value":"%g","from":"C","to":"fahrenheit"}`, high))}
	case 2:
		if !strings.HasPrefix(results["call_convert_1"], "invalid arguments") {
			content = "I expected my conversion call to be refused; it was not: " + results["call_convert_1"]
			break
		}
		_, high := warmer(results["call_paris"], results["call_rome"])
		calls = []toolCall{call("call_convert_2", "convert_temperature", fmt.Sprintf(`{"value":%g,"from":"celsius","to":"fahrenheit"}`, high))}
	default:
		city, high := warmer(results["call_paris"], results["call_rome"])
		content = fmt.Sprintf("%s will be warmer tomorrow, with a high of %g °C (%s).", city, high, results["call_convert_2"])
		if missing := unforecast(results["call_paris"], results["call_rome"]); missing != "" {
			content = fmt.Sprintf("I have no forecast for %s; %s will have a high of %g °C (%s) tomorrow.", missing, city, high, results["call_convert_2"])
		}
	}
	reply := map[string]any{
		"id": fmt.Sprintf("chatcmpl-offline-%d", turns+1), "object": "chat.completion",
		"created": time.Now().Unix(), "model": "scripted-offline",
	}
	msg := map[string]any{"role": "assistant", "content": nil}
	finish := "tool_calls"
	if len(calls) > 0 {
		msg["tool_calls"] = calls
	} else {
		msg["content"], finish = content, "stop"
	}
	reply["choices"] = []map[string]any{{"index": 0, "message": msg, "finish_reason": finish}}
	if req.Stream {
		m.stream(w, reply, calls, content, finish)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(reply)
}

// stream writes the reply as the streaming API does: server-sent chunks,
// the text a word at a time and each call's arguments a few bytes at a
// time, then the finish reason and [DONE].
func (m *scriptedModel) stream(w http.ResponseWriter, reply map[string]any, calls []toolCall, content, finish string) {
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(delta map[string]any, finish any) {
		chunk := map[string]any{"id": reply["id"], "object": "chat.completion.chunk", "created": reply["created"], "model": reply["model"],
			"choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": finish}}}
		b, _ := json.Marshal(chunk)
		fmt.Fprintf(w, "data: %s\n\n", b)
		w.(http.Flusher).Flush()
	}
	send(map[string]any{"role": "assistant"}, nil)
	for _, word := range strings.SplitAfter(content, " ") {
		if word != "" {
			send(map[string]any{"content": word}, nil)
			time.Sleep(20 * time.Millisecond) // so that a reader sees it stream
		}
	}
	for i, c := range calls {
		send(map[string]any{"tool_calls": []map[string]any{{"index": i, "id": c.ID, "type": "function",
			"function": map[string]any{"name": c.Function.Name, "arguments": ""}}}}, nil)
		for args := c.Function.Arguments; args != ""; {
			n := min(len(args), 8)
			send(map[string]any{"tool_calls": []map[string]any{{"index": i, "function": map[string]any{"arguments": args[:n]}}}}, nil)
			args = args[n:]
		}
	}
	send(map[string]any{}, finish)
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// unforecast names the city of a get_weather result that is no forecast
// (the call was refused), or "".
func unforecast(paris, rome string) string {
	var f Forecast
	switch {
	case json.Unmarshal([]byte(paris), &f) != nil:
		return "Paris"
	case json.Unmarshal([]byte(rome), &f) != nil:
		return "Rome"
	}
	return ""
}

// warmer reads two get_weather results and returns the city with the higher
// high tomorrow (the second forecast day) and that high.
func warmer(a, b string) (string, float64) {
	var fa, fb Forecast
	json.Unmarshal([]byte(a), &fa)
	json.Unmarshal([]byte(b), &fb)
	high := func(f Forecast) float64 {
		if len(f.HighsC) < 2 {
			return -1000
		}
		return f.HighsC[1]
	}
	if high(fb) > high(fa) {
		return fb.City, high(fb)
	}
	return fa.City, high(fa)
}
