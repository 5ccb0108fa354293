package interp

import (
	"bytes"
	"testing"
	"time"

	"github.com/recur-go/recur/internal/sat"
	"github.com/recur-go/recur/schedule"
	"pgregory.net/rapid"
)

// TestWholeShapeOf checks which schedules Next decides inline.
func TestWholeShapeOf(t *testing.T) {
	exp := schedule.Exponential{Base: time.Second, FactorPct: 150, Cap: time.Minute}
	jit := schedule.Jittered{Inner: exp, LowPct: 10, HighPct: 900}
	tests := []struct {
		s    schedule.Schedule
		want wholeShape
	}{
		{schedule.Intersect{A: schedule.Backoff(100*time.Millisecond, 30*time.Second), B: schedule.Times{N: 5}}, wholeBackoffTimes},
		{schedule.Intersect{A: schedule.Times{N: 5}, B: schedule.FullJitter(100*time.Millisecond, 30*time.Second)}, wholeBackoffTimes},
		{schedule.Intersect{A: jit, B: schedule.Times{N: 1}}, wholeBackoffTimes},
		{schedule.Backoff(100*time.Millisecond, 30*time.Second), wholeBackoff},
		{schedule.FullJitter(100*time.Millisecond, 30*time.Second), wholeBackoff},
		{jit, wholeBackoff},
		{exp, wholeNone},
		{schedule.Jittered{Inner: schedule.Jittered{Inner: exp, LowPct: 1, HighPct: 2}, LowPct: 0, HighPct: 100}, wholeNone},
		{schedule.Intersect{A: exp, B: schedule.Times{N: 5}}, wholeNone},
		{schedule.Intersect{A: jit, B: schedule.Forever{}}, wholeNone},
		{schedule.Intersect{A: jit, B: jit}, wholeNone},
		{schedule.Intersect{A: schedule.Times{N: 2}, B: schedule.Times{N: 5}}, wholeNone},
		{schedule.Intersect{A: schedule.Jittered{Inner: schedule.Fibonacci{Base: time.Second}, LowPct: 0, HighPct: 100}, B: schedule.Times{N: 5}}, wholeNone},
		{schedule.Union{A: jit, B: schedule.Times{N: 5}}, wholeNone},
		{schedule.UpTo{Inner: schedule.Intersect{A: jit, B: schedule.Times{N: 5}}, Budget: time.Second}, wholeNone},
		{schedule.Jittered{Inner: exp, LowPct: 50, HighPct: 10}, wholeNone}, // invalid: Start decides nothing
	}
	for _, tt := range tests {
		if r := Start(tt.s, 1); r.whole != tt.want {
			t.Errorf("Start(%v).whole = %v, want %v", tt.s, r.whole, tt.want)
		}
	}
}

// TestPropWholeInline checks that Next's inline decisions for Backoff
// alone and Backoff & Times(n) are the decisions of the general steps and
// leave the same state behind, byte for byte as MarshalBinary saves it,
// after every decision: for any Exponential, jitter range, bound, side of
// the Times, seed, first start and attempt durations, and across a Reset.
func TestPropWholeInline(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := GenDuration()
		exp := schedule.Exponential{
			Base:      d.Draw(t, "base"),
			FactorPct: rapid.IntRange(100, 1000).Draw(t, "factor"),
			Cap:       d.Draw(t, "cap"),
		}
		low := rapid.IntRange(0, 1000).Draw(t, "low")
		jit := schedule.Jittered{Inner: exp, LowPct: low, HighPct: rapid.IntRange(low, 1000).Draw(t, "high")}
		times := schedule.Times{N: rapid.IntRange(1, 70).Draw(t, "n")}
		s := rapid.SampledFrom([]schedule.Schedule{
			jit,
			schedule.Intersect{A: jit, B: times},
			schedule.Intersect{A: times, B: jit},
		}).Draw(t, "s")
		seed := rapid.Uint64().Draw(t, "seed")
		durs := GenDurations(10).Draw(t, "durs")
		first := rapid.SampledFrom([]time.Duration{0, time.Nanosecond, time.Hour}).Draw(t, "first start")

		inline, general := Start(s, seed), Start(s, seed)
		if inline.whole == wholeNone {
			t.Fatalf("%v is not decided inline", s)
		}
		general.whole = wholeNone
		for run := range 2 {
			at := first // Next measures from the run's beginning, but the first attempt may start later
			for i := range 80 {
				end := sat.AddDur(at, durs[i%len(durs)])
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
				at = sat.AddDur(end, d1)
			}
			inline.Reset(seed + 1)
			general.Reset(seed + 1)
		}
	})
}
