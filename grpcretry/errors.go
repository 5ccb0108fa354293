package grpcretry

import (
	"errors"
	"strconv"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/retry"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// Header names of gRFC A6.
const (
	// PreviousAttemptsHeader is the request metadata key that tells the
	// server how many attempts of this call came before this one. The
	// first attempt does not send it.
	PreviousAttemptsHeader = "grpc-previous-rpc-attempts"
	// PushbackHeader is the trailer key with which a server asks for a
	// wait before the next attempt, in milliseconds. A negative or
	// unreadable value, or more than one value, asks for no retry.
	PushbackHeader = "grpc-retry-pushback-ms"
)

// attemptError is a failed attempt's error, as the invoker returned it,
// with what the runner and the classifier need to know about it. It
// never reaches the caller: finish unwraps it.
type attemptError struct {
	err     error
	push    time.Duration
	hasPush bool
	// callerDone: the caller's context ended the attempt; timedOut: the
	// attempt's own timeout did, while the caller's context goes on.
	callerDone, timedOut bool
}

func (e *attemptError) Error() string { return e.err.Error() }
func (e *attemptError) Unwrap() error { return e.err }

// RetryAfter reports the server's pushback, for package retry.
func (e *attemptError) RetryAfter() (time.Duration, bool) { return e.push, e.hasPush }

var _ retry.Pushback = (*attemptError)(nil)

// DefaultMaxPushback is the longest wait a server's pushback can ask of
// the interceptor when Config.Options.MaxPushback is zero, as long as
// httpretry waits for a Retry-After: a longer pushback is cut to it.
const DefaultMaxPushback = 30 * time.Second

// pushback reads the pushback trailer as A6 says: one non-negative integer
// of milliseconds is a wait, cut to limit; a negative or unreadable value,
// or several values, stop the retries (-1).
func pushback(trailer metadata.MD, limit time.Duration) (time.Duration, bool) {
	vs := trailer.Get(PushbackHeader)
	switch {
	case len(vs) == 0:
		return 0, false
	case len(vs) > 1:
		return -1, true
	}
	ms, err := strconv.ParseInt(vs[0], 10, 64)
	switch {
	case err != nil || ms < 0:
		return -1, true
	case ms > int64(limit/time.Millisecond):
		return limit, true
	}
	return time.Duration(ms) * time.Millisecond, true
}

// openError is the status of a call an open breaker refused.
type openError struct{ open error }

func (e *openError) Error() string { return "rpc error: code = Unavailable desc = circuit open" }

// GRPCStatus returns status UNAVAILABLE "circuit open".
func (e *openError) GRPCStatus() *status.Status { return status.New(codes.Unavailable, "circuit open") }

// Unwrap returns the breaker's *breaker.OpenError.
func (e *openError) Unwrap() error { return e.open }

// throttledError is the status of a call a budget refused before its
// first attempt (only budget.Adaptive does that).
type throttledError struct{}

func (throttledError) Error() string {
	return "rpc error: code = Unavailable desc = call throttled locally"
}

// GRPCStatus returns status UNAVAILABLE "call throttled locally".
func (throttledError) GRPCStatus() *status.Status {
	return status.New(codes.Unavailable, "call throttled locally")
}

// Unwrap returns budget.ErrThrottled.
func (throttledError) Unwrap() error { return budget.ErrThrottled }

// finish turns what the runner returned into what the caller gets: the
// last attempt's own error, a *retry.Error around it, or a status error
// for a call refused locally.
func finish(err error) error {
	if err == nil {
		return nil
	}
	switch e := err.(type) {
	case *attemptError:
		return e.err
	case *retry.Error:
		if ae, ok := e.Err.(*attemptError); ok {
			e.Err = ae.err
		}
		return e
	}
	switch {
	case errors.Is(err, breaker.ErrOpen):
		return &openError{open: err}
	case errors.Is(err, budget.ErrThrottled):
		return throttledError{}
	}
	return err
}
