package toolmcp

import (
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestIdleSessionMemory measures what sessions cost that clients open and
// never end (2,000 initializes without DELETE), with and without a session
// timeout. It takes a few seconds and reads /proc, so it runs on request:
//
//	TOOLREG_MEASURE=1 go test -count=1 -run TestIdleSessionMemory -v ./adapters/toolmcp/
func TestIdleSessionMemory(t *testing.T) {
	if os.Getenv("TOOLREG_MEASURE") == "" {
		t.Skip("a measurement: set TOOLREG_MEASURE=1 to run it")
	}
	const sessions = 2000
	const timeout = time.Second
	for _, tc := range []struct {
		name    string
		timeout time.Duration
	}{
		{"no timeout", -1},
		{"timeout 1s", timeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := serveHTTP(t, HTTPOptions{SessionTimeout: tc.timeout, MaxSessions: -1, MaxSessionsPerPeer: -1})
			for range 50 { // warm up: connections, pools, the SDK's caches
				post(t, url, initialize, nil)
			}
			time.Sleep(2 * timeout)
			heap0, rss0, g0 := usage(t)
			for range sessions {
				if resp, body := post(t, url, initialize, nil); resp.StatusCode != http.StatusOK {
					t.Fatalf("initialize: %d %s", resp.StatusCode, body)
				}
			}
			heap1, rss1, g1 := usage(t)
			time.Sleep(2 * timeout)
			heap2, rss2, g2 := usage(t)
			t.Logf("%d sessions: heap %+d KB, RSS %+d KB, goroutines %+d; %v later: heap %+d KB, RSS %+d KB, goroutines %+d",
				sessions, heap1-heap0, rss1-rss0, g1-g0, 2*timeout, heap2-heap0, rss2-rss0, g2-g0)
			// What stays after expiry is mostly the runtime's descriptors of
			// the sessions' ended goroutines, kept for reuse (under 0.6 KB
			// each): the SDK's, and the one that frees the session's place
			// under HTTPOptions.MaxSessions.
			if tc.timeout > 0 && (heap2-heap0 > (heap1-heap0)/4 || g2 > g0) {
				t.Errorf("expired sessions still hold %d KB of heap and %d goroutines", heap2-heap0, g2-g0)
			}
		})
	}
}

// usage is the live heap after a collection, the resident set after
// returning freed memory to the system, and the number of goroutines.
func usage(t *testing.T) (heapKB, rssKB, goroutines int) {
	t.Helper()
	runtime.GC()
	debug.FreeOSMemory()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no resident set size to read: %v", err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			rssKB, _ = strconv.Atoi(f[1])
		}
	}
	return int(m.HeapAlloc / 1024), rssKB, runtime.NumGoroutine()
}
