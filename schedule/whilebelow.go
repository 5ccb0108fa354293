package schedule

import (
	"log/slog"
	"time"
)

// WhileBelow follows Inner while its delays stay below Limit: it stops
// when Inner stops or when the delay Inner chose is Limit or more, so no
// single wait reaches Limit. It is Haskell retry's limitRetriesByDelay
// (give up once a wait would be ≥ the limit). Capped shortens a long wait
// instead; WhileBelow gives up rather than wait it. Limit must be
// positive.
type WhileBelow struct {
	Inner Schedule
	Limit time.Duration
}

// String returns the canonical form, such as WhileBelow(Exponential(1s, 200%, 1h), 10s),
// which package parse reads back to an equal value.
func (s WhileBelow) String() string { return string(s.appendTo(make([]byte, 0, 64))) }

// GoString returns a Go expression that builds s, for %#v.
func (s WhileBelow) GoString() string { return string(s.appendGo(nil)) }

// LogValue logs s as its canonical form.
func (s WhileBelow) LogValue() slog.Value { return slog.StringValue(s.String()) }

func (s WhileBelow) appendTo(b []byte) []byte {
	b = appendChild(append(b, "WhileBelow("...), s.Inner)
	return append(appendDur(append(b, ", "...), s.Limit), ')')
}

func (s WhileBelow) appendGo(b []byte) []byte {
	b = appendGoChild(append(b, "schedule.WhileBelow{Inner: "...), s.Inner)
	return append(appendGoDur(append(b, ", Limit: "...), s.Limit), '}')
}

func (s WhileBelow) validate() *Error {
	if msg := positive("limit", s.Limit); msg != "" {
		return invalid("WhileBelow", s, msg)
	}
	return child("WhileBelow", "Inner", s.Inner)
}
