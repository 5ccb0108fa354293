package schedule

import (
	"math"

	"github.com/recur-go/recur/internal/sat"
)

// The engine steps a schedule the way package interp does, for attempts
// that take no time, but on ranges: at each decision it knows for certain
// whether the schedule stops, and the range [lo, hi] of the delay over all
// random draws (every draw at its least gives every delay at its least, as
// each variant is monotone in its draws and its children's delays).
//
// Times, Exponential, Fibonacci and the combinators decide the same way
// whatever the draws, so a schedule of those alone always steps. Spaced and
// UpTo decide from the time, which is certain until a delay is random: the
// engine gives up (engineAborted) when a decision would depend on draws.
//
// Once no node's output can change but for counters (Exponential reached
// its cap, Spaced runs on its grid…), the engine skips to the next decision
// where a Times or UpTo stops, so Times{1 << 60} costs a few steps.

// engine states after a run.
const (
	engineStopped = iota // the schedule stopped, certainly
	engineNever          // it never stops
	engineCut            // emit asked to stop
	engineAborted        // a decision depends on the draws, or out of steps
)

type engine struct {
	nodes     []enode
	t, tHi    int64 // range of the time of the coming decision
	dLo, dHi  int64 // the root's last delay range
	hazardOff int64 // if ≥ 0, abort at an UpTo that may start this late after it
	steps     *int
	abort     bool
}

// enode is the state of one node, in preorder as in package interp.
type enode struct {
	s     Schedule
	size  int
	k     int64 // decisions so far
	start int64 // time of the first decision
	a, b  int64 // variant state, as in interp; Decorrelated: least and most previous delay
	last  int64 // Spaced: its last delay; UpTo: its inner's last most delay
}

func newEngine(s Schedule, hazardOff int64, steps *int) *engine {
	e := &engine{hazardOff: hazardOff, steps: steps}
	e.layout(s)
	return e
}

func (e *engine) layout(s Schedule) {
	i := len(e.nodes)
	e.nodes = append(e.nodes, enode{s: s})
	if a, b := Children(s); a != nil {
		e.layout(a)
		if b != nil {
			e.layout(b)
		}
	}
	e.nodes[i].size = len(e.nodes) - i
}

// run steps the schedule to its end, reporting each stretch of m decisions
// that continue with a delay in [lo, hi] to emit (m is inf for a stretch
// that never ends), until emit returns false.
func (e *engine) run(emit func(m, lo, hi int64) bool) int {
	for {
		if *e.steps <= 0 {
			return engineAborted
		}
		*e.steps--
		ok, lo, hi := e.step(0)
		if e.abort {
			return engineAborted
		}
		if !ok {
			return engineStopped
		}
		if !emit(1, lo, hi) {
			return engineCut
		}
		e.t, e.tHi = sat.Add(e.t, lo), sat.Add(e.tHi, hi)
		e.dLo, e.dHi = lo, hi
		m := e.ahead(0)
		if m == inf {
			emit(inf, lo, hi)
			return engineNever
		}
		if m > 0 {
			e.skip(0, m)
			if !emit(m, lo, hi) {
				return engineCut
			}
			e.t, e.tHi = sat.Add(e.t, sat.Mul(m, lo)), sat.Add(e.tHi, sat.Mul(m, hi))
		}
	}
}

// certain reports whether the time is known exactly, or aborts.
func (e *engine) certain() bool {
	if e.t != e.tHi {
		e.abort = true
	}
	return !e.abort
}

