package toolmcp

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	token       = "s3cret-token-for-tests"
	initialize  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`
	initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	ping        = `{"jsonrpc":"2.0","id":2,"method":"ping"}`
)

// serveHTTP serves the test registry through HTTPHandler on a loopback
// address.
func serveHTTP(t *testing.T, opts HTTPOptions) string {
	t.Helper()
	srv, _ := newServer(t, testRegistry(t), testOptions...)
	hs := httptest.NewServer(HTTPHandler(srv, opts))
	t.Cleanup(hs.Close)
	return hs.URL
}

// post sends one JSON-RPC message as a streamable HTTP client does, with
// edit changing the request first, and returns the response with its body
// read.
func post(t *testing.T, url, body string, edit func(*http.Request)) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if edit != nil {
		edit(req)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func header(key, value string) func(*http.Request) {
	return func(r *http.Request) { r.Header.Set(key, value) }
}

// TestHTTPRefuses: what HTTPHandler lets through and what it refuses,
// with and without a token.
func TestHTTPRefuses(t *testing.T) {
	withToken := serveHTTP(t, HTTPOptions{Token: token})
	open := serveHTTP(t, HTTPOptions{})
	bearer := header("Authorization", "Bearer "+token)
	for _, tc := range []struct {
		name string
		url  string
		body string
		edit func(*http.Request)
		want int
	}{
		{"token", withToken, initialize, bearer, http.StatusOK},
		{"no token", withToken, initialize, nil, http.StatusUnauthorized},
		{"wrong token", withToken, initialize, header("Authorization", "Bearer "+token+"x"), http.StatusUnauthorized},
		{"a prefix of the token", withToken, initialize, header("Authorization", "Bearer "+token[:4]), http.StatusUnauthorized},
		{"not a bearer token", withToken, initialize, header("Authorization", "Basic "+token), http.StatusUnauthorized},
		{"no token needed", open, initialize, nil, http.StatusOK},
		{"cross-origin browser request", withToken, initialize, func(r *http.Request) {
			bearer(r)
			r.Header.Set("Origin", "https://attacker.example")
		}, http.StatusForbidden},
		{"cross-site fetch", open, initialize, header("Sec-Fetch-Site", "cross-site"), http.StatusForbidden},
		{"DNS rebinding: another host name on loopback", open, initialize, func(r *http.Request) { r.Host = "attacker.example" }, http.StatusForbidden},
		{"body over 4 MiB", open, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 4<<20) + `"}}`, nil, http.StatusRequestEntityTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := post(t, tc.url+"/", tc.body, tc.edit)
			if resp.StatusCode != tc.want {
				t.Errorf("status %d, want %d: %s", resp.StatusCode, tc.want, body)
			}
		})
	}
}

// bearerTransport adds a bearer token to every request, as a client
// configured with a token does.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestHTTPTokenWithSDKClient: the SDK's own client, given the token,
// speaks the revision it asks for, and lists and calls tools in it;
// without the token, it cannot connect.
func TestHTTPTokenWithSDKClient(t *testing.T) {
	url := serveHTTP(t, HTTPOptions{Token: token})
	connect := func(v string, client *http.Client) (*mcp.ClientSession, error) {
		return mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: client, MaxRetries: -1},
			&mcp.ClientSessionOptions{ProtocolVersion: v})
	}
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			cs, err := connect(v, &http.Client{Transport: bearerTransport{token}})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if got := cs.InitializeResult().ProtocolVersion; got != v {
				t.Errorf("negotiated %q, want %q", got, v)
			}
			ctx := context.Background()
			if _, err := cs.ListTools(ctx, nil); err != nil {
				t.Fatal(err)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_weather", Arguments: map[string]any{"city": "Paris"}})
			if err != nil || res.IsError {
				t.Fatalf("%+v, %v", res, err)
			}
			if cs, err := connect(v, &http.Client{Transport: bearerTransport{"guess"}}); err == nil {
				cs.Close()
				t.Error("connected with a wrong token")
			}
		})
	}
}

