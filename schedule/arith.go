package schedule

import "time"

// AddSat returns a+b for non-negative a and b, saturating at MaxDuration.
func AddSat(a, b time.Duration) time.Duration {
	if s := a + b; s >= a {
		return s
	}
	return MaxDuration
}

// MulSat returns d·n for non-negative d and n, saturating at MaxDuration.
func MulSat(d time.Duration, n int64) time.Duration {
	if d == 0 || n == 0 {
		return 0
	}
	if int64(d) > int64(MaxDuration)/n {
		return MaxDuration
	}
	return d * time.Duration(n)
}
