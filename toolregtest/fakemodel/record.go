package fakemodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// record passes request n on to its provider, answers with what came
// back, and keeps the exchange.
func (tp *tape) record(s *Server, w http.ResponseWriter, r *http.Request, n int, what string, d dialect, sent recordedRequest) {
	s.mu.Lock()
	tp.redact.fromHeader(r.Header)
	tp.redact.fromQuery(r.URL.Query())
	s.mu.Unlock()
	if d == nil {
		s.refuse(w, nil, "fakemodel: recording %s: %s: not an API this server records", tp.file, what)
		return
	}
	p := provider(d)
	base := tp.cfg.upstreams[p]
	if base == "" {
		s.refuse(w, d, "fakemodel: recording %s: %s: no address to pass it on to; give one with Upstream(%q, url) (AWS signs a request for the host it is sent to, so a Bedrock request cannot go on to AWS)", tp.file, what, p)
		return
	}
	u := base + r.URL.Path
	if r.URL.RawQuery != "" {
		u += "?" + r.URL.RawQuery
	}
	out, err := http.NewRequestWithContext(r.Context(), r.Method, u, bytes.NewReader(sent.Body))
	if err != nil {
		s.refuse(w, d, "fakemodel: recording %s: %s: %v", tp.file, what, err)
		return
	}
	out.Header = r.Header.Clone()
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	resp, err := http.DefaultClient.Do(out)
	if err != nil {
		s.refuse(w, d, "fakemodel: recording %s: %s: passing it on: %v", tp.file, what, err)
		return
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		s.refuse(w, d, "fakemodel: recording %s: %s: reading the answer: %v", tp.file, what, err)
		return
	}
	answer := recordResponse(resp.StatusCode, resp.Header, body)
	s.mu.Lock()
	tp.rec.Exchanges = append(tp.rec.Exchanges, exchange{Request: sent, Response: answer})
	tp.used = append(tp.used, base)
	s.noteCallsLocked(d, n, answer)
	s.mu.Unlock()
	for k, v := range resp.Header {
		if !slices.Contains(hopHeaders, k) {
			w.Header()[k] = v
		}
	}
	w.WriteHeader(resp.StatusCode)
	w.Write(body)
}

// hopHeaders are not passed on: they belong to one connection. Without
// Accept-Encoding the transport asks for gzip itself and unpacks the
// answer, so that the recording reads.
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Te", "Trailer", "Transfer-Encoding", "Upgrade",
	"Accept-Encoding", "Content-Length", "Content-Encoding"}

// save writes the recording, if the test passed, without any secret.
func (tp *tape) save(t testing.TB) {
	if t.Failed() {
		t.Logf("fakemodel: the test failed, so %s is not written", tp.file)
		return
	}
	if len(tp.rec.Exchanges) == 0 {
		t.Errorf("fakemodel: recording %s: the test sent no request, so there is nothing to record", tp.file)
		return
	}
	tp.rec.Note = note(tp.used)
	out, err := tp.rec.encode()
	if err != nil {
		t.Errorf("fakemodel: recording %s: %v", tp.file, err)
		return
	}
	out = tp.redact.apply(out)
	if !json.Valid(out) {
		t.Errorf("fakemodel: recording %s: leaving the secrets out made the file no longer JSON; it is not written", tp.file)
		return
	}
	if err := os.MkdirAll(filepath.Dir(tp.file), 0o755); err != nil {
		t.Errorf("fakemodel: recording %s: %v", tp.file, err)
		return
	}
	if err := os.WriteFile(tp.file, out, 0o644); err != nil {
		t.Errorf("fakemodel: recording %s: %v", tp.file, err)
		return
	}
	t.Logf("fakemodel: recorded %d exchanges in %s", len(tp.rec.Exchanges), tp.file)
}

// encode writes the recording indented, but each event of a stream on
// a line of its own: a stream of a hundred events stays a page to read.
func (rec *recording) encode() ([]byte, error) {
	type savedResponse struct {
		recordedResponse
		Events []string `json:"events,omitempty"` // placeholders for the events
	}
	type savedExchange struct {
		Request  recordedRequest `json:"request"`
		Response savedResponse   `json:"response"`
	}
	saved := struct {
		Note      string          `json:"note,omitempty"`
		Exchanges []savedExchange `json:"exchanges"`
	}{Note: rec.Note}
	var events [][]byte
	for _, x := range rec.Exchanges {
		p := savedResponse{recordedResponse: x.Response}
		if x.Response.Events != nil {
			p.Events = []string{}
		}
		for _, e := range x.Response.Events {
			line, err := marshal(e, "")
			if err != nil {
				return nil, err
			}
			p.Events = append(p.Events, fmt.Sprintf("\x00event %d\x00", len(events)))
			events = append(events, bytes.TrimSpace(line))
		}
		saved.Exchanges = append(saved.Exchanges, savedExchange{Request: x.Request, Response: p})
	}
	out, err := marshal(saved, "  ")
	if err != nil {
		return nil, err
	}
	for i, line := range events {
		out = bytes.Replace(out, fmt.Appendf(nil, `"\u0000event %d\u0000"`, i), line, 1)
	}
	return out, nil
}