// TestHTTPSessionExpires: a session that sends no request for the
// timeout is closed, and its ID no longer answers; one kept busy lives on.
func TestHTTPSessionExpires(t *testing.T) {
	const timeout = 500 * time.Millisecond
	url := serveHTTP(t, HTTPOptions{SessionTimeout: timeout})
	open := func() func(*http.Request) {
		resp, body := post(t, url, initialize, nil)
		id := resp.Header.Get("Mcp-Session-Id")
		if resp.StatusCode != http.StatusOK || id == "" {
			t.Fatalf("initialize: %d, session %q: %s", resp.StatusCode, id, body)
		}
		session := header("Mcp-Session-Id", id)
		post(t, url, initialized, session)
		return session
	}
	idle := open()
	idleSince := time.Now()
	busy := open()
	// The busy session asks every timeout/5, which leaves a wide margin
	// for a slow machine, until the idle one has been idle for twice the
	// timeout.
	for time.Since(idleSince) < 2*timeout {
		time.Sleep(timeout / 5)
		if resp, body := post(t, url, ping, busy); resp.StatusCode != http.StatusOK {
			t.Fatalf("a busy session was closed: %d %s", resp.StatusCode, body)
		}
	}
	if resp, body := post(t, url, ping, idle); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a session idle for %v still answers: %d %s", time.Since(idleSince), resp.StatusCode, body)
	}
}

// TestNewHTTPServerTimeouts: every timeout of the server is set; an
// http.Server's zero means none.
func TestNewHTTPServerTimeouts(t *testing.T) {
	type timeouts struct{ ReadHeader, Read, Write, Idle time.Duration }
	s := NewHTTPServer("127.0.0.1:0", http.NotFoundHandler())
	want := timeouts{10 * time.Second, 30 * time.Second, 5 * time.Minute, 2 * time.Minute}
	if diff := cmp.Diff(want, timeouts{s.ReadHeaderTimeout, s.ReadTimeout, s.WriteTimeout, s.IdleTimeout}); diff != "" {
		t.Errorf("timeouts (-want +got):\n%s", diff)
	}
}

// serveDirect serves one request from remoteAddr to h, without a network,
// as a request from beyond the machine reaches it.
func serveDirect(h http.Handler, remoteAddr, body string, edit func(*http.Request)) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	r.RemoteAddr = remoteAddr
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	if edit != nil {
		edit(r)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// TestHTTPRemotePeers: with no token, a handler serves the local machine
// only, unless the host says it authenticates peers itself.
func TestHTTPRemotePeers(t *testing.T) {
	srv, _ := newServer(t, testRegistry(t), testOptions...)
	ownAuth := auth.RequireBearerToken(func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		if tok != token {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: "ann", Expiration: time.Now().Add(time.Hour)}, nil
	}, nil)
	bearer := header("Authorization", "Bearer "+token)
	const refused = "Forbidden: this MCP server authenticates no one, so it serves clients on its own machine only\n"
	for _, tc := range []struct {
		name     string
		h        http.Handler
		addr     string
		edit     func(*http.Request)
		want     int
		wantBody string
	}{
		{"IPv4 peer, no token", HTTPHandler(srv, HTTPOptions{}), "203.0.113.7:40000", nil, http.StatusForbidden, refused},
		{"IPv6 peer, no token", HTTPHandler(srv, HTTPOptions{}), "[2001:db8::7]:40000", nil, http.StatusForbidden, refused},
		{"IPv4-mapped peer, no token", HTTPHandler(srv, HTTPOptions{}), "[::ffff:203.0.113.7]:40000", nil, http.StatusForbidden, refused},
		{"loopback", HTTPHandler(srv, HTTPOptions{}), "127.0.0.1:40000", nil, http.StatusOK, ""},
		{"IPv6 loopback", HTTPHandler(srv, HTTPOptions{}), "[::1]:40000", nil, http.StatusOK, ""},
		{"no address", HTTPHandler(srv, HTTPOptions{}), "", nil, http.StatusForbidden, refused},
		{"remote, allowed by the host", HTTPHandler(srv, HTTPOptions{AllowRemoteWithoutToken: true}), "203.0.113.7:40000", nil, http.StatusOK, ""},
		{"remote, with the token", HTTPHandler(srv, HTTPOptions{Token: token}), "203.0.113.7:40000", bearer, http.StatusOK, ""},
		{"remote, the host's own verifier", ownAuth(HTTPHandler(srv, HTTPOptions{})), "203.0.113.7:40000", bearer, http.StatusOK, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := serveDirect(tc.h, tc.addr, initialize, tc.edit)
			if w.Code != tc.want || (tc.wantBody != "" && w.Body.String() != tc.wantBody) {
				t.Errorf("status %d, want %d: %q", w.Code, tc.want, w.Body.String())
			}
		})
	}
}

