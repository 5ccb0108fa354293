package interp

import (
	"testing"
	"time"

	"github.com/recur-go/recur/internal/sat"
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
		s := GenSchedule().Draw(t, "s")
		if NeedsStart(s) {
			return
		}
		seed := rapid.Uint64().Draw(t, "seed")
		durs := GenDurations(50).Draw(t, "durations")
		timed, zero := Start(s, seed), Start(s, seed)
		var now time.Duration
		for i, d := range durs {
			start := now
			now = sat.AddDur(now, d)
			d1, ok1 := timed.Next(start, now)
			d0, ok0 := zero.Next(0, 0)
			if d1 != d0 || ok1 != ok0 {
				t.Fatalf("decision %d of %v: with times (%v, %v), without (%v, %v)", i+1, s, d1, ok1, d0, ok0)
			}
			if !ok1 {
				return
			}
			now = sat.AddDur(now, d1)
		}
	})
}

// contains is the obvious definition NeedsStart must agree with.
func contains(s schedule.Schedule) bool {
	switch s.(type) {
	case schedule.Spaced, schedule.UpTo, schedule.ResetAfter:
		return true
	case nil:
		return false
	}
	a, b := schedule.Children(s)
	return contains(a) || contains(b)
}

func TestPropNeedsStartMatchesDefinition(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := GenSchedule().Draw(t, "s")
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

// TestPropCheckAgreesWithValidate: Check's valid is exactly
// schedule.Validate(s) == nil, and its timed is NeedsStart's definition,
// on schedules that may be invalid in any node and in any way.
func TestPropCheckAgreesWithValidate(t *testing.T) {
	var valid, invalid int
	// One rapid.Check draws 100 schedules; a wrong comparison in one
	// variant shows only in a tree whose other nodes are all valid, so
	// draw 3000 (about 0.2s). Under -short, where rapid draws 20, go on
	// until each side has its 300.
	for i := 0; (i < 30 || i < 150 && (valid < 300 || invalid < 300)) && !t.Failed(); i++ {
		checkAgreesWithValidate(t, &valid, &invalid)
	}
	// Both sides must be exercised, or the property says little.
	if valid < 300 || invalid < 300 {
		t.Errorf("drew %d valid and %d invalid schedules; want at least 300 of each", valid, invalid)
	}
}

func checkAgreesWithValidate(t *testing.T, valid, invalid *int) {
	rapid.Check(t, func(t *rapid.T) {
		s := GenAny().Draw(t, "s")
		timed, ok := Check(s)
		err := schedule.Validate(s)
		if ok != (err == nil) {
			t.Fatalf("Check(%#v) says valid %v; Validate says %v", s, ok, err)
		}
		if want := contains(s); timed != want {
			t.Fatalf("Check(%#v) says timed %v; want %v", s, timed, want)
		}
		if ok {
			*valid++
		} else {
			*invalid++
		}
	})
}

// TestPropCheckHeadline: the shapes Check decides in one go, Backoff or
// FullJitter & Times(n), alone or in an UpTo, agree with Validate on each
// side of every bound.
func TestPropCheckHeadline(t *testing.T) {
	d := rapid.SampledFrom([]time.Duration{0, 1, schedule.MaxDuration})
	pct := rapid.SampledFrom([]int{-1, 0, 100, 1000, 1001})
	check := func(t *rapid.T) {
		s := schedule.Intersect{
			A: schedule.Jittered{
				Inner:   schedule.Exponential{Base: d.Draw(t, "base"), FactorPct: rapid.SampledFrom([]int{99, 100, 200}).Draw(t, "factor"), Cap: d.Draw(t, "cap")},
				LowPct:  pct.Draw(t, "low"),
				HighPct: pct.Draw(t, "high"),
			},
			B: schedule.Times{N: rapid.IntRange(0, 2).Draw(t, "n")},
		}
		var sched schedule.Schedule = s
		wantTimed := rapid.Bool().Draw(t, "upto")
		if wantTimed {
			sched = schedule.UpTo{Inner: s, Budget: rapid.SampledFrom([]time.Duration{-1, 0, time.Minute}).Draw(t, "budget")}
		}
		timed, ok := Check(sched)
		if err := schedule.Validate(sched); timed != wantTimed || ok != (err == nil) {
			t.Fatalf("Check(%#v) = %v, %v; Validate says %v", sched, timed, ok, err)
		}
	}
	// Each bound shows only when all the others hold: draw 1000.
	for i := 0; i < 10 && !t.Failed(); i++ {
		rapid.Check(t, check)
	}
}

// TestPropCheckValid: every schedule Gen draws is valid, and Check says so.
func TestPropCheckValid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := GenSchedule().Draw(t, "s")
		if _, ok := Check(s); !ok {
			t.Fatalf("Check(%v) says invalid; Validate says %v", s, schedule.Validate(s))
		}
	})
}

