package otelrecur

import (
	"maps"
	"sync"
	"sync/atomic"
)

// capped makes one V per key, up to max keys; past that every new key gets
// one shared entry made for the key Overflow, which is reserved (a key
// spelled Overflow gets that entry too). Reading an existing entry is one
// atomic load and one map lookup: no lock, no allocation.
//
// New keys are added under a lock to a copy of the map, which then
// replaces the one readers load; at most max keys are ever copied, so
// filling it costs O(max²) map writes once, and nothing after.
type capped[V any] struct {
	make func(key string) V
	max  int
	read atomic.Pointer[map[string]V] // never written once stored
	full atomic.Bool                  // the cap is reached: over is set

	mu     sync.Mutex
	over   V
	isOver bool
}

func newCapped[V any](max int, make func(key string) V) *capped[V] {
	c := &capped[V]{make: make, max: max}
	c.read.Store(&map[string]V{})
	return c
}

// get returns key's entry, making it if needed.
func (c *capped[V]) get(key string) V {
	if v, ok := (*c.read.Load())[key]; ok {
		return v
	}
	if c.full.Load() {
		return c.over // written before full was set
	}
	return c.slow(key)
}

func (c *capped[V]) slow(key string) V {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := *c.read.Load()
	if v, ok := old[key]; ok {
		return v
	}
	if key == Overflow || len(old) >= c.max {
		if !c.isOver {
			c.over, c.isOver = c.make(Overflow), true
		}
		if key != Overflow {
			c.full.Store(true)
		}
		return c.over
	}
	v := c.make(key)
	m := maps.Clone(old)
	m[key] = v
	c.read.Store(&m)
	return v
}
