// Package schedgen generates random valid schedules for property tests.
// It is a test kit: only _test.go files import it (the property tests of
// audit, interp, lint, parse, repeat, retry and schedule), and it imports
// nothing of the module but schedule. It exists twice: here, and as a copy
// in cmd/schedcheck/internal/schedgen for the schedcheck module's tests,
// which cannot import another module's internal packages; the two are the
// same but for import paths, and internal/layout's test keeps them so.
//
// Valid draws every one of the eighteen variants, nested to a bounded
// depth, with parameters chosen to exercise the edges (tiny and huge
// durations, caps below bases, zero budgets) while keeping every value
// valid. Any draws schedules that may be invalid.
//
// The generators draw their choices from a Source, so that this package
// does not import a property-test library and none reaches the module's
// non-test packages: each test package adapts rapid to Source in a
// _test.go file (a rapid.T, rapid.IntRange, rapid.Bool and
// rapid.SampledFrom, one to one), and rapid shrinks a failing schedule by
// shrinking those choices. The draws are the ones rapid's own generators
// made when this package used rapid directly, so that the rapid fail files
// kept in testdata replay the same schedules.
package schedgen

import (
	"time"

	"github.com/recur-go/recur/schedule"
)

// MaxDepth is the deepest nesting Valid and Any produce.
const MaxDepth = 4

// Source makes the choices of a generator, one at a time. label names a
// choice in the property-test library's log.
type Source interface {
	// IntRange returns an int in [lo, hi] (rapid.IntRange).
	IntRange(lo, hi int, label string) int
	// Bool returns a bool (rapid.Bool).
	Bool(label string) bool
	// Index returns one of 0, …, n-1, as picking from a list of n values
	// (rapid.SampledFrom) does.
	Index(n int, label string) int
}

// Valid returns a valid schedule of any variant.
func Valid(src Source) schedule.Schedule { return draw(src, MaxDepth) }

// Leaf returns a valid schedule without children.
func Leaf(src Source) schedule.Schedule { return draw(src, 0) }

// Duration returns a positive duration, mostly small, some near the
// largest Duration.
func Duration(src Source) time.Duration {
	switch src.IntRange(0, 9, "durkind") {
	case 0:
		return schedule.MaxDuration - time.Duration(src.IntRange(0, 1000, "below"))
	case 1:
		return time.Duration(src.IntRange(1, 1000, "ns"))
	default:
		return time.Duration(src.IntRange(1, 120_000, "ms")) * time.Millisecond
	}
}

// pick returns one of vs.
func pick[V any](src Source, label string, vs ...V) V { return vs[src.Index(len(vs), label)] }

func draw(t Source, depth int) schedule.Schedule {
	kinds := 5
	if depth > 0 {
		kinds = 15
	}
	kind := t.IntRange(0, kinds-1, "kind")
	if kind == 4 && t.IntRange(0, 2, "newleaf") > 0 {
		// The leaves added later share Decorrelated's draw, so that the
		// older leaves keep their odds.
		kind = 100 + t.IntRange(0, 2, "newleafkind")
	}
	switch kind {
	case 100:
		return schedule.Linear{Base: budget(t), Step: budget(t)}
	case 102:
		return schedule.DecorrelatedV2{Base: Duration(t)}
	case 101:
		lo := budget(t)
		if t.Bool("point") {
			return schedule.Random{Lo: lo, Hi: lo}
		}
		return schedule.Random{Lo: lo, Hi: max(lo, budget(t))}
	case 12:
		return schedule.Sum{A: draw(t, depth-1), B: draw(t, depth-1)}
	case 13:
		return schedule.WhileBelow{Inner: draw(t, depth-1), Limit: Duration(t)}
	case 14:
		return schedule.ResetAfter{Inner: draw(t, depth-1), After: Duration(t)}
	case 0:
		return schedule.Times{N: t.IntRange(1, 12, "n")}
	case 1:
		return schedule.Spaced{Every: Duration(t)}
	case 2:
		e := schedule.Exponential{Base: Duration(t), FactorPct: pick(t, "factor", 100, 150, 200, 300, 1000), Cap: Duration(t)}
		e.FactorFrac = frac(t, "factorfrac")
		return e
	case 3:
		if t.Bool("fib") {
			return schedule.Fibonacci{Base: Duration(t)}
		}
		return schedule.Forever{}
	case 4:
		return schedule.Decorrelated{Base: Duration(t), Cap: Duration(t)}
	case 5:
		lo := t.IntRange(0, 200, "low")
		j := schedule.Jittered{Inner: draw(t, depth-1), LowPct: lo, HighPct: t.IntRange(lo, 1000, "high")}
		j.LowFrac = frac(t, "lowfrac")
		if j.HighPct < 1000 {
			j.HighFrac = frac(t, "highfrac")
		}
		if j.LowPPM() > j.HighPPM() {
			j.LowFrac, j.HighFrac = j.HighFrac, j.LowFrac
		}
		return j
	case 6:
		return schedule.Union{A: draw(t, depth-1), B: draw(t, depth-1)}
	case 7:
		return schedule.Intersect{A: draw(t, depth-1), B: draw(t, depth-1)}
	case 8:
		return schedule.AndThen{First: draw(t, depth-1), Then: draw(t, depth-1)}
	case 9:
		return schedule.UpTo{Inner: draw(t, depth-1), Budget: budget(t)}
	case 10:
		return schedule.Capped{Inner: draw(t, depth-1), Max: budget(t)}
	default:
		return draw(t, depth-1)
	}
}

// frac returns a fraction of a percent, in ten-thousandths: mostly none,
// sometimes the finest, a round one or the largest.
func frac(t Source, label string) int {
	if t.IntRange(0, 3, label+"kind") > 0 {
		return 0
	}
	return pick(t, label, 1, 100, 5000, 9999)
}

// budget returns a non-negative duration, sometimes zero.
func budget(t Source) time.Duration {
	if t.IntRange(0, 9, "zero") == 0 {
		return 0
	}
	return Duration(t)
}

// Attempt returns the duration of one attempt for a run: mostly zero or
// short, some long. (A test draws a run's n of them as a slice:
// rapid.SliceOfN of a generator made with Attempt.)
func Attempt(src Source) time.Duration {
	switch src.IntRange(0, 3, "akind") {
	case 0:
		return 0
	case 1:
		return time.Duration(src.IntRange(0, 1000, "ns"))
	default:
		return time.Duration(src.IntRange(0, 90_000, "ms")) * time.Millisecond
	}
}
