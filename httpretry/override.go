package httpretry

import (
	"context"

	"github.com/recur-go/recur/schedule"
)

// scheduleKey is the context key of a per-request override.
type scheduleKey struct{}

// override is a per-request schedule; a nil s means no retry.
type override struct{ s schedule.Schedule }

// WithSchedule returns a copy of ctx whose requests a Transport retries on
// s instead of its own Policy: a longer policy for one important call, a
// shorter one inside a tight handler. Everything else about the Transport
// holds (what may be repeated, Retry-After, breakers, budgets). An invalid
// s makes RoundTrip fail before the first attempt; a nil s is WithoutRetry.
func WithSchedule(ctx context.Context, s schedule.Schedule) context.Context {
	return context.WithValue(ctx, scheduleKey{}, override{s})
}

// hedgeKey is the context key of a per-request hedging schedule.
type hedgeKey struct{}

// WithHedge returns a copy of ctx whose requests a Transport hedges on s
// instead of its own Hedge schedule (see Transport.Hedge); a nil s turns
// hedging off for them. Only a request that may be repeated is hedged; any
// other is sent as without it.
func WithHedge(ctx context.Context, s schedule.Schedule) context.Context {
	return context.WithValue(ctx, hedgeKey{}, override{s})
}

// WithoutRetry returns a copy of ctx whose requests a Transport sends once:
// for a call whose caller retries at a higher level, so that the retries do
// not multiply.
func WithoutRetry(ctx context.Context) context.Context {
	return context.WithValue(ctx, scheduleKey{}, override{})
}
