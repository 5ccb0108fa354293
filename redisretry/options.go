package redisretry

import (
	"time"

	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/retry"
)

// RetryOptions are the options of the runner under a Hook: only those it
// honours. There is no breaker, since Config.Breaker makes the client's
// own, and no pushback cap, since no Redis error carries a pushback.
type RetryOptions struct {
	// Caps are the clock, the random source and the logger.
	retry.Caps

	// AttemptTimeout, when positive, bounds each attempt of a command or
	// pipeline marked safe, inside the caller's deadline (the client has
	// ContextTimeoutEnabled, so go-redis honours both); one not marked is
	// bounded by the caller's context and go-redis's own timeouts.
	// Negative is an error.
	AttemptTimeout time.Duration

	// OnRetry, OnGiveUp and OnRecovered are retry.Options' hooks.
	OnRetry     func(attempt int, err error, delay time.Duration, reason string)
	OnGiveUp    func(e *retry.Error)
	OnRecovered func(attempts int, reason string)

	// Observer, if not nil, receives the runner's events (see
	// retry.Observer), for metrics and traces. Their Target is the
	// client's address, redis.Options.Addr. The Label of a failed attempt
	// (also retry.Error.Label and the reason OnRetry and OnRecovered
	// get) is one of a bounded set: "dial" (the connection could not be
	// made), "connection" (it was reset or closed), "timeout" (a read
	// or write timeout), "pool_timeout" (no connection came free in the
	// client's pool), "canceled" (the caller's context ended),
	// the lower-cased prefix of the error replies "loading",
	// "masterdown", "clusterdown", "tryagain", "busy" and "readonly",
	// and "error" for any other reply or error. Code's labels are finer,
	// but an error reply's prefix is whatever a script returns. A
	// successful attempt (redis.Nil included) has no label.
	Observer retry.Observer

	// Budget, if not nil, bounds the retries of commands marked safe (see
	// package budget). Nil means the default budget that every call to
	// the client's address in the process shares
	// (budget.Shared().Get(Addr)), unless Unthrottled is set.
	Budget budget.Budget

	// Unthrottled turns the default budget off, so that only the schedule
	// limits the retries of commands marked safe. Setting both Unthrottled
	// and Budget is an error from NewClient and Install.
	Unthrottled bool
}

// runner returns o as the runner's options, without a breaker.
func (o RetryOptions) runner() retry.Options {
	return retry.Options{
		Caps:           o.Caps,
		AttemptTimeout: o.AttemptTimeout,
		OnRetry:        o.OnRetry,
		OnGiveUp:       o.OnGiveUp,
		OnRecovered:    o.OnRecovered,
		Observer:       o.Observer,
		Budget:         o.Budget,
		Unthrottled:    o.Unthrottled,
	}
}
