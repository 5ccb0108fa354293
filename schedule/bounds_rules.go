package schedule

import (
	"math"
	"math/bits"
	"time"

	"github.com/recur-go/recur/internal/sat"
)

// inf stands for "no bound" in attempt counts and durations alike.
const inf = math.MaxInt64

// stepBudget is how many decisions the engine may step, over one analysis,
// before Bounds settles for the structural rules.
const stepBudget = 10_000

// est is what the analysis knows about one node over its live period, from
// its first decision to the one where it stops (or for ever). Durations are
// in nanoseconds; all arithmetic saturates at inf.
type est struct {
	att        int64 // most decisions, the last being the stop; inf: no bound
	never      bool  // certainly never stops
	dmin, dmax int64 // bounds on the delay of one decision that continues
	lo         int64 // least sum of the delays of a live period that ends
	hi         int64 // most sum of the delays of any part of a live period
}

// norm makes e consistent: a node that never stops has no attempt bound,
// and one whose ending periods would wait longer than any period never
// stops.
func (e est) norm() est {
	if !e.never && e.lo > e.hi {
		e.never = true
	}
	if e.never {
		e.att, e.lo = inf, inf
	}
	return e
}

// analyzer computes an est for a whole schedule. Nodes that drive the
// run's timeline (the root, and the nodes reached from it through AndThen
// and UpTo) are analysed exactly where possible by the engine, by the UpTo
// formula, or by chaining the parts of an AndThen. Other nodes get rules
// that hold whatever the timeline.
//
// One subtlety: UpTo compares against start+Budget saturated at
// MaxDuration, so an UpTo that starts within Budget of MaxDuration never
// stops on its budget. Bounds first analyses assuming no UpTo does (the
// engine is exact at the root either way); if the resulting MaxTotal plus
// some budget could reach MaxDuration, it analyses again with hazards set,
// tracking how late each node can start and treating an UpTo that might
// start that late by rules that allow for it.
type analyzer struct {
	steps   int  // engine steps left
	hazards bool // account for UpTo budgets that saturate
}

// drive analyses s where its own delays are the timeline. off bounds the
// time at which s starts; exact says it is exactly that time (the root).
func (a *analyzer) drive(s Schedule, off int64, exact bool) est {
	hz := int64(-1)
	if a.hazards && !exact {
		hz = off
	}
	if e, ok := a.engineEst(s, hz); ok {
		return e
	}
	switch s := s.(type) {
	case AndThen:
		f := a.drive(s.First, off, exact)
		return seqEst(f, a.drive(s.Then, sat.Add(off, f.hi), false))
	case UpTo:
		b := int64(s.Budget)
		hazard := a.hazards && sat.Add(off, b) == inf
		if !hazard {
			if e, ok := a.upToFormula(s, hz); ok {
				return e
			}
		}
		return upToDriveEst(a.drive(s.Inner, off, exact), b, hazard)
	case Capped, Decorrelated, DecorrelatedV2, Exponential, Fibonacci, Forever, Intersect, Jittered, Linear, Random, ResetAfter, Spaced, Sum, Times, Union, WhileBelow:
		// These take the path after the switch.
	}
	return a.ctx(s, off)
}

// ctx analyses s whatever the timeline it sees. off bounds its start.
func (a *analyzer) ctx(s Schedule, off int64) est {
	if untimed(s) {
		if e, ok := a.engineEst(s, -1); ok {
			return e
		}
	}
	switch s := s.(type) {
	case Jittered:
		return jitteredEst(a.ctx(s.Inner, off), s.LowPPM(), s.HighPPM())
	case Capped:
		return cappedEst(a.ctx(s.Inner, off), int64(s.Max))
	case UpTo:
		b := int64(s.Budget)
		return upToCtxEst(a.ctx(s.Inner, off), b, a.hazards && sat.Add(off, b) == inf)
	case Union:
		return unionEst(a.ctx(s.A, off), a.ctx(s.B, off))
	case Intersect:
		return intersectEst(a.ctx(s.A, off), a.ctx(s.B, off))
	case Sum:
		return sumEst(a.ctx(s.A, off), a.ctx(s.B, off))
	case WhileBelow:
		return whileBelowEst(a.ctx(s.Inner, off), int64(s.Limit))
	case ResetAfter:
		return resetAfterEst(a.ctx(s.Inner, off))
	case AndThen:
		// When Then starts depends on the timeline: any time.
		return seqEst(a.ctx(s.First, off), a.ctx(s.Then, inf))
	case Decorrelated, DecorrelatedV2, Exponential, Fibonacci, Forever, Linear, Random, Spaced, Times:
		// These take the path after the switch.
	}
	return leafEst(s)
}

