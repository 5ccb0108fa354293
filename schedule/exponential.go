package schedule

import (
	"log/slog"
	"strconv"
	"time"
)

// Exponential waits Base after the first failed attempt, then multiplies
// the delay by the factor each time, never above Cap: d₁ = min(Base, Cap),
// dₖ₊₁ = min(Cap, ⌊dₖ·factor⌋) in integer nanoseconds. The factor is
// FactorPct percent plus FactorFrac ten-thousandths of a percent: FactorPct
// 200 doubles, and FactorPct 100 with FactorFrac 100 is Resilience4j's
// 1.0001 (100.01%). The delay is measured from the end of the failed
// attempt. Exponential never stops by itself. Base and Cap must be
// positive, the factor at least 100%, and FactorFrac in [0, 9999] (with a
// fraction, FactorPct below 1000000000).
type Exponential struct {
	Base      time.Duration
	FactorPct int
	Cap       time.Duration
	// FactorFrac adds ten-thousandths of a percent to FactorPct, so that
	// the finest factor step is 0.0001%, a millionth of the delay.
	FactorFrac int
}

// FactorPPM returns the factor in millionths: 2_000_000 doubles.
func (s Exponential) FactorPPM() int64 { return PPM(s.FactorPct, s.FactorFrac) }

// String returns the canonical form, such as Exponential(100ms, 200%, 30s), which
// package parse reads back to an equal value.
func (s Exponential) String() string { return string(s.appendTo(make([]byte, 0, 64))) }

// GoString returns a Go expression that builds s, for %#v.
func (s Exponential) GoString() string { return string(s.appendGo(nil)) }

// LogValue logs s as its canonical form.
func (s Exponential) LogValue() slog.Value { return slog.StringValue(s.String()) }

func (s Exponential) appendTo(b []byte) []byte {
	b = appendDur(append(b, "Exponential("...), s.Base)
	b = AppendPercent(append(b, ", "...), s.FactorPct, s.FactorFrac)
	return append(appendDur(append(b, ", "...), s.Cap), ')')
}

func (s Exponential) appendGo(b []byte) []byte {
	b = appendGoDur(append(b, "schedule.Exponential{Base: "...), s.Base)
	b = strconv.AppendInt(append(b, ", FactorPct: "...), int64(s.FactorPct), 10)
	b = appendGoDur(append(b, ", Cap: "...), s.Cap)
	if s.FactorFrac != 0 {
		b = strconv.AppendInt(append(b, ", FactorFrac: "...), int64(s.FactorFrac), 10)
	}
	return append(b, '}')
}

// maxFracPct bounds a factor with a fraction, so that it fits in uint64
// millionths with room to spare: such a factor is a 10⁷-fold growth.
const maxFracPct = 1_000_000_000

func (s Exponential) validate() *Error {
	msg := positive("base", s.Base)
	if msg == "" {
		msg = badFrac("factor", s.FactorFrac)
	}
	switch {
	case msg != "":
	case s.FactorPct < 100:
		msg = "factor " + pctFrac(s.FactorPct, s.FactorFrac) + " is below 100%"
	case s.FactorFrac != 0 && s.FactorPct >= maxFracPct:
		msg = "factor " + pctFrac(s.FactorPct, s.FactorFrac) + " has a fraction above " + pct(maxFracPct-1) + ": write it whole"
	}
	if msg == "" {
		msg = positive("cap", s.Cap)
	}
	if msg != "" {
		return invalid("Exponential", s, msg)
	}
	return nil
}
