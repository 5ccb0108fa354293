package fold

import "github.com/recur-go/recur/internal/keyed"

// Map is a concurrent map from targets to an exporter's per-target
// entries, which it makes on first use, up to a cap: past it, every new
// target gets one entry, made for Overflow. Get of an existing entry is
// one atomic load and one map lookup, with no lock and no allocation; the
// cost of adding n targets is O(n) in all. A breaker.Registry and a
// budget.Registry hold their breakers and budgets the same way. The zero
// Map is not usable: call NewMap.
type Map[V any] struct{ m *keyed.Map[V] }

// NewMap returns a Map that calls make for each new target, up to max
// targets; past them, Get returns one entry that make(Overflow) made.
// Get(Overflow) returns that entry too.
func NewMap[V any](max int, make func(target string) V) *Map[V] {
	return &Map[V]{keyed.New(max, Overflow, make)}
}

// Get returns target's entry, making it if needed. target should be a
// label value already (Value).
func (m *Map[V]) Get(target string) V { return m.m.Get(target) }
