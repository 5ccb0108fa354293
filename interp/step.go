package interp

import (
	"math"
	"math/bits"
)

// step asks node i for its decision after an attempt
// that ran from st to now (nanoseconds since the run began). Parents step a
// child only while it has not stopped.
//
// Variant state in node.a and node.b:
//
//	Spaced        a: the highest slot index an attempt has claimed
//	Exponential   a: the current delay
//	Fibonacci     a, b: the previous and the current delay
//	Decorrelated  a: the previous delay
//	Union         a: bit 1 set once A stopped, bit 2 once B stopped
//	AndThen       a: 1 once First stopped
func (r *Run) step(i int, st, now int64) (int64, bool) {
	nd := &r.nodes[i]
	if nd.k == 0 {
		nd.start = st
	}
	nd.k++
	switch nd.kind {
	case kTimes:
		return 0, nd.k < nd.p

	case kForever:
		return 0, true

	case kSpaced:
		every := nd.p
		if c := (st - nd.start) / every; c > nd.a {
			nd.a = c // a late attempt claims the slot it started in
		}
		next := addSat(nd.start, mulSat(nd.a+1, every))
		if next < now {
			return 0, true // overran its slot: go at once, skip the missed ones
		}
		return next - now, true

	case kExponential: // p: Base, q: Cap, key: FactorPct
		if nd.k == 1 {
			nd.a = min(nd.p, nd.q)
		} else {
			nd.a = scaleCap(nd.a, nd.key, nd.q)
		}
		return nd.a, true

	case kFibonacci:
		if nd.k == 1 {
			nd.a, nd.b = 0, nd.p
		} else {
			nd.a, nd.b = nd.b, addSat(nd.a, nd.b)
		}
		return nd.b, true

	case kDecorrelated: // p: Base, q: Cap
		prev := nd.a
		if nd.k == 1 {
			prev = nd.p
		}
		lo, hi := nd.p, mulSat(prev, 3)
		if hi < lo {
			lo, hi = hi, lo
		}
		nd.a = min(nd.q, lo+uniform(r.draw(nd.key), hi-lo))
		return nd.a, true

	case kJittered: // p: LowPct, q: HighPct
		d, ok := r.step(i+1, st, now)
		if !ok {
			return 0, false
		}
		return jitter(d, nd.p, nd.q, r.draw(nd.key)), true

	case kCapped: // p: Max
		d, ok := r.step(i+1, st, now)
		return min(d, nd.p), ok

	case kUpTo: // p: Budget
		d, ok := r.step(i+1, st, now)
		if !ok || addSat(now, d) > addSat(nd.start, nd.p) {
			return 0, false
		}
		return d, true

	case kUnion:
		a, b := i+1, i+1+int(r.nodes[i+1].size)
		var da, db int64
		var oka, okb bool
		if nd.a&1 == 0 {
			if da, oka = r.step(a, st, now); !oka {
				nd.a |= 1
			}
		}
		if nd.a&2 == 0 {
			if db, okb = r.step(b, st, now); !okb {
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

	case kIntersect:
		a, b := i+1, i+1+int(r.nodes[i+1].size)
		da, oka := r.step(a, st, now)
		db, okb := r.step(b, st, now)
		return max(da, db), oka && okb

	case kAndThen:
		a, b := i+1, i+1+int(r.nodes[i+1].size)
		if nd.a == 0 {
			if d, ok := r.step(a, st, now); ok {
				return d, true
			}
			nd.a = 1
		}
		return r.step(b, st, now)
	}
	return 0, false
}

// addSat returns a+b for non-negative a and b, saturating.
func addSat(a, b int64) int64 {
	if s := a + b; s >= a {
		return s
	}
	return math.MaxInt64
}

// mulSat returns a·b for non-negative a and b, saturating.
func mulSat(a, b int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(lo)
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
