package toolmcp

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolreg/toolreg"
)

// A request of 2026-07-28 carries what the client is in its _meta, and
// the revision in the Mcp-Protocol-Version header too.
const (
	newMeta     = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"0"}}`
	newList     = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + newMeta + `}}`
	newDiscover = `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + newMeta + `}}`
	newListen   = `{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{` + newMeta + `,"notifications":{"toolsListChanged":true}}}`
)

// revision sets the Mcp-Protocol-Version header.
func revision(v string) func(*http.Request) { return header("Mcp-Protocol-Version", v) }

// modern sets the headers of a request of 2026-07-28 for method.
func modern(method string) func(*http.Request) {
	return both(revision("2026-07-28"), header("Mcp-Method", method))
}

// both applies each edit in turn.
func both(edits ...func(*http.Request)) func(*http.Request) {
	return func(r *http.Request) {
		for _, e := range edits {
			e(r)
		}
	}
}

// within gives a request a deadline, so that a request the server holds
// open fails the test instead of hanging it.
func within(t *testing.T, d time.Duration) func(*http.Request) {
	return func(r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), d)
		t.Cleanup(cancel)
		*r = *r.WithContext(ctx)
	}
}

// TestHTTPRevisions: the SDK's client, at each revision, against the
// handler in each mode, negotiates the revision it asked for, with a
// session only where one is served, lists and calls tools, and hears of a
// tool added later where the mode serves notifications: through its
// session before 2026-07-28, through subscriptions/listen from it.
func TestHTTPRevisions(t *testing.T) {
	for _, tc := range []struct {
		stateless bool
		version   string
		session   bool // the client holds a session
		told      bool // the client hears of a tool added later
	}{
		{false, "2026-07-28", false, true},
		{false, "2025-11-25", true, true},
		{true, "2026-07-28", false, true},
		{true, "2025-11-25", false, false},
	} {
		name := tc.version
		if tc.stateless {
			name += "/stateless"
		}
		t.Run(name, func(t *testing.T) {
			reg := testRegistry(t)
			srv, _ := newServer(t, reg, testOptions...)
			hs := httptest.NewServer(HTTPHandler(srv, HTTPOptions{Token: token, Stateless: tc.stateless}))
			defer hs.Close()
			changed := make(chan struct{}, 10)
			ctx := context.Background()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, &mcp.ClientOptions{
				ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
			}).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: &http.Client{Transport: bearerTransport{token}}, MaxRetries: -1},
				&mcp.ClientSessionOptions{ProtocolVersion: tc.version})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if got := cs.InitializeResult().ProtocolVersion; got != tc.version {
				t.Errorf("negotiated %q, want %q", got, tc.version)
			}
			if (cs.ID() != "") != tc.session {
				t.Errorf("session %q, want one: %v", cs.ID(), tc.session)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_weather", Arguments: map[string]any{"city": "Paris"}})
			if err != nil || res.IsError {
				t.Fatalf("%+v, %v", res, err)
			}
			reg.MustAdd(toolreg.MustNew("added_later", "A tool added while clients are connected.",
				func(context.Context, struct{}) (string, error) { return "here", nil }))
			if tc.told {
				select {
				case <-changed:
				case <-time.After(5 * time.Second):
					t.Error("no notifications/tools/list_changed in 5s")
				}
			}
			list, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(list.Tools, func(tool *mcp.Tool) bool { return tool.Name == "added_later" }) {
				t.Error("tools/list lacks the tool added later")
			}
		})
	}
}

// TestHTTPSessionlessHostile: what a request of 2026-07-28 may lie about.
// A session id it names is not read, so it neither reaches nor ends
// another client's session, and none is set in the answer; the checks of
// the handler (token, origin, host, body size) apply as to any request;
// a header that disagrees with the request, or names a revision the
// server does not speak, is refused with a JSON-RPC error that says why.
func TestHTTPSessionlessHostile(t *testing.T) {
	url := serveHTTP(t, HTTPOptions{Token: token})
	bearer := header("Authorization", "Bearer "+token)
	v, discover := modern("tools/list"), modern("server/discover")
	// A client of 2025-11-25 holds a session.
	resp, body := post(t, url, initialize, bearer)
	victim := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || victim == "" {
		t.Fatalf("initialize: %d, session %q: %s", resp.StatusCode, victim, body)
	}
	post(t, url, initialized, both(bearer, header("Mcp-Session-Id", victim)))

	for _, tc := range []struct {
		name string
		body string
		edit func(*http.Request)
		want int
		says string // in the body
	}{
		{"no session id", newList, both(bearer, v), http.StatusOK, `"get_weather"`},
		{"a forged session id", newList, both(bearer, v, header("Mcp-Session-Id", "forged")), http.StatusOK, `"get_weather"`},
		{"another client's session id", newList, both(bearer, v, header("Mcp-Session-Id", victim)), http.StatusOK, `"get_weather"`},
		{"discover lists 2026-07-28", newDiscover, both(bearer, discover), http.StatusOK, `"2026-07-28"`},
		{"no token", newList, v, http.StatusUnauthorized, ""},
		{"wrong token", newList, both(v, header("Authorization", "Bearer guess")), http.StatusUnauthorized, ""},
		{"cross-origin browser request", newList, both(bearer, v, header("Origin", "https://attacker.example")), http.StatusForbidden, ""},
		{"DNS rebinding", newList, both(bearer, v, func(r *http.Request) { r.Host = "attacker.example" }), http.StatusForbidden, ""},
		{"body over 4 MiB", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + newMeta + `,"pad":"` + strings.Repeat("x", 4<<20) + `"}}`,
			both(bearer, v), http.StatusRequestEntityTooLarge, "exceeds"},
		{"a batch over 4 MiB", `[` + strings.Repeat(newList+",", (4<<20)/len(newList)+1) + newList + `]`,
			both(bearer, v), http.StatusRequestEntityTooLarge, "exceeds"},
		{"no _meta", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, both(bearer, v), http.StatusBadRequest, "_meta"},
		{"_meta of another revision", strings.Replace(newList, `protocolVersion":"2026-07-28"`, `protocolVersion":"2025-11-25"`, 1), both(bearer, v), http.StatusBadRequest, "protocolVersion"},
		{"a revision not served", strings.Replace(newList, "2026-07-28", "2099-01-01", 1), both(bearer, v, revision("2099-01-01")), http.StatusBadRequest, "-32022"},
		{"not JSON", `{"jsonrpc":`, both(bearer, v), http.StatusBadRequest, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := post(t, url, tc.body, tc.edit)
			if resp.StatusCode != tc.want || !strings.Contains(body, tc.says) {
				t.Errorf("status %d, want %d with %q: %.300s", resp.StatusCode, tc.want, tc.says, body)
			}
			if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
				t.Errorf("a sessionless answer names session %q", id)
			}
		})
	}
	// The session of the client of 2025-11-25 is there still, and a
	// DELETE, which only sessions have, goes to it with its checks.
	if resp, body := post(t, url, ping, both(bearer, header("Mcp-Session-Id", victim), revision("2025-11-25"))); resp.StatusCode != http.StatusOK {
		t.Errorf("the session after the requests that named it: %d %s", resp.StatusCode, body)
	}
}

