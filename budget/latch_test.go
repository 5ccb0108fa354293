package budget_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/verdict"
)

// The latch: failures before any answer succeeds, then a target that
// accepts half of first attempts and every retry, as TestConcurrentAdaptive
// drives it. The target asks for nothing to be shed (it accepts 2 attempts
// in 3, more than 1 in K = 2), so the throttle must let calls through
// again within a window of the failures. It did not: the calls it refused
// counted as calls the target did not accept, which kept the probability
// where the failures had put it, and it refused nearly every call for ten
// minutes, whether 4 or 2000 failures came first.
func TestAdaptiveRecoversFromEarlyFailures(t *testing.T) {
	for _, early := range []int{4, 8, 32, 200, 2000} {
		clock := clockcap.Virtual(epoch)
		a, err := budget.NewAdaptive(budget.AdaptiveConfig{Clock: clock, Random: randcap.Seeded(3)})
		if err != nil {
			t.Fatal(err)
		}
		for range early {
			if a.Request() {
				a.Record(verdict.Retryable)
			}
		}
		// Ten minutes at 100 calls a second; the failures leave the
		// window after two.
		refused := make([]int, 10) // per minute
		for i := range 60_000 {
			clock.Advance(10 * time.Millisecond)
			if !a.Request() {
				refused[i/6000]++
				continue
			}
			if i%2 == 0 {
				a.Record(verdict.Success)
				continue
			}
			a.Record(verdict.Retryable)
			if a.AllowRetry() {
				a.Record(verdict.Success)
			}
		}
		t.Logf("%d early failures: calls refused per minute %v", early, refused)
		for m, n := range refused[2:] {
			if n != 0 {
				t.Errorf("%d early failures: %d of 6000 calls refused in minute %d; want none once they left the window", early, n, m+3)
			}
		}
	}
}

// A target down for two minutes (every attempt fails), then healthy, or
// accepting half of first attempts and every retry: the throttle sheds
// nearly everything during the outage and nothing from one window (two
// minutes) after its end. Before, it still refused 99% of calls eight minutes
// later.
func TestAdaptiveRecoversAfterOutage(t *testing.T) {
	for _, half := range []bool{false, true} {
		clock := clockcap.Virtual(epoch)
		a, _ := budget.NewAdaptive(budget.AdaptiveConfig{Clock: clock, Random: randcap.Seeded(3)})
		sent := make([]int, 10) // per minute
		for i := range 60_000 {
			clock.Advance(10 * time.Millisecond)
			down := i < 12_000
			if !a.Request() {
				continue
			}
			sent[i/6000]++
			v := verdict.Success
			if down || half && i%2 == 1 {
				v = verdict.Retryable
			}
			a.Record(v)
			if v != verdict.Success && a.AllowRetry() {
				if down {
					a.Record(verdict.Retryable)
				} else {
					a.Record(verdict.Success)
				}
			}
		}
		t.Logf("half of first attempts failing after the outage: %v; calls sent per minute %v", half, sent)
		if sent[1] > 60 {
			t.Errorf("%d of 6000 calls sent in the outage's second minute; want at most 1%%", sent[1])
		}
		for m, n := range sent[3:] {
			if n != 6000 {
				t.Errorf("%d of 6000 calls sent in minute %d, the outage over for %d; want all", n, m+4, m+2)
			}
		}
	}
}

// grpc-go's TestShouldThrottleOptions (balancer/rls/internal/adaptive),
// whose throttler has the same rule with K = RatioForAccepts and the
// padding of 8: with the coin fixed at 0.5, whether the attempt after each
// answer (T: refused by the target, A: accepted) is refused.
func TestAdaptiveGRPCVectors(t *testing.T) {
	responses := "TTTTTTTTTAAAAAATTTT"
	for _, tt := range []struct {
		k    float64
		want string // y: refused
	}{
		{1.1, "nnnnnnnnyyyyynnnyyy"},
		{1.4, "nnnnnnnnyynnnnnnnnn"},
	} {
		a, err := budget.NewAdaptive(budget.AdaptiveConfig{K: tt.k, Clock: clockcap.Virtual(epoch)})
		if err != nil {
			t.Fatal(err)
		}
		budget.SetCoin(a, func() float64 { return 0.5 })
		got := ""
		for _, r := range responses {
			if r == 'T' {
				a.Record(verdict.Retryable)
			} else {
				a.Record(verdict.Success)
			}
			if a.Request() {
				got += "n"
			} else {
				got += "y"
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("K = %v: refusals (-want +got):\n%s", tt.k, diff)
		}
	}
}
