package breaker

import (
	"context"
	"fmt"
	"iter"
	"log/slog"

	"github.com/recur-go/recur/internal/keyed"
)

// DefaultMaxTargets is NewRegistry's cap when it is given 0.
const DefaultMaxTargets = 256

// Overflow names the breaker a full Registry shares among the targets past
// its cap; Get(Overflow) returns it, so All never names two breakers alike.
const Overflow = "(other)"

// Registry keeps one breaker per target, such as
// "https://api.example.com:443", made from one Config with Name set to the
// target (and, with Config.Shared, shared under that name). It is safe for
// concurrent use; Get of a known target takes no lock and allocates
// nothing, and a new target costs amortised constant time and memory.
// Past its cap, a guard against a URL path or a request ID passed where a
// host was meant, new targets share the Overflow breaker, protected
// together, with one warning logged when it is first used.
type Registry struct {
	m *keyed.Map[*Breaker]
}

// NewRegistry returns a registry of breakers made from c, which it checks
// once, for at most max targets (0 means DefaultMaxTargets).
func NewRegistry(c Config, max int) (*Registry, error) {
	switch {
	case max == 0:
		max = DefaultMaxTargets
	case max < 0:
		return nil, fmt.Errorf("breaker: NewRegistry max = %d is negative", max)
	}
	s, err := resolve(c)
	if err != nil {
		return nil, err
	}
	r := &Registry{}
	make := func(target string) *Breaker {
		if target == Overflow && s.Logger != nil && r.m.Len() >= max {
			s.Logger.LogAttrs(context.Background(), slog.LevelWarn, "circuit breaker registry full; new targets share one breaker",
				slog.Int("max", max), slog.String("breaker", Overflow))
		}
		b := build(&s, target, false)
		if err := b.join(); err != nil && s.Logger != nil { // the store refused the name: b judges alone
			s.Logger.LogAttrs(context.Background(), slog.LevelWarn, "circuit breaker not shared: the store refused it",
				slog.String("breaker", target), slog.Any("err", err))
		}
		return b
	}
	r.m = keyed.New(max, Overflow, make)
	return r, nil
}

// Close closes every breaker of the registry (see Breaker.Close) and
// returns the first error. A target first seen after Close gets a shared
// breaker again, so close a registry when its calls are over.
func (r *Registry) Close() error {
	var first error
	for _, b := range r.m.All() {
		if err := b.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Get returns target's breaker, making it on first use.
func (r *Registry) Get(target string) *Breaker { return r.m.Get(target) }

// All yields every target and its breaker, in target order, then the
// overflow breaker if it exists.
func (r *Registry) All() iter.Seq2[string, *Breaker] { return r.m.All() }

// Len returns the number of targets with a breaker of their own.
func (r *Registry) Len() int { return r.m.Len() }

// Spills returns how many Get calls got the Overflow breaker; above zero,
// the cap is too small or the keys are not targets.
func (r *Registry) Spills() uint64 { return r.m.Spills() }
