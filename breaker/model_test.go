package breaker_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
)

// Resilience4j's shouldOpenAfterFailureRateThresholdExceeded: a window of
// 5 calls judged from 5 on, 50%: F F F S S opens on the last success
// (60%), with a time-based and with a count-based window. The rules are
// judged on every outcome, not only on failures.
func TestFailureRateJudgedOnSuccess(t *testing.T) {
	for _, c := range []breaker.Config{
		{ConsecutiveFailures: -1, MinCalls: 5, Window: 5 * time.Second},
		{ConsecutiveFailures: -1, MinCalls: 5, CountWindow: 5},
	} {
		b, _ := newBreaker(t, c)
		for i, v := range []verdict.Verdict{verdict.Failure, verdict.Failure, verdict.Failure, verdict.Success} {
			call(b, v)
			if s := b.State(); s != breaker.Closed {
				t.Fatalf("%+v: after call %d: %v; want closed", c, i+1, s)
			}
		}
		call(b, verdict.Success)
		st := b.Stats()
		if st.State != breaker.Open || st.Successes != 2 || st.Failures != 3 {
			t.Errorf("%+v: after F F F S S: %+v; want open, 2 successes, 3 failures", c, st)
		}
	}
}

// Resilience4j's shouldOpenAfterSlowCallRateThresholdExceeded: slow
// failure, slow success, fast failure, fast success, slow success: 3 of 5
// slow (60%) opens at 50% although only 40% failed.
func TestSlowCallRateVector(t *testing.T) {
	for _, window := range []int{0, 5} {
		b, clock := newBreaker(t, breaker.Config{ConsecutiveFailures: -1, MinCalls: 5, CountWindow: window,
			Window: time.Minute, SlowCall: 4 * time.Second, SlowRate: 50})
		calls := []struct {
			v    verdict.Verdict
			took time.Duration
		}{
			{verdict.Failure, 5 * time.Second}, {verdict.Success, 5 * time.Second},
			{verdict.Failure, 100 * time.Millisecond}, {verdict.Success, 100 * time.Millisecond},
			{verdict.Success, 5 * time.Second},
		}
		for _, c := range calls {
			p, err := b.Allow()
			if err != nil {
				t.Fatalf("CountWindow %d: refused: %v", window, err)
			}
			clock.Advance(c.took)
			b.Record(&p, c.v)
		}
		if st := b.Stats(); st.State != breaker.Open || st.Slow != 3 {
			t.Errorf("CountWindow %d: %+v; want open with 3 slow calls", window, st)
		}
	}
}

// A count-based window holds the last CountWindow calls, whatever their
// age: older outcomes leave it one by one as new ones arrive.
func TestCountBasedWindow(t *testing.T) {
	b, clock := newBreaker(t, breaker.Config{ConsecutiveFailures: -1, CountWindow: 4, MinCalls: 10})
	for _, v := range []verdict.Verdict{verdict.Failure, verdict.Success, verdict.Success, verdict.Success, verdict.Success} {
		call(b, v)
	}
	// MinCalls above the window is taken as the window: 4.
	if st := b.Stats(); st.State != breaker.Closed || st.WindowCalls != 4 || st.WindowFailures != 0 {
		t.Fatalf("after F S S S S in a window of 4: %+v; want closed, 4 calls, no failure", st)
	}
	clock.Advance(time.Hour) // time does not empty a count-based window
	call(b, verdict.Failure)
	if st := b.Stats(); st.State != breaker.Closed || st.WindowCalls != 4 || st.WindowFailures != 1 {
		t.Fatalf("an hour later, one failure: %+v; want closed, 4 calls, 1 failure", st)
	}
	call(b, verdict.Failure) // S S F F: 50%
	if s := b.State(); s != breaker.Open {
		t.Errorf("S S F F in a window of 4: %v; want open", s)
	}
}

