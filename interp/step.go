package interp

import (
	"math"
	"math/bits"
	"time"

	"github.com/recur-go/recur/internal/sat"
	"github.com/recur-go/recur/schedule"
)

// A stepFunc asks node i for its decision after an attempt that ran from
// st to now (nanoseconds since the run began). layout gives every node the
// stepFunc of its variant, so that a decision costs one indirect call a
// node and a leaf's call needs no stack frame; a switch on the variant in
// one recursive function was measured slower (docs/benchmarks.md,
// Interpreter). Parents step a child only while it has not stopped.
//
// Variant state in node.a and node.b:
//
//	Spaced        a: the highest slot index an attempt has claimed
//	Exponential   a: the current delay
//	Fibonacci     a, b: the previous and the current delay
//	Decorrelated  a: the previous delay
//	Linear        a: the current delay
//	DecorrelatedV2 a: the bits of the curve's value at the last decision
//	ResetAfter    b: the end of the attempt at whose decision Inner (re)started
//	Union         a: bit 1 set once A stopped, bit 2 once B stopped
//	AndThen       a: 1 once First stopped
type stepFunc func(r *Run, i int, st, now int64) (int64, bool)

// step asks node i for its decision.
func (r *Run) step(i int, st, now int64) (int64, bool) {
	return r.nodes[i].step(r, i, st, now)
}

// enter counts a decision of nd, setting its start at its first.
func (nd *node) enter(st int64) {
	if nd.k == 0 {
		nd.start = st
	}
	nd.k++
}

// stepAtMost returns step, the root's, stopping the run at most
// decisions. It takes the root's place in a resumed run whose schedule
// allows a bounded number of attempts (schedule.Bounds): a saved state
// cannot show how long its decisions took, so it may claim they were made
// sooner than an UpTo budget allows, and the run would then go on longer
// than the schedule lets any run. Fresh runs do not need the bound and do
// not pay for it.
func stepAtMost(step stepFunc, most int64) stepFunc {
	return func(r *Run, i int, st, now int64) (int64, bool) {
		d, ok := step(r, i, st, now)
		return d, ok && r.n < most
	}
}

// Leaves.

func stepTimes(r *Run, i int, st, now int64) (int64, bool) { // p: N
	nd := &r.nodes[i]
	nd.enter(st)
	return 0, nd.k < nd.p
}

func stepForever(r *Run, i int, st, now int64) (int64, bool) {
	r.nodes[i].enter(st)
	return 0, true
}

func stepSpaced(r *Run, i int, st, now int64) (int64, bool) { // p: Every
	nd := &r.nodes[i]
	nd.enter(st)
	every := nd.p
	if st < nd.start {
		// Times went back, or a saved state claims a start later than the
		// caller's clock: the grid is anchored at the earliest start seen,
		// so that the next slot comes within one period.
		nd.start = st
	}
	if c := (st - nd.start) / every; c > nd.a {
		nd.a = c // a late attempt claims the slot it started in
	}
	// The next slot is at most one period after this attempt's start, as
	// it is whenever times go forward: a saved state that claims a later
	// slot cannot stretch the wait. Times are measured from the
	// node's start, so that only a slot beyond the largest Duration
	// saturates, never a sum of a start and a slot that both fit.
	next := min(sat.Mul(nd.a+1, every), sat.Add(st-nd.start, every))
	if elapsed := now - nd.start; next > elapsed {
		return next - max(elapsed, 0), true
	}
	return 0, true // overran its slot: go at once, skip the missed ones
}

func stepExponential(r *Run, i int, st, now int64) (int64, bool) { // p: Base, q: Cap, key: FactorPct
	nd := &r.nodes[i]
	nd.enter(st)
	if nd.k == 1 {
		nd.a = min(nd.p, nd.q)
	} else {
		nd.a = scaleCap(nd.a, nd.key, nd.q)
	}
	return nd.a, true
}

// stepExponentialFine is stepExponential for a factor with a fraction of
// a percent: key holds the factor in millionths.
func stepExponentialFine(r *Run, i int, st, now int64) (int64, bool) { // p: Base, q: Cap, key: factor ppm
	nd := &r.nodes[i]
	nd.enter(st)
	if nd.k == 1 {
		nd.a = min(nd.p, nd.q)
	} else {
		nd.a = scaleCapPPM(nd.a, nd.key, nd.q)
	}
	return nd.a, true
}

func stepFibonacci(r *Run, i int, st, now int64) (int64, bool) { // p: Base
	nd := &r.nodes[i]
	nd.enter(st)
	if nd.k == 1 {
		nd.a, nd.b = 0, nd.p
	} else {
		nd.a, nd.b = nd.b, sat.Add(nd.a, nd.b)
	}
	return nd.b, true
}

func stepDecorrelated(r *Run, i int, st, now int64) (int64, bool) { // p: Base, q: Cap
	nd := &r.nodes[i]
	nd.enter(st)
	prev := nd.a
	if nd.k == 1 {
		prev = nd.p
	}
	lo, hi := nd.p, sat.Mul(prev, 3)
	if hi < lo {
		lo, hi = hi, lo
	}
	nd.a = min(nd.q, lo+uniform(r.draw(nd.key), hi-lo))
	return nd.a, true
}

