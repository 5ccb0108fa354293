package retry_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// The tests in this file use clocks whose sleeps really block: the real
// clock, and a manual clock that only the test moves.

var hourly schedule.Schedule = schedule.Spaced{Every: time.Hour}

// TestCancelDuringWaitRealClock: cancelling while the runner waits an hour
// on the real clock returns (a hang would time the test out) with an
// *Error that says Canceled and wraps both the last error and
// context.Canceled.
func TestCancelDuringWaitRealClock(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	waiting := make(chan struct{})
	o := retry.Options{Observer: on(retry.Retrying, func(retry.Event) { close(waiting) })}
	go func() {
		<-waiting
		cancel()
	}()
	_, err := retry.Retry(ctx, o, hourly, func(context.Context) (int, error) { return 0, errFlaky })
	e := asError(t, err)
	if e.Reason != retry.Canceled || e.Attempts != 1 || e.Cause != nil {
		t.Errorf("got %+v, want Canceled after 1 attempt without a cause", e)
	}
	if !errors.Is(err, context.Canceled) || !errors.Is(err, errFlaky) {
		t.Errorf("%v does not wrap both context.Canceled and the last error", err)
	}
}

// TestDeadlineRealClock: with the real clock, a wait that would pass the
// deadline is not begun: the call returns at once (sleeping into the
// deadline would hang the test for an hour).
func TestDeadlineRealClock(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	calls := 0
	_, err := retry.Retry(ctx, retry.Options{}, schedule.Spaced{Every: 2 * time.Hour}, func(context.Context) (int, error) {
		calls++
		return 0, errFlaky
	})
	e := asError(t, err)
	if e.Reason != retry.Deadline || calls != 1 || !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, errFlaky) {
		t.Errorf("got %v after %d calls, want Deadline after 1 wrapping DeadlineExceeded and flaky", err, calls)
	}
	if ctx.Err() != nil {
		t.Errorf("the context ended (%v): the runner should not have waited for it", ctx.Err())
	}
}

// TestCancelDuringWaitManualClock: the runner is known to be asleep on the
// clock when the context is cancelled with a cause; the clock never moves.
func TestCancelDuringWaitManualClock(t *testing.T) {
	shutdown := errors.New("shutting down")
	clock := clockcap.Manual(epoch)
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan error)
	go func() {
		_, err := retry.Retry(ctx, retry.Options{Caps: retry.Caps{Clock: clock}}, hourly, func(context.Context) (int, error) { return 0, errFlaky })
		done <- err
	}()
	if err := clock.WaitSleepers(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	cancel(shutdown)
	err := <-done
	e := asError(t, err)
	if e.Reason != retry.Canceled || e.Cause != shutdown {
		t.Errorf("got %+v, want Canceled with cause %v", e, shutdown)
	}
	for _, target := range []error{errFlaky, context.Canceled, shutdown} {
		if !errors.Is(err, target) {
			t.Errorf("errors.Is(%v, %v) = false", err, target)
		}
	}
	if !clock.Now().Equal(epoch) || clock.Sleepers() != 0 {
		t.Errorf("clock at %v with %d sleepers, want %v and none", clock.Now(), clock.Sleepers(), epoch)
	}
}

// TestCanceledBeforeRetry: an attempt that fails because the caller's
// context ended is not retried, even if worth would retry it.
func TestCanceledBeforeRetry(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	_, err := retry.Retry(ctx, retry.Options{Caps: retry.Caps{Clock: clockcap.Virtual(epoch)}}, policy, func(ctx context.Context) (int, error) {
		calls++
		cancel()
		return 0, ctx.Err()
	})
	e := asError(t, err)
	if e.Reason != retry.Canceled || e.Attempts != 1 || calls != 1 || e.Err != context.Canceled {
		t.Errorf("got %+v after %d calls, want Canceled after 1 with the attempt's context.Canceled", e, calls)
	}
}

// TestDeadlinePassedDuringAttempt: the caller's deadline ending an attempt
// gives an *Error with Reason Deadline.
func TestDeadlinePassedDuringAttempt(t *testing.T) {
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	_, err := retry.Retry(ctx, retry.Options{Caps: retry.Caps{Clock: clockcap.Virtual(epoch)}}, policy, func(ctx context.Context) (int, error) {
		return 0, ctx.Err()
	})
	e := asError(t, err)
	if e.Reason != retry.Deadline || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %+v, want Deadline", e)
	}
}
