package interp_test

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/internal/sat"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/schedule"
)

const (
	ms  = time.Millisecond
	sec = time.Second
)

// delays returns the first n delays of s for instant attempts, or fewer if
// it stops first.
func delays(s schedule.Schedule, seed uint64, n int) []time.Duration {
	var out []time.Duration
	for d := range interp.Delays(s, seed) {
		out = append(out, d)
		if len(out) == n {
			break
		}
	}
	return out
}

// event is one decision of a driven run: when the attempt started and
// ended, and what the schedule answered.
type event struct {
	Start, End time.Duration
	Delay      time.Duration
	OK         bool
}

// drive runs s with attempts that take the given durations in turn (the
// last one repeats) and returns each decision, up to max decisions.
func drive(s schedule.Schedule, seed uint64, durs []time.Duration, max int) []event {
	r := interp.Start(s, seed)
	var out []event
	var t time.Duration
	for i := 0; i < max; i++ {
		d := durs[min(i, len(durs)-1)]
		e := event{Start: t, End: t + d}
		e.Delay, e.OK = r.Next(e.Start, e.End)
		out = append(out, e)
		if !e.OK {
			break
		}
		t = e.End + e.Delay
	}
	return out
}

func TestTimelines(t *testing.T) {
	tests := []struct {
		name string
		s    schedule.Schedule
		n    int
		want []time.Duration
	}{
		{"Times(5) is five attempts: four retries", schedule.Times{N: 5}, 10, []time.Duration{0, 0, 0, 0}},
		{"Times(1) never retries", schedule.Times{N: 1}, 10, nil},
		{"Forever", schedule.Forever{}, 3, []time.Duration{0, 0, 0}},
		{"Spaced, instant attempts", schedule.Spaced{Every: 30 * sec}, 3, []time.Duration{30 * sec, 30 * sec, 30 * sec}},
		{"Exponential starts at Base, not Base·factor", schedule.Exponential{Base: 100 * ms, FactorPct: 200, Cap: 30 * sec}, 6,
			[]time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, 1600 * ms, 3200 * ms}},
		{"Exponential reaches its cap and stays", schedule.Exponential{Base: sec, FactorPct: 300, Cap: 10 * sec}, 5,
			[]time.Duration{sec, 3 * sec, 9 * sec, 10 * sec, 10 * sec}},
		{"Exponential cap below base caps the first delay", schedule.Exponential{Base: 10 * sec, FactorPct: 200, Cap: sec}, 3,
			[]time.Duration{sec, sec, sec}},
		{"Exponential 150% in integer nanoseconds", schedule.Exponential{Base: 3, FactorPct: 150, Cap: time.Hour}, 5,
			[]time.Duration{3, 4, 6, 9, 13}},
		{"Fibonacci", schedule.Fibonacci{Base: 100 * ms}, 7,
			[]time.Duration{100 * ms, 100 * ms, 200 * ms, 300 * ms, 500 * ms, 800 * ms, 1300 * ms}},
		{"Linear adds its step", schedule.Linear{Base: 500 * ms, Step: 100 * ms}, 4,
			[]time.Duration{500 * ms, 600 * ms, 700 * ms, 800 * ms}},
		{"Linear saturates", schedule.Linear{Base: schedule.MaxDuration - 1, Step: 1}, 3,
			[]time.Duration{schedule.MaxDuration - 1, schedule.MaxDuration, schedule.MaxDuration}},
		{"Sum adds the delays and stops with the first to stop", schedule.Sum{A: schedule.Linear{Base: sec, Step: sec}, B: schedule.Intersect{A: schedule.Fibonacci{Base: ms}, B: schedule.Times{N: 4}}}, 10,
			[]time.Duration{sec + ms, 2*sec + ms, 3*sec + 2*ms}},
		{"WhileBelow gives up on a wait of its limit or more", schedule.WhileBelow{Inner: schedule.Fibonacci{Base: sec}, Limit: 5 * sec}, 10,
			[]time.Duration{sec, sec, 2 * sec, 3 * sec}},
		{"Intersect takes the longer delay and the fewer attempts",
			schedule.Intersect{A: schedule.Exponential{Base: 100 * ms, FactorPct: 200, Cap: sec}, B: schedule.Intersect{A: schedule.Spaced{Every: 300 * ms}, B: schedule.Times{N: 4}}}, 10,
			[]time.Duration{300 * ms, 300 * ms, 400 * ms}},
		{"Union takes the shorter delay while either continues",
			schedule.Union{A: schedule.Intersect{A: schedule.Spaced{Every: 10 * sec}, B: schedule.Times{N: 4}}, B: schedule.Times{N: 3}}, 10,
			[]time.Duration{0, 0, 10 * sec}},
		{"AndThen(Times(3), Spaced(1m)): try hard three times, then once a minute",
			schedule.AndThen{First: schedule.Times{N: 3}, Then: schedule.Spaced{Every: time.Minute}}, 5,
			[]time.Duration{0, 0, time.Minute, time.Minute, time.Minute}},
		{"AndThen: Then decides at the decision First stops",
			schedule.AndThen{First: schedule.Intersect{A: schedule.Exponential{Base: sec, FactorPct: 200, Cap: time.Hour}, B: schedule.Times{N: 3}}, Then: schedule.Intersect{A: schedule.Fibonacci{Base: 7 * ms}, B: schedule.Times{N: 3}}}, 10,
			[]time.Duration{sec, 2 * sec, 7 * ms, 7 * ms}},
		{"UpTo allows an attempt exactly at the budget",
			schedule.UpTo{Inner: schedule.Spaced{Every: 10 * sec}, Budget: 30 * sec}, 10,
			[]time.Duration{10 * sec, 10 * sec, 10 * sec}},
		{"UpTo stops when the next start would pass the budget",
			schedule.UpTo{Inner: schedule.Exponential{Base: sec, FactorPct: 200, Cap: time.Hour}, Budget: 10 * sec}, 10,
			[]time.Duration{sec, 2 * sec, 4 * sec}},
		{"UpTo zero budget never retries after a delay",
			schedule.UpTo{Inner: schedule.Spaced{Every: sec}, Budget: 0}, 10, nil},
		{"Capped", schedule.Capped{Inner: schedule.Fibonacci{Base: sec}, Max: 2500 * ms}, 6,
			[]time.Duration{sec, sec, 2 * sec, 2500 * ms, 2500 * ms, 2500 * ms}},
		{"Jittered 100-100 is the inner schedule", schedule.Jittered{Inner: schedule.Fibonacci{Base: 3}, LowPct: 100, HighPct: 100}, 5,
			[]time.Duration{3, 3, 6, 9, 15}},
		{"Jittered 250-250 scales exactly", schedule.Jittered{Inner: schedule.Fibonacci{Base: 4 * sec}, LowPct: 250, HighPct: 250}, 3,
			[]time.Duration{10 * sec, 10 * sec, 20 * sec}},
		{"Jittered over Spaced scales the delay to the next slot", schedule.Jittered{Inner: schedule.Spaced{Every: 4 * sec}, LowPct: 250, HighPct: 250}, 3,
			[]time.Duration{10 * sec, 5 * sec, 2500 * ms}},
		{"Jittered 0-0 is no delay", schedule.Jittered{Inner: schedule.Fibonacci{Base: sec}, LowPct: 0, HighPct: 0}, 3,
			[]time.Duration{0, 0, 0}},
		{"Decorrelated with Cap equal to Base is constant", schedule.Decorrelated{Base: sec, Cap: sec}, 3,
			[]time.Duration{sec, sec, sec}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, delays(tt.s, 1, tt.n)); diff != "" {
				t.Errorf("%v delays (-want +got):\n%s", tt.s, diff)
			}
		})
	}
}

