package schedule

import (
	"log/slog"
	"time"
)

// UpTo follows Inner, but stops when the next attempt would start later
// than Budget after the node's start (exactly at the limit is allowed). It
// is the wall-clock budget, usually what "give up after a minute" means. The
// first attempt's own time counts. Budget must not be negative.
type UpTo struct {
	Inner  Schedule
	Budget time.Duration
}

// String returns the canonical form, such as UpTo(Spaced(10s), 1m0s), which
// package parse reads back to an equal value.
func (s UpTo) String() string { return string(s.appendTo(make([]byte, 0, 64))) }

// GoString returns a Go expression that builds s, for %#v.
func (s UpTo) GoString() string { return string(s.appendGo(nil)) }

// LogValue logs s as its canonical form.
func (s UpTo) LogValue() slog.Value { return slog.StringValue(s.String()) }

func (s UpTo) appendTo(b []byte) []byte {
	b = appendChild(append(b, "UpTo("...), s.Inner)
	return append(appendDur(append(b, ", "...), s.Budget), ')')
}

func (s UpTo) appendGo(b []byte) []byte {
	b = appendGoChild(append(b, "schedule.UpTo{Inner: "...), s.Inner)
	return append(appendGoDur(append(b, ", Budget: "...), s.Budget), '}')
}

func (s UpTo) validate() *Error {
	if msg := nonNegative("budget", s.Budget); msg != "" {
		return invalid("UpTo", s, msg)
	}
	return child("UpTo", "Inner", s.Inner)
}
