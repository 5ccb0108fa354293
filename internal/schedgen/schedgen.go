// Package schedgen generates random valid schedules for property tests.
//
// Gen draws every one of the eighteen variants, nested to a bounded depth,
// with parameters chosen to exercise the edges (tiny and huge durations,
// caps below bases, zero budgets) while keeping every value valid.
package schedgen

import (
	"time"

	"github.com/recur-go/recur/schedule"
	"pgregory.net/rapid"
)

// MaxDepth is the deepest nesting Gen produces.
const MaxDepth = 4

// Gen returns a generator of valid schedules of every variant.
func Gen() *rapid.Generator[schedule.Schedule] {
	return rapid.Custom(func(t *rapid.T) schedule.Schedule { return draw(t, MaxDepth) })
}

// Leaf returns a generator of valid schedules without children.
func Leaf() *rapid.Generator[schedule.Schedule] {
	return rapid.Custom(func(t *rapid.T) schedule.Schedule { return draw(t, 0) })
}

// Duration returns a generator of positive durations, mostly small, some
// near the largest Duration.
func Duration() *rapid.Generator[time.Duration] {
	return rapid.Custom(func(t *rapid.T) time.Duration {
		switch rapid.IntRange(0, 9).Draw(t, "durkind") {
		case 0:
			return schedule.MaxDuration - time.Duration(rapid.Int64Range(0, 1000).Draw(t, "below"))
		case 1:
			return time.Duration(rapid.Int64Range(1, 1000).Draw(t, "ns"))
		default:
			return time.Duration(rapid.Int64Range(1, 120_000).Draw(t, "ms")) * time.Millisecond
		}
	})
}

func draw(t *rapid.T, depth int) schedule.Schedule {
	kinds := 5
	if depth > 0 {
		kinds = 15
	}
	d := Duration()
	kind := rapid.IntRange(0, kinds-1).Draw(t, "kind")
	if kind == 4 && rapid.IntRange(0, 2).Draw(t, "newleaf") > 0 {
		// The leaves added later share Decorrelated's draw, so that the
		// older leaves keep their odds.
		kind = 100 + rapid.IntRange(0, 2).Draw(t, "newleafkind")
	}
	switch kind {
	case 100:
		return schedule.Linear{Base: budget(t), Step: budget(t)}
	case 102:
		return schedule.DecorrelatedV2{Base: d.Draw(t, "base")}
	case 101:
		lo := budget(t)
		if rapid.Bool().Draw(t, "point") {
			return schedule.Random{Lo: lo, Hi: lo}
		}
		return schedule.Random{Lo: lo, Hi: max(lo, budget(t))}
	case 12:
		return schedule.Sum{A: draw(t, depth-1), B: draw(t, depth-1)}
	case 13:
		return schedule.WhileBelow{Inner: draw(t, depth-1), Limit: d.Draw(t, "limit")}
	case 14:
		return schedule.ResetAfter{Inner: draw(t, depth-1), After: d.Draw(t, "after")}
	case 0:
		return schedule.Times{N: rapid.IntRange(1, 12).Draw(t, "n")}
	case 1:
		return schedule.Spaced{Every: d.Draw(t, "every")}
	case 2:
		e := schedule.Exponential{Base: d.Draw(t, "base"), FactorPct: rapid.SampledFrom([]int{100, 150, 200, 300, 1000}).Draw(t, "factor"), Cap: d.Draw(t, "cap")}
		e.FactorFrac = frac(t, "factorfrac")
		return e
	case 3:
		if rapid.Bool().Draw(t, "fib") {
			return schedule.Fibonacci{Base: d.Draw(t, "base")}
		}
		return schedule.Forever{}
	case 4:
		return schedule.Decorrelated{Base: d.Draw(t, "base"), Cap: d.Draw(t, "cap")}
	case 5:
		lo := rapid.IntRange(0, 200).Draw(t, "low")
		j := schedule.Jittered{Inner: draw(t, depth-1), LowPct: lo, HighPct: rapid.IntRange(lo, 1000).Draw(t, "high")}
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
func frac(t *rapid.T, label string) int {
	if rapid.IntRange(0, 3).Draw(t, label+"kind") > 0 {
		return 0
	}
	return rapid.SampledFrom([]int{1, 100, 5000, 9999}).Draw(t, label)
}

// budget returns a non-negative duration, sometimes zero.
func budget(t *rapid.T) time.Duration {
	if rapid.IntRange(0, 9).Draw(t, "zero") == 0 {
		return 0
	}
	return Duration().Draw(t, "budget")
}

// Durations returns a generator of attempt durations for a run: n values,
// mostly zero or short, some long.
func Durations(n int) *rapid.Generator[[]time.Duration] {
	one := rapid.Custom(func(t *rapid.T) time.Duration {
		switch rapid.IntRange(0, 3).Draw(t, "akind") {
		case 0:
			return 0
		case 1:
			return time.Duration(rapid.Int64Range(0, 1000).Draw(t, "ns"))
		default:
			return time.Duration(rapid.Int64Range(0, 90_000).Draw(t, "ms")) * time.Millisecond
		}
	})
	return rapid.SliceOfN(one, n, n)
}
