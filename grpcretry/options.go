package grpcretry

import (
	"time"

	"github.com/recur-go/recur/retry"
)

// Options are the runner's options for every call of an interceptor, as
// package retry documents them: only those the interceptor honours.
type Options struct {
	// Caps are the clock, the random source and the logger. The logger's
	// records carry the attributes grpc.method and grpc.target.
	retry.Caps

	// AttemptTimeout, when positive, bounds each attempt inside the
	// call's deadline. Negative is an error.
	AttemptTimeout time.Duration

	// MaxPushback caps the server's grpc-retry-pushback-ms; zero means
	// DefaultMaxPushback. Negative is an error.
	MaxPushback time.Duration

	// OnRetry, OnGiveUp and OnRecovered are retry.Options' hooks.
	OnRetry     func(attempt int, err error, delay time.Duration, reason string)
	OnGiveUp    func(e *retry.Error)
	OnRecovered func(attempts int, reason string)

	// Observer, if not nil, receives the runner's events (see
	// retry.Observer), for metrics and traces. Their Target is the
	// ClientConn's Target(), the one Config.Breakers and Config.Budgets
	// key their breakers and budgets by. The Label of a failed attempt
	// (also retry.Error.Label and the reason OnRetry and OnRecovered
	// get) is one of a bounded set: the status code in lower-case kebab
	// form ("unavailable", "deadline-exceeded", "resource-exhausted",
	// ... one for each of gRPC's 17 codes; a code outside them is
	// "unknown"), "attempt-timeout" for an attempt that AttemptTimeout
	// cut short, and "canceled" for one the caller's context ended. A
	// successful attempt has no label.
	Observer retry.Observer
}

// runner returns o as the runner's options, without breaker or budget.
func (o Options) runner() retry.Options {
	return retry.Options{
		Caps:           o.Caps,
		AttemptTimeout: o.AttemptTimeout,
		MaxPushback:    o.MaxPushback,
		OnRetry:        o.OnRetry,
		OnGiveUp:       o.OnGiveUp,
		OnRecovered:    o.OnRecovered,
		Observer:       o.Observer,
	}
}
