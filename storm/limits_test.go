package storm_test

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/storm"
)

// Every field out of its range is an error that names it, before any
// work: Clients = MaxInt used to panic in makeslice, and 10⁸ clients ran
// out of memory.
func TestValidateRejects(t *testing.T) {
	tests := []struct {
		cfg  storm.Config
		want string
	}{
		{storm.Config{Clients: math.MaxInt, Runs: 1}, "storm: invalid Config: Clients 9223372036854775807 is above the maximum 10000 (MaxClients)"},
		{storm.Config{Clients: 100_000_000, Runs: 1}, "storm: invalid Config: Clients 100000000 is above the maximum 10000 (MaxClients)"},
		{storm.Config{Clients: -1}, "storm: invalid Config: Clients -1 is negative"},
		{storm.Config{Runs: -1}, "storm: invalid Config: Runs -1 is negative"},
		{storm.Config{MaxCalls: -1}, "storm: invalid Config: MaxCalls -1 is negative"},
		{storm.Config{Runs: math.MaxInt}, "storm: invalid Config: Runs 9223372036854775807 is above the maximum 10000 (MaxRuns)"},
		{storm.Config{Clients: 10_000, Runs: 101}, "storm: invalid Config: Clients 10000 × Runs 101 = 1010000 write calls at the least, above the maximum 1000000 (MaxWork)"},
		{storm.Config{Runs: 1, MaxCalls: 10_000_000}, "storm: invalid Config: Runs 1 × MaxCalls 10000000 is above the maximum 1000000 write calls (MaxWork)"},
		{storm.Config{MaxCalls: math.MaxInt}, "storm: invalid Config: Runs 100 × MaxCalls 9223372036854775807 is above the maximum 1000000 write calls (MaxWork)"},
		{storm.Config{NetMean: -time.Second}, "storm: invalid Config: NetMean -1s is negative"},
		{storm.Config{NetSD: -time.Second}, "storm: invalid Config: NetSD -1s is negative"},
		{storm.Config{NetMean: time.Hour + 1}, "storm: invalid Config: NetMean 1h0m0.000000001s is above the maximum 1h0m0s (MaxNetDelay)"},
		{storm.Config{NetSD: math.MaxInt64}, "storm: invalid Config: NetSD 2562047h47m16.854775807s is above the maximum 1h0m0s (MaxNetDelay)"},
	}
	for _, tt := range tests {
		err := tt.cfg.Validate()
		if err == nil {
			t.Errorf("%+v: Validate() = nil; want %q", tt.cfg, tt.want)
			continue
		}
		if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
			t.Errorf("%+v: Validate() (-want +got):\n%s", tt.cfg, diff)
		}
		if !errors.Is(err, storm.ErrConfig) {
			t.Errorf("%+v: Validate() = %v; does not wrap ErrConfig", tt.cfg, err)
		}
		r, err2 := storm.Simulate(context.Background(), schedule.Times{N: 2}, tt.cfg)
		if err2 == nil || err2.Error() != err.Error() || r != (storm.Result{}) {
			t.Errorf("%+v: Simulate = %+v, %v; want the zero Result and %v", tt.cfg, r, err2, err)
		}
	}
}

func TestValidateAccepts(t *testing.T) {
	for _, cfg := range []storm.Config{
		{},
		{Clients: storm.MaxClients, Runs: storm.MaxWork / storm.MaxClients},
		{Clients: 1, Runs: storm.MaxRuns, MaxCalls: storm.MaxWork / storm.MaxRuns},
		{Runs: 1, MaxCalls: storm.MaxWork, NetMean: storm.MaxNetDelay, NetSD: storm.MaxNetDelay},
	} {
		if err := cfg.Validate(); err != nil {
			t.Errorf("%+v: Validate() = %v; want nil", cfg, err)
		}
	}
}

