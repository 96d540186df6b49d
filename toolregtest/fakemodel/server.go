package fakemodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Server is a model behind an httptest server: it answers each request
// with the next turn of its script, in the wire format of the API the
// client called, streamed when the client asked for a stream, and records
// every request. New starts one; the test's Cleanup closes it.
//
// It serves, on one address:
//   - OpenAI Chat Completions: POST …/chat/completions
//   - OpenAI Responses: POST …/responses
//   - Anthropic Messages: POST …/v1/messages
//   - Gemini, the Developer API and Vertex AI: POST …/models/{model}:generateContent
//     and :streamGenerateContent
//   - Amazon Bedrock Converse: POST /model/{model}/converse and
//     /converse-stream (a client from package fakebedrock of the
//     toolbedrock module)
//
// A request it cannot answer (another path, a body that is not JSON, a
// tool result for a call no turn made, a previous_response_id of no
// response it gave, or a request after the last turn)
// fails the test with t.Errorf naming the request and is answered with a
// 500 in the provider's shape, so the client fails at once instead of
// waiting. Turns the client never asked for fail the test when it ends.
type Server struct {
	t   testing.TB
	srv *httptest.Server

	mu       sync.Mutex
	script   []Turn
	next     int
	requests []Request
	made     []madeCall
	// answered are the requests answered with a reply, by number: a
	// Responses request goes on from one of them.
	answered map[int]bool
	// tape, when set, is the recording the server plays or makes
	// instead of a script (Replay).
	tape *tape
}

// madeCall is a call a turn made: the call as sent, the request it
// answered (its index in requests) and, for a call of EveryTool, what its
// result should be.
type madeCall struct {
	ToolCall
	request int
	expect  expectation
}

// New starts a Server answering with script, one turn per request. A
// malformed turn (an empty turn, arguments that are not a JSON object, a
// status that is not an error) stops the test with t.Fatalf naming it.
func New(t testing.TB, script ...Turn) *Server {
	t.Helper()
	if err := checkScript(script); err != nil {
		t.Fatalf("%v", err)
	}
	s := &Server{t: t, script: script}
	s.srv = httptest.NewServer(s)
	t.Cleanup(func() {
		s.srv.Close()
		s.mu.Lock()
		defer s.mu.Unlock()
		if left := len(s.script) - s.next; left > 0 && !t.Failed() {
			t.Errorf("fakemodel: %d of the script's %d turns were never asked for (the client sent %d requests)", left, len(s.script), len(s.requests))
		}
	})
	return s
}

// URL is the server's address, for a client this package has no options
// for.
func (s *Server) URL() string { return s.srv.URL }

// Requests are the requests the server received, in order, the ones it
// refused included.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// secrets are the headers that carry credentials: they are not recorded.
var secrets = []string{"Authorization", "X-Api-Key", "X-Goog-Api-Key", "Api-Key", "Proxy-Authorization", "X-Amz-Security-Token"}

