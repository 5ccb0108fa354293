package interp_test

import (
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/internal/sat"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/schedule"
	"pgregory.net/rapid"
)

// These tests pin recur's row of the edge-behaviour table in
// docs/benchmarks.md ("Peers: edge behaviour"): with a cap at the largest
// Duration, delays saturate and never go negative, a delay that is due to
// be positive is never zero, jitter stays inside its range even when the
// delay it scales is near the largest Duration, and a zero base is
// rejected instead of looping without a wait.

const maxD = schedule.MaxDuration

// expo returns the k-th delay (k from 1) of Exponential{base, 200, maxD}:
// base·2^(k-1), saturating.
func expo(base time.Duration, k int64) time.Duration {
	if k-1 >= 63 {
		return maxD
	}
	return sat.MulDur(base, int64(1)<<(k-1))
}

// scale returns ⌊d·pct/100⌋, saturating.
func scale(d time.Duration, pct int) time.Duration {
	x := new(big.Int).Mul(big.NewInt(int64(d)), big.NewInt(int64(pct)))
	x.Quo(x, big.NewInt(100))
	if !x.IsInt64() {
		return maxD
	}
	return time.Duration(x.Int64())
}

// baseThenMax is the delay of an exponential whose factor is so large that
// its second delay is already the largest Duration.
func baseThenMax(base time.Duration) func(k int64) time.Duration {
	return func(k int64) time.Duration {
		if k == 1 {
			return base
		}
		return maxD
	}
}