// engineEst runs the engine on s and sums up what it reports.
func (a *analyzer) engineEst(s Schedule, hazardOff int64) (est, bool) {
	e := newEngine(s, hazardOff, &a.steps)
	var r est
	r.dmin = inf
	status := e.run(func(m, lo, hi int64) bool {
		r.dmin, r.dmax = min(r.dmin, lo), max(r.dmax, hi)
		r.lo = sat.Add(r.lo, sat.Mul(m, lo))
		r.hi = sat.Add(r.hi, sat.Mul(m, hi))
		r.att = sat.Add(r.att, m)
		return true
	})
	if r.dmin == inf {
		r.dmin = 0 // no decision continued
	}
	switch status {
	case engineStopped:
		r.att = sat.Add(r.att, 1)
	case engineNever:
		r.never = true
	default:
		return est{}, false
	}
	return r.norm(), true
}

// upToFormula analyses UpTo{inner, B} where it drives the timeline, from the
// engine's delay ranges for inner. With t the time of a decision since the
// node's start and [lo, hi] the range of inner's delay there, the run
// continues while t + delay ≤ B. The attempts are most when every delay is
// least; a run can reach any time up to B that its delays allow; it can stop
// on the budget at the first decision whose t can exceed B - hi.
func (a *analyzer) upToFormula(u UpTo, hazardOff int64) (est, bool) {
	e := newEngine(u.Inner, hazardOff, &a.steps)
	b := int64(u.Budget)
	var (
		l, h   int64 // range of t at the coming decision
		att    int64 = 1
		end    int64 = inf // least t of a run that ends
		dmin   int64 = inf
		dmax   int64
		inside = true // the coming decision can be reached
	)
	status := e.run(func(m, lo, hi int64) bool {
		// Decisions i = 0 … m-1 of this stretch come at t in
		// [l + i·lo, h + i·hi], and only while l + i·lo ≤ b.
		n := m // how many of them continue on the least delays
		if lo > 0 {
			n = min(m, (b-l)/lo)
		}
		if hi > 0 {
			need := b - hi + 1 // t ≥ need can stop on the budget
			var i int64
			if h < need {
				i = ceilDiv(need-h, hi)
			}
			if i <= min(m-1, n) {
				end = min(end, max(sat.Add(l, sat.Mul(i, lo)), need))
			}
		}
		if n > 0 {
			dmin, dmax = min(dmin, lo), max(dmax, min(hi, b))
		}
		att = sat.Add(att, n)
		l, h = sat.Add(l, sat.Mul(n, lo)), sat.Add(h, sat.Mul(n, hi))
		inside = n == m
		return inside
	})
	switch status {
	case engineStopped:
		end = min(end, l) // inner stops; l ≤ b, or inside would be false
	case engineNever, engineCut:
	default:
		return est{}, false
	}
	if dmin == inf {
		dmin = 0
	}
	r := est{att: att, never: end == inf, dmin: dmin, dmax: dmax, lo: end, hi: min(h, b)}
	return r.norm(), true
}

