package repeat_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/repeat"
	"github.com/recur-go/recur/schedule"
)

// TestSynctestPolling: the real clock in a synctest bubble polls exactly
// on the grid, and the context's deadline ends the loop right after the
// last poll that fits, not at the deadline itself.
func TestSynctestPolling(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Second)
		defer cancel()
		begin := time.Now()
		var starts []time.Duration
		n, err := repeat.Repeat(ctx, repeat.Options{}, schedule.Spaced{Every: 30 * time.Second}, func(context.Context) error {
			starts = append(starts, time.Since(begin))
			time.Sleep(time.Second) // the poll itself takes a second
			return nil
		})
		if n != 4 || !errors.Is(err, repeat.ErrDeadline) || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Repeat = %d, %v; want 4, ErrDeadline", n, err)
		}
		want := []time.Duration{0, 30 * time.Second, 60 * time.Second, 90 * time.Second}
		if diff := cmp.Diff(want, starts); diff != "" {
			t.Errorf("poll starts (-want +got):\n%s", diff)
		}
		if got := time.Since(begin); got != 91*time.Second {
			t.Errorf("returned after %v, want 91s", got)
		}
	})
}

// TestSynctestCancel: a cancellation during a wait returns at that moment.
func TestSynctestCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		time.AfterFunc(45*time.Second, cancel)
		begin := time.Now()
		n, err := repeat.Repeat(ctx, repeat.Options{}, schedule.Spaced{Every: 30 * time.Second}, func(context.Context) error { return nil })
		if n != 2 || err != context.Canceled {
			t.Errorf("Repeat = %d, %v; want 2, context.Canceled", n, err)
		}
		if got := time.Since(begin); got != 45*time.Second {
			t.Errorf("returned after %v, want 45s", got)
		}
	})
}

// TestSynctestRunTimeout: a run that hangs is cut off by the
// per-attempt timeout and its error ends the loop.
func TestSynctestRunTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		begin := time.Now()
		runs := 0
		n, err := repeat.Repeat(context.Background(), repeat.Options{RunTimeout: 5 * time.Second}, schedule.Spaced{Every: 10 * time.Second}, func(ctx context.Context) error {
			if runs++; runs < 3 {
				return nil
			}
			<-ctx.Done()
			return ctx.Err()
		})
		if n != 2 || err != context.DeadlineExceeded {
			t.Errorf("Repeat = %d, %v; want 2, context.DeadlineExceeded", n, err)
		}
		if got := time.Since(begin); got != 25*time.Second {
			t.Errorf("returned after %v, want 25s", got)
		}
	})
}
