package retry_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/internal/sat"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
	"pgregory.net/rapid"
)

// model replays a run by hand with the interpreter, the way the runner's
// documentation describes it: attempt i takes durs[i] and fails while
// i < failures; a deadline (from the start; 0: none) ends the run when an
// attempt ends at or after it, or when the next wait would end at or after
// it. It returns the waits and how the run ends: reason 0 for success.
func model(s schedule.Schedule, seed uint64, durs []time.Duration, failures int, deadline time.Duration) (waits []time.Duration, attempts int, reason retry.Reason) {
	r := interp.Start(s, seed)
	var start time.Duration
	for i := 0; ; i++ {
		end := sat.AddDur(start, durs[i])
		switch {
		case i == failures:
			return waits, i + 1, 0
		case deadline > 0 && end >= deadline:
			return waits, i + 1, retry.Deadline
		}
		d, ok := r.Next(start, end)
		switch {
		case !ok:
			return waits, i + 1, retry.Exhausted
		case deadline > 0 && sat.AddDur(end, d) >= deadline:
			return waits, i + 1, retry.Deadline
		}
		waits = append(waits, d)
		start = sat.AddDur(end, d)
	}
}

// TestPropRetryFollowsSchedule: for any schedule, seed, attempt durations
// and deadline (or none), the runner waits exactly what the model says,
// starts no attempt at or after the deadline, and ends as the model does.
func TestPropRetryFollowsSchedule(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genSchedule().Draw(t, "s")
		seed := rapid.Uint64().Draw(t, "seed")
		failures := rapid.IntRange(0, 20).Draw(t, "failures")
		durs := genDurations(failures+1).Draw(t, "durations")
		var deadline time.Duration
		if rapid.Bool().Draw(t, "has deadline") {
			deadline = time.Duration(rapid.Int64Range(1, int64(10*time.Minute)).Draw(t, "deadline"))
		}
		waits, attempts, reason := model(s, seed, durs, failures, deadline)

		start, ctx := epoch, context.Background()
		if deadline > 0 {
			start = future()
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, start.Add(deadline))
			defer cancel()
		}
		clock := clockcap.Virtual(start)
		var h hookLog
		calls := 0
		o := retry.Options{Caps: retry.Caps{Clock: clock, Random: randcap.Seeded(seed)}, Observer: &h}
		v, err := retry.Retry(ctx, o, s, func(context.Context) (int, error) {
			if deadline > 0 && calls > 0 && clock.Elapsed() >= deadline {
				t.Fatalf("attempt %d starts at %v, at or after the deadline", calls+1, clock.Elapsed())
			}
			clock.Advance(durs[calls])
			if calls++; calls <= failures {
				return calls, errFlaky
			}
			return calls, nil
		})
		if diff := cmp.Diff(waits, h.delays, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("waits (-want +got):\n%s", diff)
		}
		if calls != attempts || v != calls {
			t.Fatalf("%d attempts returning %d, want %d", calls, v, attempts)
		}
		if reason == 0 {
			if err != nil {
				t.Fatalf("error %v, want success", err)
			}
			return
		}
		var e *retry.Error
		if !errors.As(err, &e) || e.Reason != reason || e.Attempts != attempts || e.Err != errFlaky {
			t.Fatalf("error %v, want %v after %d attempts", err, reason, attempts)
		}
		if got := errors.Is(err, context.DeadlineExceeded); got != (reason == retry.Deadline) {
			t.Fatalf("errors.Is(%v, context.DeadlineExceeded) = %v", err, got)
		}
	})
}
