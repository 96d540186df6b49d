package toolotel

import (
	"maps"
	"sync"
	"sync/atomic"
)

// maxCached bounds a cache: far more tools than a registry holds, times
// their outcomes, while names a model makes up (unknown tools) cannot
// grow it without end.
const maxCached = 4096

// cache keeps what is derived from a key, so that the per-call path reads
// it without locking or allocating: readers load an immutable map, and a
// writer, once per new key, stores a copy with the key added. Past
// maxCached keys, values are made afresh at each call.
type cache[K comparable, V any] struct {
	mu sync.Mutex
	m  atomic.Pointer[map[K]V]
}

func (c *cache[K, V]) get(k K, build func(K) V) V {
	if m := c.m.Load(); m != nil {
		if v, ok := (*m)[k]; ok {
			return v
		}
	}
	v := build(k)
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.m.Load()
	if old == nil {
		old = &map[K]V{}
	}
	if len(*old) >= maxCached {
		return v
	}
	next := maps.Clone(*old)
	next[k] = v
	c.m.Store(&next)
	return v
}