// leafEst is the est of a leaf, whatever the timeline.
func leafEst(s Schedule) est {
	never := est{att: inf, never: true, lo: inf, hi: inf}
	switch s := s.(type) {
	case Times:
		return est{att: int64(s.N)}
	case Forever:
		never.hi = 0
		return never
	case Spaced:
		never.dmax = int64(s.Every) // and down to 0 when the timeline runs ahead
		return never
	case Exponential:
		never.dmin, never.dmax = min(int64(s.Base), int64(s.Cap)), int64(s.Cap)
		return never
	case Fibonacci:
		never.dmin, never.dmax = int64(s.Base), inf
		return never
	case Decorrelated:
		never.dmin, never.dmax = min(int64(s.Base), int64(s.Cap)), int64(s.Cap)
		return never
	case Linear:
		never.dmin, never.dmax = int64(s.Base), int64(s.Base)
		if s.Step > 0 {
			never.dmax = inf // it grows without bound, saturating
		}
		return never
	case Random:
		never.dmin, never.dmax = int64(s.Lo), int64(s.Hi)
		return never
	case DecorrelatedV2:
		never.dmax = inf // it grows without bound, from 0
		return never
	case AndThen, Capped, Intersect, Jittered, ResetAfter, Sum, Union, UpTo, WhileBelow:
		// These take the path after the switch.
	}
	return est{att: 1} // not reached for a valid schedule
}

func jitteredEst(i est, low, high int64) est { // low, high in millionths
	r := i
	r.dmin, r.dmax = scalePPM(i.dmin, low), scalePPM(i.dmax, high)
	if i.hi < inf || high == 0 { // inf is no bound, not a sum to scale
		r.hi = scalePPM(i.hi, high) // Σ⌊dₖ·fₖ⌋ ≤ ⌊Σdₖ·high⌋
	}
	r.lo = 0
	if low > 0 && i.att < inf && !i.never {
		// Σ⌊dₖ·fₖ⌋ ≥ Σdₖ·low - (number of delays)
		r.lo = max(0, scalePPM(i.lo, low)-(i.att-1))
	}
	return r.norm()
}

func cappedEst(i est, limit int64) est {
	r := i
	r.dmin, r.dmax = min(i.dmin, limit), min(i.dmax, limit)
	r.hi = min(i.hi, sat.Mul(limit, i.att-1))
	r.lo = min(i.lo, limit) // Σmin(dₖ, limit) ≥ min(Σdₖ, limit)
	return r.norm()
}

// stopsAtOnce is the est of a node that stops at its first decision.
var stopsAtOnce = est{att: 1}

// upToCtxEst is UpTo's est whatever the timeline: in a Union the timeline
// may stand still while UpTo's own delays add up, so the budget bounds each
// delay but not their sum. hazard says the budget may saturate.
func upToCtxEst(i est, b int64, hazard bool) est {
	if !hazard && i.dmin > b {
		return stopsAtOnce // the first delay already passes the budget
	}
	r := est{att: i.att, dmin: i.dmin, dmax: i.dmax, lo: 0}
	if !hazard {
		r.dmax = min(i.dmax, b)
	}
	r.hi = min(i.hi, sat.Mul(r.dmax, r.att-1))
	return r.norm()
}

// upToDriveEst is UpTo's est where its delays are the timeline, for an
// inner schedule the formula could not handle.
func upToDriveEst(i est, b int64, hazard bool) est {
	if !hazard && i.dmin > b {
		return stopsAtOnce
	}
	r := est{att: i.att, dmin: i.dmin, dmax: i.dmax, hi: min(i.hi, b)}
	r.never = i.never && i.hi <= b // the budget is never passed
	if !hazard {
		r.dmax = min(i.dmax, b)
		if i.dmin > 0 {
			r.att = min(r.att, b/i.dmin+1) // each delay moves time by dmin
		}
	}
	// A run ends when inner does, or at a t with t + delay > b.
	r.lo = max(0, b-i.dmax+1)
	if !i.never {
		r.lo = min(r.lo, i.lo)
	}
	return r.norm()
}

func unionEst(a, b est) est {
	r := est{
		att:   max(a.att, b.att),
		never: a.never || b.never,
		dmin:  min(a.dmin, b.dmin),
		dmax:  max(a.dmax, b.dmax),
	}
	// Each delay is at most that of a child still going.
	r.hi = min(sat.Add(a.hi, b.hi), sat.Mul(r.dmax, r.att-1))
	return r.norm()
}

