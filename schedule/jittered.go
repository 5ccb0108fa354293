package schedule

import (
	"log/slog"
	"strconv"
)

// Jittered scales each of Inner's delays by a random factor drawn uniformly
// from [low, high]: low is LowPct percent plus LowFrac ten-thousandths of a
// percent, high likewise, so that Resilience4j's 0.5% randomization is
// LowPct 99, LowFrac 5000, HighPct 100, HighFrac 5000. Jitter keeps
// clients that failed together from retrying together. 0% ≤ low ≤ high ≤
// 1000%, and the fractions are in [0, 9999].
type Jittered struct {
	Inner   Schedule
	LowPct  int
	HighPct int
	// LowFrac and HighFrac add ten-thousandths of a percent to LowPct and
	// HighPct: the finest jitter step is 0.0001%.
	LowFrac, HighFrac int
}

// LowPPM returns the low end of the factor in millionths (1_000_000 is 100%).
func (s Jittered) LowPPM() int64 { return PPM(s.LowPct, s.LowFrac) }

// HighPPM returns the high end of the factor in millionths.
func (s Jittered) HighPPM() int64 { return PPM(s.HighPct, s.HighFrac) }

// String returns the canonical form, such as Jittered(Exponential(100ms, 200%, 30s), 0%, 100%), which
// package parse reads back to an equal value.
func (s Jittered) String() string { return string(s.appendTo(make([]byte, 0, 64))) }

// GoString returns a Go expression that builds s, for %#v.
func (s Jittered) GoString() string { return string(s.appendGo(nil)) }

// LogValue logs s as its canonical form.
func (s Jittered) LogValue() slog.Value { return slog.StringValue(s.String()) }

func (s Jittered) appendTo(b []byte) []byte {
	b = appendChild(append(b, "Jittered("...), s.Inner)
	b = AppendPercent(append(b, ", "...), s.LowPct, s.LowFrac)
	return append(AppendPercent(append(b, ", "...), s.HighPct, s.HighFrac), ')')
}

func (s Jittered) appendGo(b []byte) []byte {
	b = appendGoChild(append(b, "schedule.Jittered{Inner: "...), s.Inner)
	b = strconv.AppendInt(append(b, ", LowPct: "...), int64(s.LowPct), 10)
	b = strconv.AppendInt(append(b, ", HighPct: "...), int64(s.HighPct), 10)
	if s.LowFrac != 0 {
		b = strconv.AppendInt(append(b, ", LowFrac: "...), int64(s.LowFrac), 10)
	}
	if s.HighFrac != 0 {
		b = strconv.AppendInt(append(b, ", HighFrac: "...), int64(s.HighFrac), 10)
	}
	return append(b, '}')
}

func (s Jittered) validate() *Error {
	msg := badFrac("low", s.LowFrac)
	if msg == "" {
		msg = badFrac("high", s.HighFrac)
	}
	switch {
	case msg != "":
		return invalid("Jittered", s, msg)
	case s.LowPct < 0:
		return invalid("Jittered", s, "low "+pctFrac(s.LowPct, s.LowFrac)+" is below 0%")
	case s.HighPct > 1000 || s.HighPct == 1000 && s.HighFrac > 0:
		return invalid("Jittered", s, "high "+pctFrac(s.HighPct, s.HighFrac)+" is above 1000%")
	case s.LowPPM() > s.HighPPM():
		return invalid("Jittered", s, "low "+pctFrac(s.LowPct, s.LowFrac)+" above high "+pctFrac(s.HighPct, s.HighFrac))
	}
	return child("Jittered", "Inner", s.Inner)
}
