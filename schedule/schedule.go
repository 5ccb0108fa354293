package schedule

import (
	"math"
	"time"
)

// Schedule is a retry or repeat policy. The set of implementations is closed:
// it is exactly the variant types of this package.
type Schedule interface {
	// String returns the canonical constructor form, which package parse
	// reads back to an equal value.
	String() string

	// appendTo appends the canonical form to b.
	appendTo(b []byte) []byte
	// appendGo appends a Go expression that builds the value.
	appendGo(b []byte) []byte
	// validate checks this node and its children.
	validate() *Error

	// _ParsePolicyIsNotAScheduleUseItsScheduleField seals the interface.
	// Its name is what the compiler prints for the commonest type mistake,
	// passing a parse.Policy where a Schedule is wanted: "parse.Policy does
	// not implement schedule.Schedule (missing method
	// _ParsePolicyIsNotAScheduleUseItsScheduleField)". It sorts first among
	// the methods a type may lack, so it is the one named.
	_ParsePolicyIsNotAScheduleUseItsScheduleField()
}

// MaxDuration is the largest time.Duration. Every computation on delays
// saturates at it instead of overflowing.
const MaxDuration time.Duration = math.MaxInt64

// Backoff is the classic jittered backoff for remote calls: an exponential
// delay from base, doubling up to cap, each delay scaled by a random 50–100%.
// It is Jittered{Exponential{base, 200, cap}, 50, 100}.
func Backoff(base, cap time.Duration) Jittered {
	return Jittered{Inner: Exponential{Base: base, FactorPct: 200, Cap: cap}, LowPct: 50, HighPct: 100}
}

// FullJitter is gRFC A6's backoff and Brooker's "full jitter": an exponential
// delay from base, doubling up to cap, each delay scaled by a random 0–100%.
// It is Jittered{Exponential{base, 200, cap}, 0, 100}.
func FullJitter(base, cap time.Duration) Jittered {
	return Jittered{Inner: Exponential{Base: base, FactorPct: 200, Cap: cap}, LowPct: 0, HighPct: 100}
}

// Equal reports whether a and b are the same schedule. It is a == b, spelled
// out for readers who wonder whether == is enough: it is, because a schedule
// holds no pointers, slices or maps.
func Equal(a, b Schedule) bool { return a == b }

// Children returns the child schedules of s in field order: both for Union,
// Intersect, AndThen and Sum, the first only for Jittered, UpTo, Capped,
// WhileBelow and ResetAfter, and
// none for the leaves. Absent children are nil.
func Children(s Schedule) (Schedule, Schedule) {
	switch s := s.(type) {
	case Jittered:
		return s.Inner, nil
	case UpTo:
		return s.Inner, nil
	case Capped:
		return s.Inner, nil
	case WhileBelow:
		return s.Inner, nil
	case ResetAfter:
		return s.Inner, nil
	case Union:
		return s.A, s.B
	case Intersect:
		return s.A, s.B
	case AndThen:
		return s.First, s.Then
	case Sum:
		return s.A, s.B
	case Decorrelated, DecorrelatedV2, Exponential, Fibonacci, Forever, Linear, Random, Spaced, Times:
		// These take the path after the switch.
	}
	return nil, nil
}
