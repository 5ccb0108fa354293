package pgretry

import (
	"context"
	"errors"
)

// markKey is the context key of WithIdempotent's mark.
type markKey struct{}

// WithIdempotent returns a copy of ctx that marks the statements run with
// it as safe to repeat: a DB or SQLDB retries them on its Policy after a
// Transient or Retryable error (see Classify). Mark only what may run
// twice without harm — a read, an upsert, an update that sets rather than
// adds — because a statement whose connection broke after it was sent may
// have run. Statements inside a transaction cannot be marked: DB.Tx reruns
// the whole transaction instead, and a marked statement there fails with
// ErrMarkedInTx.
func WithIdempotent(ctx context.Context) context.Context {
	return context.WithValue(ctx, markKey{}, true)
}

// IsIdempotent reports whether ctx carries WithIdempotent's mark.
func IsIdempotent(ctx context.Context) bool {
	return ctx.Value(markKey{}) != nil
}

// ErrMarkedInTx is the error of a statement marked with WithIdempotent
// inside a transaction, or of a transaction begun with a marked context: a
// transaction is never retried statement by statement, since the
// statements before the failed one are gone with it.
var ErrMarkedInTx = errors.New("pgretry: statement marked safe to retry inside a transaction; DB.Tx reruns the whole transaction instead")

// ErrPoolTimeout is what errors.Is finds in the error of an attempt that
// found every connection of a full pool in use until its context ended:
// the caller's own overload, not a sign that the database is down, so it
// counts nothing against the breaker (Classify: Neutral, code
// pool_timeout), as go-redis's redis.ErrPoolTimeout does in redisretry.
var ErrPoolTimeout = errors.New("pgretry: no connection came free in the pool")

// poolTimeoutError is the error of an attempt that found every connection
// of a full pool in use until its context ended: the caller's own
// overload, not a sign that the database is down.
type poolTimeoutError struct{ err error }

func (e *poolTimeoutError) Error() string {
	return "pgretry: no connection came free in the pool (pool_timeout): " + e.err.Error()
}

// Unwrap returns the context's error.
func (e *poolTimeoutError) Unwrap() error { return e.err }

// Is reports whether target is ErrPoolTimeout.
func (e *poolTimeoutError) Is(target error) bool { return target == ErrPoolTimeout }
