package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// RecordEnv is the environment variable that turns every Replay of a
// test run into a recording: TOOLREG_RECORD=1 go test -run TestX .
const RecordEnv = "TOOLREG_RECORD"

// Provider names a provider's API, to give its address for recording.
type Provider string

// The providers a Server plays.
const (
	OpenAI    Provider = "openai"    // Chat Completions and Responses
	Anthropic Provider = "anthropic" // Messages
	Gemini    Provider = "gemini"    // the Gemini Developer API
	Vertex    Provider = "vertex"    // Gemini on Vertex AI
	Bedrock   Provider = "bedrock"   // Amazon Bedrock Converse
)

// upstreams are the providers' addresses a recording goes to by default.
// Bedrock has none: the AWS SDK signs each request for the host it sends
// it to, so a request sent to the recording server cannot be passed on to
// AWS.
var upstreams = map[Provider]string{
	OpenAI:    "https://api.openai.com",
	Anthropic: "https://api.anthropic.com",
	Gemini:    "https://generativelanguage.googleapis.com",
	Vertex:    "https://aiplatform.googleapis.com",
}

// keys are the environment variables the client options of a recording
// server take the key from.
var keys = map[Provider][]string{
	OpenAI:    {"OPENAI_API_KEY"},
	Anthropic: {"ANTHROPIC_API_KEY"},
	Gemini:    {"GEMINI_API_KEY", "GOOGLE_API_KEY"},
	Vertex:    {"GOOGLE_API_KEY", "GEMINI_API_KEY"},
}

// ReplayOption changes how Replay records or compares.
type ReplayOption func(*replayConfig)

type replayConfig struct {
	record    bool
	upstreams map[Provider]string
	ignore    [][]string
	cmpOpts   []cmp.Option
	secrets   []string
}

// Record makes Replay record, as RecordEnv does, for the test it is
// given to: for a test of a recording, or a test kept recording while it
// is written.
func Record() ReplayOption { return func(c *replayConfig) { c.record = true } }

// Upstream is where a recording sends p's requests instead of the
// provider's own address: a compatible server (a local model, a proxy of
// the company's), or in a test of the recording itself another Server.
// The request's path is appended to baseURL.
func Upstream(p Provider, baseURL string) ReplayOption {
	return func(c *replayConfig) { c.upstreams[p] = strings.TrimSuffix(baseURL, "/") }
}

// IgnoreFields leaves fields of the request bodies out when Replay
// compares a request with the recorded one: fields that change from run
// to run (a date in the prompt, a request id). Each path names a field by
// its keys from the body's top, dot-separated; "*" stands for any key or
// index, as in "messages.*.content" or "metadata.user_id".
func IgnoreFields(paths ...string) ReplayOption {
	return func(c *replayConfig) {
		for _, p := range paths {
			c.ignore = append(c.ignore, strings.Split(p, "."))
		}
	}
}

// CompareBodies adds go-cmp options to the comparison of a request's
// body (decoded from JSON into maps, slices, strings, float64s and bools)
// with the recorded one's, for what IgnoreFields cannot say:
// cmpopts.EquateApprox, a cmp.FilterPath.
func CompareBodies(opts ...cmp.Option) ReplayOption {
	return func(c *replayConfig) { c.cmpOpts = append(c.cmpOpts, opts...) }
}

// Secrets are values a recording never writes, besides the ones it finds
// itself (credential headers, the key query parameter, and the values of
// environment variables named like a key, token, secret or password).
func Secrets(values ...string) ReplayOption {
	return func(c *replayConfig) { c.secrets = append(c.secrets, values...) }
}

// Replay starts a Server that plays a recorded exchange with a provider:
// file (under testdata/) holds the requests a test sent and the answers
// they got, and each request is answered with the next recorded answer,
// so the test runs in CI without network or key. Requests, Calls and
// AssertCalls read the run as on a scripted Server.
//
// A request that differs from the recorded one (method, path, query, or
// body compared as JSON, less IgnoreFields and with CompareBodies) fails
// the test with a diff and is answered with a 500 in the provider's shape,
// so that the client fails at once; so is a request after the last
// exchange. A file that does not parse stops the test naming the file
// and the exchange; exchanges never asked for fail it as it ends.
//
// With TOOLREG_RECORD set (RecordEnv), or the Record option, the Server
// records instead: it passes each request on to the provider (Upstream
// changes where), answers with what came back, and writes file when the
// test ends, only if it passed. The client options (OpenAIOptions and the
// others) then carry the key from the provider's usual variable
// (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY or GOOGLE_API_KEY).
// No credential reaches the file: request headers are not kept, response
// headers only those clients read, a key query parameter is dropped, and
// every value of a credential header or of an environment variable named
// like a key, token, secret or password is replaced by REDACTED wherever
// it appears. Bedrock is replayed, but recorded only from an Upstream:
// AWS's signatures name the host they were made for.
func Replay(t testing.TB, file string, opts ...ReplayOption) *Server {
	t.Helper()
	env := os.Getenv(RecordEnv)
	cfg := replayConfig{record: env != "" && env != "0", upstreams: map[Provider]string{}}
	for p, u := range upstreams {
		cfg.upstreams[p] = u
	}
	for _, o := range opts {
		o(&cfg)
	}
	tp := &tape{file: file, cfg: cfg}
	if !cfg.record {
		rec, err := loadRecording(file)
		if err != nil {
			t.Fatalf("fakemodel: replay: %v (record it with %s=1 and the provider's key)", err, RecordEnv)
		}
		tp.rec = rec
	} else {
		tp.rec = &recording{}
		tp.redact = newRedactor(cfg.secrets)
		for _, u := range cfg.upstreams { // a proxy's password, which it may echo
			if u, err := url.Parse(u); err == nil {
				pass, _ := u.User.Password()
				tp.redact.add(pass)
				tp.redact.fromQuery(u.Query())
			}
		}
	}
	s := &Server{t: t, tape: tp}
	s.srv = httptest.NewServer(s)
	t.Cleanup(func() {
		s.srv.Close()
		s.mu.Lock()
		defer s.mu.Unlock()
		switch {
		case cfg.record:
			tp.save(t)
		case tp.next < len(tp.rec.Exchanges) && !t.Failed():
			t.Errorf("fakemodel: replay of %s: %d of its %d exchanges were never asked for (the client sent %d requests)",
				file, len(tp.rec.Exchanges)-tp.next, len(tp.rec.Exchanges), len(s.requests))
		}
	})
	return s
}

