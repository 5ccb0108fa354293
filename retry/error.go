package retry

import (
	"context"
	"strconv"

	"github.com/recur-go/recur/budget"
)

// Reason says why a runner made no further attempt.
type Reason uint8

const (
	// Exhausted: the schedule said stop.
	Exhausted Reason = iota + 1
	// Deadline: the context's deadline passed, or the next attempt would
	// have started at or after it.
	Deadline
	// Canceled: the context was canceled.
	Canceled
	// Refused: the last error carried a negative pushback, the server's
	// way of saying "do not retry".
	Refused
	// Open: the circuit breaker refused the next attempt. Cause is its
	// *breaker.OpenError, so errors.Is(err, breaker.ErrOpen) holds.
	Open
	// Budget: the retry budget refused the next retry; errors.Is(err,
	// budget.ErrThrottled) holds.
	Budget
)

var reasonNames = [...]string{
	Exhausted: "schedule exhausted",
	Deadline:  "deadline exceeded",
	Canceled:  "canceled",
	Refused:   "retry refused by pushback",
	Open:      "circuit open",
	Budget:    "retry budget exhausted",
}

// String describes the reason, such as "schedule exhausted".
func (r Reason) String() string {
	if int(r) < len(reasonNames) && reasonNames[r] != "" {
		return reasonNames[r]
	}
	return "reason(" + strconv.Itoa(int(r)) + ")"
}

// Error is returned when a runner gives up on an error it would have
// retried: the schedule ended, the deadline came, the context was
// canceled, or the server refused. It wraps the last attempt's error, so
// errors.Is and errors.As reach it, and for Deadline and Canceled also the
// context's error (context.DeadlineExceeded or context.Canceled) and the
// cancellation cause, if any.
//
// An error the caller's predicate or classifier did not want retried is
// never wrapped in an Error: it comes back unchanged.
type Error struct {
	// Attempts is how many attempts were made, the first included.
	Attempts int
	// Reason says why no further attempt was made.
	Reason Reason
	// Err is the last attempt's error.
	Err error
	// Cause is context.Cause of the context when Reason is Deadline or
	// Canceled and the cause differs from the context's error; the
	// breaker's refusal when Reason is Open; otherwise nil.
	Cause error
	// Label is the Reason of the last attempt's Judgement, such as
	// "status_503", when a Judge made it; empty otherwise.
	Label string
}

// Error returns a message such as
// "retry: gave up after 5 attempts (schedule exhausted): connection refused".
func (e *Error) Error() string {
	b := make([]byte, 0, 64)
	b = append(b, "retry: gave up after "...)
	b = strconv.AppendInt(b, int64(e.Attempts), 10)
	if e.Attempts == 1 {
		b = append(b, " attempt ("...)
	} else {
		b = append(b, " attempts ("...)
	}
	b = append(b, e.Reason.String()...)
	if e.Cause != nil {
		b = append(b, ": "...)
		b = append(b, e.Cause.Error()...)
	}
	b = append(b, ')')
	if e.Err != nil {
		b = append(b, ": "...)
		b = append(b, e.Err.Error()...)
	} else if e.Label != "" {
		b = append(b, ": "...)
		b = append(b, e.Label...)
	}
	return string(b)
}

// Unwrap returns the last attempt's error, then, for Deadline and
// Canceled, the context's error and the cause.
func (e *Error) Unwrap() []error {
	errs := make([]error, 0, 3)
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	switch e.Reason {
	case Deadline:
		errs = append(errs, context.DeadlineExceeded)
	case Canceled:
		errs = append(errs, context.Canceled)
	case Budget:
		errs = append(errs, budget.ErrThrottled)
	}
	if e.Cause != nil {
		errs = append(errs, e.Cause)
	}
	return errs
}

// stopped returns the Error for a context that is done, or whose clock
// sleep failed with err.
func stopped(ctx context.Context, attempts int, last, err error) *Error {
	reason := Canceled
	if err == context.DeadlineExceeded || ctx.Err() == context.DeadlineExceeded {
		reason = Deadline
	}
	e := &Error{Attempts: attempts, Reason: reason, Err: last}
	if cause := context.Cause(ctx); cause != nil && cause != ctx.Err() {
		e.Cause = cause
	} else if cause == nil && err != context.Canceled && err != context.DeadlineExceeded {
		e.Cause = err // a clock that failed on its own
	}
	return e
}
