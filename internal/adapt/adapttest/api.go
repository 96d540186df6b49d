package adapttest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
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
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, reply)
}

func (f *API) fail(w http.ResponseWriter, status int, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, f.Error(message))
}

// Serve serves f until the test ends and returns its URL.
func (f *API) Serve(t testing.TB) string {
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv.URL
}
