package httpretry

import (
	"context"

	"github.com/recur-go/recur/schedule"
)

// overridesKey is the context key of a request's overrides: one key for
// both, so that RoundTrip looks the context up once.
type overridesKey struct{}

// overrides are what WithSchedule, WithoutRetry and WithHedge set for the
// requests of a context; the innermost setting of each wins.
type overrides struct {
	sched, hedge       override
	hasSched, hasHedge bool
}

// override is a per-request schedule; a nil s means no retry (or, for
// Hedge, no hedging).
type override struct{ s schedule.Schedule }

func overridesOf(ctx context.Context) overrides {
	ov, _ := ctx.Value(overridesKey{}).(overrides)
	return ov
}

// WithSchedule returns a copy of ctx whose requests a Transport retries on
// s instead of its own Policy: a longer policy for one important call, a
// shorter one inside a tight handler. Everything else about the Transport
// holds (what may be repeated, Retry-After, breakers, budgets). An invalid
// s makes RoundTrip fail before the first attempt; a nil s is WithoutRetry.
func WithSchedule(ctx context.Context, s schedule.Schedule) context.Context {
	ov := overridesOf(ctx)
	ov.sched, ov.hasSched = override{s}, true
	return context.WithValue(ctx, overridesKey{}, ov)
}

// WithHedge returns a copy of ctx whose requests a Transport hedges on s
// instead of its own Hedge schedule (see Transport.Hedge); a nil s turns
// hedging off for them. Only a request that may be repeated is hedged; any
// other is sent as without it.
func WithHedge(ctx context.Context, s schedule.Schedule) context.Context {
	ov := overridesOf(ctx)
	ov.hedge, ov.hasHedge = override{s}, true
	return context.WithValue(ctx, overridesKey{}, ov)
}

// WithoutRetry returns a copy of ctx whose requests a Transport sends once:
// for a call whose caller retries at a higher level, so that the retries do
// not multiply.
func WithoutRetry(ctx context.Context) context.Context {
	return WithSchedule(ctx, nil)
}
