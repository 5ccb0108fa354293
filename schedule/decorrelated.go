package schedule

import (
	"log/slog"
	"time"
)

// Decorrelated is AWS's "decorrelated jitter": with d₀ = Base, the k-th
// delay is dₖ = min(Cap, uniform(Base, 3·dₖ₋₁)). Each delay depends on the
// previous one, so clients drift apart quickly. It never stops by itself.
// Base and Cap must be positive.
type Decorrelated struct {
	Base time.Duration
	Cap  time.Duration
}

// String returns the canonical form, such as Decorrelated(100ms, 10s), which
// package parse reads back to an equal value.
func (s Decorrelated) String() string { return string(s.appendTo(make([]byte, 0, 64))) }

// GoString returns a Go expression that builds s, for %#v.
func (s Decorrelated) GoString() string { return string(s.appendGo(nil)) }

// LogValue logs s as its canonical form.
func (s Decorrelated) LogValue() slog.Value { return slog.StringValue(s.String()) }

func (s Decorrelated) appendTo(b []byte) []byte {
	b = appendDur(append(b, "Decorrelated("...), s.Base)
	return append(appendDur(append(b, ", "...), s.Cap), ')')
}

func (s Decorrelated) appendGo(b []byte) []byte {
	b = appendGoDur(append(b, "schedule.Decorrelated{Base: "...), s.Base)
	return append(appendGoDur(append(b, ", Cap: "...), s.Cap), '}')
}

func (s Decorrelated) validate() *Error {
	msg := positive("base", s.Base)
	if msg == "" {
		msg = positive("cap", s.Cap)
	}
	if msg != "" {
		return invalid("Decorrelated", s, msg)
	}
	return nil
}
