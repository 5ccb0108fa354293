package schedule

import (
	"log/slog"
	"time"
)

// Capped follows Inner with each delay limited to Max. It stops when Inner
// stops. Max must not be negative.
type Capped struct {
	Inner Schedule
	Max   time.Duration
}

// String returns the canonical form, such as Capped(Fibonacci(1s), 10s), which
// package parse reads back to an equal value.
func (s Capped) String() string { return string(s.appendTo(make([]byte, 0, 64))) }

// GoString returns a Go expression that builds s, for %#v.
func (s Capped) GoString() string { return string(s.appendGo(nil)) }

// LogValue logs s as its canonical form.
func (s Capped) LogValue() slog.Value { return slog.StringValue(s.String()) }

func (s Capped) appendTo(b []byte) []byte {
	b = appendChild(append(b, "Capped("...), s.Inner)
	return append(appendDur(append(b, ", "...), s.Max), ')')
}

func (s Capped) appendGo(b []byte) []byte {
	b = appendGoChild(append(b, "schedule.Capped{Inner: "...), s.Inner)
	return append(appendGoDur(append(b, ", Max: "...), s.Max), '}')
}

func (s Capped) validate() *Error {
	if msg := nonNegative("max", s.Max); msg != "" {
		return invalid("Capped", s, msg)
	}
	return child("Capped", "Inner", s.Inner)
}
