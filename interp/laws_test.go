package interp_test

import (
	"math/big"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/internal/sat"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/schedule"
	"pgregory.net/rapid"
)

// The laws of docs/schedules.md, checked over generated schedules of every variant,
// random seeds and random attempt durations. a ≡ b is checked as: the same
// decisions over lawDecisions decisions, both driven by the same attempts.

const lawDecisions = 300

// decision is one answer of a run.
type decision struct {
	Delay time.Duration
	OK    bool
}

// lawDrive runs s with seed on attempts that take durs in turn, keeping a
// virtual time: an attempt starts at t and ends at t+dur, the run is asked
// Next(start, end), and the next attempt starts delay later. It returns the
// decisions up to and including the first stop, at most lawDecisions.
func lawDrive(s schedule.Schedule, seed uint64, durs []time.Duration) []decision {
	out, _ := lawDriveInputs(s, seed, durs)
	return out
}

// input is what one decision was asked about.
type input struct{ start, end time.Duration }

// lawDriveInputs is lawDrive that also returns the inputs of each decision.
func lawDriveInputs(s schedule.Schedule, seed uint64, durs []time.Duration) ([]decision, []input) {
	r := interp.Start(s, seed)
	var out []decision
	var in []input
	var t time.Duration
	for i := 0; i < lawDecisions; i++ {
		start := t
		end := sat.AddDur(t, durs[i%len(durs)])
		d, ok := r.Next(start, end)
		out = append(out, decision{d, ok})
		in = append(in, input{start, end})
		if !ok {
			break
		}
		t = sat.AddDur(end, d)
	}
	return out, in
}

// replay asks a run of s with seed about the given inputs.
func replay(s schedule.Schedule, seed uint64, in []input) []decision {
	r := interp.Start(s, seed)
	out := make([]decision, len(in))
	for i, x := range in {
		d, ok := r.Next(x.start, x.end)
		out[i] = decision{d, ok}
	}
	return out
}

// run is what an equivalence check draws besides the schedules.
type run struct {
	seed uint64
	durs []time.Duration
}

func drawRun(t *rapid.T) run {
	return run{rapid.Uint64().Draw(t, "seed"), interp.GenDurations(40).Draw(t, "durs")}
}

// equiv fails t unless a and b make the same decisions on r.
func equiv(t *rapid.T, r run, a, b schedule.Schedule) {
	t.Helper()
	left, right := lawDrive(a, r.seed, r.durs), lawDrive(b, r.seed, r.durs)
	if !slices.Equal(left, right) { // cmp.Diff is slow: only for the message
		t.Fatalf("%v\n≢ %v\n(-left +right):\n%s", a, b, cmp.Diff(left, right))
	}
}

// law checks that lhs ≡ rhs for schedules drawn by build.
func law(t *testing.T, build func(t *rapid.T) (lhs, rhs schedule.Schedule)) {
	rapid.Check(t, func(t *rapid.T) {
		lhs, rhs := build(t)
		equiv(t, drawRun(t), lhs, rhs)
	})
}

func gen(t *rapid.T, label string) schedule.Schedule { return interp.GenSchedule().Draw(t, label) }

func n(t *rapid.T, label string) int { return rapid.IntRange(1, 40).Draw(t, label) }

// limit draws an UpTo budget or a Capped maximum, sometimes zero or huge.
func limit(t *rapid.T, label string) time.Duration {
	switch rapid.IntRange(0, 5).Draw(t, label+"kind") {
	case 0:
		return 0
	case 1:
		return schedule.MaxDuration - time.Duration(rapid.Int64Range(0, 1000).Draw(t, label+"below"))
	}
	return interp.GenDuration().Draw(t, label)
}

func TestLawUnionCommutative(t *testing.T) {
	law(t, func(t *rapid.T) (schedule.Schedule, schedule.Schedule) {
		a, b := gen(t, "a"), gen(t, "b")
		return schedule.Union{A: a, B: b}, schedule.Union{A: b, B: a}
	})
}