// ServeHTTP answers one request with the next turn. The server New
// starts calls it; a test may also mount it on a server of its own (with
// TLS, say), with the same script and record.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.tape != nil {
		s.tape.serve(s, w, r)
		return
	}
	req, err := received(r)
	d, body := req.dialect, req.Body
	s.mu.Lock()
	n := len(s.requests) + 1
	s.requests = append(s.requests, req)
	what := fmt.Sprintf("request %d (%s %s)", n, r.Method, r.URL.Path)
	if d == nil || r.Method != http.MethodPost {
		s.mu.Unlock()
		s.refuse(w, nil, "fakemodel: %s: not an API this server plays; it answers POST to …/chat/completions, …/responses, …/v1/messages, …:generateContent, …:streamGenerateContent, /model/…/converse and /model/…/converse-stream", what)
		return
	}
	what = fmt.Sprintf("request %d (%s)", n, d.name())
	var fields map[string]any
	if err == nil {
		err = json.Unmarshal(body, &fields)
	}
	if err != nil {
		s.mu.Unlock()
		s.refuse(w, d, "fakemodel: %s: the body is not a JSON object: %v", what, err)
		return
	}
	s.requests[n-1].fields = fields
	for _, res := range d.results(fields) {
		if !s.madeLocked(res) {
			s.mu.Unlock()
			call := fmt.Sprintf("call %q", res.ID)
			if res.ID == "" {
				call = fmt.Sprintf("%s without a call id", res.Name)
			}
			s.refuse(w, d, "fakemodel: %s: a tool result for %s, which no turn of the script made", what, call)
			return
		}
	}
	if prev := text(fields["previous_response_id"]); prev != "" {
		var k int
		if _, err := fmt.Sscanf(prev, "resp_%d", &k); err != nil || !s.answered[k] || fmt.Sprintf("resp_%d", k) != prev {
			s.mu.Unlock()
			s.refuse(w, d, "fakemodel: %s: previous_response_id %q is no response this server gave", what, prev)
			return
		}
	}
	if s.next == len(s.script) {
		s.mu.Unlock()
		s.refuse(w, d, "fakemodel: %s: the script has no turn left: its %d turns were answered", what, len(s.script))
		return
	}
	turn := s.script[s.next]
	s.next++
	if turn.fn != nil {
		req := s.requests[n-1]
		s.mu.Unlock()
		var err error
		turn, err = play(turn.fn, req)
		if err != nil {
			s.refuse(w, d, "fakemodel: %s: the turn its function made: %v", what, err)
			return
		}
		s.mu.Lock()
	}
	if turn.Status == 0 {
		if s.answered == nil {
			s.answered = map[int]bool{}
		}
		s.answered[n] = true
	}
	turn.Calls = append([]ToolCall(nil), turn.Calls...)
	for i := range turn.Calls {
		if turn.Calls[i].ID == "" {
			turn.Calls[i].ID = d.id(n, i+1)
		}
		made := madeCall{ToolCall: turn.Calls[i], request: n - 1}
		if i < len(turn.expect) {
			made.expect = turn.expect[i]
		}
		s.made = append(s.made, made)
	}
	s.mu.Unlock()

	if turn.Status != 0 {
		if turn.RetryAfter > 0 {
			secs := int(math.Ceil(turn.RetryAfter.Seconds()))
			w.Header().Set("Retry-After", strconv.Itoa(secs))
			w.Header().Set("Retry-After-Ms", strconv.FormatInt(turn.RetryAfter.Milliseconds(), 10))
		}
		writeJSON(w, turn.Status, d.error(turn.Status, turn.Message))
		return
	}
	a := answer{Turn: turn, N: n, Model: model(r, fields)}
	if !d.streams(r, fields) {
		out, _ := json.Marshal(d.answer(a))
		if turn.Cut == CutDropped {
			drop(w, "application/json", out[:len(out)/2])
			return
		}
		writeJSON(w, http.StatusOK, out)
		return
	}
	events := d.events(a)
	if turn.Cut == CutDropped {
		events = events[:max(1, len(events)/2)]
	}
	contentType, out := sse(events)
	if f, ok := d.(framer); ok {
		contentType, out = f.frame(events)
	}
	if turn.Cut == CutDropped {
		drop(w, contentType, out)
		return
	}
	w.Header().Set("Content-Type", contentType)
	w.Write(out)
}

// received is r as Requests keeps it, less its credential headers, and
// the error reading its body, if any.
func received(r *http.Request) (Request, error) {
	body, err := io.ReadAll(r.Body)
	header := r.Header.Clone()
	for _, h := range secrets {
		header.Del(h)
	}
	return Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: header, Body: body, dialect: dialectOf(r)}, err
}

// framer is a dialect whose stream is not server-sent events.
type framer interface {
	frame(events []event) (contentType string, body []byte)
}

// sse writes events as server-sent events.
func sse(events []event) (contentType string, body []byte) {
	var b bytes.Buffer
	for _, e := range events {
		if e.name != "" {
			b.WriteString("event: " + e.name + "\n")
		}
		data, ok := e.data.(string)
		if !ok {
			raw, _ := json.Marshal(e.data)
			data = string(raw)
		}
		b.WriteString("data: " + data + "\n\n")
	}
	return "text/event-stream", b.Bytes()
}

