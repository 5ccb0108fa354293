// Package defaults writes each peer library's default retry policy as a
// recur schedule, so that the defaults can be compared on equal terms: run
// through the same contention simulator (package storm), printed, stepped.
//
// Each Policy says where its numbers come from and, where the schedule
// cannot say exactly what the library does, what differs. The tests check
// every translation against the library's own code.
package defaults

import (
	"fmt"
	"time"

	"github.com/cenkalti/backoff/v5"
	"github.com/hashicorp/go-retryablehttp"
	"github.com/recur-go/recur/schedule"
)

// Policy is one retry policy written as a schedule.
type Policy struct {
	Lib      string            // the library, or "recur"
	Name     string            // a short name for tables
	Schedule schedule.Schedule // the policy
	Source   string            // where the numbers come from
	Differs  string            // what the schedule does not express, or ""
}

// Peers returns the default policy of every peer that has one, in the
// order of the tables. sethvargo/go-retry has none: every backoff it
// offers takes a base, and Do takes a Backoff, so there is no default to
// write down (Missing says so).
func Peers() []Policy {
	return []Policy{Cenkalti(), Avast(), Failsafe(), RetryableHTTP()}
}

// Missing names the peers without a default policy, with the reason.
var Missing = map[string]string{
	"sethvargo": "no default: NewExponential, NewFibonacci and NewConstant each take a base, and Do takes a Backoff",
}

// Cenkalti is backoff.Retry's default in cenkalti/backoff v5: a
// NewExponentialBackOff (initial interval 500ms, multiplier 1.5, maximum
// interval 60s, randomization factor 0.5) with no limit on tries and a
// maximum elapsed time of 15 minutes.
func Cenkalti() Policy {
	b := backoff.NewExponentialBackOff()
	rf := int(b.RandomizationFactor * 100)
	return Policy{
		Lib:  "cenkalti",
		Name: "cenkalti/backoff v5 Retry",
		Schedule: schedule.UpTo{
			Inner: schedule.Jittered{
				Inner:  schedule.Exponential{Base: b.InitialInterval, FactorPct: int(b.Multiplier * 100), Cap: b.MaxInterval},
				LowPct: 100 - rf, HighPct: 100 + rf,
			},
			Budget: backoff.DefaultMaxElapsedTime,
		},
		Source: "NewExponentialBackOff and DefaultMaxElapsedTime; Retry: MaxTries 0 (no limit)",
		Differs: "none that matters: cenkalti draws from [0.5·i, 1.5·i + 1ns) and stops when the time since the start " +
			"plus the next wait passes 15m, which is UpTo's rule",
	}
}

// avastDelay, avastJitter and avastAttempts are retry.Do's defaults in
// avast/retry-go v4 (newDefaultRetryConfig: the Config fields are
// unexported, so they are written here; the tests check them against
// retry.Do).
const (
	avastDelay    = 100 * time.Millisecond
	avastJitter   = 100 * time.Millisecond
	avastAttempts = 10
)

// Avast is retry.Do's default in avast/retry-go v4: 10 attempts; before
// retry n (from 1) it waits BackOffDelay + RandomDelay = 100ms·2^(n−1) +
// uniform[0, 100ms), with no maximum.
//
// recur's jitter multiplies; avast's adds a fixed amount. The schedule
// still says exactly that, one retry at a time: retry n is a Jittered
// constant whose [Low%, High%] range is [100ms·2^(n−1), 100ms·2^(n−1) +
// 100ms], and the steps follow each other with AndThen.
func Avast() Policy {
	var steps []time.Duration
	for n := 1; n < avastAttempts; n++ {
		steps = append(steps, avastDelay<<(n-1))
	}
	s, err := AdditiveJitter(steps, avastJitter)
	if err != nil {
		panic(err) // the constants above always have a form
	}
	return Policy{
		Lib:      "avast",
		Name:     "avast/retry-go v4 Do",
		Schedule: s,
		Source:   "newDefaultRetryConfig: Attempts 10, Delay 100ms, MaxJitter 100ms, DelayType CombineDelay(BackOffDelay, RandomDelay)",
		Differs:  "none: the range of each wait is the same ([a, a+100ms) there, [a, a+100ms] here)",
	}
}

