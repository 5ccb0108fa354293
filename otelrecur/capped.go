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
// As in sync.Map, readers load an immutable snapshot and new keys go into
// a full map under a lock; lookups that miss the snapshot are counted, and
// once they have cost as much as copying the map would, the full map
// becomes the snapshot. Adding n keys so costs O(n) in all, whatever max.
type capped[V any] struct {
	make func(key string) V
	max  int
	read atomic.Pointer[map[string]V] // never written once stored
	full atomic.Bool                  // the cap is reached: over is set and read holds every key

	mu     sync.Mutex
	dirty  map[string]V // every key's entry; nil while read holds them all
	misses int
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
	if key == Overflow {
		return c.overLocked()
	}
	if c.dirty == nil {
		c.dirty = maps.Clone(*c.read.Load())
	}
	v, ok := c.dirty[key]
	switch {
	case ok:
	case len(c.dirty) >= c.max:
		v = c.overLocked()
		c.promoteLocked()
		c.full.Store(true)
		return v
	default:
		v = c.make(key)
		c.dirty[key] = v
	}
	if c.misses++; c.misses >= len(c.dirty) {
		c.promoteLocked()
	}
	return v
}

func (c *capped[V]) overLocked() V {
	if !c.isOver {
		c.over, c.isOver = c.make(Overflow), true
	}
	return c.over
}

// promoteLocked makes the full map the snapshot.
func (c *capped[V]) promoteLocked() {
	if c.dirty == nil {
		return
	}
	d := c.dirty
	c.read.Store(&d)
	c.dirty, c.misses = nil, 0
}
