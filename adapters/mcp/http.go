package mcp

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultSessionTimeout is how long HTTPHandler keeps a session whose
// client sends no request, when HTTPOptions leave SessionTimeout at 0.
const DefaultSessionTimeout = 30 * time.Minute

// HTTPOptions configure HTTPHandler. The zero value authenticates no one:
// it is for a server on a loopback address only.
type HTTPOptions struct {
	// Token, when set, is the bearer token every request must carry
	// (Authorization: Bearer <Token>); a request without it or with another
	// token is refused with 401 before it reaches the server. Set it before
	// serving on anything but a loopback address: anyone who reaches the
	// port can otherwise call every tool. For OAuth or per-user tokens, leave
	// it empty and wrap the handler in auth.RequireBearerToken with a
	// verifier of your own.
	Token string
	// SessionTimeout closes a session whose client has sent no request for
	// this long; its client must initialize again (clients do so when told
	// the session is gone, HTTP 404). 0 means DefaultSessionTimeout. A
	// negative value keeps sessions until their client ends them (DELETE):
	// each holds a goroutine and some kilobytes, and a client that never
	// ends its sessions keeps them forever.
	SessionTimeout time.Duration
}

// HTTPHandler serves srv over streamable HTTP, ready to be exposed beyond
// the local machine: mount it at the MCP endpoint (e.g. "/mcp") and serve
// it with NewHTTPServer. It refuses
//   - a request without the bearer token, when HTTPOptions.Token is set
//     (401);
//   - a cross-origin request from a browser (403, http.CrossOriginProtection);
//   - a request that reached a loopback address with another host name,
//     as DNS rebinding does (403, the SDK's check);
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
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{SessionTimeout: timeout})
	if opts.Token != "" {
		h = auth.RequireBearerToken(tokenVerifier(opts.Token), &auth.RequireBearerTokenOptions{
			AllowMissingExpiration: true, // a fixed token does not expire; replace it to revoke it
		})(h)
	}
	return http.NewCrossOriginProtection().Handler(h)
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
