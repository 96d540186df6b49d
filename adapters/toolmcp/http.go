package toolmcp

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"net"
	"net/http"
	"net/netip"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultSessionTimeout is how long HTTPHandler keeps a session whose
// client sends no request, when HTTPOptions leave SessionTimeout at 0.
const DefaultSessionTimeout = 30 * time.Minute

// The bounds of the sessions one HTTPHandler holds open, when HTTPOptions
// leave them at 0. A session costs its server a few goroutines and some
// kilobytes until its client ends it or it times out (SessionTimeout), and
// a client can open one with every request: without a bound, anyone who
// reaches the port holds as many as they can send requests.
const (
	// DefaultMaxSessions bounds the sessions open at once in one handler:
	// far more clients than one server of tools serves, in about 5 MB of
	// heap and 10 MB resident (TestIdleSessionMemory measured 10.3 MB of
	// heap and 21 MB resident for 2,000).
	DefaultMaxSessions = 1000
	// DefaultMaxSessionsPerPeer bounds the sessions one client holds open
	// at once: a client needs one, an agent host one per run it has going;
	// 50 keeps a handful of peers from taking every session of the
	// handler.
	DefaultMaxSessionsPerPeer = 50
)

// retryAfter is the Retry-After, in seconds, of a request refused because
// the sessions are all taken: they free up as clients end them or they
// time out, which a client cannot see.
const retryAfter = "60"

// HTTPOptions configure HTTPHandler. The zero value authenticates no one
// and serves only peers on the local machine.
type HTTPOptions struct {
	// Token, when set, is the bearer token every request must carry
	// (Authorization: Bearer <Token>); a request without it or with another
	// token is refused with 401 before it reaches the server. Set it before
	// serving on anything but a loopback address: without it, HTTPHandler
	// refuses peers beyond the local machine (see AllowRemoteWithoutToken).
	// For OAuth or per-user tokens, leave it empty and wrap the handler in
	// auth.RequireBearerToken with a verifier of your own: a request that
	// verifier lets through is served from any address.
	Token string
	// AllowRemoteWithoutToken serves peers beyond the local machine
	// without a Token. Set it when something before the handler
	// authenticates them that HTTPHandler cannot see, such as a proxy or
	// middleware of your own that sets no auth.TokenInfo. Without it, a
	// handler with no Token refuses a request from an address that is not
	// loopback with 403: anyone who reaches the port could otherwise call
	// every tool. A proxy on the same machine makes every peer look local:
	// authenticate there, or set Token.
	AllowRemoteWithoutToken bool
	// SessionTimeout closes a session whose client has sent no request for
	// this long; its client must initialize again (clients do so when told
	// the session is gone, HTTP 404). 0 means DefaultSessionTimeout. A
	// negative value keeps sessions until their client ends them (DELETE):
	// each holds a goroutine and some kilobytes, and a client that never
	// ends its sessions keeps them until it meets MaxSessionsPerPeer.
	SessionTimeout time.Duration
	// MaxSessions bounds the sessions open at once, counting as sessions
	// the subscriptions/listen requests of 2026-07-28 clients held open
	// (each costs what a session does); 0 means
	// DefaultMaxSessions, a negative value no bound. A request that would
	// open one more is refused with 503 and Retry-After; a session frees
	// its place when its client ends it or it times out. Raise it for a
	// server with many clients at once.
	MaxSessions int
	// MaxSessionsPerPeer bounds the sessions one peer holds open at once;
	// 0 means DefaultMaxSessionsPerPeer, a negative value no bound. A peer
	// is the user of the request's auth.TokenInfo when a verifier of yours
	// names one, else its IP address (IPv6 addresses by their /64, which
	// one host holds whole). Behind a proxy every peer has the proxy's
	// address: raise it, or name users.
	MaxSessionsPerPeer int
	// Stateless serves every request on its own, with no session for any
	// client, whatever revision it speaks. Set it when the server runs as
	// several replicas behind a load balancer that does not send a client
	// back to the replica holding its session, or when it must hold no
	// state per client at all. It costs clients before 2026-07-28 what
	// only a session carries: notifications/tools/list_changed (they see a
	// tool added later when they list again; GET, their event stream, is
	// refused with 405), and requests from server to client (elicitation,
	// sampling, roots), which fail at once: a served tool's
	// toolreg.Interrupt, which AddTools asks such a client over its
	// session, is an error result that says it cannot be asked. Clients
	// of 2026-07-28 are served as
	// without it. SessionTimeout does not apply: no request holds anything
	// past its response. MaxSessions and MaxSessionsPerPeer still bound the
	// subscriptions/listen requests held open.
	Stateless bool
}