// play is the turn fn makes for r, checked; a panic in fn is an error.
func play(fn func(Request) Turn, r Request) (turn Turn, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("it panicked: %v", p)
		}
	}()
	turn = fn(r)
	if turn.fn != nil {
		return Turn{}, fmt.Errorf("it made another function's turn")
	}
	return turn, turn.check()
}

// madeLocked says whether a turn made the call res answers: by id, or by
// name for a result without one (Gemini's).
func (s *Server) madeLocked(res ToolResult) bool {
	for _, c := range s.made {
		if (res.ID != "" && c.ID == res.ID) || (res.ID == "" && c.Name == res.Name) {
			return true
		}
	}
	return false
}

// refuse fails the test and answers with a 500 in d's error shape (one
// that every provider's client reads, without d).
func (s *Server) refuse(w http.ResponseWriter, d dialect, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if s.t != nil { // nil for a server of Start
		s.t.Errorf("%s", msg)
	}
	body, _ := json.Marshal(map[string]any{"type": "error",
		"error": map[string]any{"type": "api_error", "message": msg, "code": 500, "status": "INTERNAL"}})
	if d != nil {
		body = d.error(http.StatusInternalServerError, msg)
	}
	writeJSON(w, http.StatusInternalServerError, body)
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}

// drop writes part of an answer and closes the connection: the client
// reads an unexpected end.
func drop(w http.ResponseWriter, contentType string, part []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(2*len(part)+1))
	w.WriteHeader(http.StatusOK)
	w.Write(part)
	w.(http.Flusher).Flush()
	if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
		conn.Close()
	}
}

// model is the model the request names, for the answer to echo.
func model(r *http.Request, fields map[string]any) string {
	if m, ok := fields["model"].(string); ok {
		return m
	}
	if after, ok := strings.CutPrefix(r.URL.Path, "/model/"); ok {
		m, _, _ := strings.Cut(after, "/")
		return m
	}
	if _, after, ok := strings.Cut(r.URL.Path, "/models/"); ok {
		m, _, _ := strings.Cut(after, ":")
		return m
	}
	return "fake-model"
}

// answer is a turn as a dialect writes it: the calls have their ids; N
// is the request's number, for the answer's own ids.
type answer struct {
	Turn
	N     int
	Model string
}

// event is one server-sent event: name, when the provider names events,
// and data, a value written as JSON or a string written as is.
type event struct {
	name string
	data any
}

// dialect is one provider's wire format.
type dialect interface {
	name() string
	// streams says whether the client asked for a stream.
	streams(r *http.Request, fields map[string]any) bool
	answer(a answer) any
	events(a answer) []event
	error(status int, message string) []byte
	// id is the id the provider gives call i of request n.
	id(n, i int) string
	tools(fields map[string]any) []Tool
	// results are the tool results of the request's last turn; last is
	// the same turn's messages, where media are looked for.
	results(fields map[string]any) []ToolResult
	last(fields map[string]any) []any
}

func dialectOf(r *http.Request) dialect {
	p := r.URL.Path
	switch {
	case strings.HasSuffix(p, "/chat/completions"):
		return chat{}
	case strings.HasSuffix(p, "/responses"):
		return responsesAPI{}
	case strings.HasSuffix(p, "/v1/messages"):
		return messages{}
	case strings.Contains(p, "/models/") && (strings.HasSuffix(p, ":generateContent") || strings.HasSuffix(p, ":streamGenerateContent")):
		return gemini{vertex: strings.Contains(p, "/publishers/google/")}
	case strings.HasPrefix(p, "/model/") && (strings.HasSuffix(p, "/converse") || strings.HasSuffix(p, "/converse-stream")):
		return converse{}
	}
	return nil
}

// words cuts text after each space, as models stream text.
func words(text string) []string {
	if text == "" {
		return nil
	}
	return strings.SplitAfter(text, " ")
}

// pieces cuts s into pieces of 3 bytes, as models stream arguments.
func pieces(s string) []string {
	var out []string
	for len(s) > 3 {
		out = append(out, s[:3])
		s = s[3:]
	}
	return append(out, s)
}