func stepLinear(r *Run, i int, st, now int64) (int64, bool) { // p: Base, q: Step
	nd := &r.nodes[i]
	nd.enter(st)
	if nd.k == 1 {
		nd.a = nd.p
	} else {
		nd.a = sat.Add(nd.a, nd.q)
	}
	return nd.a, true
}

func stepRandom(r *Run, i int, st, now int64) (int64, bool) { // p: Lo, q: Hi
	nd := &r.nodes[i]
	nd.enter(st)
	return nd.p + uniform(r.draw(nd.key), nd.q-nd.p), true
}

func stepDecorrelatedV2(r *Run, i int, st, now int64) (int64, bool) { // p: Base
	nd := &r.nodes[i]
	nd.enter(st)
	u := float64(r.draw(nd.key)>>11) / (1 << 53) // in [0, 1)
	d, next := schedule.DecorrelatedV2{Base: time.Duration(nd.p)}.Step(nd.k, u, math.Float64frombits(uint64(nd.a)))
	nd.a = int64(math.Float64bits(next))
	return int64(d), true
}

// Wrappers: the child is node i+1.

func stepResetAfter(r *Run, i int, st, now int64) (int64, bool) { // p: After, q: end of the subtree
	nd := &r.nodes[i]
	nd.enter(st)
	if nd.k == 1 {
		nd.b = now
	} else if now-nd.b >= nd.p {
		// After has passed since the inner schedule (re)started: it
		// starts over, and this decision is its first.
		ns := r.nodes[i+1 : nd.q]
		for j := range ns {
			ns[j].nodeState = nodeState{}
		}
		nd.b = now
	}
	return r.step(i+1, st, now)
}

func stepWhileBelow(r *Run, i int, st, now int64) (int64, bool) { // p: Limit
	nd := &r.nodes[i]
	nd.enter(st)
	d, ok := r.step(i+1, st, now)
	if !ok || d >= nd.p {
		return 0, false
	}
	return d, true
}

func stepJittered(r *Run, i int, st, now int64) (int64, bool) { // p: LowPct, q: HighPct
	nd := &r.nodes[i]
	nd.enter(st)
	d, ok := r.step(i+1, st, now)
	if !ok {
		return 0, false
	}
	return jitter(d, nd.p, nd.q, r.draw(nd.key)), true
}

// stepJitteredFine is stepJittered for ends with a fraction of a percent:
// p and q hold them in millionths.
func stepJitteredFine(r *Run, i int, st, now int64) (int64, bool) { // p: low ppm, q: high ppm
	nd := &r.nodes[i]
	nd.enter(st)
	d, ok := r.step(i+1, st, now)
	if !ok {
		return 0, false
	}
	return jitterPPM(d, nd.p, nd.q, r.draw(nd.key)), true
}

func stepCapped(r *Run, i int, st, now int64) (int64, bool) { // p: Max
	nd := &r.nodes[i]
	nd.enter(st)
	d, ok := r.step(i+1, st, now)
	return min(d, nd.p), ok
}

func stepUpTo(r *Run, i int, st, now int64) (int64, bool) { // p: Budget
	nd := &r.nodes[i]
	nd.enter(st)
	if st < nd.start {
		// Times went back, or a saved state claims a start later than the
		// caller's clock: the budget counts from the earliest start seen,
		// so that no such state can put off the end.
		nd.start = st
	}
	d, ok := r.step(i+1, st, now)
	if !ok || sat.Add(now-nd.start, d) > nd.p { // measured from the start: no sum saturates
		return 0, false
	}
	return d, true
}

// Binary nodes: p and q are the indexes of the children.

func stepUnion(r *Run, i int, st, now int64) (int64, bool) {
	nd := &r.nodes[i]
	nd.enter(st)
	var da, db int64
	var oka, okb bool
	if nd.a&1 == 0 {
		if da, oka = r.step(int(nd.p), st, now); !oka {
			nd.a |= 1
		}
	}
	if nd.a&2 == 0 {
		if db, okb = r.step(int(nd.q), st, now); !okb {
			nd.a |= 2
		}
	}
	switch {
	case oka && okb:
		return min(da, db), true
	case oka:
		return da, true
	case okb:
		return db, true
	}
	return 0, false
}

func stepIntersect(r *Run, i int, st, now int64) (int64, bool) {
	nd := &r.nodes[i]
	nd.enter(st)
	da, oka := r.step(int(nd.p), st, now)
	db, okb := r.step(int(nd.q), st, now)
	return max(da, db), oka && okb
}

func stepSum(r *Run, i int, st, now int64) (int64, bool) {
	nd := &r.nodes[i]
	nd.enter(st)
	da, oka := r.step(int(nd.p), st, now)
	db, okb := r.step(int(nd.q), st, now)
	return sat.Add(max(da, 0), max(db, 0)), oka && okb
}