// marshal is v as JSON, indented when indent is set, with <, > and & as
// they are.
func marshal(v any, indent string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	err := enc.Encode(v)
	return b.Bytes(), err
}

// note says where a recording's answers came from: a server on the
// loopback is named as such, not by its port, which changes each run.
func note(bases []string) string {
	var from []string
	for _, b := range bases {
		if u, err := url.Parse(b); err == nil {
			// A proxy's user and password, or a key in the query, are
			// no part of where the answers came from.
			u.User, u.RawQuery, u.Fragment = nil, "", ""
			b = u.String()
			if ip := net.ParseIP(u.Hostname()); (ip != nil && ip.IsLoopback()) || u.Hostname() == "localhost" {
				b = "a server on the recording machine (a scripted model, not a live provider)"
			}
		}
		if !slices.Contains(from, b) {
			from = append(from, b)
		}
	}
	return "Recorded by fakemodel.Replay from " + strings.Join(from, " and ") + "; credentials are left out. " +
		"Replay it with fakemodel.Replay(t, file); record it again with " + RecordEnv + "=1 and the provider's key."
}

// withoutKeys is a query less its credentials: Gemini's key, and the
// X-Amz- parameters of a presigned URL.
func withoutKeys(q url.Values) url.Values {
	for k := range q {
		lk := strings.ToLower(k)
		if slices.Contains([]string{"key", "api-key", "api_key", "apikey", "access_token", "token"}, lk) || strings.HasPrefix(lk, "x-amz-") {
			q.Del(k)
		}
	}
	return q
}

// redactor knows the secrets a recording must not hold.
type redactor struct{ values map[string]bool }

// newRedactor knows extra and the values of the environment's variables
// named like a credential.
func newRedactor(extra []string) *redactor {
	r := &redactor{values: map[string]bool{}}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		k = strings.ToUpper(k)
		for _, w := range []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL"} {
			if strings.Contains(k, w) {
				r.add(v)
			}
		}
	}
	for _, v := range extra { // the caller's word: a secret whatever its length
		if v = strings.TrimSpace(v); v != "" {
			r.values[v] = true
		}
	}
	return r
}

// add knows v; a value shorter than 8 bytes is no key, and would replace
// words that are not secrets.
func (r *redactor) add(v string) {
	if v = strings.TrimSpace(v); len(v) >= 8 && v != placeholderKey {
		r.values[v] = true
	}
}

// fromHeader learns the credentials a request carries in its headers:
// each credential header's value, the value after its scheme (a bearer
// token), the values of its name=value parts (SigV4's Credential and
// Signature) and their first segment (the access key id), and cookies.
func (r *redactor) fromHeader(h http.Header) {
	for name, vals := range h {
		credential := slices.Contains(secrets, name) || strings.HasPrefix(name, "X-Amz-") || name == "Cookie"
		if !credential {
			continue
		}
		for _, v := range vals {
			r.add(v)
			_, after, _ := strings.Cut(v, " ")
			r.add(after)
			for _, part := range strings.FieldsFunc(v, func(c rune) bool { return c == ',' || c == ';' || c == ' ' }) {
				if _, val, ok := strings.Cut(part, "="); ok {
					r.add(val)
					first, _, _ := strings.Cut(val, "/")
					r.add(first)
				}
			}
		}
	}
}

// fromQuery learns the credentials a request carries in its query.
func (r *redactor) fromQuery(q url.Values) {
	for k, vals := range q {
		if _, kept := withoutKeys(url.Values{k: nil})[k]; !kept {
			for _, v := range vals {
				r.add(v)
			}
		}
	}
}

// apply replaces every secret in b, as written and as escaped in JSON or
// a URL, by REDACTED; the longest first, so that a secret holding another
// goes whole.
func (r *redactor) apply(b []byte) []byte {
	set := map[string]bool{}
	for v := range r.values {
		esc, _ := json.Marshal(v)
		for _, f := range []string{v, string(esc[1 : len(esc)-1]), url.QueryEscape(v), url.PathEscape(v)} {
			set[f] = true
		}
	}
	forms := slices.Collect(maps.Keys(set))
	slices.SortFunc(forms, func(a, b string) int { return len(b) - len(a) })
	for _, f := range forms {
		b = bytes.ReplaceAll(b, []byte(f), []byte("REDACTED"))
	}
	return b
}
