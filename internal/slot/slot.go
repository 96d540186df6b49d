// Package slot bounds how many calls run at once: a counting semaphore
// whose waits honour a context, and the bounds a caller of a registry
// holds while a call runs (a turn's, a run's early starts'), which a call
// gives back while it waits for its tool's group.
package slot

import (
	"context"
	"sync"
	"sync/atomic"
)

// Sema is a counting semaphore of Limit slots. The zero Sema has no slot;
// set Limit before first use and do not change it after. Taking a free
// slot and giving one back when nobody waits are an atomic operation each,
// and a Sema nobody waited on is 24 bytes: a turn of calls holds one.
// Waiters are woken first come, first served.
type Sema struct {
	Limit   int32
	held    atomic.Int32
	waiting atomic.Int32 // len of the queue's waiters, and the waiters about to join it
	q       atomic.Pointer[queue]
}

// queue holds the waiters, made by the first.
type queue struct {
	mu      sync.Mutex
	waiters []chan struct{}
}

func (s *Sema) queue() *queue {
	if q := s.q.Load(); q != nil {
		return q
	}
	s.q.CompareAndSwap(nil, new(queue))
	return s.q.Load()
}

// TryAcquire takes a slot if one is free.
func (s *Sema) TryAcquire() bool {
	for {
		n := s.held.Load()
		if n >= s.Limit {
			return false
		}
		if s.held.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// Acquire takes a slot, waiting for one as long as ctx allows; it returns
// ctx's error when ctx ends first, holding no slot then.
func (s *Sema) Acquire(ctx context.Context) error {
	if s.TryAcquire() {
		return nil
	}
	q := s.queue()
	for {
		q.mu.Lock()
		s.waiting.Add(1) // before trying: a Release from now on wakes someone
		if s.TryAcquire() {
			s.waiting.Add(-1)
			q.mu.Unlock()
			return nil
		}
		ch := make(chan struct{})
		q.waiters = append(q.waiters, ch)
		q.mu.Unlock()
		select {
		case <-ch: // a slot was given back: try again
		case <-ctx.Done():
			q.mu.Lock()
			if i := indexOf(q.waiters, ch); i >= 0 {
				q.waiters = append(q.waiters[:i], q.waiters[i+1:]...)
				s.waiting.Add(-1)
			} else {
				s.wakeLocked(q) // woken as ctx ended: the wake-up is the next waiter's
			}
			q.mu.Unlock()
			return ctx.Err()
		}
	}
}

// Held is the number of slots taken.
func (s *Sema) Held() int { return int(s.held.Load()) }

// Waiting is the number of callers waiting in Acquire.
func (s *Sema) Waiting() int { return int(s.waiting.Load()) }

// Force takes a slot whether one is free or not: for a caller that gave
// its slot back and must hold one again to give it back later, though
// what it does with it is only to return.
func (s *Sema) Force() { s.held.Add(1) }

// Release gives a slot back and wakes the first waiter, if any.
func (s *Sema) Release() {
	s.held.Add(-1)
	if s.waiting.Load() > 0 {
		q := s.queue()
		q.mu.Lock()
		s.wakeLocked(q)
		q.mu.Unlock()
	}
}

func (s *Sema) wakeLocked(q *queue) {
	if len(q.waiters) == 0 {
		return
	}
	close(q.waiters[0])
	q.waiters = q.waiters[1:]
	s.waiting.Add(-1)
}

func indexOf(chs []chan struct{}, ch chan struct{}) int {
	for i, c := range chs {
		if c == ch {
			return i
		}
	}
	return -1
}

// Holder is a bound on concurrent calls that a caller of a registry holds a
// slot of while one of its calls runs: a turn of CallAll, a run's early
// starts. A call that must wait for its tool's group gives the slot back
// while it waits (Release), so that the caller's other calls keep moving
// and no two bounds wait on each other, and takes one again before it runs
// (Reclaim). Reclaim waits as long as ctx allows and then takes the slot
// all the same, over the bound: the call, whose context has ended, only
// returns.
type Holder interface {
	Release()
	Reclaim(ctx context.Context)
}

// Key is the context key of a Holder: a context that is itself a Holder
// answers it with itself.
type Key struct{}

// WithHolder returns a context whose calls hold a slot of h.
func WithHolder(ctx context.Context, h Holder) context.Context {
	return context.WithValue(ctx, Key{}, h)
}

// HolderOf is the innermost Holder ctx carries, nil for none.
func HolderOf(ctx context.Context) Holder {
	h, _ := ctx.Value(Key{}).(Holder)
	return h
}
