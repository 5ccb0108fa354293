package retry

import "time"

// Pushback is implemented by errors that carry a server's request to wait
// before the next attempt: HTTP's Retry-After, gRPC's
// grpc-retry-pushback-ms. RetryAfter returns the requested wait and true,
// or false when the error carries none. A negative wait — the way such
// protocols say "do not retry", and what an unreadable value should map
// to — stops the retries.
//
// The runner looks for a Pushback in the failed attempt's error tree the
// way errors.As does, so wrapping keeps it visible. After makes one from
// any error; other packages may implement the interface on their own
// error types.
type Pushback interface {
	RetryAfter() (time.Duration, bool)
}

// After returns err annotated with a pushback of d: the runner waits at
// least d before the next attempt (see Options.MaxPushback), or gives up
// at once when d is negative. The result unwraps to err and has err's
// message. After(nil, d) is nil.
func After(err error, d time.Duration) error {
	if err == nil {
		return nil
	}
	return &afterError{err: err, d: d}
}

type afterError struct {
	err error
	d   time.Duration
}

func (e *afterError) Error() string                     { return e.err.Error() }
func (e *afterError) Unwrap() error                     { return e.err }
func (e *afterError) RetryAfter() (time.Duration, bool) { return e.d, true }

// pushback returns the first pushback in err's tree, in the pre-order
// errors.As uses. It is written out rather than calling errors.As so that
// a retry does not allocate for it.
func pushback(err error) (time.Duration, bool) {
	// One type switch a node: an error that neither pushes back nor wraps
	// (the usual leaf) costs one lookup, not one per interface.
	for err != nil {
		switch u := err.(type) {
		case Pushback:
			if d, ok := u.RetryAfter(); ok {
				return d, true
			}
			return pushbackUnder(err) // a Pushback without a value may wrap one
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			return pushbackOf(u.Unwrap())
		default:
			return 0, false
		}
	}
	return 0, false
}

// pushbackUnder returns the first pushback in the errors err wraps.
func pushbackUnder(err error) (time.Duration, bool) {
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return pushback(u.Unwrap())
	case interface{ Unwrap() []error }:
		return pushbackOf(u.Unwrap())
	}
	return 0, false
}

// pushbackOf returns the first pushback in the trees of errs, in order.
func pushbackOf(errs []error) (time.Duration, bool) {
	for _, e := range errs {
		if d, ok := pushback(e); ok {
			return d, true
		}
	}
	return 0, false
}