func TestEdgeDelaysAtSteps(t *testing.T) {
	const base = 100 * time.Millisecond
	tests := []struct {
		s      schedule.Schedule
		lo, hi func(k int64) time.Duration // the k-th delay's range
		steps  int64                       // how far to step (at most 10 000 in -short)
		at     map[int64]time.Duration     // exact delays at these steps
	}{
		{
			s:     schedule.Exponential{Base: base, FactorPct: 200, Cap: maxD},
			lo:    func(k int64) time.Duration { return expo(base, k) },
			hi:    func(k int64) time.Duration { return expo(base, k) },
			steps: 10_000_000,
			at:    map[int64]time.Duration{37: base << 36, 38: maxD, 100: maxD, 10_000: maxD, 10_000_000: maxD},
		},
		{
			s:     schedule.FullJitter(base, maxD),
			lo:    func(int64) time.Duration { return 0 },
			hi:    func(k int64) time.Duration { return expo(base, k) },
			steps: 1_000_000,
		},
		{
			s:     schedule.Backoff(base, maxD),
			lo:    func(k int64) time.Duration { return scale(expo(base, k), 50) },
			hi:    func(k int64) time.Duration { return expo(base, k) },
			steps: 100_000,
		},
		{
			s:     schedule.Jittered{Inner: schedule.Exponential{Base: base, FactorPct: 200, Cap: maxD}, LowPct: 100, HighPct: 1000},
			lo:    func(k int64) time.Duration { return expo(base, k) },
			hi:    func(k int64) time.Duration { return scale(expo(base, k), 1000) },
			steps: 100_000,
			at:    map[int64]time.Duration{100: maxD, 10_000: maxD, 100_000: maxD},
		},
		{
			s:     schedule.Exponential{Base: base, FactorPct: 1 << 62, Cap: maxD},
			lo:    baseThenMax(base),
			hi:    baseThenMax(base),
			steps: 100_000,
			at:    map[int64]time.Duration{1: base, 2: maxD, 100_000: maxD},
		},
		{
			s:     schedule.Fibonacci{Base: base},
			lo:    func(int64) time.Duration { return base },
			hi:    func(int64) time.Duration { return maxD },
			steps: 100_000,
			at:    map[int64]time.Duration{1: base, 2: base, 3: 2 * base, 100: maxD, 10_000: maxD, 100_000: maxD},
		},
		{
			s:     schedule.Decorrelated{Base: base, Cap: maxD},
			lo:    func(int64) time.Duration { return base },
			hi:    func(int64) time.Duration { return maxD },
			steps: 100_000,
		},
	}
	for _, tt := range tests {
		t.Run(tt.s.String(), func(t *testing.T) {
			n := tt.steps
			if testing.Short() {
				n = min(n, 10_000)
			}
			r := interp.Start(tt.s, 7)
			var now time.Duration
			got := map[int64]time.Duration{}
			for k := int64(1); k <= n; k++ {
				d, ok := r.Next(now, now)
				if !ok {
					t.Fatalf("step %d: the schedule stopped", k)
				}
				if lo, hi := tt.lo(k), tt.hi(k); d < lo || d > hi {
					t.Fatalf("step %d: delay %v outside [%v, %v]", k, d, lo, hi)
				}
				if d <= 0 {
					t.Fatalf("step %d: delay %v; every delay of %v is due to be positive", k, d, tt.s)
				}
				if _, ok := tt.at[k]; ok {
					got[k] = d
				}
				now = sat.AddDur(now, d)
			}
			want := map[int64]time.Duration{}
			for k, d := range tt.at {
				if k <= n {
					want[k] = d
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("delays at steps (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEdgeFullJitterKeepsItsSpreadAtSaturation checks that once the inner
// delay is the largest Duration, full jitter still draws across the whole
// range instead of pinning the delay at the largest Duration.
func TestEdgeFullJitterKeepsItsSpreadAtSaturation(t *testing.T) {
	var low, high, total int
	for seed := uint64(0); seed < 20; seed++ {
		i := 0
		for d := range interp.Delays(schedule.FullJitter(100*time.Millisecond, maxD), seed) {
			i++
			if i <= 40 {
				continue // the inner delay saturates at step 38
			}
			if d < maxD/4 {
				low++
			}
			if d > maxD/4*3 {
				high++
			}
			total++
			if i == 540 {
				break
			}
		}
	}
	// Uniform draws: a quarter of 10 000 lands in each end, give or take 1%.
	if low < total/5 || high < total/5 {
		t.Errorf("of %d draws at saturation, %d were below max/4 and %d above 3·max/4; want about a quarter each", total, low, high)
	}
}

// TestPropJitterInRangeNearMax checks that a jittered delay stays within
// [Low%, High%] of the inner delay, saturating only where High% of the
// inner delay is past the largest Duration, for inner delays anywhere up
// to the largest Duration.
func TestPropJitterInRangeNearMax(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		inner := schedule.Exponential{
			Base:      interp.GenDuration().Draw(t, "base"),
			FactorPct: rapid.IntRange(100, 1000).Draw(t, "factor"),
			Cap:       interp.GenDuration().Draw(t, "cap"),
		}
		lo := rapid.IntRange(0, 1000).Draw(t, "low")
		hi := rapid.IntRange(lo, 1000).Draw(t, "high")
		seed := rapid.Uint64().Draw(t, "seed")
		j := interp.Start(schedule.Jittered{Inner: inner, LowPct: lo, HighPct: hi}, seed)
		in := interp.Start(inner, seed)
		var now time.Duration
		for k := 1; k <= 80; k++ {
			d, _ := j.Next(now, now)
			di, _ := in.Next(now, now)
			if min, max := scale(di, lo), scale(di, hi); d < min || d > max {
				t.Fatalf("step %d: jittered %v outside [%v, %v] = [%d%%, %d%%] of %v", k, d, min, max, lo, hi, di)
			}
			now = sat.AddDur(now, d)
		}
	})
}

// TestPropExponentialSaturates checks that an exponential delay starts at
// min(Base, Cap), never falls, never exceeds Cap, is never zero, and
// reaches Cap — unless the factor cannot raise it by a whole nanosecond
// (d·(FactorPct−100) < 100, in integer nanoseconds), when it stays put.
func TestPropExponentialSaturates(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := schedule.Exponential{
			Base:      interp.GenDuration().Draw(t, "base"),
			FactorPct: rapid.OneOf(rapid.IntRange(100, 1000), rapid.IntRange(1000, 1<<62)).Draw(t, "factor"),
			Cap:       interp.GenDuration().Draw(t, "cap"),
		}
		first := min(s.Base, s.Cap)
		stalls := new(big.Int).Mul(big.NewInt(int64(first)), big.NewInt(int64(s.FactorPct-100))).Cmp(big.NewInt(100)) < 0
		r := interp.Start(s, 1)
		prev := time.Duration(0)
		var now time.Duration
		for k := 1; k <= 10_000; k++ {
			d, ok := r.Next(now, now)
			switch {
			case !ok:
				t.Fatalf("step %d: stopped", k)
			case k == 1 && d != first:
				t.Fatalf("first delay %v, want min(Base, Cap) = %v", d, first)
			case d <= 0 || d < prev || d > s.Cap:
				t.Fatalf("step %d: delay %v after %v; want in (0, Cap %v] and not falling", k, d, prev, s.Cap)
			case stalls && d != first:
				t.Fatalf("step %d: delay %v; %v·%d%% rounds down to itself, so it should stay", k, d, first, s.FactorPct)
			}
			if d == s.Cap {
				return
			}
			prev = d
			now = sat.AddDur(now, d)
		}
		if !stalls {
			t.Fatalf("%v did not reach its cap in 10 000 steps (last delay %v)", s, prev)
		}
	})
}

// TestEdgeZeroBaseIsRejected checks that a zero base or cap, which other
// libraries accept and turn into a retry loop with no wait, is an error
// naming the node, and that a run of such a schedule stops at once.
func TestEdgeZeroBaseIsRejected(t *testing.T) {
	tests := []struct {
		s    schedule.Schedule
		path string
		msg  string
	}{
		{schedule.Exponential{Base: 0, FactorPct: 200, Cap: 10 * time.Second}, "Exponential", "base 0s is not positive"},
		{schedule.Exponential{Base: 100 * time.Millisecond, FactorPct: 200, Cap: 0}, "Exponential", "cap 0s is not positive"},
		{schedule.FullJitter(0, 10*time.Second), "Jittered.Inner.Exponential", "base 0s is not positive"},
		{schedule.Backoff(0, 10*time.Second), "Jittered.Inner.Exponential", "base 0s is not positive"},
		{schedule.Fibonacci{Base: 0}, "Fibonacci", "base 0s is not positive"},
		{schedule.Decorrelated{Base: 0, Cap: 10 * time.Second}, "Decorrelated", "base 0s is not positive"},
		{schedule.Spaced{Every: 0}, "Spaced", "every 0s is not positive"},
		{schedule.Exponential{Base: -time.Second, FactorPct: 200, Cap: 10 * time.Second}, "Exponential", "base -1s is not positive"},
	}
	for _, tt := range tests {
		t.Run(tt.s.String(), func(t *testing.T) {
			err := schedule.Validate(tt.s)
			var se *schedule.Error
			if !errors.As(err, &se) {
				t.Fatalf("Validate = %v; want a *schedule.Error", err)
			}
			if diff := cmp.Diff([]string{tt.path, tt.msg}, []string{se.Path, se.Msg}); diff != "" {
				t.Errorf("error path and message (-want +got):\n%s", diff)
			}
			r := interp.Start(tt.s, 1)
			if d, ok := r.Next(0, 0); ok {
				t.Errorf("Next = %v, true; an invalid schedule must stop, not retry", d)
			}
		})
	}
}
