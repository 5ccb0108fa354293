package schedule_test

import (
	"testing"
	"time"

	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/schedule"
)

// longestWait runs s with attempts of d each and returns its longest wait.
func longestWait(s schedule.Schedule, d time.Duration, seed uint64) time.Duration {
	r := interp.Start(s, seed)
	var start, most time.Duration
	for range 10_000 {
		end := start + d
		w, ok := r.Next(start, end)
		if !ok {
			break
		}
		most = max(most, w)
		start = end + w
	}
	return most
}

// These are the cases where package audit's own copy of the longest wait
// disagreed with the one in this package: it took a factor-100 Exponential
// at its Base but simplify at its Cap, and an UpTo at its Budget although
// a budget that starts late saturates and lets longer waits through.
func TestMaxDelayAnyPace(t *testing.T) {
	const ms, sec = time.Millisecond, time.Second
	slowSwitch := schedule.Union{
		A: schedule.UpTo{Inner: schedule.Spaced{Every: ms}, Budget: 5 * ms},
		B: schedule.Intersect{A: schedule.Backoff(sec, time.Minute), B: schedule.Times{N: 6}},
	}
	tests := []struct {
		name string
		s    schedule.Schedule
		want time.Duration
	}{
		{"factor-100 Exponential never grows", schedule.Union{A: schedule.Spaced{Every: sec}, B: schedule.Exponential{Base: 2 * sec, FactorPct: 100, Cap: time.Minute}}, 2 * sec},
		{"factor-100 Exponential above its cap", schedule.Union{A: schedule.Spaced{Every: sec}, B: schedule.Exponential{Base: 2 * sec, FactorPct: 100, Cap: 1500 * ms}}, 1500 * ms},
		{"UpTo does not cut the inner wait", schedule.UpTo{Inner: schedule.Spaced{Every: 10 * sec}, Budget: 5 * sec}, 10 * sec},
		{"a slow attempt hands the run to the longer side", slowSwitch, time.Minute},
		{"untimed: Bounds' own", schedule.Intersect{A: schedule.Backoff(100*ms, 30*sec), B: schedule.Times{N: 5}}, 800 * ms},
		{"Fibonacci has no bound", schedule.UpTo{Inner: schedule.Fibonacci{Base: sec}, Budget: time.Hour}, schedule.MaxDuration},
		{"invalid", schedule.Times{N: -1}, 0},
	}
	for _, tc := range tests {
		if got := schedule.MaxDelayAnyPace(tc.s); got != tc.want {
			t.Errorf("%s: MaxDelayAnyPace(%v) = %v, want %v", tc.name, tc.s, got, tc.want)
		}
	}
	// The slow switch: instant attempts wait 1ms at most, attempts of a
	// second wait far longer, and no longer than MaxDelayAnyPace.
	if got := schedule.Bounds(slowSwitch).MaxDelay; got != ms {
		t.Errorf("Bounds(%v).MaxDelay = %v, want 1ms", slowSwitch, got)
	}
	for seed := range uint64(20) {
		if w := longestWait(slowSwitch, sec, seed); w <= 4*sec || w > schedule.MaxDelayAnyPace(slowSwitch) {
			t.Errorf("seed %d: longest wait with attempts of 1s = %v, want in (4s, %v]", seed, w, schedule.MaxDelayAnyPace(slowSwitch))
		}
	}
}
