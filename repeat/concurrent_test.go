package repeat_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/repeat"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// TestConcurrentPollers: pollers share one schedule and one Options (run
// with -race); each keeps its own count.
func TestConcurrentPollers(t *testing.T) {
	var waits atomic.Int64
	o := repeat.Options{
		Caps:     retry.Caps{Clock: clockcap.Virtual(epoch), Random: randcap.Real()},
		Observer: afterRun(func(int, time.Duration) { waits.Add(1) }),
	}
	s := schedule.Intersect{A: schedule.Backoff(time.Second, time.Minute), B: schedule.Times{N: 10}}
	const pollers = 40
	counts := make([]int, pollers)
	var wg sync.WaitGroup
	for i := range pollers {
		wg.Go(func() {
			runs := 0
			counts[i], _ = repeat.Repeat(context.Background(), o, s, func(context.Context) error {
				if runs++; runs > i%10 {
					return errBroken
				}
				return nil
			})
		})
	}
	wg.Wait()
	var wantWaits int64
	for i, n := range counts {
		if n != i%10 {
			t.Errorf("poller %d: %d runs, want %d", i, n, i%10)
		}
		wantWaits += int64(i % 10)
	}
	if got := waits.Load(); got != wantWaits {
		t.Errorf("%d waits, want %d", got, wantWaits)
	}
}
