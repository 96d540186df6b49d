package toolmcp

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// listenDisguises are bodies the SDK reads as a subscriptions/listen
// request though a plain json.Unmarshal into a struct would not: bytes
// after the JSON value (the SDK reads the first value and ignores the
// rest), a second value, and a key "METHOD" that encoding/json would
// match to the method field, where the SDK matches case.
var listenDisguises = map[string]string{
	"trailing bytes": newListen + " x",
	"second value":   newListen + newListen,
	"METHOD key":     strings.Replace(newListen, `"method":"subscriptions/listen"`, `"method":"subscriptions/listen","METHOD":"tools/list"`, 1),
	"escaped method": strings.Replace(newListen, `"subscriptions/listen"`, `"subscriptions\/listen"`, 1),
}

// TestHTTPListenBoundReadsAsSDK: a subscriptions/listen the SDK would hold
// open is counted against MaxSessions/MaxSessionsPerPeer however its body
// is dressed.
func TestHTTPListenBoundReadsAsSDK(t *testing.T) {
	for name, body := range listenDisguises {
		for _, stateless := range []bool{false, true} {
			t.Run(name+"/"+map[bool]string{false: "sessions", true: "stateless"}[stateless], func(t *testing.T) {
				testListenBound(t, body, stateless)
			})
		}
	}
}

func testListenBound(t *testing.T, body string, stateless bool) {
	url := serveHTTP(t, HTTPOptions{MaxSessionsPerPeer: 1, MaxSessions: 1, Stateless: stateless})
	ctx, hangUp := context.WithCancel(context.Background())
	defer hangUp()
	held := 0
	for i := range 3 {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		modern("subscriptions/listen")(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			continue
		}
		line, _ := bufio.NewReader(resp.Body).ReadString('}')
		if strings.Contains(line, "subscriptions/acknowledged") {
			held++
		}
		t.Logf("listen %d: %d %q", i, resp.StatusCode, line)
	}
	if held > 1 {
		t.Errorf("%d subscriptions/listen requests held open past a bound of 1", held)
	}
}

// TestListening reads bodies as the bound does: every body holding a
// listen, alone or in a batch, is found, and a body the bound cannot read
// is an error, refused before the SDK sees it.
func TestListening(t *testing.T) {
	other := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	tests := []struct {
		name, body string
		listen     bool
		err        error
	}{
		{"listen", newListen, true, nil},
		{"other", other, false, nil},
		{"batch with listen", "[" + other + "," + newListen + "]", true, nil},
		{"batch with listen, trailing bytes", "[" + newListen + "] junk", true, nil},
		{"batch without listen", "[" + other + "]", false, nil},
		{"empty", "", false, nil},
		{"blank", " \n", false, nil},
		{"not JSON", "listen", false, errUnreadableBody},
		{"cut short", newListen[:70], false, errUnreadableBody},
		{"cut short, escaped", `{"method":"subscriptions\/li`, false, errUnreadableBody},
		{"number", "7", false, nil}, // no listen in it: the SDK's to refuse
		{"not JSON, no listen in it", "{{", false, nil},
		{"batch with a number", "[" + newListen + ",7]", false, errUnreadableBody},
		{"method not a string", `{"jsonrpc":"2.0","id":1,"method":7}`, false, nil},
		{"listen in params only", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"method":"subscriptions/listen"}}`, false, nil},
	}
	for name, body := range listenDisguises {
		tests = append(tests, struct {
			name, body string
			listen     bool
			err        error
		}{name, body, true, nil})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tt.body))
			listen, err := listening(r)
			if listen != tt.listen || !errors.Is(err, tt.err) {
				t.Errorf("listening(%q) = %v, %v; want %v, %v", tt.body, listen, err, tt.listen, tt.err)
			}
			if rest, _ := io.ReadAll(r.Body); string(rest) != tt.body {
				t.Errorf("body left for the SDK = %q, want %q", rest, tt.body)
			}
		})
	}
}

// TestHTTPUnreadableBody: a POST body the bound cannot read is refused
// with 400 and a reason.
func TestHTTPUnreadableBody(t *testing.T) {
	url := serveHTTP(t, HTTPOptions{})
	resp, body := post(t, url, newListen[:70], modern("subscriptions/listen"))
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "not a JSON-RPC message") {
		t.Errorf("got %d %q, want 400 saying the body is not a JSON-RPC message", resp.StatusCode, body)
	}
}

// BenchmarkListening: what the listen bound costs a tools/call of 64 kB,
// the body every POST of 2026-07-28 goes through.
func BenchmarkListening(b *testing.B) {
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write","arguments":{"text":"` + strings.Repeat("a line of text ", 4096) + `"}}}`
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		if listen, err := listening(r); listen || err != nil {
			b.Fatal(listen, err)
		}
	}
}