// A schedule larger than MaxNodes is refused, and so are more node states
// than MaxStates: each client keeps one per node.
func TestScheduleSize(t *testing.T) {
	// 128 leaves joined by 127 Intersects, in a Capped: 256 nodes.
	var s schedule.Schedule = schedule.Times{N: 3}
	for range 127 {
		s = schedule.Intersect{A: s, B: schedule.Forever{}}
	}
	s = schedule.Capped{Inner: s, Max: time.Second}
	tests := []struct {
		s    schedule.Schedule
		cfg  storm.Config
		want string
	}{
		{s, storm.Config{Clients: storm.MaxStates / storm.MaxNodes, Runs: 1}, ""},
		{s, storm.Config{Clients: storm.MaxStates/storm.MaxNodes + 1, Runs: 1}, "storm: invalid Config: Clients 1025 × 256 schedule nodes = 262400 node states, above the maximum 262144 (MaxStates)"},
		{schedule.Capped{Inner: s, Max: time.Second}, storm.Config{Clients: 1, Runs: 1}, "storm: invalid Config: the schedule has more than 256 nodes (MaxNodes)"},
		{full, storm.Config{Clients: storm.MaxClients, Runs: 1, MaxCalls: 1}, ""},
	}
	for _, tt := range tests {
		err := storm.Check(tt.s, tt.cfg)
		got := ""
		if err != nil {
			got = err.Error()
			if !errors.Is(err, storm.ErrConfig) {
				t.Errorf("Check(%.40v…, %+v) = %v; does not wrap ErrConfig", tt.s, tt.cfg, err)
			}
		}
		if got != tt.want {
			t.Errorf("Check(%.40v…, %+v) = %q; want %q", tt.s, tt.cfg, got, tt.want)
		}
		if _, err := storm.Simulate(context.Background(), tt.s, tt.cfg); got != "" && (err == nil || err.Error() != got) {
			t.Errorf("Simulate(%.40v…, %+v) = %v; want %q", tt.s, tt.cfg, err, got)
		}
	}
}

// Forever with many clients makes about Clients²/2 write calls a run
// (20000 clients: 2·10⁸ a run, half an hour for 100 runs); all runs
// together now stop at MaxWork.
func TestWorkBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("a million write calls")
	}
	r, err := storm.Simulate(context.Background(), schedule.Forever{}, storm.Config{Clients: 2000, Runs: 10})
	if err != nil {
		t.Fatal(err)
	}
	want := storm.Result{Clients: 2000, Runs: 10, Calls: storm.MaxWork / 10, Cut: 10, Attempts: storm.MaxWork / 10 / 2000.0}
	if diff := cmp.Diff(want, r, cmp.FilterPath(func(p cmp.Path) bool {
		return p.Last().String() == ".Time"
	}, cmp.Ignore())); diff != "" {
		t.Errorf("Simulate (-want +got):\n%s", diff)
	}
}

// Cancelled between runs, Simulate returns the runs made so far: the same
// numbers as a Config with only those runs, marked Partial.
func TestCancelBetweenRuns(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var seen []storm.Progress
	cfg := storm.Config{Clients: 20, Runs: 10, Seed: 3, Progress: func(p storm.Progress) {
		seen = append(seen, p)
		if p.Run == 3 {
			cancel()
		}
	}}
	got, err := storm.Simulate(ctx, full, cfg)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v; want context.Canceled", err)
	}
	if want := "storm: stopped after 3 of 10 runs: context canceled"; err.Error() != want {
		t.Errorf("err = %q; want %q", err, want)
	}
	want, err := storm.Simulate(context.Background(), full, storm.Config{Clients: 20, Runs: 3, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	want.Partial = true
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cancelled after 3 runs (-want +got):\n%s", diff)
	}
	if len(seen) != 3 || seen[2].Run != 3 || seen[2].Runs != 10 || seen[0].Calls <= 0 || seen[2].Calls <= seen[1].Calls {
		t.Errorf("progress = %+v; want runs 1, 2, 3 of 10 with growing calls", seen)
	}
}

// Cancelled in the middle of a long run, Simulate stops within
// ProgressEvery write calls and counts the run it was in as cut.
func TestCancelWithinRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var seen []storm.Progress
	cfg := storm.Config{Clients: 1000, Runs: 1, Progress: func(p storm.Progress) {
		seen = append(seen, p)
		cancel()
	}}
	got, err := storm.Simulate(ctx, none, cfg)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v; want context.Canceled", err)
	}
	if got.Runs != 1 || got.Cut != 1 || !got.Partial || got.Calls != 2*storm.ProgressEvery {
		t.Errorf("Simulate = %+v; want 1 run, cut and partial, at %d calls", got, 2*storm.ProgressEvery)
	}
	want := []storm.Progress{{Run: 0, Runs: 1, Calls: storm.ProgressEvery}}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
}

// A context done before Simulate begins gives no runs and no NaN.
func TestCancelledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got, err := storm.Simulate(ctx, full, storm.Config{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v; want context.Canceled", err)
	}
	if diff := cmp.Diff(storm.Result{Clients: 100, Partial: true}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
