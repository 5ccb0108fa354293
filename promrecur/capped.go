package promrecur

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
// a full map under a lock; lookups that miss the snapshot count, and once
// they have cost as much as copying the map would, the full map becomes
// the snapshot, so adding n keys costs O(n) in all.
type capped[V any] struct {
	make func(key string) V
	max  int

	read atomic.Pointer[map[string]V] // never written once stored
	full atomic.Bool                  // the cap is reached: over is set and read holds every key

	mu     sync.Mutex
	all    map[string]V // every key's entry; nil while read is all of them
	misses int
	over   V
	isOver bool
}

func newCapped[V any](max int, make func(key string) V) *capped[V] {
	return &capped[V]{make: make, max: max}
}

// get returns key's entry, making it if needed.
func (c *capped[V]) get(key string) V {
	if p := c.read.Load(); p != nil {
		if v, ok := (*p)[key]; ok {
			return v
		}
	}
	if c.full.Load() {
		return c.over // written before full was set
	}
	return c.slow(key)
}

func (c *capped[V]) overLocked() V {
	if !c.isOver {
		c.over, c.isOver = c.make(Overflow), true
	}
	return c.over
}

func (c *capped[V]) slow(key string) V {
	c.mu.Lock()
	defer c.mu.Unlock()
	if key == Overflow {
		return c.overLocked()
	}
	if c.all == nil {
		if p := c.read.Load(); p != nil {
			c.all = maps.Clone(*p)
		} else {
			c.all = map[string]V{}
		}
	}
	v, ok := c.all[key]
	switch {
	case ok:
	case len(c.all) >= c.max:
		v = c.overLocked()
		c.snapshotLocked()
		c.full.Store(true)
		return v
	default:
		v = c.make(key)
		c.all[key] = v
	}
	if c.misses++; c.misses >= len(c.all) {
		c.snapshotLocked()
	}
	return v
}

func (c *capped[V]) snapshotLocked() {
	if c.all == nil {
		return
	}
	all := c.all
	c.read.Store(&all)
	c.all, c.misses = nil, 0
}
