package budget_test

import (
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/verdict"
)

// countingClock counts Now calls.
type countingClock struct {
	clockcap.Clock
	reads atomic.Int64
}

func (c *countingClock) Now() time.Time {
	c.reads.Add(1)
	return c.Clock.Now()
}

// A busy client's calls read the clock about once per 64, and each retry
// check reads it once (so that a stale window is never trusted: see
// TestRatioForgetsOldCalls), taking the lock only when the window is a
// bucket old; and the budget still allows exactly Percent of the calls: a
// retry that finds none left counts the calls since the last update first.
func TestRatioRetryCheckClockReads(t *testing.T) {
	clock := &countingClock{Clock: clockcap.Virtual(epoch)}
	r, err := budget.NewRatio(budget.RatioConfig{Percent: 10, MinPerSecond: -1, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	clock.reads.Store(0)
	allowed := 0
	for range 10_000 {
		r.Request()
		if r.AllowRetry() {
			allowed++
		}
	}
	if allowed != 1000 {
		t.Errorf("%d of 10000 retries allowed after as many calls; want 10%%: 1000", allowed)
	}
	if n := clock.reads.Load(); n > 10_000+10_000/64+1000/16+2 {
		t.Errorf("10000 calls and retry checks read the clock %d times; want at most one per retry check, 64 calls and 16 retries allowed", n)
	}
}

// A burst of calls a full window ago buys no retries once the target
// starts failing, beyond the one batch of calls not yet counted when the
// burst ended (Finagle's RetryBudget expires its deposits after its TTL;
// an earlier Ratio, whose retry check read no clock, let the whole burst
// of 100 calls buy 10 retries a window later).
func TestRatioForgetsOldCalls(t *testing.T) {
	for _, burst := range []int{100, 1000, 10_000} {
		clock := clockcap.Virtual(epoch)
		r, err := budget.NewRatio(budget.RatioConfig{Percent: 10, MinPerSecond: -1, Clock: clock})
		if err != nil {
			t.Fatal(err)
		}
		for range burst {
			r.Request()
			r.Record(verdict.Success)
		}
		clock.Advance(budget.DefaultRatioWindow)
		allowed := 0
		for range 100 {
			if r.AllowRetry() {
				allowed++
			}
		}
		t.Logf("a burst of %d calls one window ago: %d retries allowed", burst, allowed)
		if allowed > 64*10/100 {
			t.Errorf("a burst of %d calls one window ago bought %d retries; want at most one batch's: %d", burst, allowed, 64*10/100)
		}
	}
}

// Judged without the clock, a Ratio allows nearly the same retries as one
// that reads it for every retry, over a busy client's outage: calls that
// leave the window while no retry is left are soon counted as gone (an
// early version counted them until they were allowed 10 more retries a
// second, 220 instead of 110 by the end of the first window).
func TestRatioRetryCheckMatchesExact(t *testing.T) {
	for seed := range uint64(5) {
		clock := clockcap.Virtual(epoch)
		fast, _ := budget.NewRatio(budget.RatioConfig{Clock: clock})
		exact, _ := budget.NewRatio(budget.RatioConfig{Clock: clock})
		budget.Exact(exact)
		rng := rand.New(rand.NewPCG(seed, 2))
		var got, want []int
		nf, ne := 0, 0
		for ms := range 30_000 {
			clock.Advance(time.Millisecond)
			if ms%10 == 0 { // 100 calls a second
				fast.Request()
				exact.Request()
			}
			// An outage from 10 s to 24 s: retries asked at random,
			// 200 a second, far more than the 10% the budget allows.
			if ms >= 10_000 && ms < 24_000 && rng.IntN(5) == 0 {
				if fast.AllowRetry() {
					nf++
				}
				if exact.AllowRetry() {
					ne++
				}
			}
			if ms%1000 == 999 {
				got, want = append(got, nf), append(want, ne)
			}
		}
		// Between updates (every 25 calls here: a quarter of a bucket)
		// it may allow what the calls that left the window since would
		// have (2.5 retries), and it counts retries as of the update
		// after them, so they may leave the window up to that much
		// later than they should.
		for i := range want {
			if got[i] > want[i]+3 || got[i] < want[i]-25 {
				t.Errorf("seed %d: retries allowed by each second (-exact +lock-free):\n%s", seed, cmp.Diff(want, got))
				break
			}
		}
	}
}
