// Package breaker is a circuit breaker: it stops calling a dependency that
// is down or drowning, so that callers fail fast instead of waiting, and
// the dependency gets room to recover instead of a retry storm.
//
// A Closed breaker lets calls through and counts their outcomes until a
// rule of its Config opens it. An Open one refuses every call with an
// *OpenError (errors.Is(err, ErrOpen)) for OpenFor's k-th delay, k being
// its openings in a row. The first call after that half-opens it: the
// HalfOpenProbes probes' rates close it or open it again. Operators can
// force it open, disable it, make it count without acting, or reset it.
//
// Using a breaker is two calls around the protected one (Do makes both):
//
//	p, err := b.Allow()
//	if err != nil {
//		return err // fail fast; do not retry: errors.Is(err, breaker.ErrOpen)
//	}
//	resp, err := call()
//	b.Record(&p, classify(resp, err)) // a verdict.Verdict: not every error is the dependency's fault
//
// Package retry makes the two calls for each attempt when its options carry
// a breaker, and never retries through ErrOpen. The closed path takes no
// lock and allocates nothing; the window reads the clock only for a failure
// or once per 256 successes. A Registry keeps a breaker per target;
// Config.Shared makes the breakers of one name in many processes one
// breaker, through a Store (package redisbreaker keeps it in Redis). Tests
// drive a breaker with clockcap.Virtual and randcap.Seeded as its Clock and
// Random. docs/breaker.md explains the state machine, the costs and a
// worked outage; docs/fleet.md the shared store.
package breaker
