// Package keyed is a concurrent map from target names to per-target
// objects (breakers, budgets) with a cap on how many it will make.
//
// Reading an existing entry is one atomic pointer load and one map lookup:
// no lock, no allocation. Adding an entry copies the map under a lock,
// which is cheap because the cap keeps the map small. Past the cap every
// new name gets one shared overflow entry, so a label explosion (a path or
// an ID where a host was meant) costs a bounded amount of memory.
package keyed

import (
	"iter"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
)

// Map makes one V per key, up to a cap. The zero value is not usable: call
// New.
type Map[V any] struct {
	make     func(key string) V
	max      int
	overflow string

	m    atomic.Pointer[map[string]V]
	full atomic.Bool

	mu     sync.Mutex
	over   V
	isOver bool
	spills atomic.Uint64
}

// New returns a map that calls make for each new key, up to max keys;
// past that, Get returns one entry made by make(overflow) for every new
// key.
func New[V any](max int, overflow string, make func(key string) V) *Map[V] {
	return &Map[V]{make: make, max: max, overflow: overflow}
}

// Get returns key's entry, making it if needed.
func (m *Map[V]) Get(key string) V {
	if p := m.m.Load(); p != nil {
		if v, ok := (*p)[key]; ok {
			return v
		}
	}
	if m.full.Load() {
		m.spills.Add(1)
		return m.over
	}
	return m.add(key)
}

func (m *Map[V]) add(key string) V {
	m.mu.Lock()
	defer m.mu.Unlock()
	var old map[string]V
	if p := m.m.Load(); p != nil {
		old = *p
	}
	if v, ok := old[key]; ok {
		return v
	}
	if len(old) >= m.max {
		if !m.isOver {
			m.over, m.isOver = m.make(m.overflow), true
			m.full.Store(true)
		}
		m.spills.Add(1)
		return m.over
	}
	next := make(map[string]V, len(old)+1)
	maps.Copy(next, old)
	v := m.make(key)
	next[key] = v
	m.m.Store(&next)
	return v
}

// Len returns the number of keys with their own entry.
func (m *Map[V]) Len() int {
	if p := m.m.Load(); p != nil {
		return len(*p)
	}
	return 0
}

// Spills returns how many Get calls were answered with the overflow entry.
func (m *Map[V]) Spills() uint64 { return m.spills.Load() }

// All yields the entries in key order, then the overflow entry under the
// overflow name if it exists.
func (m *Map[V]) All() iter.Seq2[string, V] {
	return func(yield func(string, V) bool) {
		var cur map[string]V
		if p := m.m.Load(); p != nil {
			cur = *p
		}
		for _, k := range slices.Sorted(maps.Keys(cur)) {
			if !yield(k, cur[k]) {
				return
			}
		}
		if m.full.Load() {
			m.mu.Lock()
			v := m.over
			m.mu.Unlock()
			yield(m.overflow, v)
		}
	}
}