// step is node i's decision at time e.t, as interp's step.
func (e *engine) step(i int) (ok bool, lo, hi int64) {
	nd := &e.nodes[i]
	if nd.k == 0 {
		nd.start = e.t
	}
	nd.k++
	switch s := nd.s.(type) {
	case Times:
		return nd.k < int64(s.N), 0, 0

	case Forever:
		return true, 0, 0

	case Spaced:
		if !e.certain() {
			return false, 0, 0
		}
		d := spacedDelay(nd, int64(s.Every), e.t)
		nd.last = d
		return true, d, d

	case Exponential:
		if nd.k == 1 {
			nd.a = min(int64(s.Base), int64(s.Cap))
		} else {
			nd.a = expNext(s, nd.a)
		}
		return true, nd.a, nd.a

	case Fibonacci:
		if nd.k == 1 {
			nd.a, nd.b = 0, int64(s.Base)
		} else {
			nd.a, nd.b = nd.b, sat.Add(nd.a, nd.b)
		}
		return true, nd.b, nd.b

	case Decorrelated:
		if nd.k == 1 {
			nd.a, nd.b = int64(s.Base), int64(s.Base)
		}
		nd.a, nd.b = decorrelated(s, nd.a, nd.b)
		return true, nd.a, nd.b

	case Linear:
		if nd.k == 1 {
			nd.a = int64(s.Base)
		} else {
			nd.a = sat.Add(nd.a, int64(s.Step))
		}
		return true, nd.a, nd.a

	case Random:
		return true, int64(s.Lo), int64(s.Hi)

	case DecorrelatedV2:
		// The curve rises, so the k-th delay lies between 0 (both draws
		// at the boundary between them) and g(k) − g(k−2).
		n := float64(nd.k - 1)
		hi := MaxDuration // set on every path below
		if nd.k == 1 {
			hi = v2Delay(s.Base, v2Curve(1, 0))
		} else if top := v2Curve(n+1, 0); math.IsInf(top, 1) {
			hi = MaxDuration
		} else {
			hi = v2Delay(s.Base, top-v2Curve(n-1, 0))
		}
		nd.a = int64(hi)
		return true, 0, int64(hi)

	case Sum:
		a, b := i+1, i+1+e.nodes[i+1].size
		oka, loa, hia := e.step(a)
		okb, lob, hib := e.step(b)
		return oka && okb, sat.Add(loa, lob), sat.Add(hia, hib)

	case ResetAfter:
		// Slow attempts reset it where instant ones do not, and a reset
		// makes a run longer: the rules bound it for every pace.
		e.abort = true
		return false, 0, 0

	case WhileBelow:
		if !untimed(s.Inner) {
			// A Spaced waits less after a slow attempt, so a run can go on
			// longer than one of instant attempts: the rules bound it.
			e.abort = true
			return false, 0, 0
		}
		ok, lo, hi := e.step(i + 1)
		limit := int64(s.Limit)
		switch {
		case !ok || lo >= limit:
			return false, 0, 0
		case hi < limit:
			return true, lo, hi
		}
		e.abort = true // whether it stops depends on the draws
		return false, 0, 0

	case Jittered:
		ok, lo, hi := e.step(i + 1)
		if !ok {
			return false, 0, 0
		}
		return true, scalePPM(lo, s.LowPPM()), scalePPM(hi, s.HighPPM())

	case Capped:
		ok, lo, hi := e.step(i + 1)
		return ok, min(lo, int64(s.Max)), min(hi, int64(s.Max))

	case UpTo:
		if !e.certain() {
			return false, 0, 0
		}
		limit := sat.Add(nd.start, int64(s.Budget))
		if e.hazardOff >= 0 && sat.Add(e.hazardOff, limit) == inf {
			e.abort = true // the budget may saturate
			return false, 0, 0
		}
		ok, lo, hi := e.step(i + 1)
		if !ok {
			return false, 0, 0
		}
		nd.last = hi
		budget, elapsed := int64(s.Budget), e.t-nd.start // from the node's start, as in interp
		switch {
		case sat.Add(elapsed, hi) <= budget:
			return true, lo, hi
		case sat.Add(elapsed, lo) > budget:
			return false, 0, 0
		}
		e.abort = true // whether it stops depends on the draws
		return false, 0, 0

	case Union:
		a, b := i+1, i+1+e.nodes[i+1].size
		var oka, okb bool
		var loa, hia, lob, hib int64
		if nd.a&1 == 0 {
			if oka, loa, hia = e.step(a); !oka {
				nd.a |= 1
			}
		}
		if nd.a&2 == 0 {
			if okb, lob, hib = e.step(b); !okb {
				nd.a |= 2
			}
		}
		switch {
		case oka && okb:
			return true, min(loa, lob), min(hia, hib)
		case oka:
			return true, loa, hia
		case okb:
			return true, lob, hib
		}
		return false, 0, 0

	case Intersect:
		a, b := i+1, i+1+e.nodes[i+1].size
		oka, loa, hia := e.step(a)
		okb, lob, hib := e.step(b)
		return oka && okb, max(loa, lob), max(hia, hib)

	case AndThen:
		a, b := i+1, i+1+e.nodes[i+1].size
		if nd.a == 0 {
			if ok, lo, hi := e.step(a); ok {
				return true, lo, hi
			}
			nd.a = 1
		}
		return e.step(b)
	}
	return false, 0, 0
}

