package breaker_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/verdict"
)

// With the real clock the breaker reads the monotonic clock alone; the
// times it reports are still the wall clock's.
func TestRealClockTimes(t *testing.T) {
	b, err := breaker.New(breaker.Config{ConsecutiveFailures: 1, SlowCall: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	p, _ := b.Allow()
	time.Sleep(2 * time.Millisecond) // at least SlowCall: slow, whatever the load
	b.Record(&p, verdict.Success)
	if st := b.Stats(); st.Slow != 1 || st.Successes != 1 {
		t.Fatalf("a call that slept 2ms with SlowCall 1ms: %+v; want 1 slow success", st)
	}
	call(b, verdict.Failure)
	after := time.Now()
	oe := openError(t, call(b, verdict.Success))
	if lo, hi := before.Add(5*time.Second), after.Add(5*time.Second); oe.Until.Before(lo) || oe.Until.After(hi) {
		t.Errorf("Until = %v; want between %v and %v", oe.Until, lo, hi)
	}
}

// The real clock behaves under testing/synctest: the bubble's fake time
// moves the breaker.
func TestRealClockUnderSynctest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, err := breaker.New(breaker.Config{ConsecutiveFailures: 1})
		if err != nil {
			t.Fatal(err)
		}
		call(b, verdict.Failure)
		time.Sleep(5*time.Second - time.Nanosecond)
		if err := call(b, verdict.Success); err == nil {
			t.Fatal("admitted a call before the open duration passed")
		}
		time.Sleep(time.Nanosecond)
		if err := call(b, verdict.Success); err != nil {
			t.Fatalf("refused after the open duration: %v", err)
		}
		if s := b.State(); s != breaker.Closed {
			t.Errorf("after a successful probe: %v; want closed", s)
		}
	})
}
