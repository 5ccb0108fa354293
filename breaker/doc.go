// Package breaker is a circuit breaker: it stops calling a dependency that
// is down or drowning, so that callers fail fast instead of waiting, and
// the dependency gets room to recover instead of a retry storm.
//
// A breaker is a state machine:
//
//	             a rule trips
//	+--------+ ---------------> +------+   refuses every call for
//	| Closed |                  | Open |   OpenFor's k-th delay
//	+--------+ <---+            +------+
//	               |             |    ^
//	   the probes' |  first call |    | the probes' rates reach
//	  rates stay   |  after that v    | a threshold: k goes up by one
//	  below        |          +----------+
//	               +--------- | HalfOpen |   lets HalfOpenProbes
//	                          +----------+   calls through
//
// Closed lets calls through and counts their outcomes. Three rules open
// it, judged after every counted outcome: ConsecutiveFailures failures in
// a row; a failure rate of at least FailureRate percent over the window
// (the last Window of time, or the last CountWindow calls) once it holds
// MinCalls calls; and, if SlowCall is set, a slow-call rate of at least
// SlowRate percent. TripWhen replaces them with a predicate of your own.
// Open refuses every call at once with an *OpenError (errors.Is(err,
// ErrOpen)) for a duration that a schedule.Schedule gives: the k-th
// opening in a row waits the schedule's k-th delay, so the default
// Exponential(5s, 200%, 60s) waits 5 s, then 10 s, 20 s, 40 s, 60 s, 60 s
// while the dependency stays down, and starts from 5 s again once it has
// closed. The first call after that duration half-opens the breaker and
// goes through as a probe; HalfOpen lets HalfOpenProbes probes through
// and refuses the rest. Once all are recorded, their failure and slow-call
// rates decide: below FailureRate and SlowRate it closes, otherwise it
// opens again. Operators can also force it open (ForceOpen), turn it off
// (Disable), let it count without acting (MetricsOnly) or close it
// (Reset). Resilience4jDefaults gives the Config of a Resilience4j
// breaker with its default settings.
//
// Using a breaker is two calls around the protected one:
//
//	p, err := b.Allow()
//	if err != nil {
//		return err // fail fast; do not retry: errors.Is(err, breaker.ErrOpen)
//	}
//	resp, err := call()
//	b.Record(&p, classify(resp, err))
//
// The outcome is a verdict.Verdict, because not every error is the
// dependency's fault. Success counts for it; Transient and Failure count
// against it; Retryable (an HTTP 429: the target is alive and pushing
// back) and Neutral (a bad request, the caller's own cancellation) count
// nothing. Package retry makes the two calls for each attempt when its
// options carry a breaker, and never retries through ErrOpen.
//
// # Cost
//
// The closed path is what every call pays, so it is kept to atomics:
// Allow is one atomic load; Record of a success is an atomic add into a
// pending counter and a load of the failure streak. No lock, no
// allocation, and no clock read: the rate window learns the time only
// when something else reads the clock (a failure), or when enough
// successes are pending that it should, which on a busy breaker is once
// every 256 calls; pending successes are spread evenly over the time
// since the last reading. The counts are therefore exact for a quiet
// breaker and off by at most a batch of calls, in time placement only,
// for a busy one. A failure takes a lock and reads the clock, and so does a success while the window is one
// success away from a threshold. With the real clock the breaker reads
// the monotonic clock alone: refusing a call costs one such read and
// allocates nothing (every refusal in one opening returns the same
// *OpenError), and SlowCall costs two per call.
//
// # Observability
//
// Transitions are logged to Config.Logger (opening at Warn, half-opening
// and closing at Info) and reported to Config.OnStateChange, outside the
// breaker's lock. Stats returns the counters a metrics exporter wants:
// state, openings, refusals, successes, failures, slow calls. A Registry
// keeps one breaker per target, with a cap on the number of targets.
//
// # Fleet
//
// Config.Shared makes the breakers of one name in many processes share
// their state through a Store, so that a fleet learns of an outage once:
// it opens as one breaker (the failure streak and the window are the
// fleet's), advances one open schedule, and sends HalfOpenProbes probes
// per half-open spell in all. The closed path is unchanged: outcomes are
// counted locally and sent every SharedFlush by a background goroutine
// (stop it with Close). While the store is unreachable each instance is
// a local breaker again. Package breakertest's MemStore keeps the state in
// memory, for tests and simulations; package redisbreaker, in the
// redisretry module, keeps it in Redis. See docs/fleet.md.
//
// Every Breaker reads time from a clockcap.Clock and draws its open
// schedule's jitter from a randcap.Random, so tests drive it with
// clockcap.Virtual or clockcap.Manual and randcap.Seeded.
package breaker
