package slot

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestSemaHoldsItsLimitThroughCancellations: callers acquiring at once,
// a third of them giving up while they wait, never hold more than the
// limit, and every caller that does not give up gets a slot: no wake-up is
// lost to a caller that left.
func TestSemaHoldsItsLimitThroughCancellations(t *testing.T) {
	for _, limit := range []int32{1, 3} {
		s := &Sema{Limit: limit}
		var running, peak, got atomic.Int32
		var wg sync.WaitGroup
		for i := range 60 {
			wg.Go(func() {
				ctx := context.Background()
				if i%3 == 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, time.Duration(i%7)*100*time.Microsecond)
					defer cancel()
				}
				if err := s.Acquire(ctx); err != nil {
					if i%3 != 0 {
						t.Errorf("caller %d without a deadline: %v", i, err)
					}
					return
				}
				n := running.Add(1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				time.Sleep(50 * time.Microsecond)
				running.Add(-1)
				got.Add(1)
				s.Release()
			})
		}
		wg.Wait()
		if p := peak.Load(); p > limit {
			t.Errorf("limit %d: %d held at once", limit, p)
		}
		if got.Load() < 40 {
			t.Errorf("limit %d: %d callers got a slot, want at least the 40 without a deadline", limit, got.Load())
		}
		if s.Held() != 0 || s.Waiting() != 0 {
			t.Errorf("limit %d: %d held, %d waiting after all returned", limit, s.Held(), s.Waiting())
		}
	}
}
