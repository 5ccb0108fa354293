// Package keyed is a concurrent map from target names to per-target
// objects (breakers, budgets) with a cap on how many it will make.
//
// Reading an existing entry is one atomic pointer load and one map lookup:
// no lock, no allocation. The map is split as sync.Map's is: an immutable
// snapshot that readers load, and under a lock a map of every entry that
// new keys go into. Lookups that miss the snapshot count; once they have
// cost as much as copying the map would, the full map becomes the new
// snapshot. Each copy is paid for by as many locked lookups, so adding n
// keys costs O(n) time and memory in all, not O(n²). Past the cap every
// new name gets one shared overflow entry, so a label explosion (a path or
// an ID where a host was meant) costs a bounded amount of memory.
//
// Its users are breaker and budget, whose registries are Maps, and
// package fold, which exports a Map for metrics exporters. It imports
// nothing of the module.
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

	read atomic.Pointer[map[string]V] // a snapshot; never written once stored
	n    atomic.Int64                 // keys with their own entry
	full atomic.Bool                  // the cap is reached and read holds every key

	mu     sync.Mutex
	all    map[string]V // every key's entry; nil while read is all of them
	misses int          // lookups since the last snapshot that missed it
	over   V
	isOver bool
	spills atomic.Uint64
}

// New returns a map that calls make for each new key, up to max keys;
// past that, Get returns one entry made by make(overflow) for every new
// key. The overflow name is reserved: Get(overflow) returns the overflow
// entry, so that All names each entry once.
func New[V any](max int, overflow string, make func(key string) V) *Map[V] {
	return &Map[V]{make: make, max: max, overflow: overflow}
}

// Get returns key's entry, making it if needed.
func (m *Map[V]) Get(key string) V {
	if p := m.read.Load(); p != nil {
		if v, ok := (*p)[key]; ok {
			return v
		}
	}
	if m.full.Load() && key != m.overflow {
		m.spills.Add(1)
		return m.over // written before full was set
	}
	return m.slow(key)
}

func (m *Map[V]) overLocked() V {
	if !m.isOver {
		m.over, m.isOver = m.make(m.overflow), true
	}
	return m.over
}

func (m *Map[V]) slow(key string) V {
	m.mu.Lock()
	defer m.mu.Unlock()
	if key == m.overflow {
		return m.overLocked()
	}
	if m.all == nil {
		// read is every entry: start the full map from it.
		if p := m.read.Load(); p != nil {
			m.all = maps.Clone(*p)
		} else {
			m.all = map[string]V{}
		}
	}
	v, ok := m.all[key]
	switch {
	case ok:
	case len(m.all) >= m.max:
		m.spills.Add(1)
		m.snapshotLocked()
		v = m.overLocked()
		m.full.Store(true)
		return v
	default:
		v = m.make(key)
		m.all[key] = v
		m.n.Add(1)
	}
	if m.misses++; m.misses >= len(m.all) {
		m.snapshotLocked()
	}
	return v
}

// snapshotLocked makes the full map the readers' snapshot.
func (m *Map[V]) snapshotLocked() {
	if m.all == nil {
		return
	}
	all := m.all
	m.read.Store(&all)
	m.all, m.misses = nil, 0
}

// Len returns the number of keys with their own entry.
func (m *Map[V]) Len() int { return int(m.n.Load()) }

// Spills returns how many Get calls were answered with the overflow entry
// for a key past the cap.
func (m *Map[V]) Spills() uint64 { return m.spills.Load() }

// All yields the entries in key order, then the overflow entry under the
// overflow name if it exists.
func (m *Map[V]) All() iter.Seq2[string, V] {
	return func(yield func(string, V) bool) {
		m.mu.Lock()
		m.snapshotLocked()
		v, isOver := m.over, m.isOver
		m.mu.Unlock()
		var cur map[string]V
		if p := m.read.Load(); p != nil {
			cur = *p
		}
		for _, k := range slices.Sorted(maps.Keys(cur)) {
			if !yield(k, cur[k]) {
				return
			}
		}
		if isOver {
			yield(m.overflow, v)
		}
	}
}