// Failsafe is retrypolicy.NewWithDefaults in failsafe-go: three attempts
// in all, no delay.
func Failsafe() Policy {
	return Policy{
		Lib:      "failsafe-go",
		Name:     "failsafe-go retrypolicy.NewWithDefaults",
		Schedule: schedule.Times{N: 3},
		Source:   "retrypolicy.NewBuilder: defaultMaxRetries 2, no delay",
		Differs:  "none",
	}
}

// RetryableHTTP is go-retryablehttp's NewClient: RetryMax 4 retries (five
// attempts), waiting DefaultBackoff = RetryWaitMin·2^i capped at
// RetryWaitMax (1s to 30s), no jitter.
func RetryableHTTP() Policy {
	c := retryablehttp.NewClient()
	return Policy{
		Lib:  "retryablehttp",
		Name: "go-retryablehttp NewClient",
		Schedule: schedule.Intersect{
			A: schedule.Exponential{Base: c.RetryWaitMin, FactorPct: 200, Cap: c.RetryWaitMax},
			B: schedule.Times{N: c.RetryMax + 1},
		},
		Source:  "NewClient: RetryWaitMin 1s, RetryWaitMax 30s, RetryMax 4, Backoff DefaultBackoff",
		Differs: "none for a failed call; on a 429 or 503 with Retry-After, DefaultBackoff waits what the header says (recur's runners take that as pushback)",
	}
}

// Ours returns recur's policies for the comparison: full jitter and equal
// jitter with the parameters of Brooker's simulation (the storm package's
// tests use them too: the blog's base of 5ms doubled, as its first wait is
// base·2¹, and a cap of 2s), and full jitter with the delay benchmark's
// parameters. None stops by itself, as in the blog.
func Ours() []Policy {
	return []Policy{
		{Lib: "recur", Name: "recur FullJitter, Brooker's parameters", Schedule: schedule.FullJitter(10*time.Millisecond, 2*time.Second),
			Source: "Brooker, \"Exponential Backoff and Jitter\": full jitter, base 5ms (first wait up to 10ms), cap 2s"},
		{Lib: "recur", Name: "recur Backoff, Brooker's parameters", Schedule: schedule.Backoff(10*time.Millisecond, 2*time.Second),
			Source: "the same with equal jitter (50–100%)"},
		{Lib: "recur", Name: "recur FullJitter(100ms, 10s)", Schedule: schedule.FullJitter(100*time.Millisecond, 10*time.Second),
			Source: "the delay benchmark's policy"},
	}
}

// AdditiveJitter returns a schedule whose k-th delay is uniform in
// [steps[k], steps[k]+jitter] and that stops after the last: the policy of
// a library that adds a random amount to each wait. Each step is
//
//	Intersect(Times(2), Jittered(Exponential(b, 100%, b), lo%, hi%))
//
// — one decision with delay b·[lo%, hi%] — for a b, lo and hi found so that
// the two ends are exact; the steps are chained with AndThen and closed
// with Times(1). It reports an error if some step has no such form (lo and
// hi are whole percentages up to 1000%).
func AdditiveJitter(steps []time.Duration, jitter time.Duration) (schedule.Schedule, error) {
	var s schedule.Schedule = schedule.Times{N: 1}
	for i := len(steps) - 1; i >= 0; i-- {
		b, lo, hi, ok := exactRange(steps[i], steps[i]+jitter)
		if !ok {
			return nil, fmt.Errorf("defaults: no whole-percent form for [%v, %v]", steps[i], steps[i]+jitter)
		}
		step := schedule.Intersect{
			A: schedule.Times{N: 2},
			B: schedule.Jittered{Inner: schedule.Exponential{Base: b, FactorPct: 100, Cap: b}, LowPct: lo, HighPct: hi},
		}
		s = schedule.AndThen{First: step, Then: s}
	}
	return s, nil
}

// exactRange finds b > 0 and whole percentages lo ≤ hi ≤ 1000 with
// b·lo/100 = from and b·hi/100 = to exactly, preferring the largest hi
// (the finest steps of the random draw).
func exactRange(from, to time.Duration) (b time.Duration, lo, hi int, ok bool) {
	if from < 0 || to < from || to > schedule.MaxDuration/100 {
		return 0, 0, 0, false
	}
	for hi = 1000; hi >= 1; hi-- {
		if (to*100)%time.Duration(hi) != 0 {
			continue
		}
		b = to * 100 / time.Duration(hi)
		if b > 0 && (from*100)%b == 0 {
			if lo = int(from * 100 / b); lo <= hi {
				return b, lo, hi, true
			}
		}
	}
	return 0, 0, 0, false
}