// tape is a Server's recording, played or being made. The Server's mutex
// guards it.
type tape struct {
	file   string
	cfg    replayConfig
	rec    *recording
	next   int       // the exchange the next request is compared with
	redact *redactor // when recording
	used   []string  // the upstreams recorded from
}

// provider is the provider d speaks for.
func provider(d dialect) Provider {
	switch d := d.(type) {
	case chat, responsesAPI:
		return OpenAI
	case messages:
		return Anthropic
	case gemini:
		if d.vertex {
			return Vertex
		}
		return Gemini
	}
	return Bedrock
}

// key is the key the client options send: the provider's own when
// recording, a placeholder otherwise.
func (s *Server) key(p Provider) string {
	if s.tape != nil && s.tape.cfg.record {
		for _, v := range keys[p] {
			if k := os.Getenv(v); k != "" {
				return k
			}
		}
	}
	return placeholderKey
}

// placeholderKey is the key the client options send to a scripted or
// replaying server, which asks for none.
const placeholderKey = "fakemodel"

// serve answers r from the recording, or records it.
func (tp *tape) serve(s *Server, w http.ResponseWriter, r *http.Request) {
	req, err := received(r)
	d, body := req.dialect, req.Body
	s.mu.Lock()
	n := len(s.requests) + 1
	what := fmt.Sprintf("request %d (%s %s)", n, r.Method, r.URL.Path)
	if d != nil {
		what = fmt.Sprintf("request %d (%s)", n, d.name())
		json.Unmarshal(body, &req.fields)
	}
	s.requests = append(s.requests, req)
	if err != nil {
		s.mu.Unlock()
		s.refuse(w, d, "fakemodel: %s: reading the body: %v", what, err)
		return
	}
	sent := recordedRequest{Method: r.Method, Path: r.URL.Path, Query: withoutKeys(r.URL.Query()).Encode()}
	if len(body) > 0 {
		sent.Body = body
	}
	if tp.cfg.record && len(body) > 0 && !json.Valid(body) {
		s.mu.Unlock()
		s.refuse(w, d, "fakemodel: recording %s: %s: the body is not JSON, which every API this server plays sends", tp.file, what)
		return
	}
	if tp.cfg.record {
		s.mu.Unlock()
		tp.record(s, w, r, n, what, d, sent)
		return
	}
	if tp.next == len(tp.rec.Exchanges) {
		s.mu.Unlock()
		s.refuse(w, d, "fakemodel: replay of %s: %s: the recording has no exchange left: its %d exchanges were answered",
			tp.file, what, len(tp.rec.Exchanges))
		return
	}
	x := tp.rec.Exchanges[tp.next]
	tp.next++
	if diff := tp.diff(x.Request, sent); diff != "" {
		s.mu.Unlock()
		s.refuse(w, d, "fakemodel: replay of %s: %s differs from exchange %d (-recorded +sent):\n%s", tp.file, what, tp.next, diff)
		return
	}
	s.noteCallsLocked(d, n, x.Response)
	s.mu.Unlock()
	for k, v := range x.Response.Header {
		w.Header().Set(k, v)
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(x.Response.Status)
	w.Write(x.Response.encode())
}

// noteCallsLocked notes the calls of request n's answer, for Calls.
func (s *Server) noteCallsLocked(d dialect, n int, p recordedResponse) {
	if d == nil || p.Status/100 != 2 {
		return
	}
	for _, c := range replyCalls(d, p) {
		s.made = append(s.made, madeCall{ToolCall: c, request: n - 1})
	}
}

// diff compares a request with the recorded one: "" when they agree.
func (tp *tape) diff(recorded, sent recordedRequest) string {
	type request struct {
		Method, Path, Query string
		Body                any
	}
	of := func(r recordedRequest) request {
		c := request{Method: r.Method, Path: r.Path, Query: r.Query}
		if err := json.Unmarshal(r.Body, &c.Body); err != nil {
			c.Body = string(r.Body) // compared as text
		}
		for _, path := range tp.cfg.ignore {
			c.Body = without(c.Body, path)
		}
		return c
	}
	return cmp.Diff(of(recorded), of(sent), tp.cfg.cmpOpts...)
}

// without is v less the fields path names.
func without(v any, path []string) any {
	if len(path) == 0 {
		return v
	}
	key, rest := path[0], path[1:]
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if key != "*" && k != key {
				continue
			}
			if len(rest) == 0 {
				delete(v, k)
			} else {
				v[k] = without(x, rest)
			}
		}
	case []any:
		for i, x := range v {
			if key != "*" && strconv.Itoa(i) != key {
				continue
			}
			if len(rest) == 0 {
				v[i] = nil
			} else {
				v[i] = without(x, rest)
			}
		}
	}
	return v
}
