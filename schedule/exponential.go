package schedule

import (
	"log/slog"
	"strconv"
	"time"
)

// Exponential waits Base after the first failed attempt, then multiplies
// the delay by FactorPct/100 each time, never above Cap: d₁ = min(Base, Cap),
// dₖ₊₁ = min(Cap, dₖ·FactorPct/100) in integer nanoseconds. FactorPct 200
// doubles. The delay is measured from the end of the failed attempt.
// Exponential never stops by itself. Base and Cap must be positive and
// FactorPct at least 100.
type Exponential struct {
	Base      time.Duration
	FactorPct int
	Cap       time.Duration
}

// String returns the canonical form, such as Exponential(100ms, 200%, 30s), which
// package parse reads back to an equal value.
func (s Exponential) String() string { return string(s.appendTo(make([]byte, 0, 64))) }

// GoString returns a Go expression that builds s, for %#v.
func (s Exponential) GoString() string { return string(s.appendGo(nil)) }

// LogValue logs s as its canonical form.
func (s Exponential) LogValue() slog.Value { return slog.StringValue(s.String()) }

func (s Exponential) appendTo(b []byte) []byte {
	b = appendDur(append(b, "Exponential("...), s.Base)
	b = appendPct(append(b, ", "...), s.FactorPct)
	return append(appendDur(append(b, ", "...), s.Cap), ')')
}

func (s Exponential) appendGo(b []byte) []byte {
	b = appendGoDur(append(b, "schedule.Exponential{Base: "...), s.Base)
	b = strconv.AppendInt(append(b, ", FactorPct: "...), int64(s.FactorPct), 10)
	return append(appendGoDur(append(b, ", Cap: "...), s.Cap), '}')
}

func (s Exponential) validate() *Error {
	msg := positive("base", s.Base)
	if msg == "" && s.FactorPct < 100 {
		msg = "factor " + pct(s.FactorPct) + " is below 100%"
	}
	if msg == "" {
		msg = positive("cap", s.Cap)
	}
	if msg != "" {
		return invalid("Exponential", s, msg)
	}
	return nil
}
