package budget_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/verdict"
)

// amplification drives calls through b by hand, as a runner would: each
// call asks Request, makes up to maxAttempts attempts, each failing with
// probability failRate, records every verdict and asks AllowRetry before
// every retry. One call starts every 10 ms of clock. It returns attempts
// per call: the load the target sees, relative to one attempt per call.
func amplification(b budget.Budget, clock *clockcap.VirtualClock, calls, maxAttempts int, failRate float64) float64 {
	rng := rand.New(rand.NewPCG(1, 2))
	attempts := 0
	for range calls {
		if clock != nil {
			clock.Advance(10 * time.Millisecond)
		}
		if b != nil && !b.Request() {
			continue
		}
		for n := 1; ; n++ {
			attempts++
			v := verdict.Success
			if rng.Float64() < failRate {
				v = verdict.Transient
			}
			if b != nil {
				b.Record(v)
			}
			if v == verdict.Success || n == maxAttempts || b != nil && !b.AllowRetry() {
				break
			}
		}
	}
	return float64(attempts) / float64(calls)
}

// The promise of A6 throttling: a failing target sees about 10% extra
// load, never a storm. Measured at three attempts per call, the
// SRE book's per-request cap, for failure rates from 0 to a full outage.
func TestTokenBucketBoundsExtraLoad(t *testing.T) {
	for _, f := range []float64{0, 0.05, 0.1, 0.2, 0.5, 0.9, 1} {
		b, _ := budget.NewTokenBucket(budget.TokenBucketConfig{})
		got := amplification(b, nil, 10_000, 3, f)
		none := amplification(nil, nil, 10_000, 3, f)
		t.Logf("failure rate %3.0f%%: %.3f attempts per call with A6 (%.3f without a budget)", f*100, got, none)
		if got > 1.1 {
			t.Errorf("failure rate %v: %.3f attempts per call; want at most 1.1", f, got)
		}
	}
}

// Under a full outage the SRE retry ratio holds load to 1.1× plus its
// floor (1 retry a second at 100 calls a second: 1%).
func TestRatioBoundsExtraLoad(t *testing.T) {
	for _, f := range []float64{0.1, 0.5, 1} {
		clock := clockcap.Virtual(epoch)
		b, _ := budget.NewRatio(budget.RatioConfig{Clock: clock})
		got := amplification(b, clock, 10_000, 3, f)
		t.Logf("failure rate %3.0f%%: %.3f attempts per call with the retry ratio", f*100, got)
		if got > 1.11 {
			t.Errorf("failure rate %v: %.3f attempts per call; want at most 1.11", f, got)
		}
	}
}

// Under a full outage adaptive throttling sheds nearly every call before
// it reaches the target.
func TestAdaptiveShedsAFullOutage(t *testing.T) {
	clock := clockcap.Virtual(epoch)
	b, _ := budget.NewAdaptive(budget.AdaptiveConfig{Clock: clock, Random: randcap.Seeded(1)})
	got := amplification(b, clock, 10_000, 3, 1)
	st := b.Stats()
	t.Logf("full outage: %.3f attempts per call with adaptive throttling; %d of %d calls refused locally", got, st.Refused, st.Requests)
	if got > 0.05 {
		t.Errorf("%.3f attempts per call reached a dead target; want at most 0.05", got)
	}
	// And lets a healthy target's calls all through.
	clock = clockcap.Virtual(epoch)
	b, _ = budget.NewAdaptive(budget.AdaptiveConfig{Clock: clock, Random: randcap.Seeded(1)})
	if got := amplification(b, clock, 10_000, 3, 0); got != 1 {
		t.Errorf("healthy target: %.3f attempts per call; want 1", got)
	}
	if st := b.Stats(); st.Refused != 0 {
		t.Errorf("healthy target: %d calls refused", st.Refused)
	}
}

// Every budget's counters are observable (so that a metric can show them): a retry
// allowed or throttled shows in Stats.
func TestBudgetsAreObservable(t *testing.T) {
	clock := clockcap.Virtual(epoch)
	for _, c := range []budget.Config{
		budget.TokenBucketConfig{},
		budget.RatioConfig{Clock: clock, MinPerSecond: -1},
		budget.AdaptiveConfig{Clock: clock, Random: randcap.Seeded(1)},
	} {
		b, _ := c.New()
		amplification(b, clock, 100, 3, 1)
		st := b.Stats()
		if st.Requests != 100 || st.Retries+st.Throttled+st.Refused == 0 {
			t.Errorf("%T after 100 failing calls: %+v; want 100 requests and some retries, throttled or refused", b, st)
		}
	}
}
