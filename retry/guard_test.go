package retry_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
)

var errDown = errors.New("connection refused")

// downstream counts calls and fails them while down is true.
type downstream struct {
	calls int
	down  bool
}

func (d *downstream) call(context.Context) (int, error) {
	d.calls++
	if d.down {
		return 0, errDown
	}
	return d.calls, nil
}

func newBreaker(t *testing.T, clock clockcap.Clock) *breaker.Breaker {
	t.Helper()
	b, err := breaker.New(breaker.Config{Name: "db", Clock: clock, Random: randcap.Seeded(1)})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBreakerStopsTheRetryLoop: no retry goes through an open breaker; a
// retry loop stops at once when the breaker opens, and the downstream sees no
// call while it is open.
func TestBreakerStopsTheRetryLoop(t *testing.T) {
	clock := clockcap.Virtual(time.Now())
	b := newBreaker(t, clock)
	d := &downstream{down: true}
	o := retry.Options{Caps: retry.Caps{Clock: clock, Random: randcap.Seeded(1)}, Breaker: b}
	s := schedule.Intersect{A: schedule.Spaced{Every: 100 * time.Millisecond}, B: schedule.Times{N: 10}}

	_, err := retry.Retry(context.Background(), o, s, d.call)
	var e *retry.Error
	if !errors.As(err, &e) || e.Reason != retry.Open || e.Attempts != 5 {
		t.Fatalf("err = %v; want a retry.Error with Reason Open after 5 attempts", err)
	}
	if !errors.Is(err, breaker.ErrOpen) || !errors.Is(err, errDown) {
		t.Errorf("err = %v; want it to match breaker.ErrOpen and the last error", err)
	}
	if d.calls != 5 {
		t.Errorf("downstream saw %d calls; want 5 (the breaker opens after 5 failures in a row)", d.calls)
	}

	sleeps := len(clock.Sleeps())
	for i := 0; i < 100; i++ {
		_, err := retry.Retry(context.Background(), o, s, d.call)
		if !errors.Is(err, breaker.ErrOpen) {
			t.Fatalf("call %d while open: err = %v; want breaker.ErrOpen", i, err)
		}
	}
	if d.calls != 5 {
		t.Errorf("downstream saw %d calls while the breaker was open; want none", d.calls-5)
	}
	if got := len(clock.Sleeps()); got != sleeps {
		t.Errorf("calls refused by an open breaker slept %d times; want none", got-sleeps)
	}
	// 101 refusals: the sixth attempt of the first call, then the 100 calls.
	if st := b.Stats(); st.Rejected != 101 || st.State != breaker.Open {
		t.Errorf("breaker stats = %+v; want 101 rejected, open", st)
	}

	// After the open duration a probe goes through; the target is back.
	clock.Advance(5 * time.Second)
	d.down = false
	if v, err := retry.Retry(context.Background(), o, s, d.call); err != nil || v != 6 {
		t.Errorf("probe after 5s = %v, %v; want 6, nil", v, err)
	}
	if st := b.State(); st != breaker.Closed {
		t.Errorf("after a good probe the breaker is %v; want closed", st)
	}
}

// TestAttemptCapAgainstAPersistentFailure checks the SRE book's
// per-request cap: every call makes exactly its three attempts, no more.
func TestAttemptCapAgainstAPersistentFailure(t *testing.T) {
	clock := clockcap.Virtual(time.Now())
	d := &downstream{down: true}
	o := retry.Options{Caps: retry.Caps{Clock: clock, Random: randcap.Seeded(1)}}
	s := schedule.Intersect{A: schedule.FullJitter(100*time.Millisecond, time.Second), B: schedule.Times{N: 3}}
	for i := 0; i < 50; i++ {
		_, err := retry.Retry(context.Background(), o, s, d.call)
		var e *retry.Error
		if !errors.As(err, &e) || e.Attempts != 3 || e.Reason != retry.Exhausted {
			t.Fatalf("call %d: err = %v; want exhausted after 3 attempts", i, err)
		}
	}
	if d.calls != 150 {
		t.Errorf("50 calls made %d attempts; want 150", d.calls)
	}
}

// TestTokenBucketBoundsAnOutage drives 1000 calls with up to 3 attempts
// each at a target that is down: without a budget that is 3 attempts per
// call; gRPC A6's bucket lets retries through only while more than half its
// tokens are left, so the extra load settles near none.
func TestTokenBucketBoundsAnOutage(t *testing.T) {
	clock := clockcap.Virtual(time.Now())
	bucket, err := budget.NewTokenBucket(budget.TokenBucketConfig{})
	if err != nil {
		t.Fatal(err)
	}
	d := &downstream{down: true}
	o := retry.Options{Caps: retry.Caps{Clock: clock, Random: randcap.Seeded(1)}, Budget: bucket}
	s := schedule.Intersect{A: schedule.FullJitter(10*time.Millisecond, time.Second), B: schedule.Times{N: 3}}
	throttled := 0
	for i := 0; i < 1000; i++ {
		_, err := retry.Retry(context.Background(), o, s, d.call)
		var e *retry.Error
		if errors.As(err, &e) && e.Reason == retry.Budget {
			throttled++
			if !errors.Is(err, budget.ErrThrottled) || !errors.Is(err, errDown) {
				t.Fatalf("err = %v; want it to match budget.ErrThrottled and the last error", err)
			}
		}
	}
	ratio := float64(d.calls) / 1000
	t.Logf("attempts per call under a full outage with the A6 bucket: %.3f (%d retries throttled)", ratio, throttled)
	if ratio > 1.01 {
		t.Errorf("attempts per call = %.3f; want at most 1.01", ratio)
	}
	if st := bucket.Stats(); st.Throttled != uint64(throttled) || st.Requests != 1000 {
		t.Errorf("bucket stats = %+v; want %d throttled of 1000 requests", st, throttled)
	}
}

func TestAdaptiveThrottlingRefusesUnattempted(t *testing.T) {
	a, err := budget.NewAdaptive(budget.AdaptiveConfig{Random: randcap.Seeded(3)})
	if err != nil {
		t.Fatal(err)
	}
	d := &downstream{down: true}
	o := retry.Options{Caps: retry.Caps{Clock: clockcap.Virtual(time.Now()), Random: randcap.Seeded(1)}, Budget: a}
	refused := 0
	for i := 0; i < 200; i++ {
		before := d.calls
		_, err := retry.Retry(context.Background(), o, schedule.Times{N: 1}, d.call)
		if errors.Is(err, budget.ErrThrottled) {
			refused++
			if d.calls != before {
				t.Fatalf("a refused call reached the downstream")
			}
		}
	}
	if refused == 0 || d.calls+refused != 200 {
		t.Errorf("refused %d and attempted %d of 200 calls; want some refused, the rest attempted", refused, d.calls)
	}
}

func TestVerdictsRecordedWithTheBreaker(t *testing.T) {
	clock := clockcap.Virtual(time.Now())
	b := newBreaker(t, clock)
	o := retry.Options{Caps: retry.Caps{Clock: clock, Random: randcap.Seeded(1)}, Breaker: b}
	tooMany := errors.New("429")
	classify := func(err error) verdict.Verdict {
		if err == tooMany {
			return verdict.Retryable
		}
		return verdict.Transient
	}
	// Retryable answers (a 429) are not failures of the target: twenty of
	// them leave the breaker closed.
	fails := func(context.Context) (int, error) { return 0, tooMany }
	retry.RetryIf(context.Background(), o, schedule.Times{N: 20}, classify, fails)
	if st := b.Stats(); st.State != breaker.Closed || st.Failures != 0 {
		t.Errorf("after 20 retryable answers: %+v; want closed, no failures", st)
	}
	// A caller that cancels its call records nothing against the target.
	for i := 0; i < 10; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		retry.Retry(ctx, o, schedule.Times{N: 3}, func(context.Context) (int, error) { cancel(); return 0, context.Canceled })
	}
	if st := b.Stats(); st.State != breaker.Closed || st.Failures != 0 {
		t.Errorf("after 10 cancelled calls: %+v; want closed, no failures", st)
	}
	// A panic in op records Neutral, gives the permit back and propagates.
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the panic did not propagate")
			}
		}()
		retry.Retry(context.Background(), o, schedule.Times{N: 3}, func(context.Context) (int, error) { panic("boom") })
	}()
	if st := b.Stats(); st.Failures != 0 || st.Successes != 0 {
		t.Errorf("after a panic: %+v; want nothing counted", st)
	}
}

func TestGuardedFirstTryAllocatesNothing(t *testing.T) {
	b := newBreaker(t, clockcap.Real())
	bucket, _ := budget.NewTokenBucket(budget.TokenBucketConfig{})
	o := retry.Options{Breaker: b, Budget: bucket}
	var s schedule.Schedule = schedule.Intersect{A: schedule.Backoff(100*time.Millisecond, time.Second), B: schedule.Times{N: 3}}
	op := func(context.Context) (int, error) { return 1, nil }
	ctx := context.Background()
	if n := testing.AllocsPerRun(1000, func() { retry.Retry(ctx, o, s, op) }); n != 0 {
		t.Errorf("a first-try success through breaker and budget allocates %v times", n)
	}
	got := b.Stats()
	want := breaker.Stats{State: breaker.Closed, Successes: got.Successes, WindowCalls: got.WindowCalls}
	if diff := cmp.Diff(want, got); diff != "" || got.Successes == 0 {
		t.Errorf("breaker stats (-want +got):\n%s", diff)
	}
}
