package storm_test

import (
	"context"
	"testing"
	"time"

	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/storm"
)

// The blog's policies: base 5ms, cap 2s; its exponential's first delay is
// 2·base, as expo(1) = 2¹·base.
var (
	none        = schedule.Forever{}
	exponential = schedule.Exponential{Base: 10 * time.Millisecond, FactorPct: 200, Cap: 2 * time.Second}
	equal       = schedule.Jittered{Inner: exponential, LowPct: 50, HighPct: 100}
	full        = schedule.Jittered{Inner: exponential, LowPct: 0, HighPct: 100}
	decorr      = schedule.Decorrelated{Base: 5 * time.Millisecond, Cap: 2 * time.Second}
)

func TestReproducesTheBlogsOrdering(t *testing.T) {
	cfg := storm.Config{Clients: 50, Runs: 30, Seed: 1}
	if testing.Short() {
		cfg.Runs = 10
	}
	r := map[string]storm.Result{}
	for name, s := range map[string]schedule.Schedule{"none": none, "exponential": exponential, "equal": equal, "full": full, "decorr": decorr} {
		r[name] = simulate(t, s, cfg)
		t.Logf("%-12s calls %8.1f  time %v", name, r[name].Calls, r[name].Time)
	}
	// Without backoff the last client finishes soonest, at the price of
	// the most work per unit of time.
	if r["none"].Time >= r["full"].Time {
		t.Errorf("no backoff time %v ≥ full jitter time %v", r["none"].Time, r["full"].Time)
	}
	// Exponential without jitter does the most work of the backoffs.
	for _, j := range []string{"equal", "full", "decorr"} {
		if r["exponential"].Calls <= r[j].Calls {
			t.Errorf("exponential calls %.1f ≤ %s calls %.1f", r["exponential"].Calls, j, r[j].Calls)
		}
	}
	if r["full"].Calls >= r["equal"].Calls {
		t.Errorf("full jitter calls %.1f ≥ equal jitter calls %.1f", r["full"].Calls, r["equal"].Calls)
	}
	if r["decorr"].Time >= r["full"].Time {
		t.Errorf("decorrelated time %v ≥ full jitter time %v", r["decorr"].Time, r["full"].Time)
	}
	if r["decorr"].Calls <= r["full"].Calls {
		t.Errorf("decorrelated calls %.1f ≤ full jitter calls %.1f", r["decorr"].Calls, r["full"].Calls)
	}
}

func TestDeterministic(t *testing.T) {
	cfg := storm.Config{Clients: 20, Runs: 5, Seed: 7}
	a, b := simulate(t, full, cfg), simulate(t, full, cfg)
	if a != b {
		t.Errorf("same config, different results: %+v vs %+v", a, b)
	}
}

func TestGivingUp(t *testing.T) {
	// Three attempts each and no delay: some of 10 clients must give up,
	// each after exactly three writes; a winner made one to three.
	r := simulate(t, schedule.Times{N: 3}, storm.Config{Clients: 10, Runs: 1, Seed: 1})
	if r.GaveUp < 1 || r.GaveUp > 7 {
		t.Errorf("GaveUp = %v; want 1..7", r.GaveUp)
	}
	winners := 10 - r.GaveUp
	if r.Calls < 3*r.GaveUp+winners || r.Calls > 30 {
		t.Errorf("Calls = %v with %v giving up; want %v..30", r.Calls, r.GaveUp, 3*r.GaveUp+winners)
	}
}

func TestCut(t *testing.T) {
	r := simulate(t, none, storm.Config{Clients: 100, Runs: 1, MaxCalls: 500})
	if r.Cut != 1 || r.Calls != 500 {
		t.Errorf("Cut = %d, Calls = %v; want 1, 500", r.Cut, r.Calls)
	}
}

// simulate runs storm.Simulate and fails the test on an error.
func simulate(t *testing.T, s schedule.Schedule, cfg storm.Config) storm.Result {
	t.Helper()
	r, err := storm.Simulate(context.Background(), s, cfg)
	if err != nil {
		t.Fatalf("Simulate(%v, %+v): %v", s, cfg, err)
	}
	return r
}