func TestSpacedDoesNotDrift(t *testing.T) {
	// Attempts of 4s on a 10s grid start at 0, 10, 20: the delay is
	// measured to the next slot, not from the end of the attempt.
	got := drive(schedule.Spaced{Every: 10 * sec}, 1, []time.Duration{4 * sec}, 3)
	want := []event{
		{Start: 0, End: 4 * sec, Delay: 6 * sec, OK: true},
		{Start: 10 * sec, End: 14 * sec, Delay: 6 * sec, OK: true},
		{Start: 20 * sec, End: 24 * sec, Delay: 6 * sec, OK: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestSpacedOverrunGoesAtOnceAndSkipsMissedSlots(t *testing.T) {
	// The first attempt takes 25s on a 10s grid: it overran slots 1 and 2,
	// so the next attempt goes at once (25s) and the one after at slot 3
	// (30s), not at 20s and 30s piled up.
	got := drive(schedule.Spaced{Every: 10 * sec}, 1, []time.Duration{25 * sec, 0}, 3)
	want := []event{
		{Start: 0, End: 25 * sec, Delay: 0, OK: true},
		{Start: 25 * sec, End: 25 * sec, Delay: 5 * sec, OK: true},
		{Start: 30 * sec, End: 30 * sec, Delay: 10 * sec, OK: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestSpacedLateWakeUpIsNotAnOverrun(t *testing.T) {
	// The runner woke 1ms late for slot 1 (10.001s). That attempt belongs to
	// slot 1; the next goes to slot 2 at 20s — slot 1 never runs twice.
	r := interp.Start(schedule.Spaced{Every: 10 * sec}, 1)
	if d, ok := r.Next(0, 0); !ok || d != 10*sec {
		t.Fatalf("first decision = %v, %v; want 10s, true", d, ok)
	}
	late := 10*sec + ms
	d, ok := r.Next(late, late)
	if !ok || d != 10*sec-ms {
		t.Errorf("after a late wake-up: %v, %v; want 9.999s, true", d, ok)
	}
}

func TestUpToCountsTheFirstAttempt(t *testing.T) {
	// The budget runs from the start of the first attempt: a 7s first attempt
	// leaves room for a retry at 7s+2s = 9s ≤ 10s but not for one at 9s+4s.
	s := schedule.UpTo{Inner: schedule.Exponential{Base: 2 * sec, FactorPct: 200, Cap: time.Hour}, Budget: 10 * sec}
	got := drive(s, 1, []time.Duration{7 * sec, 0}, 5)
	want := []event{
		{Start: 0, End: 7 * sec, Delay: 2 * sec, OK: true},
		{Start: 9 * sec, End: 9 * sec, Delay: 0, OK: false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestAndThenStartsThenAtTheAttemptThatEndedFirst(t *testing.T) {
	// Then = UpTo(Spaced(10s), 20s) starts at the start of attempt 2 (5s
	// after a 5s delay... here attempts take 1s): its grid and budget are
	// anchored there, not at the run's beginning.
	s := schedule.AndThen{First: schedule.Intersect{A: schedule.Spaced{Every: 5 * sec}, B: schedule.Times{N: 2}},
		Then: schedule.UpTo{Inner: schedule.Spaced{Every: 10 * sec}, Budget: 20 * sec}}
	got := drive(s, 1, []time.Duration{sec}, 10)
	want := []event{
		{Start: 0, End: sec, Delay: 4 * sec, OK: true},              // First: slot at 5s
		{Start: 5 * sec, End: 6 * sec, Delay: 9 * sec, OK: true},    // Then starts at 5s: slot at 15s
		{Start: 15 * sec, End: 16 * sec, Delay: 9 * sec, OK: true},  // slot at 25s = start+20s: allowed
		{Start: 25 * sec, End: 26 * sec, Delay: 0 * sec, OK: false}, // 35s is past 5s+20s
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestStopIsFinal(t *testing.T) {
	r := interp.Start(schedule.Times{N: 2}, 1)
	r.Next(0, 0)
	if _, ok := r.Next(0, 0); ok {
		t.Fatal("Times(2) continued after its second attempt")
	}
	for i := 0; i < 3; i++ {
		if d, ok := r.Next(0, 0); ok || d != 0 {
			t.Errorf("after stop: Next = %v, %v; want 0, false", d, ok)
		}
	}
	if !r.Stopped() || r.Decisions() != 2 {
		t.Errorf("Stopped = %v, Decisions = %d; want true, 2", r.Stopped(), r.Decisions())
	}
}

func TestInvalidScheduleStopsAtOnce(t *testing.T) {
	for _, s := range []schedule.Schedule{
		nil,
		schedule.Spaced{},
		schedule.Times{N: 0},
		schedule.Union{A: schedule.Forever{}},
		schedule.Jittered{Inner: schedule.Forever{}, LowPct: 50, HighPct: 10},
	} {
		r := interp.Start(s, 1)
		if d, ok := r.Next(0, 0); ok {
			t.Errorf("%v: Next = %v, true; want a stop", s, d)
		}
	}
}

// TestZeroRunStops checks that the zero Run, which has no schedule, stops
// at once and keeps stopping through Reset, Clone and a save and restore.
func TestZeroRunStops(t *testing.T) {
	var r interp.Run
	if !r.Stopped() {
		t.Error("zero Run: Stopped = false, want true")
	}
	if d, ok := r.Next(0, 0); ok || d != 0 {
		t.Errorf("zero Run: Next = %v, %v; want 0, false", d, ok)
	}
	r.Reset(7)
	c := r.Clone()
	if d, ok := c.Next(0, 0); ok || d != 0 {
		t.Errorf("zero Run after Reset and Clone: Next = %v, %v; want 0, false", d, ok)
	}
	saved, err := r.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var back interp.Run
	if err := back.UnmarshalBinary(saved); err != nil {
		t.Fatalf("restoring a saved zero Run: %v", err)
	}
	if d, ok := back.Next(0, 0); ok || d != 0 {
		t.Errorf("restored zero Run: Next = %v, %v; want 0, false", d, ok)
	}
}

func TestJitterBounds(t *testing.T) {
	s := schedule.Jittered{Inner: schedule.Exponential{Base: sec, FactorPct: 100, Cap: sec}, LowPct: 50, HighPct: 100}
	lo, hi := schedule.MaxDuration, time.Duration(0)
	for seed := uint64(0); seed < 200; seed++ {
		for _, d := range delays(s, seed, 20) {
			lo, hi = min(lo, d), max(hi, d)
		}
	}
	if lo < 500*ms || hi >= sec {
		t.Errorf("jitter range [%v, %v] outside [500ms, 1s)", lo, hi)
	}
	if lo > 510*ms || hi < 990*ms {
		t.Errorf("jitter range [%v, %v] does not cover [500ms, 1s) over 4000 draws", lo, hi)
	}
}

func TestSeedsDecorrelate(t *testing.T) {
	s := schedule.Intersect{A: schedule.Backoff(100*ms, 30*sec), B: schedule.Times{N: 5}}
	same := 0
	for seed := uint64(0); seed < 100; seed++ {
		if cmp.Equal(delays(s, seed, 10), delays(s, seed+1000, 10)) {
			same++
		}
	}
	if same != 0 {
		t.Errorf("%d of 100 seed pairs gave identical jittered delays", same)
	}
	if diff := cmp.Diff(delays(s, 7, 10), delays(s, 7, 10)); diff != "" {
		t.Errorf("same seed, different delays (-first +second):\n%s", diff)
	}
}

func TestDecorrelatedRange(t *testing.T) {
	s := schedule.Decorrelated{Base: 100 * ms, Cap: 5 * sec}
	for seed := uint64(0); seed < 100; seed++ {
		prev := 100 * ms
		for i, d := range delays(s, seed, 30) {
			if d < 100*ms || d > min(5*sec, 3*prev) {
				t.Fatalf("seed %d delay %d = %v outside [100ms, min(5s, 3·%v)]", seed, i, d, prev)
			}
			prev = d
		}
	}
}

func TestSaturation(t *testing.T) {
	for _, s := range []schedule.Schedule{
		schedule.Exponential{Base: 1, FactorPct: 1000, Cap: schedule.MaxDuration},
		schedule.Fibonacci{Base: time.Hour},
		schedule.Jittered{Inner: schedule.Exponential{Base: 1, FactorPct: 1000, Cap: schedule.MaxDuration}, LowPct: 0, HighPct: 1000},
		schedule.Decorrelated{Base: time.Hour, Cap: schedule.MaxDuration},
		schedule.Spaced{Every: schedule.MaxDuration / 3},
	} {
		t.Run(s.String(), func(t *testing.T) {
			n := 10_000_000
			if testing.Short() {
				n = 100_000
			}
			r := interp.Start(s, 42)
			var now time.Duration
			var last time.Duration
			for i := 0; i < n; i++ {
				d, ok := r.Next(now, now)
				if !ok || d < 0 {
					t.Fatalf("decision %d: %v, %v", i+1, d, ok)
				}
				last = d
				now = sat.AddDur(now, d)
			}
			if _, isSpaced := s.(schedule.Spaced); !isSpaced && last < time.Hour {
				t.Errorf("after %d decisions the delay is %v; want saturated", n, last)
			}
		})
	}
	// Exponential without jitter reaches exactly the largest Duration.
	got := delays(schedule.Exponential{Base: 1, FactorPct: 1000, Cap: schedule.MaxDuration}, 1, 30)
	if got[29] != math.MaxInt64 {
		t.Errorf("Exponential(1ns, 1000%%, max) 30th delay = %d; want %d", got[29], int64(math.MaxInt64))
	}
}

func TestMarshalResume(t *testing.T) {
	s := schedule.Intersect{
		A: schedule.Union{A: schedule.Backoff(100*ms, 30*sec), B: schedule.Decorrelated{Base: 50 * ms, Cap: 10 * sec}},
		B: schedule.UpTo{Inner: schedule.AndThen{First: schedule.Times{N: 3}, Then: schedule.Spaced{Every: sec}}, Budget: time.Hour},
	}
	durs := []time.Duration{3 * ms, 70 * ms, 2 * sec, 0, 11 * ms}
	want := drive(s, 99, durs, 40)
	for cut := 1; cut < 20; cut++ {
		r := interp.Start(s, 99)
		var got []event
		var t0 time.Duration
		step := func(r *interp.Run, i int) bool {
			d := durs[min(i, len(durs)-1)]
			e := event{Start: t0, End: t0 + d}
			e.Delay, e.OK = r.Next(e.Start, e.End)
			got = append(got, e)
			t0 = e.End + e.Delay
			return e.OK
		}
		i := 0
		for ; i < cut && step(&r, i); i++ {
		}
		data, err := r.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		resumed := interp.Start(s, 0) // the seed comes from the saved state
		if err := resumed.UnmarshalBinary(data); err != nil {
			t.Fatal(err)
		}
		if i == cut {
			for i = cut; i < 40 && step(&resumed, i); i++ {
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("resumed after %d decisions (-want +got):\n%s", cut, diff)
		}
	}
}

func TestUnmarshalRejects(t *testing.T) {
	r := interp.Start(schedule.Times{N: 3}, 1)
	r.Next(0, 0)
	data, _ := r.MarshalBinary()
	other := interp.Start(schedule.Times{N: 4}, 1)
	if err := other.UnmarshalBinary(data); err != interp.ErrMismatch {
		t.Errorf("into another schedule: err = %v; want ErrMismatch", err)
	}
	same := interp.Start(schedule.Times{N: 3}, 1)
	for _, bad := range [][]byte{nil, {1}, data[:len(data)-1], append(append([]byte{}, data...), 0), {9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}} {
		if err := same.UnmarshalBinary(bad); err == nil {
			t.Errorf("UnmarshalBinary(%x) = nil; want an error", bad)
		}
	}
	if same.Decisions() != 0 {
		t.Errorf("a failed UnmarshalBinary changed the run")
	}
}

func TestClone(t *testing.T) {
	s := schedule.Intersect{A: schedule.Fibonacci{Base: sec}, B: schedule.Times{N: 10}}
	r := interp.Start(s, 1)
	r.Next(0, 0)
	c := r.Clone()
	a1, _ := r.Next(0, 0)
	a2, _ := r.Next(0, 0)
	b1, _ := c.Next(0, 0)
	b2, _ := c.Next(0, 0)
	if a1 != b1 || a2 != b2 {
		t.Errorf("clone diverged: %v %v vs %v %v", a1, a2, b1, b2)
	}
}

func TestNegativeAndBackwardsInputs(t *testing.T) {
	// Inputs out of order are clamped; no decision is negative.
	s := schedule.Union{A: schedule.Spaced{Every: sec}, B: schedule.UpTo{Inner: schedule.Forever{}, Budget: sec}}
	r := interp.Start(s, 1)
	for _, in := range [][2]time.Duration{{-5, -10}, {3 * sec, sec}, {0, 0}, {-sec, 2 * sec}} {
		if d, _ := r.Next(in[0], in[1]); d < 0 {
			t.Errorf("Next(%v, %v) = %v", in[0], in[1], d)
		}
	}
}

func TestStepAllocatesNothing(t *testing.T) {
	var s schedule.Schedule = schedule.Intersect{A: schedule.Backoff(100*ms, 30*sec), B: schedule.Times{N: 1 << 30}}
	r := interp.Start(s, 1)
	if n := testing.AllocsPerRun(1000, func() { r.Next(0, 0) }); n != 0 {
		t.Errorf("Next allocates %v times", n)
	}
	if n := testing.AllocsPerRun(100, func() { interp.Start(s, 1) }); n > 1 {
		t.Errorf("Start allocates %v times; want at most 1", n)
	}
}

func TestResetReplays(t *testing.T) {
	s := schedule.Intersect{A: schedule.Backoff(100*ms, 30*sec), B: schedule.Times{N: 6}}
	r := interp.Start(s, 5)
	var first, second []time.Duration
	for d, ok := r.Next(0, 0); ok; d, ok = r.Next(0, 0) {
		first = append(first, d)
	}
	r.Reset(5)
	for d, ok := r.Next(0, 0); ok; d, ok = r.Next(0, 0) {
		second = append(second, d)
	}
	if diff := cmp.Diff(first, second); diff != "" || len(first) != 5 {
		t.Errorf("after Reset (-first +second):\n%s", diff)
	}
}