func intersectEst(a, b est) est {
	r := est{
		att:   min(a.att, b.att),
		never: a.never && b.never,
		dmin:  max(a.dmin, b.dmin),
		dmax:  max(a.dmax, b.dmax),
		// It stops with the first child to stop, having waited at least
		// as long as that child.
		lo: min(a.lo, b.lo),
	}
	r.hi = min(sat.Add(a.hi, b.hi), sat.Mul(r.dmax, r.att-1))
	return r.norm()
}

// sumEst is the est of a Sum: it stops with the first child to stop, and
// each delay is the sum of the children's.
func sumEst(a, b est) est {
	r := est{
		att:   min(a.att, b.att),
		never: a.never && b.never,
		dmin:  sat.Add(a.dmin, b.dmin),
		dmax:  sat.Add(a.dmax, b.dmax),
		// It stops with the first child to stop, having waited at least
		// as long as that child.
		lo: min(a.lo, b.lo),
	}
	r.hi = min(sat.Add(a.hi, b.hi), sat.Mul(r.dmax, r.att-1))
	return r.norm()
}

// whileBelowEst is WhileBelow's est: its inner's, but a delay of limit or
// more stops it.
func whileBelowEst(i est, limit int64) est {
	switch {
	case i.dmax < limit:
		return i // the limit never bites
	case i.dmin >= limit:
		return stopsAtOnce // the first delay already reaches the limit
	}
	r := est{att: i.att, dmin: i.dmin, dmax: limit - 1, lo: 0} // it may stop at any decision
	r.hi = min(i.hi, sat.Mul(r.dmax, r.att-1))
	return r.norm()
}

// resetAfterEst is ResetAfter's est: its inner's delays, but a run whose
// attempts are slow resets the inner again and again, so that the attempts
// and the total wait have no bound, unless the inner stops at its first
// decision, fresh or not.
func resetAfterEst(i est) est {
	if i.att == 1 && !i.never {
		return stopsAtOnce
	}
	r := est{att: inf, never: i.never, dmin: i.dmin, dmax: i.dmax, lo: 0, hi: inf}
	if i.dmax == 0 {
		r.hi = 0
	}
	return r.norm()
}

// seqEst is the est of First then Then: exact where their runs are
// independent, as they are along the timeline.
func seqEst(f, t est) est {
	if f.never {
		return f
	}
	return est{
		att:   sat.Add(f.att-1, t.att),
		never: t.never,
		dmin:  min(f.dmin, t.dmin),
		dmax:  max(f.dmax, t.dmax),
		lo:    sat.Add(f.lo, t.lo),
		hi:    sat.Add(f.hi, t.hi),
	}.norm()
}

// ceilDiv returns ⌈a/b⌉ for a ≥ 0 and b > 0.
func ceilDiv(a, b int64) int64 {
	q := a / b
	if q*b < a {
		q++
	}
	return q
}

// scale returns ⌊d·pct/100⌋ for non-negative d and pct, saturating: the
// interpreter's rounding of a jitter factor of exactly pct%.
func scale(d int64, pct int) int64 {
	hi, lo := bits.Mul64(uint64(d), uint64(pct))
	if hi >= 100 {
		return inf
	}
	q, _ := bits.Div64(hi, lo, 100)
	return int64(min(q, inf))
}

// scalePPM returns ⌊d·ppm/10⁶⌋ for non-negative d and ppm, saturating:
// scale for a factor in millionths. For a whole percent it is scale's
// result exactly.
func scalePPM(d, ppm int64) int64 {
	hi, lo := bits.Mul64(uint64(d), uint64(ppm))
	if hi >= 1_000_000 {
		return inf
	}
	q, _ := bits.Div64(hi, lo, 1_000_000)
	return int64(min(q, inf))
}

// scaleDur is scalePPM for durations.
func scaleDur(d time.Duration, ppm int64) time.Duration {
	return time.Duration(scalePPM(int64(d), ppm))
}

// expNext returns Exponential s's delay after d: min(Cap, ⌊d·factor⌋), as
// in interp.
func expNext(s Exponential, d int64) int64 {
	if s.FactorFrac == 0 {
		return scaleCap(d, uint64(s.FactorPct), int64(s.Cap))
	}
	return min(scalePPM(d, s.FactorPPM()), int64(s.Cap))
}
