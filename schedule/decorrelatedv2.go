package schedule

import (
	"log/slog"
	"math"
	"time"
)

// DecorrelatedV2 is Polly's DecorrelatedJitterBackoffV2, the "soft
// exponential" jitter that Polly and .NET recommend: with t = k−1+u for
// the k-th decision and u uniform in [0, 1), the curve
//
//	g(t) = 2ᵗ·tanh(√(4t))
//
// and the delay ⌊(g(t) − g(tₖ₋₁))·Base/1.4⌋ nanoseconds, saturating, where
// g(t₀) = 0. The delays' medians are near Base, 2·Base, 4·Base …, and they
// spread smoothly, with fewer spikes than Decorrelated (AWS's). It never
// stops by itself and has no cap: bound it with Capped and Times. Base must
// be positive.
//
// The curve is computed in float64 with correctly rounded operations only
// (+, −, ×, ÷, √, each rounded on its own, and exact powers of two), so
// a seed gives the same delays on every platform; see DecorrelatedV2.Step.
type DecorrelatedV2 struct {
	Base time.Duration
}

// String returns the canonical form, such as DecorrelatedV2(1s), which
// package parse reads back to an equal value.
func (s DecorrelatedV2) String() string { return string(s.appendTo(make([]byte, 0, 64))) }

// GoString returns a Go expression that builds s, for %#v.
func (s DecorrelatedV2) GoString() string { return string(s.appendGo(nil)) }

// LogValue logs s as its canonical form.
func (s DecorrelatedV2) LogValue() slog.Value { return slog.StringValue(s.String()) }

func (s DecorrelatedV2) appendTo(b []byte) []byte {
	return append(appendDur(append(b, "DecorrelatedV2("...), s.Base), ')')
}

func (s DecorrelatedV2) appendGo(b []byte) []byte {
	return append(appendGoDur(append(b, "schedule.DecorrelatedV2{Base: "...), s.Base), '}')
}

func (s DecorrelatedV2) validate() *Error {
	if msg := positive("base", s.Base); msg != "" {
		return invalid("DecorrelatedV2", s, msg)
	}
	return nil
}

// Step returns the delay of the k-th decision (k ≥ 1) for the draw u in
// [0, 1), given prev, the curve's value at the previous decision (0 before
// the first), and the curve's value now, to pass as prev to the next. It
// is the one definition of the variant: package interp steps it, Bounds
// ranges over it. It allocates nothing.
func (s DecorrelatedV2) Step(k int64, u, prev float64) (time.Duration, float64) {
	next := v2Curve(float64(k-1), u)
	if math.IsInf(next, 1) {
		return MaxDuration, next // past float64's range: past Duration's long before
	}
	return v2Delay(s.Base, next-prev), next
}

// v2Delay scales a difference of the curve to nanoseconds: ⌊x·Base/1.4⌋,
// saturating, and 0 for a negative or NaN x.
func v2Delay(base time.Duration, x float64) time.Duration {
	d := float64(float64(x*float64(base)) / 1.4)
	switch {
	case !(d > 0):
		return 0
	case d >= float64(MaxDuration):
		return MaxDuration
	}
	return time.Duration(d)
}

// v2Curve returns g(n + u) = 2ⁿ⁺ᵘ·tanh(√(4(n+u))) for a whole n ≥ 0 and u
// in [0, 1), or +Inf once it passes float64's range.
func v2Curve(n, u float64) float64 {
	t := float64(n + u)
	th := v2Tanh(math.Sqrt(float64(4 * t)))
	if n > 1100 {
		return math.Inf(1)
	}
	return math.Ldexp(float64(v2Exp(float64(u*math.Ln2))*th), int(n)) // 2ⁿ exactly
}

// v2Tanh returns tanh(y) for y ≥ 0 as 1 − 2/(e²ʸ + 1).
func v2Tanh(y float64) float64 {
	if y > 20 {
		return 1 // tanh(20) is 1 in float64
	}
	return float64(1 - float64(2/float64(v2Exp(float64(2*y))+1)))
}

// v2Exp returns eˣ for 0 ≤ x ≤ 40 with correctly rounded operations only,
// so that it is the same on every platform (math.Exp is assembly on some):
// eˣ = (e^(x/64))⁶⁴, e^(x/64) by its Taylor series, which converges within
// 12 terms for x/64 ≤ 0.625.
func v2Exp(x float64) float64 {
	r := float64(x / 64)
	sum, term := 1.0, 1.0
	for i := 1; i <= 16; i++ {
		term = float64(float64(term*r) / float64(i))
		sum = float64(sum + term)
	}
	for range 6 {
		sum = float64(sum * sum)
	}
	return sum
}