// TestCheckEdges pins Check on each bound Validate draws, on both sides.
func TestCheckEdges(t *testing.T) {
	exp := schedule.Exponential{Base: 1, FactorPct: 100, Cap: 1}
	tests := []struct {
		s     schedule.Schedule
		valid bool
	}{
		{nil, false},
		{schedule.Times{N: 1}, true},
		{schedule.Times{N: 0}, false},
		{schedule.Spaced{Every: 1}, true},
		{schedule.Spaced{Every: 0}, false},
		{exp, true},
		{schedule.Exponential{Base: 0, FactorPct: 100, Cap: 1}, false},
		{schedule.Exponential{Base: 1, FactorPct: 99, Cap: 1}, false},
		{schedule.Exponential{Base: 1, FactorPct: 100, Cap: 0}, false},
		{schedule.Fibonacci{Base: 1}, true},
		{schedule.Fibonacci{Base: 0}, false},
		{schedule.Decorrelated{Base: 1, Cap: 1}, true},
		{schedule.Decorrelated{Base: 0, Cap: 1}, false},
		{schedule.Decorrelated{Base: 1, Cap: 0}, false},
		{schedule.Forever{}, true},
		{schedule.Jittered{Inner: exp, LowPct: 0, HighPct: 1000}, true},
		{schedule.Jittered{Inner: exp, LowPct: -1, HighPct: 100}, false},
		{schedule.Jittered{Inner: exp, LowPct: 0, HighPct: 1001}, false},
		{schedule.Jittered{Inner: exp, LowPct: 101, HighPct: 100}, false},
		{schedule.Jittered{Inner: nil, LowPct: 0, HighPct: 100}, false},
		{schedule.Capped{Inner: exp, Max: 0}, true},
		{schedule.Capped{Inner: exp, Max: -1}, false},
		{schedule.UpTo{Inner: exp, Budget: 0}, true},
		{schedule.UpTo{Inner: exp, Budget: -1}, false},
		{schedule.Intersect{A: exp, B: schedule.Times{N: 0}}, false},
		{schedule.Union{A: schedule.Times{N: 0}, B: exp}, false},
		{schedule.AndThen{First: exp, Then: nil}, false},
		{&schedule.Times{N: 1}, false},
		{schedgen.Wrapper{Schedule: exp}, false},
	}
	for _, tt := range tests {
		_, got := Check(tt.s)
		if got != tt.valid || got != (schedule.Validate(tt.s) == nil) {
			t.Errorf("Check(%#v) valid = %v; want %v (Validate: %v)", tt.s, got, tt.valid, schedule.Validate(tt.s))
		}
	}
}

func BenchmarkCheck(b *testing.B) {
	s := schedule.Schedule(schedule.Intersect{A: schedule.Backoff(100*time.Millisecond, 30*time.Second), B: schedule.Times{N: 5}})
	b.ReportAllocs()
	for b.Loop() {
		if timed, valid := Check(s); timed || !valid {
			b.Fatal("Backoff & Times is valid and needs no start")
		}
	}
}
