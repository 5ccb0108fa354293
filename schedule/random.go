package schedule

import (
	"log/slog"
	"time"
)

// Random waits a duration drawn uniformly from [Lo, Hi], in integer
// nanoseconds, each decision: tenacity's wait_random(min, max), retry-go's
// RandomDelay. Added to another schedule (Sum) it is additive jitter:
// Sum{Exponential{…}, Random{0, time.Second}} is tenacity's
// wait_exponential_jitter. The draw is a pure function of the run's seed,
// Lo, Hi and the decision number. Random never stops by itself.
// 0 ≤ Lo ≤ Hi.
type Random struct {
	Lo time.Duration
	Hi time.Duration
}

// String returns the canonical form, such as Random(0s, 1s), which
// package parse reads back to an equal value.
func (s Random) String() string { return string(s.appendTo(make([]byte, 0, 64))) }

// GoString returns a Go expression that builds s, for %#v.
func (s Random) GoString() string { return string(s.appendGo(nil)) }

// LogValue logs s as its canonical form.
func (s Random) LogValue() slog.Value { return slog.StringValue(s.String()) }

func (s Random) appendTo(b []byte) []byte {
	b = appendDur(append(b, "Random("...), s.Lo)
	return append(appendDur(append(b, ", "...), s.Hi), ')')
}

func (s Random) appendGo(b []byte) []byte {
	b = appendGoDur(append(b, "schedule.Random{Lo: "...), s.Lo)
	return append(appendGoDur(append(b, ", Hi: "...), s.Hi), '}')
}

func (s Random) validate() *Error {
	msg := nonNegative("lo", s.Lo)
	if msg == "" && s.Hi < s.Lo {
		msg = "lo " + s.Lo.String() + " above hi " + s.Hi.String()
	}
	if msg != "" {
		return invalid("Random", s, msg)
	}
	return nil
}
