package schedgen_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/recur-go/recur/internal/schedgen"
	"github.com/recur-go/recur/schedule"
)

// randSource is a Source without a property-test library: math/rand's
// choices, which nothing shrinks.
type randSource struct{ r *rand.Rand }

func (s randSource) IntRange(lo, hi int, _ string) int { return lo + s.r.IntN(hi-lo+1) }
func (s randSource) Bool(string) bool                  { return s.r.IntN(2) == 1 }
func (s randSource) Index(n int, _ string) int         { return s.r.IntN(n) }

// variants adds the type of every node of s to seen.
func variants(s schedule.Schedule, seen map[string]bool) {
	seen[fmt.Sprintf("%T", s)] = true
	for _, c := range children(s) {
		if c != nil {
			variants(c, seen)
		}
	}
}

// TestValid: every schedule Valid draws is valid, and the draws reach
// every variant.
func TestValid(t *testing.T) {
	src := randSource{rand.New(rand.NewPCG(1, 2))}
	seen := map[string]bool{}
	for range 3000 {
		s := schedgen.Valid(src)
		if err := schedule.Validate(s); err != nil {
			t.Fatalf("Valid drew %v: %v", s, err)
		}
		variants(s, seen)
	}
	if len(seen) != 18 {
		t.Errorf("Valid drew %d variants, want the 18: %v", len(seen), seen)
	}
}

// TestAny: Any draws both valid and invalid schedules (about a third
// valid under rapid, whose choices lean to the small; more with uniform
// ones).
func TestAny(t *testing.T) {
	src := randSource{rand.New(rand.NewPCG(3, 4))}
	valid := 0
	const n = 3000
	for range n {
		if schedule.Validate(schedgen.Any(src)) == nil {
			valid++
		}
	}
	if valid < n/5 || valid > n*4/5 {
		t.Errorf("Any drew %d valid schedules of %d, want both kinds", valid, n)
	}
}

func children(s schedule.Schedule) []schedule.Schedule {
	a, b := schedule.Children(s)
	return []schedule.Schedule{a, b}
}