// gobreaker's TestCustomCircuitBreaker, with its ReadyToTrip (at least 3
// requests, at least 60% failed) as TripWhen. gobreaker clears its counts
// every 30 s Interval; here the whole 30 s window passes instead.
func TestTripWhen(t *testing.T) {
	var seen []breaker.Counts
	b, clock := newBreaker(t, breaker.Config{Window: 30 * time.Second, TripWhen: func(c breaker.Counts) bool {
		seen = append(seen, c)
		return c.Calls >= 3 && float64(c.Failures)/float64(c.Calls) >= 0.6
	}})
	for range 5 {
		call(b, verdict.Success)
		call(b, verdict.Failure)
	}
	if s := b.State(); s != breaker.Closed {
		t.Fatalf("5 successes, 5 failures: %v; want closed", s)
	}
	if got := seen[len(seen)-1]; got != (breaker.Counts{Calls: 10, Failures: 5, ConsecutiveFailures: 1}) {
		t.Errorf("TripWhen saw %+v; want 10 calls, 5 failures, 1 in a row", got)
	}
	clock.Advance(30 * time.Second)
	call(b, verdict.Failure)
	call(b, verdict.Success)
	if s := b.State(); s != breaker.Closed {
		t.Fatalf("F S: %v; want closed", s)
	}
	call(b, verdict.Failure) // 2 of 3: 67%
	if s := b.State(); s != breaker.Open {
		t.Errorf("F S F: %v; want open", s)
	}
	if len(seen) != 13 {
		t.Errorf("TripWhen called %d times; want once per counted outcome, 13", len(seen))
	}
	// The predicate replaces the built-in rules: 10 failures in a row do
	// not open a breaker whose predicate says no.
	never, _ := newBreaker(t, breaker.Config{TripWhen: func(breaker.Counts) bool { return false }})
	for range 10 {
		call(never, verdict.Failure)
	}
	if s := never.State(); s != breaker.Closed {
		t.Errorf("TripWhen false, 10 failures: %v; want closed", s)
	}
}

// Resilience4jDefaults is Resilience4j's CircuitBreakerConfig.ofDefaults():
// 50% failure rate, 100% slow-call rate from 60 s, 10 half-open calls, a
// COUNT_BASED window of 100 judged from 100 calls, 60 s open.
func TestResilience4jDefaults(t *testing.T) {
	want := breaker.Config{
		ConsecutiveFailures: -1, FailureRate: 50, SlowCall: 60 * time.Second, SlowRate: 100,
		CountWindow: 100, MinCalls: 100, HalfOpenProbes: 10,
		OpenFor: schedule.Exponential{Base: time.Minute, FactorPct: 100, Cap: time.Minute},
	}
	if diff := cmp.Diff(want, breaker.Resilience4jDefaults()); diff != "" {
		t.Fatalf("Resilience4jDefaults (-want +got):\n%s", diff)
	}
	b, clock := newBreaker(t, breaker.Resilience4jDefaults())
	for range 99 {
		call(b, verdict.Failure)
	}
	if s := b.State(); s != breaker.Closed {
		t.Fatalf("99 failures: %v; want closed below 100 calls", s)
	}
	call(b, verdict.Failure)
	clock.Advance(time.Minute - time.Nanosecond)
	if err := call(b, verdict.Success); err == nil || openError(t, err).For != time.Minute {
		t.Fatalf("100 failures: %v; want open for 1m", err)
	}
	clock.Advance(time.Nanosecond)
	for i := range 10 {
		v := verdict.Success
		if i < 4 {
			v = verdict.Failure
		}
		if err := call(b, v); err != nil {
			t.Fatalf("probe %d: %v", i+1, err)
		}
	}
	if s := b.State(); s != breaker.Closed {
		t.Errorf("4 of 10 probes failed: %v; want closed", s)
	}
}

// A success is judged after older successes have slid out of a time-based
// window, even on a busy breaker that batches its successes: 200 successes
// and a failure in the first 0.1 s, 3 failures at 5 s; at 10 s the first
// second has left the window, and two more successes make 5 calls, 3
// failed: open.
func TestFailureRateJudgedAfterTheWindowSlides(t *testing.T) {
	b, clock := newBreaker(t, breaker.Config{ConsecutiveFailures: -1, MinCalls: 5})
	for range 200 {
		call(b, verdict.Success)
		clock.Advance(time.Second / 2000)
	}
	call(b, verdict.Failure)
	clock.Advance(4900 * time.Millisecond)
	for range 3 {
		call(b, verdict.Failure)
	}
	clock.Advance(5 * time.Second)
	call(b, verdict.Success) // (Stats would flush the window: look at State only)
	if s := b.State(); s != breaker.Closed {
		t.Fatalf("at 10 s, 3 failures in 4 calls: %v; want closed below MinCalls", s)
	}
	call(b, verdict.Success)
	if st := b.Stats(); st.State != breaker.Open || st.WindowCalls != 0 || st.Successes != 202 {
		t.Errorf("at 10 s, 3 failures in 5 calls: %+v; want open (an empty window) after 202 successes", st)
	}
}
