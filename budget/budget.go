package budget

import "github.com/recur-go/recur/verdict"

// Budget bounds the load that a client's calls and retries put on one
// target. A runner calls it around every call:
//
//	if !b.Request() { fail the call with ErrThrottled }   // once per call
//	attempt; b.Record(verdict)                             // after every attempt
//	if !b.AllowRetry() { give up, reason "budget" }        // before every retry's wait
//	attempt; b.Record(verdict)
//
// With a circuit breaker, each attempt asks the breaker first; a call the
// breaker refuses is not reported to the budget (see docs/budgets.md).
// Implementations are safe for concurrent use.
type Budget interface {
	// Request is called once per call, before its first attempt. It
	// returns false when the budget wants the call refused locally, which
	// only Adaptive ever does; the runner then fails the call
	// with ErrThrottled without attempting it.
	Request() bool
	// AllowRetry is called before each retry and reports whether it may
	// be made. A refused retry ends the call with its last error.
	AllowRetry() bool
	// Record is called after every attempt with its verdict.
	Record(v verdict.Verdict)
	// Stats returns the budget's counters.
	Stats() Stats
}

// Stats is a snapshot of a budget's counters, for metrics.
type Stats struct {
	// Requests counts calls: Request calls, refused ones included.
	Requests uint64
	// Refused counts calls Request refused (Adaptive only).
	Refused uint64
	// Retries counts retries AllowRetry allowed.
	Retries uint64
	// Throttled counts retries AllowRetry refused.
	Throttled uint64
	// Tokens is what is left in a TokenBucket; zero for the others.
	Tokens float64
}

// Config is the configuration of one kind of budget: TokenBucketConfig,
// RatioConfig or AdaptiveConfig. A Registry makes one budget per target
// from it.
type Config interface {
	// New makes a budget, or says what is wrong with the configuration.
	New() (Budget, error)
	config()
}

var (
	_ Budget = (*TokenBucket)(nil)
	_ Budget = (*Ratio)(nil)
	_ Budget = (*Adaptive)(nil)
)

// maxBatch is the most events a budget's window holds pending before
// the budget reads its clock and flushes them. It is smaller than the
// breaker's: the adaptive throttle's first check reads the window as of
// its last flush, so a larger batch would notice an outage later.
const maxBatch = 64
