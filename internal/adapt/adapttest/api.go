package adapttest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// API plays a provider's HTTP API: it records each request and answers
// with the next scripted reply, or with an error in the provider's shape
// once the replies run out.
type API struct {
	// Replies are the response bodies, in order.
	Replies []string
	// Error is the body of an error response with the given message, in
	// the provider's shape.
	Error func(message string) string
	// Path, when set, is the one path served (with POST); any other
	// request is answered with 404.
	Path string
	// Block, when set, holds each request until it is closed or the
	// request is cancelled.
	Block chan struct{}
	// Hold, when set, is what a streamed reply waits on at Wait.
	Hold chan struct{}

	mu sync.Mutex
	// Requests are the request bodies as JSON objects; Raw the same bodies
	// as sent; Paths their URL paths. Read them once the client is done.
	Requests []map[string]any
	Raw      [][]byte
	Paths    []string
}

func (f *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.Path != "" && (r.Method != http.MethodPost || r.URL.Path != f.Path) {
		f.fail(w, http.StatusNotFound, "not found")
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		f.fail(w, http.StatusBadRequest, "bad json")
		return
	}
	if f.Block != nil {
		select {
		case <-f.Block:
		case <-r.Context().Done():
			return
		}
	}
	f.mu.Lock()
	f.Requests = append(f.Requests, req)
	f.Raw = append(f.Raw, body)
	f.Paths = append(f.Paths, r.URL.Path)
	if len(f.Replies) == 0 {
		f.mu.Unlock()
		f.fail(w, http.StatusInternalServerError, "no more replies")
		return
	}
	reply := f.Replies[0]
	f.Replies = f.Replies[1:]
	f.mu.Unlock()
	if strings.HasPrefix(reply, "event:") || strings.HasPrefix(reply, "data:") {
		f.stream(w, r, reply)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, reply)
}

// Markers in a streamed reply (server-sent events, as written): at Wait
// the server flushes what came before and waits for Hold to close; at Cut
// it flushes and drops the connection, as a network failure would.
const (
	Wait = "\x00wait\x00"
	Cut  = "\x00cut\x00"
)

// SSE writes server-sent events, each an event name (empty for none) and
// its data, in the providers' framing.
func SSE(events ...[2]string) string {
	var b strings.Builder
	for _, e := range events {
		if e[0] == Wait || e[0] == Cut {
			b.WriteString(e[0])
			continue
		}
		if e[0] != "" {
			b.WriteString("event: " + e[0] + "\n")
		}
		b.WriteString("data: " + e[1] + "\n\n")
	}
	return b.String()
}

func (f *API) stream(w http.ResponseWriter, r *http.Request, reply string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	flush := func() { w.(http.Flusher).Flush() }
	for reply != "" {
		wait, cut := strings.Index(reply, Wait), strings.Index(reply, Cut)
		switch {
		case wait >= 0 && (cut < 0 || wait < cut):
			io.WriteString(w, reply[:wait])
			flush()
			select {
			case <-f.Hold:
			case <-r.Context().Done():
				return
			}
			reply = reply[wait+len(Wait):]
		case cut >= 0:
			io.WriteString(w, reply[:cut])
			flush()
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		default:
			io.WriteString(w, reply)
			flush()
			return
		}
	}
}

func (f *API) fail(w http.ResponseWriter, status int, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, f.Error(message))
}

// Serve serves f until the test ends and returns its URL. Once the
// server is closed, every body it received is checked against the
// provider's published request schema, and a violation fails the test.
func (f *API) Serve(t testing.TB) string {
	srv := httptest.NewServer(f)
	t.Cleanup(func() { f.checkSpecs(t) })
	t.Cleanup(srv.Close)
	return srv.URL
}
