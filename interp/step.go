package interp

import (
	"math"
	"math/bits"

	"github.com/recur-go/recur/schedule"
)

// step asks node i, whose schedule is s, for its decision after an attempt
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
func (r *Run) step(i int, s schedule.Schedule, st, now int64) (int64, bool) {
	nd := &r.nodes[i]
	if nd.k == 0 {
		nd.start = st
	}
	nd.k++
	switch s := s.(type) {
	case schedule.Times:
		return 0, nd.k < int64(s.N)

	case schedule.Forever:
		return 0, true

	case schedule.Spaced:
		every := int64(s.Every)
		if c := (st - nd.start) / every; c > nd.a {
			nd.a = c // a late attempt claims the slot it started in
		}
		next := addSat(nd.start, mulSat(nd.a+1, every))
		if next < now {
			return 0, true // overran its slot: go at once, skip the missed ones
		}
		return next - now, true

	case schedule.Exponential:
		if nd.k == 1 {
			nd.a = min(int64(s.Base), int64(s.Cap))
		} else {
			nd.a = scaleCap(nd.a, uint64(s.FactorPct), int64(s.Cap))
		}
		return nd.a, true

	case schedule.Fibonacci:
		if nd.k == 1 {
			nd.a, nd.b = 0, int64(s.Base)
		} else {
			nd.a, nd.b = nd.b, addSat(nd.a, nd.b)
		}
		return nd.b, true

	case schedule.Decorrelated:
		prev := nd.a
		if nd.k == 1 {
			prev = int64(s.Base)
		}
		lo, hi := int64(s.Base), mulSat(prev, 3)
		if hi < lo {
			lo, hi = hi, lo
		}
		nd.a = min(int64(s.Cap), lo+uniform(r.draw(nd.key), hi-lo))
		return nd.a, true

	case schedule.Jittered:
		d, ok := r.step(i+1, s.Inner, st, now)
		if !ok {
			return 0, false
		}
		return jitter(d, s.LowPct, s.HighPct, r.draw(nd.key)), true

	case schedule.Capped:
		d, ok := r.step(i+1, s.Inner, st, now)
		return min(d, int64(s.Max)), ok

	case schedule.UpTo:
		d, ok := r.step(i+1, s.Inner, st, now)
		if !ok || addSat(now, d) > addSat(nd.start, int64(s.Budget)) {
			return 0, false
		}
		return d, true

	case schedule.Union:
		a, b := i+1, i+1+int(r.nodes[i+1].size)
		var da, db int64
		var oka, okb bool
		if nd.a&1 == 0 {
			if da, oka = r.step(a, s.A, st, now); !oka {
				nd.a |= 1
			}
		}
		if nd.a&2 == 0 {
			if db, okb = r.step(b, s.B, st, now); !okb {
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

	case schedule.Intersect:
		a, b := i+1, i+1+int(r.nodes[i+1].size)
		da, oka := r.step(a, s.A, st, now)
		db, okb := r.step(b, s.B, st, now)
		return max(da, db), oka && okb

	case schedule.AndThen:
		a, b := i+1, i+1+int(r.nodes[i+1].size)
		if nd.a == 0 {
			if d, ok := r.step(a, s.First, st, now); ok {
				return d, true
			}
			nd.a = 1
		}
		return r.step(b, s.Then, st, now)
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
	hi, lo := bits.Mul64(uint64(d), pct)
	if hi >= 100 {
		return cap
	}
	q, _ := bits.Div64(hi, lo, 100)
	if q > uint64(cap) {
		return cap
	}
	return int64(q)
}
