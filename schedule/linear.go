package schedule

import (
	"log/slog"
	"time"
)

// Linear waits Base after the first failed attempt and Step more after
// each one after it: dₖ = Base + (k−1)·Step, in integer nanoseconds,
// saturating at MaxDuration. Polly's DelayBackoffType.Linear (2s, 4s,
// 6s) is Linear{2s, 2s}; tenacity's wait_incrementing(start, increment)
// is Linear{start, increment}. The delay is measured from the end of the
// failed attempt. Linear never stops by itself; cap it with Capped. Base
// and Step must not be negative; a Step of 0 waits Base every time.
type Linear struct {
	Base time.Duration
	Step time.Duration
}

// String returns the canonical form, such as Linear(100ms, 100ms), which
// package parse reads back to an equal value.
func (s Linear) String() string { return string(s.appendTo(make([]byte, 0, 64))) }

// GoString returns a Go expression that builds s, for %#v.
func (s Linear) GoString() string { return string(s.appendGo(nil)) }

// LogValue logs s as its canonical form.
func (s Linear) LogValue() slog.Value { return slog.StringValue(s.String()) }

func (s Linear) appendTo(b []byte) []byte {
	b = appendDur(append(b, "Linear("...), s.Base)
	return append(appendDur(append(b, ", "...), s.Step), ')')
}

func (s Linear) appendGo(b []byte) []byte {
	b = appendGoDur(append(b, "schedule.Linear{Base: "...), s.Base)
	return append(appendGoDur(append(b, ", Step: "...), s.Step), '}')
}

func (s Linear) validate() *Error {
	msg := nonNegative("base", s.Base)
	if msg == "" {
		msg = nonNegative("step", s.Step)
	}
	if msg != "" {
		return invalid("Linear", s, msg)
	}
	return nil
}
