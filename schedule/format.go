package schedule

import (
	"math"
	"strconv"
	"time"
)

// appendDur appends d in Go's duration syntax, such as 1m30s.
func appendDur(b []byte, d time.Duration) []byte { return append(b, d.String()...) }

// PctFracs is how many fractions of a percent make a percent: a fraction
// field (Exponential.FactorFrac, Jittered.LowFrac and HighFrac) counts
// ten-thousandths of a percent, so the finest factor is 0.0001%, a
// millionth of the delay.
const PctFracs = 10_000

// AppendPercent appends pct + frac/PctFracs percent in its canonical form:
// the whole percent, then a point and the fraction's digits without
// trailing zeros, if any, and a percent sign, such as 200%, 100.01% or
// 0.5%. A negative total prints with a minus sign, so that an error can
// show an invalid value as it was written.
func AppendPercent(b []byte, pct, frac int) []byte {
	if pct < 0 && frac > 0 && pct > math.MinInt { // -1% + 0.5% is -0.5%
		pct, frac = pct+1, PctFracs-frac
		if pct == 0 {
			b = append(b, '-')
		}
	}
	b = strconv.AppendInt(b, int64(pct), 10)
	if frac > 0 && frac < PctFracs {
		var d [4]byte
		for i, f := 3, frac; i >= 0; i-- {
			d[i] = byte('0' + f%10)
			f /= 10
		}
		n := 4
		for n > 0 && d[n-1] == '0' {
			n--
		}
		b = append(append(b, '.'), d[:n]...)
	} else if frac != 0 {
		b = append(append(b, '+'), strconv.Itoa(frac)...) // an invalid fraction, shown as it is
		b = append(b, "/10000"...)
	}
	return append(b, '%')
}

// PPM returns pct + frac/PctFracs percent in millionths of the factor
// (1_000_000 is ×1, 100%), saturating at the ends of int64.
func PPM(pct, frac int) int64 {
	const most = math.MaxInt64 / PctFracs
	switch {
	case pct > most:
		return math.MaxInt64
	case pct < -most:
		return math.MinInt64
	}
	n := int64(pct) * PctFracs
	if frac > 0 && n > math.MaxInt64-int64(frac) {
		return math.MaxInt64
	}
	return n + int64(frac) // a negative frac, which Validate rejects, cannot overflow here
}

// appendGoDur appends a Go expression for d using the largest unit that
// divides it exactly, such as 30*time.Second or 1500*time.Millisecond.
func appendGoDur(b []byte, d time.Duration) []byte {
	units := [...]struct {
		d    time.Duration
		name string
	}{
		{time.Hour, "time.Hour"},
		{time.Minute, "time.Minute"},
		{time.Second, "time.Second"},
		{time.Millisecond, "time.Millisecond"},
		{time.Microsecond, "time.Microsecond"},
	}
	for _, u := range units {
		if d != 0 && d%u.d == 0 {
			n := d / u.d
			if n == 1 {
				return append(b, u.name...)
			}
			b = strconv.AppendInt(b, int64(n), 10)
			b = append(b, '*')
			return append(b, u.name...)
		}
	}
	return strconv.AppendInt(b, int64(d), 10)
}

// appendGoChild appends a child's Go expression, or nil for a missing child.
func appendGoChild(b []byte, s Schedule) []byte {
	if s == nil {
		return append(b, "nil"...)
	}
	return s.appendGo(b)
}

// appendChild appends a child's canonical form, or <nil> for a missing child.
func appendChild(b []byte, s Schedule) []byte {
	if s == nil {
		return append(b, "<nil>"...)
	}
	return s.appendTo(b)
}

// AppendText appends the canonical form of s to b, like
// encoding.TextAppender, without the intermediate string of s.String().
func AppendText(b []byte, s Schedule) []byte { return appendChild(b, s) }

// GoString returns a Go expression that builds s, for %#v and for pasting
// a logged schedule into a test.
func GoString(s Schedule) string { return string(appendGoChild(nil, s)) }