// HTTPHandler serves srv over streamable HTTP, ready to be exposed beyond
// the local machine: mount it at the MCP endpoint (e.g. "/mcp") and serve
// it with NewHTTPServer.
//
// It serves each client in the revision the client speaks. A request of
// 2026-07-28 or later (its Mcp-Protocol-Version header says so) is served
// on its own, as that revision defines: the client learns the server with
// server/discover, each request carries what the client is, and no
// session is opened, so no Mcp-Session-Id is read or set; the client
// hears of tools added later through subscriptions/listen, a request held
// open (and ended, like any response, by NewHTTPServer's WriteTimeout,
// after which the client listens again); a call ends when its client
// hangs up, since no one is left to read its result. A client of
// 2025-11-25 or older opens a session with initialize and keeps it, as its
// revision defines, with what a session carries: tools/list_changed
// notifications on the event stream it opens with GET, and requests from
// server to client. This default serves both without a choice to make;
// set HTTPOptions.Stateless to open no session for anyone.
//
// It refuses
//   - a request without the bearer token, when HTTPOptions.Token is set
//     (401);
//   - a request from beyond the local machine, when no Token is set
//     (403; see HTTPOptions.AllowRemoteWithoutToken);
//   - a cross-origin request from a browser (403, http.CrossOriginProtection);
//   - a request that reached a loopback address with another host name,
//     as DNS rebinding does (403, the SDK's check);
//   - a request that would open a session, or a subscriptions/listen
//     request, past HTTPOptions.MaxSessions, or past MaxSessionsPerPeer for
//     its peer (503, with Retry-After);
//   - a body over 4 MiB (413, the SDK's limit);
//
// and closes sessions left idle for HTTPOptions.SessionTimeout.
func HTTPHandler(srv *mcp.Server, opts HTTPOptions) http.Handler {
	timeout := opts.SessionTimeout
	switch {
	case timeout == 0:
		timeout = DefaultSessionTimeout
	case timeout < 0:
		timeout = 0 // the SDK's "never"
	}
	server := func(*http.Request) *mcp.Server { return srv }
	// The SDK serves 2026-07-28 over HTTP only from a stateless handler,
	// and sessions only from a stateful one: each revision goes to the
	// handler that serves it. A call of a client that hung up is cancelled:
	// in 2026-07-28 the request is the call's whole life.
	bound := newSessionBound(srv, opts.MaxSessions, opts.MaxSessionsPerPeer)
	h := bound.listens(mcp.NewStreamableHTTPHandler(server,
		&mcp.StreamableHTTPOptions{Stateless: true, PropagateRequestCancellation: true}))
	if !opts.Stateless {
		h = byRevision(h, bound.handler(
			mcp.NewStreamableHTTPHandler(server, &mcp.StreamableHTTPOptions{SessionTimeout: timeout})))
	}
	switch {
	case opts.Token != "":
		h = auth.RequireBearerToken(tokenVerifier(opts.Token), &auth.RequireBearerTokenOptions{
			AllowMissingExpiration: true, // a fixed token does not expire; replace it to revoke it
		})(h)
	case !opts.AllowRemoteWithoutToken:
		h = localOnly(h)
	}
	return http.NewCrossOriginProtection().Handler(h)
}

// byRevision sends a POST of protocol 2026-07-28 or later to sessionless,
// and any other request to sessions. The header decides: a request of
// 2026-07-28 must carry it, and the SDK checks it against the revision in
// the request's _meta. A request that names a session (Mcp-Session-Id)
// but speaks 2026-07-28 goes to sessionless, which reads no session id:
// it can neither reach nor end another client's session. GET and DELETE,
// which only sessions have, go to sessions.
func byRevision(sessionless, sessions http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Header.Get(protocolVersionHeader) >= firstSessionlessRevision {
			sessionless.ServeHTTP(w, r)
			return
		}
		sessions.ServeHTTP(w, r)
	})
}

// The revision a streamable HTTP request speaks is in its
// Mcp-Protocol-Version header; revisions are dates, so they compare as
// strings. 2026-07-28 is the first without sessions.
const (
	protocolVersionHeader    = "Mcp-Protocol-Version"
	firstSessionlessRevision = "2026-07-28"
)

// localOnly refuses a request from beyond the local machine that no
// verifier of the host's authenticated.
func localOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !local(r) && auth.TokenInfoFromContext(r.Context()) == nil {
			http.Error(w, "Forbidden: this MCP server authenticates no one, so it serves clients on its own machine only", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// local reports whether r came from the machine itself: from a loopback
// address, or over a Unix socket.
func local(r *http.Request) bool {
	if _, unix := r.Context().Value(http.LocalAddrContextKey).(*net.UnixAddr); unix {
		return true
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// tokenVerifier accepts exactly token. It compares digests in constant
// time, so that neither the time taken nor an early mismatch tells a
// caller how much of a guess was right, or how long the token is.
func tokenVerifier(token string) auth.TokenVerifier {
	want := sha256.Sum256([]byte(token))
	return func(_ context.Context, got string, _ *http.Request) (*auth.TokenInfo, error) {
		sum := sha256.Sum256([]byte(got))
		if subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{}, nil
	}
}

// NewHTTPServer returns a server for h on addr with every timeout set, so
// that a slow or silent client cannot hold a connection open forever (an
// http.Server's zero timeouts mean no limit): 10 s to read a request's
// headers, 30 s to read the whole request, 2 min for a kept-alive
// connection to wait for its next request, and 5 min to write a response.
//
// The write timeout bounds the longest tool call over HTTP: a call still
// running when it passes never gets its result to the client. Bound your
// tools below it (toolreg.WithDefaultTimeout), or raise WriteTimeout on the
// returned server. A client's standalone event stream (GET) ends at the
// write timeout too, and the client opens another.
func NewHTTPServer(addr string, h http.Handler) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      5 * time.Minute,
		IdleTimeout:       2 * time.Minute,
	}
}
