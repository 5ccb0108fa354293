package interp

import (
	"bytes"
	"testing"
	"time"

	"github.com/recur-go/recur/internal/schedgen"
	"github.com/recur-go/recur/schedule"
	"pgregory.net/rapid"
)

// TestIsBackoffTimes checks which schedules Next decides inline.
func TestIsBackoffTimes(t *testing.T) {
	exp := schedule.Exponential{Base: time.Second, FactorPct: 150, Cap: time.Minute}
	jit := schedule.Jittered{Inner: exp, LowPct: 10, HighPct: 900}
	tests := []struct {
		s    schedule.Schedule
		want bool
	}{
		{schedule.Intersect{A: schedule.Backoff(100*time.Millisecond, 30*time.Second), B: schedule.Times{N: 5}}, true},
		{schedule.Intersect{A: schedule.Times{N: 5}, B: schedule.FullJitter(100*time.Millisecond, 30*time.Second)}, true},
		{schedule.Intersect{A: jit, B: schedule.Times{N: 1}}, true},
		{schedule.Backoff(100*time.Millisecond, 30*time.Second), false},
		{schedule.Intersect{A: exp, B: schedule.Times{N: 5}}, false},
		{schedule.Intersect{A: jit, B: schedule.Forever{}}, false},
		{schedule.Intersect{A: jit, B: jit}, false},
		{schedule.Intersect{A: schedule.Times{N: 2}, B: schedule.Times{N: 5}}, false},
		{schedule.Intersect{A: schedule.Jittered{Inner: schedule.Fibonacci{Base: time.Second}, LowPct: 0, HighPct: 100}, B: schedule.Times{N: 5}}, false},
		{schedule.Union{A: jit, B: schedule.Times{N: 5}}, false},
		{schedule.UpTo{Inner: schedule.Intersect{A: jit, B: schedule.Times{N: 5}}, Budget: time.Second}, false},
	}
	for _, tt := range tests {
		if got := isBackoffTimes(tt.s); got != tt.want {
			t.Errorf("isBackoffTimes(%v) = %v, want %v", tt.s, got, tt.want)
		}
		if r := Start(tt.s, 1); r.whole != tt.want {
			t.Errorf("Start(%v).whole = %v, want %v", tt.s, r.whole, tt.want)
		}
	}
}

// TestPropBackoffTimesInline checks that Next's inline decision for
// Backoff & Times(n) makes the decisions of the general steps and leaves
// the same state behind, byte for byte as MarshalBinary saves it, after
// every decision: for any Exponential, jitter range, bound, side of the
// Times, seed, first start and attempt durations, and across a Reset.
func TestPropBackoffTimesInline(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := schedgen.Duration()
		exp := schedule.Exponential{
			Base:      d.Draw(t, "base"),
			FactorPct: rapid.IntRange(100, 1000).Draw(t, "factor"),
			Cap:       d.Draw(t, "cap"),
		}
		low := rapid.IntRange(0, 1000).Draw(t, "low")
		jit := schedule.Jittered{Inner: exp, LowPct: low, HighPct: rapid.IntRange(low, 1000).Draw(t, "high")}
		var s schedule.Schedule = schedule.Intersect{A: jit, B: schedule.Times{N: rapid.IntRange(1, 70).Draw(t, "n")}}
		if rapid.Bool().Draw(t, "times first") {
			s = schedule.Intersect{A: s.(schedule.Intersect).B, B: jit}
		}
		seed := rapid.Uint64().Draw(t, "seed")
		durs := schedgen.Durations(10).Draw(t, "durs")
		first := rapid.SampledFrom([]time.Duration{0, time.Nanosecond, time.Hour}).Draw(t, "first start")

		inline, general := Start(s, seed), Start(s, seed)
		if !inline.whole {
			t.Fatalf("%v is not decided inline", s)
		}
		general.whole = false
		for run := range 2 {
			at := first // Next measures from the run's beginning, but the first attempt may start later
			for i := range 80 {
				end := schedule.AddSat(at, durs[i%len(durs)])
				d1, ok1 := inline.Next(at, end)
				d2, ok2 := general.Next(at, end)
				if d1 != d2 || ok1 != ok2 {
					t.Fatalf("%v, run %d, decision %d: inline (%v, %v), general steps (%v, %v)", s, run, i+1, d1, ok1, d2, ok2)
				}
				b1, _ := inline.MarshalBinary()
				b2, _ := general.MarshalBinary()
				if !bytes.Equal(b1, b2) {
					t.Fatalf("%v, run %d, decision %d: saved state differs:\ninline  %x\ngeneral %x", s, run, i+1, b1, b2)
				}
				if !ok1 {
					break
				}
				at = schedule.AddSat(end, d1)
			}
			inline.Reset(seed + 1)
			general.Reset(seed + 1)
		}
	})
}