func TestLawIntersectCommutative(t *testing.T) {
	law(t, func(t *rapid.T) (schedule.Schedule, schedule.Schedule) {
		a, b := gen(t, "a"), gen(t, "b")
		return schedule.Intersect{A: a, B: b}, schedule.Intersect{A: b, B: a}
	})
}

func TestLawUnionAssociative(t *testing.T) {
	law(t, func(t *rapid.T) (schedule.Schedule, schedule.Schedule) {
		a, b, c := gen(t, "a"), gen(t, "b"), gen(t, "c")
		return schedule.Union{A: schedule.Union{A: a, B: b}, B: c}, schedule.Union{A: a, B: schedule.Union{A: b, B: c}}
	})
}

func TestLawIntersectAssociative(t *testing.T) {
	law(t, func(t *rapid.T) (schedule.Schedule, schedule.Schedule) {
		a, b, c := gen(t, "a"), gen(t, "b"), gen(t, "c")
		return schedule.Intersect{A: schedule.Intersect{A: a, B: b}, B: c}, schedule.Intersect{A: a, B: schedule.Intersect{A: b, B: c}}
	})
}

func TestLawUnionIdempotent(t *testing.T) {
	law(t, func(t *rapid.T) (schedule.Schedule, schedule.Schedule) {
		a := gen(t, "a")
		return schedule.Union{A: a, B: a}, a
	})
}

func TestLawIntersectIdempotent(t *testing.T) {
	law(t, func(t *rapid.T) (schedule.Schedule, schedule.Schedule) {
		a := gen(t, "a")
		return schedule.Intersect{A: a, B: a}, a
	})
}

func TestLawUnionIdentity(t *testing.T) {
	law(t, func(t *rapid.T) (schedule.Schedule, schedule.Schedule) {
		a := gen(t, "a")
		return schedule.Union{A: a, B: schedule.Times{N: 1}}, a
	})
}

func TestLawIntersectIdentity(t *testing.T) {
	law(t, func(t *rapid.T) (schedule.Schedule, schedule.Schedule) {
		a := gen(t, "a")
		return schedule.Intersect{A: a, B: schedule.Forever{}}, a
	})
}

func TestLawIntersectAbsorbs(t *testing.T) {
	law(t, func(t *rapid.T) (schedule.Schedule, schedule.Schedule) {
		return schedule.Intersect{A: gen(t, "a"), B: schedule.Times{N: 1}}, schedule.Times{N: 1}
	})
}

func TestLawUnionAbsorbs(t *testing.T) {
	law(t, func(t *rapid.T) (schedule.Schedule, schedule.Schedule) {
		return schedule.Union{A: gen(t, "a"), B: schedule.Forever{}}, schedule.Forever{}
	})
}

func TestLawAndThenAssociative(t *testing.T) {
	law(t, func(t *rapid.T) (schedule.Schedule, schedule.Schedule) {
		a, b, c := gen(t, "a"), gen(t, "b"), gen(t, "c")
		return schedule.AndThen{First: schedule.AndThen{First: a, Then: b}, Then: c},
			schedule.AndThen{First: a, Then: schedule.AndThen{First: b, Then: c}}
	})
}

func TestLawAndThenLeftIdentity(t *testing.T) {
	law(t, func(t *rapid.T) (schedule.Schedule, schedule.Schedule) {
		a := gen(t, "a")
		return schedule.AndThen{First: schedule.Times{N: 1}, Then: a}, a
	})
}

func TestLawAndThenRightIdentity(t *testing.T) {
	law(t, func(t *rapid.T) (schedule.Schedule, schedule.Schedule) {
		a := gen(t, "a")
		return schedule.AndThen{First: a, Then: schedule.Times{N: 1}}, a
	})
}

