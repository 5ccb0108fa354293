package interp

import (
	"math"
	"math/bits"

	"github.com/recur-go/recur/schedule"
)

// Random draws are counter-based: draw mixes the run's seed, the drawing
// node's key and the decision number with SplitMix64's output function. No state
// advances, so a draw depends on nothing else, and two nodes with the same
// key draw the same number at the same decision.

// draw returns the random 64 bits of the node with the given key at the
// current decision. Keys are themselves mixed, so two nodes' streams
// coincide only if their keys differ by a multiple of the odd constant
// within the run's decision count: odds of about 2⁻⁴⁰ for any real run.
func (r *Run) draw(key uint64) uint64 {
	return mix(r.seed + key + uint64(r.n)*0x9e3779b97f4a7c15)
}

// mix is SplitMix64's output function: a bijection with good avalanche.
func mix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// key returns what a node's random draws are keyed by: its variant and its
// own parameters, not its children, so that rewriting the children into an
// equivalent form (schedule.Simplify) leaves the draws unchanged.
func key(s schedule.Schedule) uint64 {
	switch s := s.(type) {
	case schedule.Jittered:
		k := mix(0x4a49545445524544 ^ uint64(s.LowPct)<<32 ^ uint64(s.HighPct))
		if s.LowFrac != 0 || s.HighFrac != 0 {
			k = mix(k ^ uint64(s.LowFrac)<<32 ^ uint64(s.HighFrac)) // whole percents keep their draws
		}
		return k
	case schedule.Decorrelated:
		return mix(mix(0x4445434f5252454c^uint64(s.Base)) ^ uint64(s.Cap))
	case schedule.Random:
		return mix(mix(0x52414e444f4d4c4f^uint64(s.Lo)) ^ uint64(s.Hi))
	case schedule.DecorrelatedV2:
		return mix(0x444543562d4a4954 ^ uint64(s.Base))
	case schedule.AndThen, schedule.Capped, schedule.Exponential, schedule.Fibonacci, schedule.Forever, schedule.Intersect, schedule.Linear, schedule.ResetAfter, schedule.Spaced, schedule.Sum, schedule.Times, schedule.Union, schedule.UpTo, schedule.WhileBelow:
		// These take the path after the switch.
	}
	return 0
}

// jitter scales d by a factor uniform in [low%, high%], rounding down and
// saturating. The random 53 bits of r pick the point in the range, so
// low == high scales exactly.
func jitter(d, low, high int64, r uint64) int64 {
	num := uint64(low)<<53 + (r>>11)*uint64(high-low) // percent · 2⁵³
	hi, lo := bits.Mul64(uint64(d), num)
	if hi < 1<<53 {
		// ⌊⌊d·num/2⁵³⌋/100⌋ = ⌊d·num/(100·2⁵³)⌋, below 2⁶⁴/100: no saturation.
		return int64((hi<<11 | lo>>53) / 100)
	}
	// d·num/2⁵³ does not fit in 64 bits, but the quotient may.
	const den = 100 << 53
	if hi >= den {
		return math.MaxInt64
	}
	q, _ := bits.Div64(hi, lo, den)
	return int64(min(q, math.MaxInt64))
}

// jitterPPM is jitter for ends in millionths (low ≤ high ≤ 10⁷, 1000%):
// d scaled by a factor uniform in [low, high] millionths, rounding down and
// saturating. The random 39 bits of r pick the point in the range, so that
// the numerator, low·2³⁹ + m·(high−low), fits in 64 bits; low == high
// scales exactly.
func jitterPPM(d, low, high int64, r uint64) int64 {
	num := uint64(low)<<39 + (r>>25)*uint64(high-low) // millionths · 2³⁹
	hi, lo := bits.Mul64(uint64(d), num)
	const den = 1_000_000 << 39
	if hi >= den {
		return math.MaxInt64
	}
	q, _ := bits.Div64(hi, lo, den)
	return int64(min(q, math.MaxInt64))
}

// uniform returns a number in [0, n] from the random bits r.
func uniform(r uint64, n int64) int64 {
	hi, _ := bits.Mul64(r, uint64(n)+1)
	return int64(hi)
}
