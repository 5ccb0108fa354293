package audit

import (
	"testing"
	"time"

	"github.com/recur-go/recur/schedule"
)

// TestWorstTimeSlowSwitch: the longest wait worstTime counts is the one
// that holds whatever the attempts take (schedule.MaxDelayAnyPace), not
// the one of instant attempts (schedule.Bounds' MaxDelay, 1ms here): with
// attempts of a second the UpTo side stops at once and the Backoff side
// waits up to 16s.
func TestWorstTimeSlowSwitch(t *testing.T) {
	s := schedule.Union{
		A: schedule.UpTo{Inner: schedule.Spaced{Every: time.Millisecond}, Budget: 5 * time.Millisecond},
		B: schedule.Intersect{A: schedule.Backoff(time.Second, time.Minute), B: schedule.Times{N: 6}},
	}
	n := MaxAttempts(s, time.Second)
	w := worstTime(s, n, time.Second)
	for seed := range uint64(50) {
		if got, end := run(s, seed, []time.Duration{time.Second}, n); end > w {
			t.Fatalf("seed %d: %d attempts of 1s ended at %v, past worstTime %v", seed, got, end, w)
		}
	}
}

// TestMaxWaitReadsSchedule pins maxWait to schedule's figures for the
// cases where audit's former copy of the longest wait disagreed with
// package schedule: a factor-100 Exponential and an UpTo.
func TestMaxWaitReadsSchedule(t *testing.T) {
	for _, s := range []schedule.Schedule{
		schedule.Union{A: schedule.Spaced{Every: time.Second}, B: schedule.Exponential{Base: 2 * time.Second, FactorPct: 100, Cap: time.Minute}},
		schedule.UpTo{Inner: schedule.Spaced{Every: 10 * time.Second}, Budget: 5 * time.Second},
		schedule.UpTo{Inner: schedule.Union{A: schedule.Spaced{Every: time.Hour}, B: schedule.Times{N: 3}}, Budget: time.Minute},
	} {
		if got, want := maxWait(s, 4), 3*schedule.MaxDelayAnyPace(s); got != want {
			t.Errorf("maxWait(%v, 4) = %v, want 3 × MaxDelayAnyPace = %v", s, got, want)
		}
	}
}
