package interp

import (
	"testing"
	"time"

	"github.com/recur-go/recur/internal/schedgen"
	"github.com/recur-go/recur/schedule"
	"pgregory.net/rapid"
)

func TestNeedsStart(t *testing.T) {
	exp := schedule.Exponential{Base: time.Millisecond, FactorPct: 200, Cap: time.Second}
	spaced := schedule.Spaced{Every: time.Minute}
	upto := schedule.UpTo{Inner: exp, Budget: time.Minute}
	tests := []struct {
		name string
		s    schedule.Schedule
		want bool
	}{
		{"nil", nil, false},
		{"Times", schedule.Times{N: 3}, false},
		{"Forever", schedule.Forever{}, false},
		{"Exponential", exp, false},
		{"Fibonacci", schedule.Fibonacci{Base: time.Second}, false},
		{"Decorrelated", schedule.Decorrelated{Base: time.Second, Cap: time.Minute}, false},
		{"Spaced", spaced, true},
		{"UpTo", upto, true},
		{"Backoff & Times", schedule.Intersect{A: schedule.Backoff(time.Millisecond, time.Second), B: schedule.Times{N: 5}}, false},
		{"Jittered(Spaced)", schedule.Jittered{Inner: spaced, LowPct: 50, HighPct: 100}, true},
		{"Capped(UpTo)", schedule.Capped{Inner: upto, Max: time.Second}, true},
		{"Intersect A", schedule.Intersect{A: spaced, B: exp}, true},
		{"Intersect B", schedule.Intersect{A: exp, B: spaced}, true},
		{"Union A", schedule.Union{A: upto, B: exp}, true},
		{"Union B", schedule.Union{A: exp, B: upto}, true},
		{"Union neither", schedule.Union{A: exp, B: schedule.Times{N: 2}}, false},
		{"AndThen First", schedule.AndThen{First: spaced, Then: exp}, true},
		{"AndThen Then", schedule.AndThen{First: schedule.Times{N: 3}, Then: spaced}, true},
		{"AndThen neither", schedule.AndThen{First: schedule.Times{N: 3}, Then: exp}, false},
		{"Intersect of binaries", schedule.Intersect{A: schedule.Union{A: exp, B: exp}, B: schedule.AndThen{First: exp, Then: upto}}, true},
		{"Intersect leaf B, timed A", schedule.Intersect{A: schedule.Capped{Inner: spaced, Max: time.Second}, B: schedule.Forever{}}, true},
		{"nil child", schedule.Intersect{A: nil, B: exp}, false},
		{"deep", schedule.Jittered{Inner: schedule.Capped{Inner: schedule.Union{A: exp, B: schedule.AndThen{First: exp, Then: upto}}, Max: time.Second}, LowPct: 0, HighPct: 100}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NeedsStart(tt.s); got != tt.want {
				t.Errorf("NeedsStart(%v) = %v, want %v", tt.s, got, tt.want)
			}
		})
	}
}

// TestPropNeedsStartIsSound checks the promise NeedsStart makes: a schedule
// it calls untimed decides the same whatever start and end times it is
// given.
func TestPropNeedsStartIsSound(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := schedgen.Gen().Draw(t, "s")
		if NeedsStart(s) {
			return
		}
		seed := rapid.Uint64().Draw(t, "seed")
		durs := schedgen.Durations(50).Draw(t, "durations")
		timed, zero := Start(s, seed), Start(s, seed)
		var now time.Duration
		for i, d := range durs {
			start := now
			now = schedule.AddSat(now, d)
			d1, ok1 := timed.Next(start, now)
			d0, ok0 := zero.Next(0, 0)
			if d1 != d0 || ok1 != ok0 {
				t.Fatalf("decision %d of %v: with times (%v, %v), without (%v, %v)", i+1, s, d1, ok1, d0, ok0)
			}
			if !ok1 {
				return
			}
			now = schedule.AddSat(now, d1)
		}
	})
}

// contains is the obvious definition NeedsStart must agree with.
func contains(s schedule.Schedule) bool {
	switch s.(type) {
	case schedule.Spaced, schedule.UpTo:
		return true
	case nil:
		return false
	}
	a, b := schedule.Children(s)
	return contains(a) || contains(b)
}

func TestPropNeedsStartMatchesDefinition(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := schedgen.Gen().Draw(t, "s")
		if got, want := NeedsStart(s), contains(s); got != want {
			t.Fatalf("NeedsStart(%v) = %v, want %v", s, got, want)
		}
	})
}

func BenchmarkNeedsStart(b *testing.B) {
	s := schedule.Schedule(schedule.Intersect{A: schedule.Backoff(100*time.Millisecond, 30*time.Second), B: schedule.Times{N: 5}})
	b.ReportAllocs()
	for b.Loop() {
		if NeedsStart(s) {
			b.Fatal("Backoff & Times needs no start")
		}
	}
}