// TestHTTPSessionBounds: a handler holds a bounded number of sessions, in
// all and per peer; past the bound it answers 503 with Retry-After, and a
// session that ends, or never initializes, frees its place.
func TestHTTPSessionBounds(t *testing.T) {
	srv, _ := newServer(t, testRegistry(t), testOptions...)
	h := HTTPHandler(srv, HTTPOptions{MaxSessions: 4, MaxSessionsPerPeer: 2, AllowRemoteWithoutToken: true})
	open := func(addr string) *httptest.ResponseRecorder { return serveDirect(h, addr, initialize, nil) }
	opened := func(t *testing.T, addr string) string {
		t.Helper()
		w := open(addr)
		id := w.Header().Get("Mcp-Session-Id")
		if w.Code != http.StatusOK || id == "" {
			t.Fatalf("initialize from %s: %d, session %q: %s", addr, w.Code, id, w.Body)
		}
		return id
	}
	refused := func(t *testing.T, addr, why string) {
		t.Helper()
		w := open(addr)
		if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "60" || !strings.Contains(w.Body.String(), why) {
			t.Errorf("initialize from %s: %d, Retry-After %q: %s", addr, w.Code, w.Header().Get("Retry-After"), w.Body)
		}
	}
	const perPeer, full = "you have as many sessions open", "this MCP server has as many sessions open as it holds"

	// A request that opens no session, such as a ping before initialize,
	// keeps no place.
	for range 10 {
		serveDirect(h, "198.51.100.1:1000", ping, nil)
	}
	a := opened(t, "198.51.100.1:1000")
	opened(t, "198.51.100.1:1001")
	refused(t, "198.51.100.1:1002", perPeer)
	opened(t, "[2001:db8:0:1::1]:1000")
	opened(t, "[2001:db8:0:1::2]:1000")
	refused(t, "[2001:db8:0:1:ffff::9]:1000", perPeer) // the same /64
	refused(t, "198.51.100.2:1000", full)
	// Ending a session frees its place, once the session has closed.
	w := serveDirect(h, "198.51.100.1:1000", "", func(r *http.Request) {
		r.Method = http.MethodDelete
		r.Header.Set("Mcp-Session-Id", a)
	})
	if w.Code != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", w.Code, w.Body)
	}
	eventually(t, "a place freed", func() bool { return open("198.51.100.2:1000").Code == http.StatusOK })
}

// eventually waits, a bounded time, for ok to hold, and fails saying what
// did not happen.
func eventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for range 100 {
		if ok() {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("in 2s, %s did not happen", what)
}

// TestHTTPSessionBoundExpiry: a session that times out frees its place.
func TestHTTPSessionBoundExpiry(t *testing.T) {
	url := serveHTTP(t, HTTPOptions{MaxSessions: 1, SessionTimeout: 200 * time.Millisecond})
	if resp, body := post(t, url, initialize, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	if resp, _ := post(t, url, initialize, nil); resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("a second session: %d, want 503", resp.StatusCode)
	}
	eventually(t, "a place freed", func() bool {
		resp, _ := post(t, url, initialize, nil)
		return resp.StatusCode == http.StatusOK
	})
}

// TestHTTPSessionBoundPerUser: a peer a verifier of the host's names is
// its user, wherever its requests come from.
func TestHTTPSessionBoundPerUser(t *testing.T) {
	srv, _ := newServer(t, testRegistry(t), testOptions...)
	h := auth.RequireBearerToken(func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		return &auth.TokenInfo{UserID: tok, Expiration: time.Now().Add(time.Hour)}, nil
	}, nil)(HTTPHandler(srv, HTTPOptions{MaxSessionsPerPeer: 1}))
	for _, tc := range []struct {
		user, addr string
		want       int
	}{
		{"ann", "198.51.100.1:1000", http.StatusOK},
		{"ann", "198.51.100.2:1000", http.StatusServiceUnavailable},
		{"bob", "198.51.100.1:1000", http.StatusOK},
	} {
		if w := serveDirect(h, tc.addr, initialize, header("Authorization", "Bearer "+tc.user)); w.Code != tc.want {
			t.Errorf("%s from %s: %d, want %d: %s", tc.user, tc.addr, w.Code, tc.want, w.Body)
		}
	}
}
