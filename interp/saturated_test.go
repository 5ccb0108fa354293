package interp_test

import (
	"testing"
	"time"

	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/schedule"
)

// TestUpToAtTheEndOfTime: once a run's clock reaches the largest Duration
// it stands still (every later time saturates to it), so an UpTo whose
// budget end saturated too would see every next attempt "on time" and go
// on forever, beyond what schedule.Bounds allows and differently from a
// resumed run, which is held to Bounds. An attempt that would start at the
// largest Duration is past every budget but the largest.
func TestUpToAtTheEndOfTime(t *testing.T) {
	const max = schedule.MaxDuration
	s := schedule.AndThen{
		First: schedule.Times{N: 2},
		Then: schedule.Union{
			A: schedule.UpTo{Inner: schedule.Spaced{Every: max}, Budget: max - 1},
			B: schedule.Times{N: 1},
		},
	}
	most := schedule.Bounds(s).MaxAttempts
	for _, attempt := range []time.Duration{0, 1, time.Second} {
		r := interp.Start(s, 1)
		var now time.Duration
		attempts := 1
		for ; attempts <= 1000; attempts++ {
			start := now
			now = schedule.MaxDuration
			if start < max-attempt {
				now = start + attempt
			}
			d, ok := r.Next(start, now)
			if !ok {
				break
			}
			if now > max-d {
				now = max
			} else {
				now += d
			}
		}
		if attempts > most {
			t.Errorf("attempts of %v: the run made %d attempts; Bounds allows %d", attempt, attempts, most)
		}
	}
	// The largest budget is no budget: the run goes on.
	r := interp.Start(schedule.UpTo{Inner: schedule.Forever{}, Budget: max}, 1)
	if _, ok := r.Next(max, max); !ok {
		t.Error("UpTo(Forever, the largest Duration) stopped at the end of time")
	}
}