func TestLawTimesIntersectIsMin(t *testing.T) {
	law(t, func(t *rapid.T) (schedule.Schedule, schedule.Schedule) {
		x, y := n(t, "m"), n(t, "n")
		return schedule.Intersect{A: schedule.Times{N: x}, B: schedule.Times{N: y}}, schedule.Times{N: min(x, y)}
	})
}

func TestLawTimesUnionIsMax(t *testing.T) {
	law(t, func(t *rapid.T) (schedule.Schedule, schedule.Schedule) {
		x, y := n(t, "m"), n(t, "n")
		return schedule.Union{A: schedule.Times{N: x}, B: schedule.Times{N: y}}, schedule.Times{N: max(x, y)}
	})
}

func TestLawTimesAndThenAdds(t *testing.T) {
	law(t, func(t *rapid.T) (schedule.Schedule, schedule.Schedule) {
		x, y := n(t, "m"), n(t, "n")
		return schedule.AndThen{First: schedule.Times{N: x}, Then: schedule.Times{N: y}}, schedule.Times{N: x + y - 1}
	})
}

func TestLawUpToUpToIsMin(t *testing.T) {
	law(t, func(t *rapid.T) (schedule.Schedule, schedule.Schedule) {
		a, x, y := gen(t, "a"), limit(t, "x"), limit(t, "y")
		return schedule.UpTo{Inner: schedule.UpTo{Inner: a, Budget: x}, Budget: y}, schedule.UpTo{Inner: a, Budget: min(x, y)}
	})
}

func TestLawCappedCappedIsMin(t *testing.T) {
	law(t, func(t *rapid.T) (schedule.Schedule, schedule.Schedule) {
		a, x, y := gen(t, "a"), limit(t, "x"), limit(t, "y")
		return schedule.Capped{Inner: schedule.Capped{Inner: a, Max: x}, Max: y}, schedule.Capped{Inner: a, Max: min(x, y)}
	})
}

func TestLawJitteredAt100IsIdentity(t *testing.T) {
	law(t, func(t *rapid.T) (schedule.Schedule, schedule.Schedule) {
		a := gen(t, "a")
		return schedule.Jittered{Inner: a, LowPct: 100, HighPct: 100}, a
	})
}

func TestLawSimplifyIsEquivalent(t *testing.T) {
	law(t, func(t *rapid.T) (schedule.Schedule, schedule.Schedule) {
		a := gen(t, "a")
		return schedule.Simplify(a), a
	})
}

func TestLawSimplifyIsIdempotent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		once := schedule.Simplify(gen(t, "a"))
		if twice := schedule.Simplify(once); twice != once {
			t.Fatalf("Simplify(%v)\n= %v", once, twice)
		}
	})
}

// TestLawJitterWithinRange checks that each delay of Jittered(a, low, high)
// is a's delay at the same decision scaled by a factor in [low%, high%],
// rounded down. a's delays are those of a run of a asked about the same
// attempts as the jittered run: a sees the timeline its parent shapes.
func TestLawJitterWithinRange(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := gen(t, "a")
		low := rapid.IntRange(0, 1000).Draw(t, "low")
		high := rapid.IntRange(low, 1000).Draw(t, "high")
		r := drawRun(t)
		outer, in := lawDriveInputs(schedule.Jittered{Inner: a, LowPct: low, HighPct: high}, r.seed, r.durs)
		inner := replay(a, r.seed, in)
		if len(inner) != len(outer) {
			t.Fatalf("Jittered ran %d decisions, its inner %d", len(outer), len(inner))
		}
		for i, d := range inner {
			j := outer[i]
			if j.OK != d.OK {
				t.Fatalf("decision %d: Jittered says ok=%v, inner ok=%v", i+1, j.OK, d.OK)
			}
			if !d.OK {
				continue
			}
			if lo, hi := pctOf(d.Delay, low), pctOf(d.Delay, high); j.Delay < lo || j.Delay > hi {
				t.Fatalf("decision %d: inner %v jittered to %v, outside [%v, %v]", i+1, d.Delay, j.Delay, lo, hi)
			}
		}
	})
}