// TestHTTPListenBound: a subscriptions/listen request held open takes a
// place of the session bounds while it is open, in both modes, and gives
// it back when its client hangs up; other requests of 2026-07-28 take
// none, and are served when every place is taken.
func TestHTTPListenBound(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(map[bool]string{false: "sessions", true: "stateless"}[stateless], func(t *testing.T) {
			url := serveHTTP(t, HTTPOptions{MaxSessionsPerPeer: 1, Stateless: stateless})
			v, list := modern("subscriptions/listen"), modern("tools/list")
			ctx, hangUp := context.WithCancel(context.Background())
			defer hangUp()
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(newListen))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			v(req)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("listen: %d", resp.StatusCode)
			}
			// The stream opens with the acknowledgement: the server holds it.
			line, err := bufio.NewReader(resp.Body).ReadString('}')
			if err != nil || !strings.Contains(line, "subscriptions/acknowledged") {
				t.Fatalf("listen stream: %q, %v", line, err)
			}

			// Bounded, as a listen let through would be held open.
			if resp, body := post(t, url, newListen, both(v, within(t, 5*time.Second))); resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(body, "subscriptions/listen") {
				t.Errorf("a second listen: %d, Retry-After %q: %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
			}
			if !stateless {
				if resp, body := post(t, url, initialize, nil); resp.StatusCode != http.StatusServiceUnavailable {
					t.Errorf("a session beside the listen: %d %s", resp.StatusCode, body)
				}
			}
			if resp, body := post(t, url, newList, list); resp.StatusCode != http.StatusOK || !strings.Contains(body, "get_weather") {
				t.Errorf("tools/list beside the listen: %d %.200s", resp.StatusCode, body)
			}
			hangUp()
			eventually(t, "the listen's place freed", func() bool {
				resp, _ := post(t, url, initialize, nil)
				if stateless {
					resp, _ = post(t, url, strings.Replace(newListen, `"toolsListChanged":true`, ``, 1), v) // answered at once: no subscription
				}
				return resp.StatusCode == http.StatusOK
			})
		})
	}
}

// TestHTTPSessionlessCallEndsWithItsClient: a call of a 2026-07-28 client
// that hangs up is cancelled, since no one is left to read its result.
func TestHTTPSessionlessCallEndsWithItsClient(t *testing.T) {
	started, ended := make(chan struct{}), make(chan error, 1)
	reg := toolreg.NewRegistry()
	reg.MustAdd(toolreg.MustNew("wait", "Waits until it is cancelled.",
		func(ctx context.Context, _ struct{}) (string, error) {
			close(started)
			select { // bounded, so that a call left running fails the test instead of hanging it
			case <-ctx.Done():
			case <-time.After(10 * time.Second):
			}
			ended <- ctx.Err()
			return "", ctx.Err()
		}))
	srv, _ := newServer(t, reg)
	hs := httptest.NewServer(HTTPHandler(srv, HTTPOptions{}))
	defer hs.Close()

	ctx, hangUp := context.WithCancel(context.Background())
	defer hangUp()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, hs.URL,
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{`+newMeta+`,"name":"wait","arguments":{}}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	both(modern("tools/call"), header("Mcp-Name", "wait"))(req)
	go func() { // its error, once the client hangs up, is the point
		if resp, err := http.DefaultClient.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("the call did not start in 5s")
	}
	hangUp()
	select {
	case err := <-ended:
		if err != context.Canceled {
			t.Errorf("the call ended with %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Error("the call went on 5s after its client hung up")
	}
}
