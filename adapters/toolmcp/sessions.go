package toolmcp

import (
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
			w.Header().Set("Retry-After", retryAfter)
			http.Error(w, "Service Unavailable: "+why+"; try again later, or end sessions you no longer use (DELETE)", http.StatusServiceUnavailable)
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

// take takes a place for a session of peer p, or says why there is none.
func (b *sessionBound) take(p string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.perPeer >= 0 && b.byPeer[p] >= b.perPeer:
		return "you have as many sessions open as this MCP server holds for one client"
	case b.max >= 0 && b.open >= b.max:
		return "this MCP server has as many sessions open as it holds"
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