// pctOf returns ⌊d·pct/100⌋, saturating.
func pctOf(d time.Duration, pct int) time.Duration {
	x := new(big.Int).Mul(big.NewInt(int64(d)), big.NewInt(int64(pct)))
	x.Quo(x, big.NewInt(100))
	if !x.IsInt64() {
		return schedule.MaxDuration
	}
	return time.Duration(x.Int64())
}

func TestLawNoNegativeDelay(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, r := gen(t, "a"), drawRun(t)
		for i, d := range lawDrive(a, r.seed, r.durs) {
			if d.Delay < 0 {
				t.Fatalf("decision %d of %v: delay %v", i+1, a, d.Delay)
			}
		}
	})
}

// TestLawSameSeedSameDecisions checks determinism, also across a
// MarshalBinary / UnmarshalBinary at a random decision into a run started
// with another seed.
func TestLawSameSeedSameDecisions(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, r := gen(t, "a"), drawRun(t)
		want := lawDrive(a, r.seed, r.durs)
		if again := lawDrive(a, r.seed, r.durs); !slices.Equal(want, again) {
			t.Fatalf("two runs of %v differ (-first +second):\n%s", a, cmp.Diff(want, again))
		}
		at := rapid.IntRange(0, len(want)).Draw(t, "at")
		other := rapid.Uint64().Draw(t, "other")

		run := interp.Start(a, r.seed)
		var got []decision
		var clock time.Duration
		for i := 0; i < len(want); i++ {
			if i == at {
				saved, err := run.MarshalBinary()
				if err != nil {
					t.Fatalf("MarshalBinary: %v", err)
				}
				run = interp.Start(a, other)
				if err := run.UnmarshalBinary(saved); err != nil {
					t.Fatalf("UnmarshalBinary: %v", err)
				}
			}
			start := clock
			end := sat.AddDur(clock, r.durs[i%len(r.durs)])
			d, ok := run.Next(start, end)
			got = append(got, decision{d, ok})
			clock = sat.AddDur(end, d)
		}
		if !slices.Equal(want, got) {
			t.Fatalf("%v resumed at decision %d differs (-want +got):\n%s", a, at+1, cmp.Diff(want, got))
		}
	})
}

// simulate runs s with seed on attempts that take no time, for at most max
// decisions. It returns the attempts made, the total wait and whether the
// run ended.
func simulate(s schedule.Schedule, seed uint64, max int) (attempts int, total time.Duration, ended bool) {
	attempts, total, _, ended = simulateLongest(s, seed, max)
	return attempts, total, ended
}

// simulateLongest is simulate that also returns the longest single wait.
func simulateLongest(s schedule.Schedule, seed uint64, limit int) (attempts int, total, longest time.Duration, ended bool) {
	r := interp.Start(s, seed)
	attempts = 1
	for range limit {
		d, ok := r.Next(total, total)
		if !ok {
			return attempts, total, longest, true
		}
		attempts++
		total = sat.AddDur(total, d)
		longest = max(longest, d)
	}
	return attempts, total, longest, false
}

// TestPropBounds checks that no simulated run passes schedule.Bounds.
func TestPropBounds(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := gen(t, "s")
		b := schedule.Bounds(s)
		checkLimits(t, s, b)
		for i := range 4 {
			seed := rapid.Uint64().Draw(t, "seed")
			attempts, total, longest, ended := simulateLongest(s, seed, 2000)
			if longest > b.MaxDelay {
				t.Fatalf("%v\nrun %d waited %v at once, above %+v", s, i, longest, b)
			}
			if attempts > b.MaxAttempts {
				t.Fatalf("%v\nrun %d made %d attempts, above %+v", s, i, attempts, b)
			}
			if total > b.MaxTotal {
				t.Fatalf("%v\nrun %d waited %v, above %+v", s, i, total, b)
			}
			if ended && total < b.MinTotal {
				t.Fatalf("%v\nrun %d ended after waiting %v, below %+v", s, i, total, b)
			}
			if ended && !b.Stops {
				t.Fatalf("%v\nrun %d ended, yet %+v", s, i, b)
			}
		}
	})
}

