package schedule

import (
	"log/slog"
	"time"
)

// ResetAfter follows Inner, and starts it over once After has passed since
// its (re)start: ZIO's resetAfter, (self zip elapsed).resetWhen(_ >= d).
// The (re)start is the end of the attempt at whose decision Inner started
// (the first one, or the one that reset it); at a decision whose attempt
// ended After or more later, Inner's state is cleared and Inner makes its
// first decision again. A reconnect loop backs off while connections fail
// quickly and starts from its first delay after one that lasted.
//
// Inner's count starts over too, so a Times inside bounds the attempts
// between resets only: bound the whole with a Times outside. ResetAfter
// stops when Inner stops. After must be positive.
type ResetAfter struct {
	Inner Schedule
	After time.Duration
}

// String returns the canonical form, such as ResetAfter(Exponential(1s, 200%, 1m0s), 10m0s),
// which package parse reads back to an equal value.
func (s ResetAfter) String() string { return string(s.appendTo(make([]byte, 0, 64))) }

// GoString returns a Go expression that builds s, for %#v.
func (s ResetAfter) GoString() string { return string(s.appendGo(nil)) }

// LogValue logs s as its canonical form.
func (s ResetAfter) LogValue() slog.Value { return slog.StringValue(s.String()) }

func (s ResetAfter) appendTo(b []byte) []byte {
	b = appendChild(append(b, "ResetAfter("...), s.Inner)
	return append(appendDur(append(b, ", "...), s.After), ')')
}

func (s ResetAfter) appendGo(b []byte) []byte {
	b = appendGoChild(append(b, "schedule.ResetAfter{Inner: "...), s.Inner)
	return append(appendGoDur(append(b, ", After: "...), s.After), '}')
}

func (s ResetAfter) validate() *Error {
	if msg := positive("after", s.After); msg != "" {
		return invalid("ResetAfter", s, msg)
	}
	return child("ResetAfter", "Inner", s.Inner)
}
