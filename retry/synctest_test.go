package retry_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// The tests in this file run the real clock inside a testing/synctest
// bubble, where time is fake and moves only when every goroutine in the
// bubble is blocked: the real timers, exactly on time, instantly.

// TestSynctestTimeline: with the real clock the attempts start exactly when
// the schedule says.
func TestSynctestTimeline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := schedule.Intersect{A: schedule.Exponential{Base: time.Second, FactorPct: 200, Cap: time.Minute}, B: schedule.Times{N: 4}}
		begin := time.Now()
		var starts []time.Duration
		_, err := retry.Retry(context.Background(), retry.Options{}, s, func(context.Context) (int, error) {
			starts = append(starts, time.Since(begin))
			return 0, errFlaky
		})
		if e := asError(t, err); e.Reason != retry.Exhausted || e.Attempts != 4 {
			t.Errorf("got %v, want Exhausted after 4", err)
		}
		want := []time.Duration{0, time.Second, 3 * time.Second, 7 * time.Second}
		if diff := cmp.Diff(want, starts); diff != "" {
			t.Errorf("attempt starts (-want +got):\n%s", diff)
		}
	})
}

// TestSynctestCancelDuringWait: a cancellation five seconds into a
// one-minute wait ends the call at five seconds.
func TestSynctestCancelDuringWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		time.AfterFunc(5*time.Second, cancel)
		begin := time.Now()
		_, err := retry.Retry(ctx, retry.Options{}, schedule.Spaced{Every: time.Minute}, func(context.Context) (int, error) { return 0, errFlaky })
		if e := asError(t, err); e.Reason != retry.Canceled {
			t.Errorf("got %v, want Canceled", err)
		}
		if got := time.Since(begin); got != 5*time.Second {
			t.Errorf("returned after %v, want 5s", got)
		}
	})
}

// TestSynctestDeadline: with a 10s timeout and waits of 3s, 6s, 12s the
// third retry would pass the deadline, so the call returns right after the
// attempt at 9s rather than sleeping until 10s.
func TestSynctestDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		begin := time.Now()
		attempts := 0
		s := schedule.Exponential{Base: 3 * time.Second, FactorPct: 200, Cap: time.Minute}
		_, err := retry.Retry(ctx, retry.Options{}, s, func(context.Context) (int, error) {
			attempts++
			return 0, errFlaky
		})
		if e := asError(t, err); e.Reason != retry.Deadline || !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, errFlaky) {
			t.Errorf("got %v, want Deadline wrapping DeadlineExceeded and flaky", err)
		}
		if got := time.Since(begin); got != 9*time.Second || attempts != 3 {
			t.Errorf("returned after %v and %d attempts, want 9s and 3", got, attempts)
		}
	})
}

// TestSynctestAttemptTimeout: each attempt gets its own two seconds; an
// attempt that hangs is cut off and retried, and the attempt's context
// still carries the caller's values.
func TestSynctestAttemptTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		type key struct{}
		ctx := context.WithValue(context.Background(), key{}, "v")
		begin := time.Now()
		var deadlines []time.Duration
		o := retry.Options{AttemptTimeout: 2 * time.Second}
		v, err := retry.Retry(ctx, o, schedule.Times{N: 3}, func(ctx context.Context) (string, error) {
			dl, _ := ctx.Deadline()
			deadlines = append(deadlines, dl.Sub(begin))
			if len(deadlines) == 3 {
				return ctx.Value(key{}).(string), nil
			}
			<-ctx.Done()
			return "", ctx.Err()
		})
		if v != "v" || err != nil {
			t.Errorf("Retry = %q, %v; want v, nil", v, err)
		}
		want := []time.Duration{2 * time.Second, 4 * time.Second, 6 * time.Second}
		if diff := cmp.Diff(want, deadlines); diff != "" {
			t.Errorf("attempt deadlines (-want +got):\n%s", diff)
		}
	})
}

// TestSynctestAttemptTimeoutWithinDeadline: the per-attempt timeout never
// outlives the caller's deadline.
func TestSynctestAttemptTimeoutWithinDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		begin := time.Now()
		o := retry.Options{AttemptTimeout: 2 * time.Second}
		var ends []time.Duration
		_, err := retry.Retry(ctx, o, schedule.Forever{}, func(ctx context.Context) (int, error) {
			<-ctx.Done()
			ends = append(ends, time.Since(begin))
			return 0, ctx.Err()
		})
		if e := asError(t, err); e.Reason != retry.Deadline || e.Attempts != 2 {
			t.Errorf("got %v, want Deadline after 2 attempts", err)
		}
		if diff := cmp.Diff([]time.Duration{2 * time.Second, 3 * time.Second}, ends); diff != "" {
			t.Errorf("attempt ends (-want +got):\n%s", diff)
		}
	})
}
