package breaker

import (
	"context"
	"fmt"
	"iter"
	"log/slog"

	"github.com/recur-go/recur/internal/keyed"
)

// DefaultMaxTargets is the cap on a Registry's distinct targets when
// NewRegistry is given 0.
const DefaultMaxTargets = 256

// Overflow is the name of the breaker a full Registry shares among all the
// targets past its cap. The name is reserved: Get(Overflow) returns that
// breaker, so that All never names two breakers alike.
const Overflow = "(other)"

// Registry keeps one breaker per target, such as "https://api.example.com:443",
// all made from one Config with Name set to the target. It is safe for
// concurrent use; Get of a known target takes no lock and allocates
// nothing, and adding targets costs amortised constant time and memory
// each (10,000 new targets take a few milliseconds).
//
// A Registry holds at most its cap of distinct targets, so a label
// explosion (a URL path or a request ID passed where a host was meant)
// cannot eat memory. Past the cap, every new target shares one overflow
// breaker named Overflow: those targets are still protected, together, as
// if they were one dependency, and one warning is logged when it is first
// used. A sound key set never gets there; see Spills.
type Registry struct {
	m *keyed.Map[*Breaker]
}

// NewRegistry returns a registry that makes breakers from c, holding at
// most max targets (0 means DefaultMaxTargets). c is checked once, here.
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
		if s.Shared != nil {
			if err := b.join(); err != nil {
				// The store refused the name: this target's breaker
				// judges alone, and says so once.
				b.fleet = nil
				if s.Logger != nil {
					s.Logger.LogAttrs(context.Background(), slog.LevelWarn, "circuit breaker not shared: the store refused it",
						slog.String("breaker", target), slog.Any("err", err))
				}
			}
		}
		return b
	}
	r.m = keyed.New(max, Overflow, make)
	return r, nil
}

// Close closes every breaker of the registry (see Breaker.Close): with
// Config.Shared, each target's breaker runs a flusher that Close stops.
// The breakers keep working on their own counts; a target first seen
// after Close gets a breaker that is shared again, so close a registry
// only when its calls are over. Close returns the first error.
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

// Spills returns how many Get calls were answered with the overflow
// breaker; above zero, the registry's cap is too small or its keys are
// not targets.
func (r *Registry) Spills() uint64 { return r.m.Spills() }
