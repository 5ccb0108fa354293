// Package outage replays a retry-storm scenario: a
// dependency that goes down for a few seconds under steady load, called by
// clients that retry through recur's runner (retry.Retry), with and without
// a retry budget or a circuit breaker. It measures what operators care
// about: the extra load the retries put on the dependency while it is down
// (attempts ÷ requests), and how long after it comes back the requests
// succeed again.
//
// Nothing sleeps. Time is virtual and moves by a discrete-event loop: each
// request runs retry.Retry in a coroutine (iter.Pull) whose Clock yields to
// the loop when the runner waits or an attempt takes time, and the loop
// resumes it when virtual time gets there. The runner, the budgets and the
// breakers are recur's own, driven through their Clock and Random
// capabilities; only one coroutine runs at a time, so a Simulate call is
// deterministic: the same Config gives the same Result.
//
// The scenario: Clients clients share Rate requests a second, one request
// every 1/Rate, dealt to the clients in turn. Every attempt takes Attempt.
// The dependency is healthy for Before, down for Down (every attempt that
// reaches it fails), then healthy for After; requests arrive over all three
// periods. Each client has its own budget and breaker, as each process has
// its own per target.
package outage

import (
	"fmt"
	"time"

	"github.com/recur-go/recur/breaker"

	"github.com/recur-go/recur/schedule"
)

// Budget names one of recur's retry budgets, with its defaults.
type Budget int

// The budgets.
const (
	NoBudget    Budget = iota
	TokenBucket        // gRPC A6: 10 tokens, a failure costs 1, a success earns 0.1, retry while more than 5
	Ratio              // SRE retry ratio: retries at most 10% of calls over 10 s, plus 1 a second
	Adaptive           // SRE adaptive throttling: K = 2 over 2 minutes
)

func (b Budget) String() string {
	switch b {
	case NoBudget:
		return "none"
	case TokenBucket:
		return "A6 token bucket"
	case Ratio:
		return "SRE retry ratio"
	case Adaptive:
		return "SRE adaptive throttling"
	}
	return fmt.Sprintf("Budget(%d)", int(b))
}

// Config describes a run. The zero value of each field means its default.
type Config struct {
	Seed    uint64            // seeds every request's jitter, the breakers' and the adaptive budgets' draws
	Clients int               // clients; default 10
	Rate    int               // requests a second, all clients together; default 1000
	Attempt time.Duration     // how long an attempt takes; default 5ms
	Before  time.Duration     // healthy before the outage; default 10s
	Down    time.Duration     // the outage; default 4s
	After   time.Duration     // healthy after it; default 16s
	Policy  schedule.Schedule // the clients' retry policy; default DefaultPolicy
	Budget  Budget            // each client's retry budget; default none
	Breaker bool              // whether each client has a breaker (breaker.Config{}: its defaults)
	Shared  bool              // with Breaker: the clients' breakers share one store (breakertest.MemStore), as a fleet's share Redis
	Flush   time.Duration     // with Shared: how often each breaker flushes its counts to the store; default breaker.DefaultSharedFlush
	Bucket  time.Duration     // the resolution of Recovery and Peak; default 100ms
}

// DefaultPolicy is the clients' policy unless Config says otherwise: full
// jitter from 100ms capped at 10s, at most 3 attempts (the Google SRE
// book's per-request cap).
var DefaultPolicy schedule.Schedule = schedule.Intersect{A: schedule.FullJitter(100*time.Millisecond, 10*time.Second), B: schedule.Times{N: 3}}

func (c Config) withDefaults() Config {
	if c.Clients <= 0 {
		c.Clients = 10
	}
	if c.Rate <= 0 {
		c.Rate = 1000
	}
	if c.Attempt <= 0 {
		c.Attempt = 5 * time.Millisecond
	}
	if c.Before <= 0 {
		c.Before = 10 * time.Second
	}
	if c.Down <= 0 {
		c.Down = 4 * time.Second
	}
	if c.After <= 0 {
		c.After = 16 * time.Second
	}
	if c.Policy == nil {
		c.Policy = DefaultPolicy
	}
	if c.Bucket <= 0 {
		c.Bucket = 100 * time.Millisecond
	}
	if c.Flush <= 0 {
		c.Flush = breaker.DefaultSharedFlush
	}
	return c
}

// Result is what a run saw. Requests are counted by when they arrived,
// attempts by when they reached the dependency.
type Result struct {
	Requests, Attempts int // over the whole run
	Failed             int // requests that ended in an error, over the whole run

	OutageRequests int // requests that arrived while the dependency was down
	OutageAttempts int // attempts that reached it while it was down

	// PeakAttempts is the most attempts that reached the dependency in one
	// Bucket; BucketRequests is how many requests arrive in one.
	PeakAttempts, BucketRequests int

	// Timeline is the attempts that reached the dependency in each Bucket
	// from the start: Timeline[k] counts those from k·Bucket to
	// (k+1)·Bucket. It runs past the last arrival while retries end.
	Timeline []int

	// Recovery is how long after the dependency came back the requests'
	// success rate stayed at 99% or more: the end of the last Bucket of
	// arrivals, from then on, in which fewer than 99% of the requests
	// succeeded, or 0 if there was none. Recovered is false if that last
	// Bucket was the run's last: the rate never settled.
	Recovery  time.Duration
	Recovered bool

	// Refused counts calls a breaker refused (an attempt not made);
	// Throttled counts calls a budget refused outright (Adaptive) and
	// retries it refused.
	Refused, Throttled int

	// With breakers: FailedBeforeOpen counts the attempts that reached
	// the dependency while it was down before every breaker had opened;
	// ProbeAttempts those that reached it while down after that (each is
	// a half-open breaker's probe); HalfOpens the half-open spells during
	// the outage after that, as one breaker saw them (a fleet's shared
	// spell counts once). AllOpen is how long after the outage began the
	// last breaker opened, or 0 if one never did.
	FailedBeforeOpen, ProbeAttempts, HalfOpens int
	AllOpen                                    time.Duration
}

// ProbesPerHalfOpen is ProbeAttempts ÷ HalfOpens: what each half-open
// spell let through to the dependency while it was down.
func (r Result) ProbesPerHalfOpen() float64 { return ratio(r.ProbeAttempts, r.HalfOpens) }

// OutageLoad is the load on the dependency while it was down, relative to
// the requests: 1 means no extra load, 3 every request tried three times,
// below 1 calls refused before reaching it.
func (r Result) OutageLoad() float64 { return ratio(r.OutageAttempts, r.OutageRequests) }

// Load is the same over the whole run.
func (r Result) Load() float64 { return ratio(r.Attempts, r.Requests) }

// Peak is the most load in one Bucket, relative to the requests that
// arrive in one.
func (r Result) Peak() float64 { return ratio(r.PeakAttempts, r.BucketRequests) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
