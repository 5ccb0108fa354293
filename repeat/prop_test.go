package repeat_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/internal/sat"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/repeat"
	"github.com/recur-go/recur/retry"
	"pgregory.net/rapid"
)

// TestPropRepeatFollowsSchedule: for any schedule, seed and run durations,
// Repeat waits exactly what the interpreter decides and counts the runs.
func TestPropRepeatFollowsSchedule(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genSchedule().Draw(t, "s")
		seed := rapid.Uint64().Draw(t, "seed")
		maxRuns := rapid.IntRange(1, 20).Draw(t, "max runs") // the run after this fails
		durs := genDurations(maxRuns+1).Draw(t, "durations")

		var waits []time.Duration
		wantRuns, stopped := maxRuns, false
		r := interp.Start(s, seed)
		var start time.Duration
		for i := range maxRuns {
			end := sat.AddDur(start, durs[i])
			d, ok := r.Next(start, end)
			if !ok {
				wantRuns, stopped = i+1, true
				break
			}
			waits = append(waits, d)
			start = sat.AddDur(end, d)
		}

		clock := clockcap.Virtual(epoch)
		var got []time.Duration
		o := repeat.Options{Caps: retry.Caps{Clock: clock, Random: randcap.Seeded(seed)}, Observer: afterRun(func(_ int, d time.Duration) { got = append(got, d) })}
		calls := 0
		n, err := repeat.Repeat(context.Background(), o, s, func(context.Context) error {
			clock.Advance(durs[calls])
			if calls++; calls > maxRuns {
				return errBroken
			}
			return nil
		})
		if diff := cmp.Diff(waits, got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("waits (-want +got):\n%s", diff)
		}
		if n != wantRuns {
			t.Fatalf("%d runs, want %d", n, wantRuns)
		}
		switch {
		case stopped && err != nil:
			t.Fatalf("error %v, want nil: the schedule ended", err)
		case !stopped && err != errBroken:
			t.Fatalf("error %v, want %v from run %d", err, errBroken, maxRuns+1)
		}
	})
}
