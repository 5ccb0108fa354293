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
	// pipeline marked safe; one not marked is bounded by go-redis's own
	// timeouts only. Negative is an error.
	AttemptTimeout time.Duration

	// OnRetry, OnGiveUp and OnRecovered are retry.Options' hooks.
	OnRetry     func(attempt int, err error, delay time.Duration, reason string)
	OnGiveUp    func(e *retry.Error)
	OnRecovered func(attempts int, reason string)

	// Observer, if not nil, receives the runner's events (see
	// retry.Observer), for metrics and traces. Their Target is the
	// client's address, redis.Options.Addr.
	Observer retry.Observer

	// Budget, if not nil, bounds the retries of commands marked safe (see
	// package budget).
	Budget budget.Budget
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
	}
}
