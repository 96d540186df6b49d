package toolmcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionIDHeader names the session of a streamable HTTP request; a POST
// without it opens a session.
const sessionIDHeader = "Mcp-Session-Id"

// sessionBound counts the sessions of one HTTPHandler, in all and per
// peer, and refuses a request that would open one past a bound. A place is
// taken before the request reaches the SDK, so that many requests at once
// cannot all pass, and given back when the session the request opened ends
// (its client ended it, it timed out, or it never initialized).
type sessionBound struct {
	srv          *mcp.Server
	max, perPeer int // < 0: no bound

	mu     sync.Mutex
	open   int
	byPeer map[string]int
}

func newSessionBound(srv *mcp.Server, all, perPeer int) *sessionBound {
	if all == 0 {
		all = DefaultMaxSessions
	}
	if perPeer == 0 {
		perPeer = DefaultMaxSessionsPerPeer
	}
	return &sessionBound{srv: srv, max: all, perPeer: perPeer, byPeer: map[string]int{}}
}

func (b *sessionBound) handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get(sessionIDHeader) != "" {
			next.ServeHTTP(w, r) // a request of a session open already
			return
		}
		p := peer(r)
		if why := b.take(p); why != "" {
			refuse(w, why+"; try again later, or end sessions you no longer use (DELETE)")
			return
		}
		defer func() { // deferred, so that a handler that panics gives its place back too
			ss := b.session(w.Header().Get(sessionIDHeader))
			if ss == nil {
				b.give(p) // no session opened, or it ended already
				return
			}
			go func() {
				ss.Wait()
				b.give(p)
			}()
		}()
		next.ServeHTTP(w, r)
	})
}

// listens bounds the requests of 2026-07-28 that stay open, as sessions
// are bounded: a subscriptions/listen request is held until its client
// hangs up (or the server's write timeout), and costs what a session
// does, so it takes a place of the same bounds while it is open. Any other
// request goes through untouched, but a body the bound cannot read is
// refused here: what the bound cannot read it cannot count, and the SDK,
// whose reader differs, might still take it for a listen.
func (b *sessionBound) listens(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		listen, err := listening(r)
		if err != nil {
			http.Error(w, "Bad Request: "+err.Error(), http.StatusBadRequest)
			return
		}
		if !listen {
			next.ServeHTTP(w, r)
			return
		}
		p := peer(r)
		if why := b.take(p); why != "" {
			refuse(w, why+"; try again later, or end subscriptions/listen requests you no longer need")
			return
		}
		defer b.give(p) // deferred, so that a handler that panics gives its place back too
		next.ServeHTTP(w, r)
	})
}

// errUnreadableBody refuses a POST body that is not a JSON-RPC message or
// batch of them.
var errUnreadableBody = errors.New("the body is not a JSON-RPC message or a batch (array) of JSON-RPC messages")

// listening reports whether r, a POST, holds a subscriptions/listen
// request, alone or in a batch. It reads the body as the SDK does, the
// first JSON value and nothing after it, with keys matched exactly, and
// puts the body back for the SDK to read. An empty body, one past the
// SDK's limit, or one in which "listen" is neither written nor could be
// escaped (no backslash) is left for the SDK to read and refuse; any other
// body it cannot read is an error.
func listening(r *http.Request) (bool, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, mcp.DefaultMaxRequestBodyBytes+1))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
	if err != nil || len(body) > mcp.DefaultMaxRequestBodyBytes || len(bytes.TrimSpace(body)) == 0 {
		return false, nil
	}
	if !bytes.Contains(body, []byte("listen")) && bytes.IndexByte(body, '\\') < 0 {
		// No reader can find the listen method in it, written out or
		// escaped: the body is the SDK's alone, read once, not twice.
		return false, nil
	}
	var first json.RawMessage // the SDK decodes the first value and ignores the rest
	if json.NewDecoder(bytes.NewReader(body)).Decode(&first) != nil {
		return false, errUnreadableBody
	}
	batch := []json.RawMessage{first}
	if first[0] == '[' {
		if json.Unmarshal(first, &batch) != nil {
			return false, errUnreadableBody
		}
	}
	found := false
	for _, m := range batch {
		listen, err := listenMessage(m)
		if err != nil {
			return false, err
		}
		found = found || listen
	}
	return found, nil
}

// listenMessage reports whether the JSON-RPC message m is a
// subscriptions/listen request. It walks the object's keys rather than
// decoding into a struct, since encoding/json matches keys without regard
// to case and keeps the last of repeated keys, where the SDK matches case:
// any key "method" naming the listen counts.
func listenMessage(m json.RawMessage) (bool, error) {
	dec := json.NewDecoder(bytes.NewReader(m))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false, errUnreadableBody
	}
	listen := false
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return false, errUnreadableBody
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return false, errUnreadableBody
		}
		var method string
		if key == "method" && json.Unmarshal(value, &method) == nil && method == methodListen {
			listen = true
		}
	}
	return listen, nil
}

// methodListen is the request of 2026-07-28 that a client holds open to
// hear of changes, such as notifications/tools/list_changed.
const methodListen = "subscriptions/listen"

// refuse answers a request that would take a place past a bound.
func refuse(w http.ResponseWriter, why string) {
	w.Header().Set("Retry-After", retryAfter)
	http.Error(w, "Service Unavailable: "+why, http.StatusServiceUnavailable)
}

// take takes a place for a session of peer p, or says why there is none.
func (b *sessionBound) take(p string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.perPeer >= 0 && b.byPeer[p] >= b.perPeer:
		return "you have as many sessions open as this MCP server holds for one client (subscriptions/listen requests count as sessions)"
	case b.max >= 0 && b.open >= b.max:
		return "this MCP server has as many sessions open as it holds (subscriptions/listen requests count as sessions)"
	}
	b.open++
	b.byPeer[p]++
	return ""
}

func (b *sessionBound) give(p string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.open--
	if b.byPeer[p]--; b.byPeer[p] <= 0 {
		delete(b.byPeer, p)
	}
}

// session is the open session of the server with id, nil if none.
func (b *sessionBound) session(id string) *mcp.ServerSession {
	if id == "" {
		return nil
	}
	for ss := range b.srv.Sessions() {
		if ss.ID() == id {
			return ss
		}
	}
	return nil
}

// peer names who sent r, for the bound per peer: the user a verifier of
// the host's named, else the IP address, an IPv6 one by its /64 (a host
// is given a /64 whole, and could otherwise open sessions from each of its
// addresses).
func peer(r *http.Request) string {
	if info := auth.TokenInfoFromContext(r.Context()); info != nil && info.UserID != "" {
		return "user " + info.UserID
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return "address " + host
	}
	if ip = ip.Unmap(); ip.Is6() {
		ip = netip.PrefixFrom(ip, 64).Masked().Addr()
	}
	return "address " + ip.String()
}
