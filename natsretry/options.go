package natsretry

import (
	"time"

	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/retry"
)

// RetryOptions are the options of the runner under a Requester: only those
// it honours. There is no breaker, since a request goes to whoever
// subscribes, not to one server whose health a breaker could judge, and no
// pushback cap, since no NATS error carries a pushback.
type RetryOptions struct {
	// Caps are the clock, the random source and the logger.
	retry.Caps

	// AttemptTimeout, when positive, bounds each attempt of a request,
	// marked or not. Without it an attempt waits until the request's
	// context ends, so no timeout is ever retried. Negative is an error.
	AttemptTimeout time.Duration

	// OnRetry, OnGiveUp and OnRecovered are retry.Options' hooks.
	OnRetry     func(attempt int, err error, delay time.Duration, reason string)
	OnGiveUp    func(e *retry.Error)
	OnRecovered func(attempts int, reason string)

	// Observer, if not nil, receives the runner's events (see
	// retry.Observer), for metrics and traces. Their Target is the
	// scheme://host:port of the server the connection is connected to at
	// the start of the request (nats.Conn's ConnectedUrl without its user
	// and password), or of the first configured URL (nats.Options.Url,
	// else Servers[0]) while it is not connected. The Label of a failed
	// attempt (also retry.Error.Label and the reason OnRetry and
	// OnRecovered get) is Code of its error: "no-responders", "timeout"
	// (nats.ErrTimeout or a deadline), "canceled" or "other"; or
	// "unavailable" for a responder's reply with no data and a Status:
	// 503 header, retried WithSafe. A successful attempt has no label.
	Observer retry.Observer

	// Budget, if not nil, bounds the retries of marked requests (see
	// package budget). Nil means the server's shared default budget,
	// budget.Shared().Get(target) with the target described at Observer:
	// gRFC A6's token bucket, shared by every call to that server in the
	// process.
	Budget budget.Budget

	// Unthrottled turns the default budget off, so that only the schedule
	// limits the retries of marked requests. Setting both Unthrottled and
	// Budget is an error.
	Unthrottled bool
}

// runner returns o as the runner's options.
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
