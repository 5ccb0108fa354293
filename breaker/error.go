package breaker

import (
	"errors"
	"time"
)

// ErrOpen is what errors.Is finds in every error a breaker returns when it
// refuses a call. A runner must not retry through it.
var ErrOpen = errors.New("circuit open")

// OpenError is the error Allow returns when the breaker refuses a call.
// errors.Is(err, ErrOpen) is true for it.
//
// A breaker makes one OpenError when it enters a refusing state and hands
// the same pointer to every call it refuses in that state, so refusing
// costs no allocation during an outage. The error is immutable.
type OpenError struct {
	// Name is the breaker's name (its target in a Registry).
	Name string
	// State is Open, HalfOpen (all probes are in flight) or ForcedOpen.
	State State
	// Until is when an Open breaker lets the next call through as a
	// probe, read on the breaker's clock. For HalfOpen it is when the
	// breaker half-opened; for ForcedOpen it is the zero time.
	Until time.Time
	// For is how long this opening lasts: the open duration the
	// schedule gave. Zero unless State is Open.
	For time.Duration
}

// Error returns a message such as
// "breaker api.example.com:443: circuit open, an opening of 10s". The
// duration is the whole opening (For), not what is left of it: one
// OpenError serves every refusal of the opening, and it reads no clock.
// Remaining gives what is left at a given time.
func (e *OpenError) Error() string {
	b := make([]byte, 0, 64)
	b = append(b, "breaker"...)
	if e.Name != "" {
		b = append(b, ' ')
		b = append(b, e.Name...)
	}
	switch e.State {
	case Open:
		b = append(b, ": circuit open, an opening of "...)
		b = append(b, e.For.String()...)
	case HalfOpen:
		b = append(b, ": circuit half-open, probes in flight"...)
	default:
		b = append(b, ": circuit forced open"...)
	}
	return string(b)
}

// Is reports whether target is ErrOpen.
func (e *OpenError) Is(target error) bool { return target == ErrOpen }

// Remaining returns how long after now the breaker may let a call through:
// Until − now for Open (zero once Until has passed), zero for HalfOpen,
// whose probes may finish any moment. It returns false for ForcedOpen,
// which waits for an operator. A runner or a transport can pass the
// duration on, for example as an HTTP Retry-After.
func (e *OpenError) Remaining(now time.Time) (time.Duration, bool) {
	switch e.State {
	case Open:
		return max(e.Until.Sub(now), 0), true
	case HalfOpen:
		return 0, true
	}
	return 0, false
}
