package pgretry

import (
	"errors"
	"fmt"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// Options configure a DB or an SQLDB. The zero value is the default set of
// rules: a circuit breaker with breaker.Config's defaults, recur's default
// policy (retry.DefaultSchedule: at most 3 attempts, full jitter from 100ms
// doubling to 2s) for marked statements and for transactions, and the
// target's shared default budget (see RetryOptions).
type Options struct {
	// Schedule is when to try a statement again: marked ones after a
	// Transient or Retryable error, all of them after a Transient or
	// Retryable error of an attempt that sent no byte of the statement
	// (see Instrument). Nil means retry.DefaultSchedule().
	Schedule schedule.Schedule

	// TxSchedule is when DB.Tx reruns a transaction after a
	// serialization failure or a deadlock, or after a run of which no
	// byte was sent. Nil means Schedule.
	TxSchedule schedule.Schedule

	// Breaker guards every attempt: an open breaker fails a call at once
	// with an error that matches breaker.ErrOpen (Code "circuit_open"),
	// without waiting for a connection. Nil means a breaker of its own,
	// made from breaker.Config{Name: "postgres"}: it opens after 5
	// failures in a row, or half of at least 20 calls in 10 s. Pass one to
	// choose its rules, to share it or to read its Stats.
	Breaker *breaker.Breaker

	// NoBreaker turns the breaker off. Without one, an outage holds every
	// call for the connect timeout. It is an error together with Breaker.
	NoBreaker bool

	// Retry is the runner's options, as package retry documents them;
	// the breaker is Breaker above. Retry.AttemptTimeout bounds each
	// attempt of Exec, QueryRow's Scan and each run of a transaction, not
	// Query, whose rows outlive the attempt.
	Retry RetryOptions
}

// RetryOptions are the options of the runner under a DB: only those it
// honours, without a breaker, which Options.Breaker sets.
type RetryOptions struct {
	// Caps are the clock, the random source and the logger.
	retry.Caps
	// AttemptTimeout and MaxPushback are retry.Options'; negative is an
	// error.
	AttemptTimeout time.Duration
	MaxPushback    time.Duration
	// OnRetry, OnGiveUp and OnRecovered are retry.Options' hooks.
	OnRetry     func(attempt int, err error, delay time.Duration, reason string)
	OnGiveUp    func(e *retry.Error)
	OnRecovered func(attempts int, reason string)
	// Observer, if not nil, receives the runner's events (see
	// retry.Observer), for metrics and traces. Under a DB their Target is
	// the host:port of the pool's connection configuration; under an
	// SQLDB it is empty, since a *sql.DB does not say where it connects.
	// The Label of a failed attempt (also retry.Error.Label and the
	// reason OnRetry and OnRecovered get) is Code of its error, one of
	// the bounded set in Classify's table: "serialization_failure",
	// "deadlock", "not_sent", "unreachable", "shutdown", "commit_unknown",
	// "attempt_timeout", "database_error", ... A successful attempt has
	// no label.
	Observer retry.Observer
	// Budget, if not nil, bounds the retries (see package budget). Nil
	// means the default budget that every call to the same target in the
	// process shares (budget.Shared().Get of the pool's host:port),
	// unless Unthrottled is set. Under an SQLDB, which has no target, nil
	// means no budget.
	Budget budget.Budget
	// Unthrottled turns the default budget off, so that only the
	// schedule limits the retries. Setting both Unthrottled and Budget is
	// an error from New and WrapSQL.
	Unthrottled bool
}

// runner returns o as the runner's options, without a breaker.
func (o RetryOptions) runner() retry.Options {
	return retry.Options{
		Caps:           o.Caps,
		AttemptTimeout: o.AttemptTimeout,
		MaxPushback:    o.MaxPushback,
		OnRetry:        o.OnRetry,
		OnGiveUp:       o.OnGiveUp,
		OnRecovered:    o.OnRecovered,
		Observer:       o.Observer,
		Budget:         o.Budget,
		Unthrottled:    o.Unthrottled,
	}
}

// core is what DB and SQLDB share: checked options.
type core struct {
	sched, txSched schedule.Schedule
	opts           retry.Options // with the breaker
	queryOpts      retry.Options // opts without AttemptTimeout
}

func (o Options) build() (core, error) {
	switch {
	case o.Breaker != nil && o.NoBreaker:
		return core{}, errors.New("pgretry: Options sets both Breaker and NoBreaker")
	case o.Retry.AttemptTimeout < 0:
		return core{}, fmt.Errorf("pgretry: Options.Retry.AttemptTimeout %v is negative", o.Retry.AttemptTimeout)
	case o.Retry.MaxPushback < 0:
		return core{}, fmt.Errorf("pgretry: Options.Retry.MaxPushback %v is negative", o.Retry.MaxPushback)
	case o.Retry.Unthrottled && o.Retry.Budget != nil:
		return core{}, errors.New("pgretry: Options.Retry sets both Budget and Unthrottled")
	}
	c := core{sched: o.Schedule, txSched: o.TxSchedule, opts: o.Retry.runner()}
	if c.sched == nil {
		c.sched = retry.DefaultSchedule()
	}
	if c.txSched == nil {
		c.txSched = c.sched
	}
	if err := schedule.Validate(c.sched); err != nil {
		return core{}, fmt.Errorf("pgretry: invalid Options.Schedule: %w", err)
	}
	if err := schedule.Validate(c.txSched); err != nil {
		return core{}, fmt.Errorf("pgretry: invalid Options.TxSchedule: %w", err)
	}
	c.opts.Breaker = o.Breaker
	if c.opts.Breaker == nil && !o.NoBreaker {
		b, err := breaker.New(breaker.Config{Name: "postgres"})
		if err != nil {
			return core{}, err
		}
		c.opts.Breaker = b
	}
	c.queryOpts = c.opts
	c.queryOpts.AttemptTimeout = 0
	return c, nil
}
