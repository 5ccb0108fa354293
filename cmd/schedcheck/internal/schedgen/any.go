package schedgen

import (
	"math"
	"time"

	"github.com/recur-go/recur/schedule"
)

// Wrapper satisfies schedule.Schedule by embedding one, but it is not a
// variant: schedule.Validate rejects it.
type Wrapper struct{ schedule.Schedule }

// Any returns a schedule that may be invalid: a tree of every variant
// with zero, one or two faults. A node without a fault takes parameters at
// or near the valid side of every bound that schedule.Validate checks
// (n = 1, factor = 100%, low = high, a zero budget); a faulty node breaks
// one bound by a little or a lot, or is a missing child, a pointer to a
// variant or a value that only embeds one. About a third of the schedules
// it draws are valid.
func Any(src Source) schedule.Schedule {
	faults := src.IntRange(0, 2, "faults")
	return drawAny(src, MaxDepth, &faults)
}

func drawAny(t Source, depth int, faults *int) schedule.Schedule {
	kinds := 9
	if depth > 0 {
		kinds = 18
	}
	kind := t.IntRange(0, kinds-1, "anykind")
	switch {
	case depth == 0 && kind >= 6: // the leaves added later: Linear, Random, DecorrelatedV2
		kind += 10
	case kind == 12 || kind == 13:
		kind += 4
	case kind == 16:
		kind = 18
	case kind == 17:
		kind = 19
	}
	fault := *faults > 0 && t.Bool("fault")
	if fault {
		*faults--
	}
	child := func() schedule.Schedule { return drawAny(t, depth-1, faults) }
	// pos is a duration that is valid where a positive one is wanted,
	// nonneg one where a non-negative one is; bad breaks the bound.
	pos := func(label string) time.Duration { return pick(t, label, 1, time.Millisecond, schedule.MaxDuration) }
	nonneg := func(label string) time.Duration { return pick(t, label, 0, 1, time.Second, schedule.MaxDuration) }
	notPos := func(label string) time.Duration { return pick(t, label, 0, -1, time.Duration(math.MinInt64)) }
	neg := func(label string) time.Duration {
		return pick(t, label, -1, -time.Second, time.Duration(math.MinInt64))
	}
	if fault {
		switch t.IntRange(0, 5, "oddkind") {
		case 0:
			return nil
		case 1:
			return &schedule.Times{N: 3}
		case 2:
			if depth > 0 {
				return Wrapper{child()}
			}
			return Wrapper{schedule.Forever{}}
		}
	}
	switch kind {
	case 16:
		l := schedule.Linear{Base: nonneg("base"), Step: nonneg("step")}
		if fault {
			if t.Bool("which") {
				l.Base = neg("base")
			} else {
				l.Step = neg("step")
			}
		}
		return l
	case 17:
		lo := nonneg("lo")
		r := schedule.Random{Lo: lo, Hi: pick(t, "hi", lo, schedule.MaxDuration)}
		if fault {
			if t.Bool("which") {
				r.Lo = neg("lo")
			} else if lo > 0 {
				r.Hi = lo - 1
			} else {
				r.Lo, r.Hi = time.Second, time.Millisecond
			}
		}
		return r
	case 18:
		if fault {
			return schedule.DecorrelatedV2{Base: notPos("base")}
		}
		return schedule.DecorrelatedV2{Base: pos("base")}
	case 19:
		ra := schedule.ResetAfter{After: pos("after")}
		if fault {
			ra.After = notPos("after")
		}
		ra.Inner = child()
		return ra
	case 14:
		return schedule.Sum{A: child(), B: child()}
	case 15:
		w := schedule.WhileBelow{Limit: pos("limit")}
		if fault {
			w.Limit = notPos("limit")
		}
		w.Inner = child()
		return w
	case 0:
		if fault {
			return schedule.Times{N: pick(t, "n", 0, -1, math.MinInt)}
		}
		return schedule.Times{N: pick(t, "n", 1, 2, math.MaxInt)}
	case 1:
		if fault {
			return schedule.Spaced{Every: notPos("every")}
		}
		return schedule.Spaced{Every: pos("every")}
	case 2:
		e := schedule.Exponential{Base: pos("base"), FactorPct: pick(t, "factor", 100, 101, math.MaxInt), Cap: pos("cap")}
		if fault {
			switch t.IntRange(0, 2, "which") {
			case 0:
				e.Base = notPos("base")
			case 1:
				e.FactorPct = pick(t, "factor", 99, 0, -1, math.MinInt)
				if t.Bool("fracfault") {
					e.FactorPct, e.FactorFrac = pick(t, "factor", 100, 1_000_000_000), pick(t, "factorfrac", -1, 10000, math.MaxInt)
				}
			default:
				e.Cap = notPos("cap")
			}
		}
		return e
	case 3:
		if fault {
			return schedule.Fibonacci{Base: notPos("base")}
		}
		return schedule.Fibonacci{Base: pos("base")}
	case 4:
		d := schedule.Decorrelated{Base: pos("base"), Cap: pos("cap")}
		if fault {
			if t.Bool("which") {
				d.Base = notPos("base")
			} else {
				d.Cap = notPos("cap")
			}
		}
		return d
	case 5:
		return schedule.Forever{} // no bound to break: the fault is spent on nothing
	case 6:
		lo := pick(t, "low", 0, 1, 100, 1000)
		j := schedule.Jittered{LowPct: lo, HighPct: pick(t, "high", lo, min(lo+1, 1000), 1000)}
		if fault {
			switch t.IntRange(0, 2, "which") {
			case 0:
				j.LowPct = pick(t, "low", -1, math.MinInt)
			case 1:
				j.HighPct = pick(t, "high", 1001, math.MaxInt)
			default:
				j.LowPct = j.HighPct + 1
				if t.Bool("fracfault") {
					j.LowPct, j.LowFrac, j.HighFrac = j.HighPct, pick(t, "lowfrac", 1, 10000, -1), 0
				}
			}
		}
		j.Inner = child()
		return j
	case 7:
		return schedule.Union{A: child(), B: child()}
	case 8:
		return schedule.Intersect{A: child(), B: child()}
	case 9:
		return schedule.AndThen{First: child(), Then: child()}
	case 10:
		u := schedule.UpTo{Budget: nonneg("budget")}
		if fault {
			u.Budget = neg("budget")
		}
		u.Inner = child()
		return u
	default:
		c := schedule.Capped{Max: nonneg("max")}
		if fault {
			c.Max = neg("max")
		}
		c.Inner = child()
		return c
	}
}