// ahead returns how many coming decisions node i, live at the last one,
// surely continues with the same delay range: inf when it always will, 0
// when its output may change at the next one.
func (e *engine) ahead(i int) int64 {
	nd := &e.nodes[i]
	switch s := nd.s.(type) {
	case Times:
		return int64(s.N) - 1 - nd.k

	case Forever:
		return inf

	case Spaced:
		every := int64(s.Every)
		switch {
		case e.t != e.tHi || e.dLo != e.dHi:
			return 0
		case e.dLo == 0:
			return inf // the time stands still
		case e.dLo%every == 0 && nd.last == every:
			// On the grid, dLo/every slots per decision, until the slots
			// saturate.
			return max(0, ((inf-nd.start)/every-nd.a-1)/(e.dLo/every))
		}
		return 0

	case Exponential:
		if expNext(s, nd.a) == nd.a {
			return inf
		}
		return 0

	case Fibonacci:
		if nd.b == inf {
			return inf
		}
		return 0

	case Decorrelated:
		if lo, hi := decorrelated(s, nd.a, nd.b); lo == nd.a && hi == nd.b {
			return inf
		}
		return 0

	case Linear:
		if s.Step == 0 || nd.a == inf {
			return inf
		}
		return 0

	case Random:
		return inf

	case DecorrelatedV2:
		if nd.a == inf {
			return inf // every coming delay ranges over [0, MaxDuration]
		}
		return 0

	case ResetAfter:
		return 0

	case Jittered, Capped, WhileBelow:
		// WhileBelow went on at the last decision, so its inner's delays
		// are below its limit while they keep their range.
		return e.ahead(i + 1)

	case Sum:
		a, b := i+1, i+1+e.nodes[i+1].size
		return min(e.ahead(a), e.ahead(b))

	case UpTo:
		m := e.ahead(i + 1)
		if m == 0 || e.t != e.tHi || e.dLo != e.dHi {
			return 0
		}
		limit := sat.Add(nd.start, int64(s.Budget))
		if limit == inf {
			return m
		}
		// The j-th coming decision is at e.t + (j-1)·d, and continues while
		// that plus the inner's most delay stays within the limit.
		if nd.last > limit || e.t > limit-nd.last {
			return 0
		}
		if e.dLo == 0 {
			return m
		}
		return min(m, (limit-nd.last-e.t)/e.dLo+1)

	case Union:
		a, b := i+1, i+1+e.nodes[i+1].size
		m := int64(inf)
		if nd.a&1 == 0 {
			m = min(m, e.ahead(a))
		}
		if nd.a&2 == 0 {
			m = min(m, e.ahead(b))
		}
		return m

	case Intersect:
		a, b := i+1, i+1+e.nodes[i+1].size
		return min(e.ahead(a), e.ahead(b))

	case AndThen:
		a, b := i+1, i+1+e.nodes[i+1].size
		if nd.a == 0 {
			return e.ahead(a)
		}
		return e.ahead(b)
	}
	return 0
}

// skip advances the live nodes under i over m decisions that ahead allowed.
func (e *engine) skip(i int, m int64) {
	nd := &e.nodes[i]
	nd.k = sat.Add(nd.k, m)
	switch nd.s.(type) {
	case Spaced:
		nd.a += m * (e.dLo / int64(nd.s.(Spaced).Every)) // ahead saw dLo%Every == 0
	case Jittered, Capped, UpTo, WhileBelow, ResetAfter:
		e.skip(i+1, m)
	case Union:
		a, b := i+1, i+1+e.nodes[i+1].size
		if nd.a&1 == 0 {
			e.skip(a, m)
		}
		if nd.a&2 == 0 {
			e.skip(b, m)
		}
	case Intersect, Sum:
		a, b := i+1, i+1+e.nodes[i+1].size
		e.skip(a, m)
		e.skip(b, m)
	case AndThen:
		a, b := i+1, i+1+e.nodes[i+1].size
		if nd.a == 0 {
			e.skip(a, m)
		} else {
			e.skip(b, m)
		}
	case Decorrelated, DecorrelatedV2, Exponential, Fibonacci, Forever, Linear, Random, Times:
		// Nothing to skip.
	}
}

// spacedDelay is Spaced's decision at time t, as in interp.
func spacedDelay(nd *enode, every, t int64) int64 {
	if c := (t - nd.start) / every; c > nd.a {
		nd.a = c // a late attempt claims the slot it started in
	}
	next := sat.Mul(nd.a+1, every) // from the node's start: only a slot past the largest Duration saturates
	if elapsed := t - nd.start; next > elapsed {
		return next - elapsed
	}
	return 0
}

// decorrelated returns the range of Decorrelated's next delay after one in
// [lo, hi]: min(Cap, uniform between Base and 3·previous).
func decorrelated(s Decorrelated, lo, hi int64) (int64, int64) {
	b, c := int64(s.Base), int64(s.Cap)
	return min(c, b, sat.Mul(lo, 3)), min(c, max(b, sat.Mul(hi, 3)))
}

// scaleCap returns min(cap, d·pct/100) in integer nanoseconds, as in interp.
func scaleCap(d int64, pct uint64, cap int64) int64 {
	return min(scale(d, int(pct)), cap)
}
