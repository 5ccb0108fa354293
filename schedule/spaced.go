package schedule

import (
	"log/slog"
	"time"
)

// Spaced runs one attempt per slot on a grid of width Every anchored at the
// node's start, so a slow attempt does not make the schedule drift. An
// attempt that overran its slot is followed at once; slots missed meanwhile
// are skipped, not piled up. Spaced never stops by itself. Every must be
// positive.
type Spaced struct {
	Every time.Duration
}

// String returns the canonical form, such as Spaced(30s), which
// package parse reads back to an equal value.
func (s Spaced) String() string { return string(s.appendTo(make([]byte, 0, 64))) }

// GoString returns a Go expression that builds s, for %#v.
func (s Spaced) GoString() string { return string(s.appendGo(nil)) }

// LogValue logs s as its canonical form.
func (s Spaced) LogValue() slog.Value { return slog.StringValue(s.String()) }

func (s Spaced) appendTo(b []byte) []byte {
	return append(appendDur(append(b, "Spaced("...), s.Every), ')')
}

func (s Spaced) appendGo(b []byte) []byte {
	return append(appendGoDur(append(b, "schedule.Spaced{Every: "...), s.Every), '}')
}

func (s Spaced) validate() *Error {
	if msg := positive("every", s.Every); msg != "" {
		return invalid("Spaced", s, msg)
	}
	return nil
}