// checkLimits checks that b is consistent in itself.
func checkLimits(t *rapid.T, s schedule.Schedule, b schedule.Limits) {
	t.Helper()
	if b.MaxAttempts < 1 || b.MinTotal < 0 || b.MaxTotal < 0 {
		t.Fatalf("%v: %+v", s, b)
	}
	if !b.Stops && (b.AttemptsBounded() || b.MinTotal != schedule.MaxDuration) {
		t.Fatalf("%v never stops, yet %+v", s, b)
	}
	if b.MinTotal != schedule.MaxDuration && b.MinTotal > b.MaxTotal {
		t.Fatalf("%v: %+v", s, b)
	}
}

// deterministic reports whether s draws nothing that changes a delay.
func deterministic(s schedule.Schedule) bool {
	switch s := s.(type) {
	case schedule.Jittered:
		if s.LowPPM() < s.HighPPM() {
			return false
		}
	case schedule.Decorrelated:
		return s.Cap <= s.Base
	case schedule.Random:
		return s.Lo == s.Hi
	case schedule.DecorrelatedV2:
		return false
	case schedule.ResetAfter:
		return false // Bounds holds for every pace: slow attempts reset it
	case schedule.WhileBelow:
		// Its stop depends on the timeline when its inner's delays do:
		// Bounds holds for every timeline, so it is not exact for one.
		if interp.NeedsStart(s.Inner) {
			return false
		}
	}
	a, b := schedule.Children(s)
	return (a == nil || deterministic(a)) && (b == nil || deterministic(b))
}

// randomStop reports whether s has a WhileBelow over random delays, whose
// stop then depends on the draws.
func randomStop(s schedule.Schedule) bool {
	if w, ok := s.(schedule.WhileBelow); ok && !deterministic(w.Inner) {
		return true
	}
	a, b := schedule.Children(s)
	return a != nil && randomStop(a) || b != nil && randomStop(b)
}

// TestPropBoundsExactWithoutRandomness checks that for schedules without
// random factors, whose single run is its only run, Bounds is exactly that
// run when it ends.
func TestPropBoundsExactWithoutRandomness(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := gen(t, "s")
		if !deterministic(s) {
			t.Skip("random")
		}
		attempts, total, longest, ended := simulateLongest(s, 1, 2000)
		if !ended {
			t.Skip("long run")
		}
		want := schedule.Limits{MaxAttempts: attempts, MinTotal: total, MaxTotal: total, MaxDelay: longest, Stops: true}
		if diff := cmp.Diff(want, schedule.Bounds(s)); diff != "" {
			t.Fatalf("Bounds(%v) (-run +bounds):\n%s", s, diff)
		}
	})
}

// TestPropBoundsAttemptsExactUntimed checks that for schedules without
// Spaced and UpTo, whose stops do not depend on draws, MaxAttempts is the
// number of attempts of every run.
func TestPropBoundsAttemptsExactUntimed(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := gen(t, "s")
		if interp.NeedsStart(s) {
			t.Skip("timed")
		}
		if randomStop(s) {
			t.Skip("a WhileBelow's stop depends on draws")
		}
		attempts, _, ended := simulate(s, rapid.Uint64().Draw(t, "seed"), 2000)
		b := schedule.Bounds(s)
		if ended && attempts != b.MaxAttempts || !ended && b.AttemptsBounded() && b.MaxAttempts <= 2000 {
			t.Fatalf("Bounds(%v) = %+v, a run made %d attempts (ended %v)", s, b, attempts, ended)
		}
	})
}
