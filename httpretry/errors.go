package httpretry

import (
	"errors"
	"net/http"
	"strconv"
	"time"
)

// ErrAttemptTimeout is what errors.Is finds in the error of an attempt
// that the Transport's Options.AttemptTimeout cut short.
var ErrAttemptTimeout = errors.New("httpretry: attempt timed out")

// timeoutError is an attempt that AttemptTimeout cut short; err is what
// Base returned, if anything.
type timeoutError struct {
	d   time.Duration
	err error
}

func (e *timeoutError) Error() string {
	s := "httpretry: attempt timed out after " + e.d.String()
	if e.err != nil {
		s += ": " + e.err.Error()
	}
	return s
}

func (e *timeoutError) Unwrap() []error {
	if e.err == nil {
		return []error{ErrAttemptTimeout}
	}
	return []error{ErrAttemptTimeout, e.err}
}

// Timeout reports true, as a net.Error does for a timeout.
func (e *timeoutError) Timeout() bool { return true }

// StatusError is how a response that is to be retried appears as an
// error: in the Err of the Observer's Attempted and Retrying events, and
// wrapped in the error RoundTrip returns
// when it has no response to give back after one (the breaker refused the
// next attempt, or the request's context ended during the wait). It
// implements retry.Pushback with the response's Retry-After.
type StatusError struct {
	// StatusCode is the response's status code, such as 503.
	StatusCode int
	// Status is the response's status line, such as
	// "503 Service Unavailable".
	Status string

	after    time.Duration
	hasAfter bool
}

func newStatusError(resp *http.Response, maxAfter time.Duration, now func() time.Time) *StatusError {
	e := &StatusError{StatusCode: resp.StatusCode, Status: resp.Status}
	if e.Status == "" {
		e.Status = strconv.Itoa(resp.StatusCode) + " " + http.StatusText(resp.StatusCode)
	}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		e.after, e.hasAfter = retryAfter(resp.Header.Get("Retry-After"), maxAfter, now)
	}
	return e
}

// Error returns a message such as "HTTP 503 Service Unavailable".
func (e *StatusError) Error() string { return "HTTP " + e.Status }

// RetryAfter returns the wait the response asked for: its Retry-After, in
// either form, on a 429 or a 503. It is negative — do not retry — when the
// header cannot be read or asks for more than the Transport's
// Options.MaxPushback (DefaultMaxPushback when zero).
func (e *StatusError) RetryAfter() (time.Duration, bool) { return e.after, e.hasAfter }
