package budget

import (
	"fmt"
	"iter"

	"github.com/recur-go/recur/internal/keyed"
)

// DefaultMaxTargets is the cap on a Registry's distinct targets when
// NewRegistry is given 0.
const DefaultMaxTargets = 256

// Overflow is the name of the budget a full Registry shares among all the
// targets past its cap.
const Overflow = "(other)"

// Registry keeps one budget per target, such as "https://api.example.com:443",
// all made from one Config. It is safe for concurrent use; Get of a known
// target takes no lock and allocates nothing.
//
// A Registry holds at most its cap of distinct targets; past it, every new
// target shares one overflow budget, named Overflow in All, so a label
// explosion cannot eat memory. See Spills.
type Registry struct {
	m *keyed.Map[Budget]
}

// NewRegistry returns a registry that makes budgets from c, holding at
// most max targets (0 means DefaultMaxTargets). c is checked once, here.
func NewRegistry(c Config, max int) (*Registry, error) {
	switch {
	case c == nil:
		return nil, fmt.Errorf("budget: NewRegistry with a nil Config")
	case max == 0:
		max = DefaultMaxTargets
	case max < 0:
		return nil, fmt.Errorf("budget: NewRegistry max = %d is negative", max)
	}
	if _, err := c.New(); err != nil {
		return nil, err
	}
	make := func(string) Budget {
		b, _ := c.New() // cannot fail: c was checked above
		return b
	}
	return &Registry{m: keyed.New(max, Overflow, make)}, nil
}

// Get returns target's budget, making it on first use.
func (r *Registry) Get(target string) Budget { return r.m.Get(target) }

// All yields every target and its budget, in target order, then the
// overflow budget if it exists.
func (r *Registry) All() iter.Seq2[string, Budget] { return r.m.All() }

// Len returns the number of targets with a budget of their own.
func (r *Registry) Len() int { return r.m.Len() }

// Spills returns how many Get calls were answered with the overflow
// budget.
func (r *Registry) Spills() uint64 { return r.m.Spills() }
