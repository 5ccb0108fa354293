package breaker

import (
	"errors"
	"time"
)

// DefaultSharedFlush is Config.SharedFlush's default.
const DefaultSharedFlush = 5 * time.Millisecond

// ErrStoreDown is what a Link returns (errors.Is) while its store is known
// to be unreachable (its guard is open, say): the breaker goes on with its
// own counts until the store answers. Any other error is one operation
// that failed: the breaker still trusts the store, tries again at its next
// flush, and refuses a probe whose slot it could not claim.
var ErrStoreDown = errors.New("breaker: shared store unreachable")

// Store keeps the state that the breakers of one name in many processes
// share (Config.Shared), as gobreaker v2's SharedDataStore does. Package
// redisbreaker keeps it in Redis, breakertest.MemStore in memory. A breaker
// calls Join once, in New, then its Link from any goroutine, never under
// its own lock; every method must answer soon, with an error if the store
// does not. docs/fleet.md says what a breaker does with the answers.
type Store interface {
	// Join attaches the breaker named name, whose rate rules look back
	// window, to the store's state for name. Until the Link's Close
	// returns, the store calls apply (safe for concurrent use) with the
	// shared state when another instance publishes a transition; it may
	// also for the caller's own, and repeat one. An error is a
	// misconfiguration, which New returns; an unreachable store is not:
	// Join succeeds, and the Link's methods fail until it answers.
	Join(name string, window time.Duration, apply func(SharedState)) (Link, error)
}

// Link is one breaker's connection to a Store; its methods are called
// concurrently.
type Link interface {
	// Publish moves the shared state from generation gen to next, whose
	// Gen is gen+1, if it is still at gen, in one atomic step that also
	// empties the shared window and the probes' tally and tells every
	// joined breaker. It returns the state after the attempt, and whether
	// it was made.
	Publish(gen uint64, next SharedState) (now SharedState, ok bool, err error)
	// Claim takes one of n probe slots of the half-open generation gen if
	// one is free: fleet-wide, at most n are taken per generation.
	Claim(gen uint64, n int) (bool, error)
	// Release gives back a slot Claim took in generation gen, for a probe
	// whose outcome counted nothing.
	Release(gen uint64) error
	// Add adds b to the shared counts of generation gen, if it is still
	// at gen: to the window (its current bucket, window/10 wide on the
	// store's clock) while Closed or MetricsOnly, to the probes' tally
	// while HalfOpen. It returns the state and the counts the rules judge:
	// the window's 10 buckets and the fleet's failure streak, or the
	// tally. An empty batch only reads. A breaker sends a batch again with
	// the next after an error, so an error must mean "not applied", as far
	// as the store knows. Add may hold b to send it with other breakers'
	// batches, but not a probe's outcome after a granted Claim, which
	// Record sends from the caller's goroutine.
	Add(gen uint64, b Batch) (SharedState, Counts, error)
	// Close detaches the breaker: apply is not called after it returns.
	Close() error
}

// Hurrier is a Link that holds batches for a later round: a breaker calls
// Hurry, which must not block, when it counts a failure, and the link
// sends what it holds at once, so that the failure is not kept waiting.
type Hurrier interface {
	Hurry()
}

// LazyAdder is a Link that sends batches in later rounds: Flush calls
// AddLazy instead of Add, and the link calls take once, when it makes up
// the round, for the generation and batch, so that the batch holds every
// outcome until then, not old successes past other instances' failures.
type LazyAdder interface {
	AddLazy(take func() (gen uint64, b Batch)) (SharedState, Counts, error)
}

// SharedState is a breaker's state as a Store keeps it.
type SharedState struct {
	Gen       uint64        // 0 until a breaker of the name publishes (Closed), then one more per transition
	State     State         // the fleet's state
	Openings  int           // openings in a row since the fleet last closed: OpenFor's k
	Remaining time.Duration // until Open may half-open, or HalfOpen's probes time out: the store's deadline, as of its answer
	Delay     time.Duration // the open duration last used
}

// Batch is the outcomes a breaker counted since its previous batch: Calls,
// Failures and Slow as in Counts, and Streak, the failures in a row at its
// end. A store adds a batch of failures only (Failures == Calls) to the
// fleet's streak, and otherwise sets the streak to Streak, so the order of
// outcomes across instances is lost (see docs/fleet.md).
type Batch struct {
	Calls, Failures, Slow, Streak int
}
