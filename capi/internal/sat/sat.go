// Package sat is the home of saturating arithmetic on non-negative
// int64 counts and durations: a result that would overflow is held at
// math.MaxInt64 (schedule.MaxDuration for a Duration) instead.
//
// Its users are schedule, interp, explain, simulate, storm, audit and
// breaker, and the tests of repeat and retry. It imports nothing of the
// module. It exists three times: here, and as copies in
// cmd/schedcheck/internal/sat and capi/internal/sat for the schedcheck and
// capi modules, which cannot import another module's internal packages;
// they are the same but for import paths, and internal/layout's test keeps
// them so.
package sat

import (
	"math"
	"math/bits"
	"time"
)

// Max is the value a saturated result is held at.
const Max = math.MaxInt64

// Add returns a+b for non-negative a and b, saturating at Max.
func Add(a, b int64) int64 {
	if s := a + b; s >= a {
		return s
	}
	return Max
}

// Mul returns a·b for non-negative a and b, saturating at Max.
func Mul(a, b int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > Max {
		return Max
	}
	return int64(lo)
}

// AddDur returns a+b for non-negative a and b, saturating at the largest
// Duration.
func AddDur(a, b time.Duration) time.Duration {
	return time.Duration(Add(int64(a), int64(b)))
}

// MulDur returns d·n for non-negative d and n, saturating at the largest
// Duration.
func MulDur(d time.Duration, n int64) time.Duration {
	return time.Duration(Mul(int64(d), n))
}
