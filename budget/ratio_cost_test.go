package budget_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/clockcap"
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

// A busy client's retry checks read the clock about once per 16 retries
// and 64 calls, not once per retry (it did, and took a lock, on every
// AllowRetry), and still allow exactly Percent of the calls: a retry that
// finds none left counts the calls since the last update first.
func TestRatioRetryCheckReadsNoClock(t *testing.T) {
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
	if n := clock.reads.Load(); n > 10_000/64+1000/16+2 {
		t.Errorf("10000 calls and retry checks read the clock %d times; want at most one per 64 calls and 16 retries allowed", n)
	}
}
