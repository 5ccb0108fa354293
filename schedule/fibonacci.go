package schedule

import (
	"log/slog"
	"time"
)

// Fibonacci waits Base·fib(k) after its k-th attempt, with fib(1) = fib(2)
// = 1: Base, Base, 2·Base, 3·Base, 5·Base … It grows more gently than
// doubling, saturates at MaxDuration and never stops by itself. Base must
// be positive.
type Fibonacci struct {
	Base time.Duration
}

// String returns the canonical form, such as Fibonacci(100ms), which
// package parse reads back to an equal value.
func (s Fibonacci) String() string { return string(s.appendTo(make([]byte, 0, 64))) }

// GoString returns a Go expression that builds s, for %#v.
func (s Fibonacci) GoString() string { return string(s.appendGo(nil)) }

// LogValue logs s as its canonical form.
func (s Fibonacci) LogValue() slog.Value { return slog.StringValue(s.String()) }

func (s Fibonacci) appendTo(b []byte) []byte {
	return append(appendDur(append(b, "Fibonacci("...), s.Base), ')')
}

func (s Fibonacci) appendGo(b []byte) []byte {
	return append(appendGoDur(append(b, "schedule.Fibonacci{Base: "...), s.Base), '}')
}

func (s Fibonacci) validate() *Error {
	if msg := positive("base", s.Base); msg != "" {
		return invalid("Fibonacci", s, msg)
	}
	return nil
}
