package breaker

import (
	"errors"
	"time"
)

// DefaultSharedFlush is how often a breaker with a Config.Shared store
// sends its closed-state counts to the store when Config.SharedFlush is
// zero.
const DefaultSharedFlush = 5 * time.Millisecond

// ErrStoreDown is what a Store's Link returns (errors.Is) while its
// store is known to be unreachable, for example while the breaker that
// guards it is open: the breaker then goes on with its own counts until
// the store answers again. Any other error means that one operation
// failed: the breaker still trusts the store, tries again at its next
// flush, and refuses a probe whose fleet-wide slot it could not claim.
var ErrStoreDown = errors.New("breaker: shared store unreachable")

// Store keeps the state of breakers that many processes share, so that a
// fleet of instances of a service learns of an outage once instead of
// once per instance (gobreaker v2's DistributedCircuitBreaker over its
// SharedDataStore). Package redisbreaker, in the redisretry module, keeps
// it in Redis; breakertest.MemStore keeps it in memory, for tests.
//
// A breaker made with Config.Shared calls Join once, in New, and then
// calls its Link from whatever goroutine needs it, never while holding
// its own lock; every method must return within a short time, with an
// error if the store does not answer. See docs/fleet.md for what a
// breaker does with the answers.
type Store interface {
	// Join attaches the breaker named name, whose rate rules look back
	// window, to the state the store keeps for that name. Until the
	// Link's Close returns, the store calls apply with the shared state
	// whenever another instance publishes a transition (it may call it
	// for the caller's own, and more than once; a breaker ignores a
	// generation it has seen, and apply is safe for concurrent use).
	// An error from Join is a misconfiguration
	// (New returns it); an unreachable store is not: Join must succeed,
	// and the Link's methods fail until the store answers.
	Join(name string, window time.Duration, apply func(SharedState)) (Link, error)
}

// Link is one breaker's connection to a Store. Its methods are called
// concurrently.
type Link interface {
	// Publish moves the shared state from generation gen to next, whose
	// Gen is gen+1, if the shared generation is still gen, in one atomic
	// step that also empties the shared window and the probes' tally and
	// tells every joined breaker (apply). It returns the shared state
	// after the attempt, and whether it was made.
	Publish(gen uint64, next SharedState) (now SharedState, ok bool, err error)

	// Claim takes one of n probe slots of the half-open generation gen,
	// and reports whether one was free: across the fleet at most n are
	// taken per generation.
	Claim(gen uint64, n int) (bool, error)

	// Release gives back a slot that Claim took in generation gen, for a
	// probe whose outcome counted nothing.
	Release(gen uint64) error

	// Add adds the batch b to the shared counts of generation gen, if
	// the shared generation is still gen: to the window (its current
	// bucket, Window/10 wide on the store's clock) while Closed or
	// MetricsOnly, to the probes' tally while HalfOpen. It returns the
	// shared state, and the counts the rules judge: the window's sums
	// over its last 10 buckets and the fleet's failure streak, or the
	// probes' tally. An empty batch only reads. A batch whose Add
	// returned an error is sent again in the next one (the breaker keeps
	// it counted), so a store must answer with an error only what it did
	// not apply, as far as it knows. Add may wait to send b together with
	// other breakers' batches, up to the store's own interval (the
	// breaker's flusher waits), except the outcome of a half-open probe
	// whose slot Claim gave, which Record sends from the caller's
	// goroutine: that one should go at once.
	Add(gen uint64, b Batch) (SharedState, Counts, error)

	// Close detaches the breaker: apply is not called after it returns.
	Close() error
}

// Hurrier is a Link that can hold a batch for a later round (to send the
// batches of many breakers together): a breaker calls Hurry when it
// counts a failure, and the link sends what it holds at once, so that
// the failure, which goes in the next batch, is not kept waiting behind
// it. Hurry must not block.
type Hurrier interface {
	Hurry()
}

// LazyAdder is a Link that sends a breaker's batch together with other
// breakers' in a later round: a breaker's Flush calls AddLazy instead of
// Add, and the link calls take once, when it makes up the round, for the
// generation and the batch to send, so that the batch holds every
// outcome counted until then (a batch taken early and held would carry
// old successes past newer failures of other instances). Otherwise it
// is Add.
type LazyAdder interface {
	AddLazy(take func() (gen uint64, b Batch)) (SharedState, Counts, error)
}

// SharedState is a breaker's state as a Store keeps it.
type SharedState struct {
	// Gen is the generation: 0 for a name no breaker has published yet
	// (the state is then Closed), and one more at every transition.
	Gen uint64
	// State is the fleet's state.
	State State
	// Openings is how many times in a row the fleet has opened since it
	// last closed: the k of OpenFor's k-th delay, shared so that the
	// schedule advances fleet-wide.
	Openings int
	// Remaining is, when Open, the time left before the breaker may
	// half-open and, when HalfOpen, before its probes time out, as of
	// the store's answer: the store keeps the deadline on its own clock.
	Remaining time.Duration
	// Delay is the open duration last used.
	Delay time.Duration
}

// Batch is the outcomes one breaker counted since its previous batch.
type Batch struct {
	// Calls, Failures and Slow are as in Counts.
	Calls, Failures, Slow int
	// Streak is the failures in a row at the end of the batch. If every
	// call failed (Failures == Calls), the store adds them to the fleet's
	// failure streak; otherwise the streak becomes Streak. Batching thus
	// loses the order of outcomes across instances: see docs/fleet.md.
	Streak int
}
