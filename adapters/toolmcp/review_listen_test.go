package toolmcp

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
)

// TestHTTPListenBoundBypass: the listen bound reads the body with
// encoding/json's Unmarshal, which refuses a value followed by more text,
// while the SDK reads its first value with a Decoder and ignores what
// follows: a subscriptions/listen with trailing bytes is held open beyond
// MaxSessionsPerPeer.
func TestHTTPListenBoundBypass(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(map[bool]string{false: "sessions", true: "stateless"}[stateless], func(t *testing.T) {
			url := serveHTTP(t, HTTPOptions{MaxSessionsPerPeer: 1, MaxSessions: 1, Stateless: stateless})
			ctx, hangUp := context.WithCancel(context.Background())
			defer hangUp()
			held := 0
			for i := range 3 {
				req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(newListen+" x"))
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
		})
	}
}
