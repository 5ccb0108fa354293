package retry_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// TestConcurrentCallers: many goroutines share one schedule, one Options
// value, one clock and one random source (run with -race). Each run keeps
// its own state: caller i fails i%6 times, so the policy's five attempts
// rescue those that fail at most four times.
func TestConcurrentCallers(t *testing.T) {
	var retries atomic.Int64
	o := retry.Options{
		Caps:     retry.Caps{Clock: clockcap.Virtual(epoch), Random: randcap.Real()},
		Observer: on(retry.Retrying, func(retry.Event) { retries.Add(1) }),
	}
	const callers = 60
	results := make([]error, callers)
	values := make([]int, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			failures := i % 6
			calls := 0
			values[i], results[i] = retry.Retry(context.Background(), o, policy, func(context.Context) (int, error) {
				if calls++; calls <= failures {
					return 0, fmt.Errorf("caller %d: %w", i, errFlaky)
				}
				return calls, nil
			})
		})
	}
	wg.Wait()
	var wantRetries int64
	for i := range callers {
		failures := i % 6
		if failures < 5 {
			wantRetries += int64(failures)
			if results[i] != nil || values[i] != failures+1 {
				t.Errorf("caller %d: %d, %v; want %d, nil", i, values[i], results[i], failures+1)
			}
			continue
		}
		wantRetries += 4
		if e := asError(t, results[i]); e.Attempts != 5 || e.Reason != retry.Exhausted {
			t.Errorf("caller %d: %v, want exhausted after 5", i, results[i])
		}
	}
	if got := retries.Load(); got != wantRetries {
		t.Errorf("OnRetry called %d times, want %d", got, wantRetries)
	}
}

// TestConcurrentSleepers: callers asleep on one manual clock all wake when
// it moves, and one whose context is cancelled leaves the others asleep.
func TestConcurrentSleepers(t *testing.T) {
	clock := clockcap.Manual(epoch)
	o := retry.Options{Caps: retry.Caps{Clock: clock}}
	s := schedule.Intersect{A: schedule.Spaced{Every: time.Second}, B: schedule.Times{N: 2}}
	const callers = 8
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errs := make(chan error, callers)
	for i := range callers {
		c := context.Background()
		if i == 0 {
			c = ctx
		}
		go func() {
			calls := 0
			_, err := retry.Retry(c, o, s, func(context.Context) (int, error) {
				if calls++; calls == 1 {
					return 0, errFlaky
				}
				return calls, nil
			})
			errs <- err
		}()
	}
	if err := clock.WaitSleepers(context.Background(), callers); err != nil {
		t.Fatal(err)
	}
	cancel()
	if e := asError(t, <-errs); e.Reason != retry.Canceled {
		t.Errorf("cancelled caller: %v, want Canceled", e)
	}
	if n := clock.Sleepers(); n != callers-1 {
		t.Errorf("%d sleepers after one cancellation, want %d", n, callers-1)
	}
	clock.Advance(time.Second)
	for range callers - 1 {
		if err := <-errs; err != nil {
			t.Errorf("caller: %v, want success", err)
		}
	}
}
