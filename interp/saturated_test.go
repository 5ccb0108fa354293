package interp_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/internal/sat"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/schedule"
)

// TestResumeAtTheEndOfTime: a schedule whose waits reach the largest
// Duration runs into a clock that stands still (every later time
// saturates to it), where an UpTo whose budget's end saturated too goes on
// at that instant; schedule.Bounds does not count those attempts. A run
// resumed from a saved state must still decide as the run it was saved
// from, so it is not held to Bounds' count there (found by
// TestLawSameSeedSameDecisions).
func TestResumeAtTheEndOfTime(t *testing.T) {
	const max = schedule.MaxDuration
	s := schedule.AndThen{
		First: schedule.Times{N: 2},
		Then: schedule.Union{
			A: schedule.UpTo{Inner: schedule.Spaced{Every: max}, Budget: max - 1},
			B: schedule.Times{N: 1},
		},
	}
	type decision struct {
		Delay time.Duration
		OK    bool
	}
	drive := func(r *interp.Run, clock time.Duration, n int) ([]decision, time.Duration) {
		var out []decision
		for range n {
			end := sat.AddDur(clock, time.Second)
			d, ok := r.Next(clock, end)
			out = append(out, decision{d, ok})
			clock = sat.AddDur(end, d)
		}
		return out, clock
	}
	fresh := interp.Start(s, 1)
	want, _ := drive(&fresh, 0, 12)

	r := interp.Start(s, 1)
	head, clock := drive(&r, 0, 1)
	state, err := r.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	resumed := interp.Start(s, 0)
	if err := resumed.UnmarshalBinary(state); err != nil {
		t.Fatal(err)
	}
	tail, _ := drive(&resumed, clock, 11)
	got := append(head, tail...)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("resumed at decision 1 (-fresh +resumed):\n%s", diff)
	}
}
