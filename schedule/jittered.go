package schedule

import (
	"log/slog"
	"strconv"
)

// Jittered scales each of Inner's delays by a random factor drawn uniformly
// from [LowPct%, HighPct%]. Jitter keeps clients that failed together from
// retrying together. 0 ≤ LowPct ≤ HighPct ≤ 1000.
type Jittered struct {
	Inner   Schedule
	LowPct  int
	HighPct int
}

// String returns the canonical form, such as Jittered(Exponential(100ms, 200%, 30s), 0%, 100%), which
// package parse reads back to an equal value.
func (s Jittered) String() string { return string(s.appendTo(make([]byte, 0, 64))) }

// GoString returns a Go expression that builds s, for %#v.
func (s Jittered) GoString() string { return string(s.appendGo(nil)) }

// LogValue logs s as its canonical form.
func (s Jittered) LogValue() slog.Value { return slog.StringValue(s.String()) }

func (s Jittered) appendTo(b []byte) []byte {
	b = appendChild(append(b, "Jittered("...), s.Inner)
	b = appendPct(append(b, ", "...), s.LowPct)
	return append(appendPct(append(b, ", "...), s.HighPct), ')')
}

func (s Jittered) appendGo(b []byte) []byte {
	b = appendGoChild(append(b, "schedule.Jittered{Inner: "...), s.Inner)
	b = strconv.AppendInt(append(b, ", LowPct: "...), int64(s.LowPct), 10)
	b = strconv.AppendInt(append(b, ", HighPct: "...), int64(s.HighPct), 10)
	return append(b, '}')
}

func (s Jittered) validate() *Error {
	switch {
	case s.LowPct < 0:
		return invalid("Jittered", s, "low "+pct(s.LowPct)+" is below 0%")
	case s.HighPct > 1000:
		return invalid("Jittered", s, "high "+pct(s.HighPct)+" is above 1000%")
	case s.LowPct > s.HighPct:
		return invalid("Jittered", s, "low "+pct(s.LowPct)+" above high "+pct(s.HighPct))
	}
	return child("Jittered", "Inner", s.Inner)
}