func stepAndThen(r *Run, i int, st, now int64) (int64, bool) {
	nd := &r.nodes[i]
	nd.enter(st)
	if nd.a == 0 {
		if d, ok := r.step(int(nd.p), st, now); ok {
			return d, true
		}
		nd.a = 1
	}
	return r.step(int(nd.q), st, now)
}

// Fused steps for the two commonest shapes, chosen by layout. Each does
// exactly what the general steps of its nodes do, in the same order, and
// leaves the same state, but saves a call: a decision of Backoff & Times(n)
// takes one call below Next instead of three.

// stepJitteredExponential is stepJittered over a stepExponential child:
// Backoff and FullJitter. The Exponential's advance is written out here
// and in Next rather than shared: a helper holding it costs 96 in Go's
// inliner, over its budget of 80, and the call would cost more than the
// fusion saves.
func stepJitteredExponential(r *Run, i int, st, now int64) (int64, bool) {
	nd, e := &r.nodes[i], &r.nodes[i+1]
	nd.enter(st)
	e.enter(st)
	d := min(e.p, e.q)
	if e.k > 1 {
		d = scaleCap(e.a, e.key, e.q)
	}
	e.a = d
	return jitter(d, nd.p, nd.q, r.draw(nd.key)), true
}

// stepIntersectTimes is stepIntersect with a Times child, the usual bound
// on attempts: q is the Times, whichever side it is on, and p the other
// child. The order in which an Intersect steps its children does not
// matter: they share no state, and a draw depends only on the decision
// number. The Times's delay is 0, hence max(d, 0).
func stepIntersectTimes(r *Run, i int, st, now int64) (int64, bool) {
	nd := &r.nodes[i]
	nd.enter(st)
	d, ok := r.step(int(nd.p), st, now)
	t := &r.nodes[nd.q]
	t.enter(st)
	return max(d, 0), ok && t.k < t.p
}

// wholeShape names a whole schedule that Next decides inline, with no
// call: its code there is the general steps of its nodes written out.
type wholeShape uint8

const (
	wholeNone wholeShape = iota
	// wholeBackoff is a Jittered Exponential: Backoff(base, cap) and
	// FullJitter(base, cap). Its nodes are the Jittered, 0, and the
	// Exponential, 1: stepJitteredExponential.
	wholeBackoff
	// wholeBackoffTimes is a Jittered Exponential bounded by a Times,
	// either way round: Backoff(base, cap) & Times(n), the policy most
	// callers write. layout has put the Intersect at node 0, the Times's
	// index in its q and the Jittered's in its p, with the Exponential
	// after the Jittered: stepIntersectTimes over stepJitteredExponential.
	wholeBackoffTimes
)

// wholeShapeOf returns the shape of s that Next decides inline, or
// wholeNone.
func wholeShapeOf(s schedule.Schedule) wholeShape {
	if isJitteredExponential(s) {
		return wholeBackoff
	}
	x, ok := s.(schedule.Intersect)
	if !ok {
		return wholeNone
	}
	a, b := x.A, x.B
	if _, ok := a.(schedule.Times); ok {
		a, b = b, a
	}
	if _, ok := b.(schedule.Times); ok && isJitteredExponential(a) {
		return wholeBackoffTimes
	}
	return wholeNone
}

// isJitteredExponential reports whether s is a Jittered over an
// Exponential, both in whole percents.
func isJitteredExponential(s schedule.Schedule) bool {
	j, ok := s.(schedule.Jittered)
	if !ok || j.LowFrac != 0 || j.HighFrac != 0 {
		return false
	}
	e, ok := j.Inner.(schedule.Exponential)
	return ok && e.FactorFrac == 0
}

// scaleCapPPM returns min(cap, ⌊d·ppm/10⁶⌋) in integer nanoseconds, in
// 128 bits: scaleCap for a factor in millionths.
func scaleCapPPM(d int64, ppm uint64, cap int64) int64 {
	hi, lo := bits.Mul64(uint64(d), ppm)
	if hi >= 1_000_000 {
		return cap // d·ppm/10⁶ ≥ 2⁶⁴
	}
	if q, _ := bits.Div64(hi, lo, 1_000_000); q < uint64(cap) {
		return int64(q)
	}
	return cap
}

// scaleCap returns min(cap, d·pct/100) in integer nanoseconds, computed in
// 128 bits so that it never overflows.
func scaleCap(d int64, pct uint64, cap int64) int64 {
	if pct == 200 { // doubling, the common case: no multiply, no division
		if d >= cap-d {
			return cap
		}
		return 2 * d
	}
	hi, lo := bits.Mul64(uint64(d), pct)
	q := lo / 100 // the common case: d·pct < 2⁶⁴
	if hi != 0 {
		if hi >= 100 {
			return cap // d·pct/100 ≥ 2⁶⁴
		}
		q, _ = bits.Div64(hi, lo, 100)
	}
	if q < uint64(cap) {
		return int64(q)
	}
	return cap
}
