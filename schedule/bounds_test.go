package schedule_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/schedule"
	"pgregory.net/rapid"
)

// TestBounds checks exact limits worked out by hand. Soundness against
// simulated runs is TestPropBounds in package interp.
func TestBounds(t *testing.T) {
	const (
		ms   = time.Millisecond
		sec  = time.Second
		none = schedule.MaxDuration
		many = math.MaxInt
	)
	backoff := schedule.Backoff(100*ms, 30*sec)
	tests := []struct {
		name string
		s    schedule.Schedule
		want schedule.Limits
	}{
		{"Times(1)", times{1}, schedule.Limits{1, 0, 0, 0, true}},
		{"Times(5)", times{5}, schedule.Limits{5, 0, 0, 0, true}},
		{"huge Times", times{math.MaxInt}, schedule.Limits{math.MaxInt, 0, 0, 0, true}},
		{"Forever never stops, never waits", forever{}, schedule.Limits{many, none, 0, 0, false}},
		{"Spaced", spaced{sec}, schedule.Limits{many, none, none, sec, false}},
		// 50+100+200+400 ms at least, 100+200+400+800 at most.
		{"backoff & times", intersect{backoff, times{5}}, schedule.Limits{5, 750 * ms, 1500 * ms, 800 * ms, true}},
		// 1, 2, 4, 8, 16, 32 s, then 60 s for the other 999 993 decisions.
		{"huge Times skipped", intersect{expo{sec, 200, time.Minute, 0}, times{1_000_000}}, schedule.Limits{1_000_000, 59_999_643 * sec, 59_999_643 * sec, time.Minute, true}},
		// 100ms each at least; 300ms, 900ms, 2.7s, 8.1s, 10s at most.
		{"Decorrelated", intersect{schedule.Decorrelated{Base: 100 * ms, Cap: 10 * sec}, times{6}}, schedule.Limits{6, 500 * ms, 22 * sec, 10 * sec, true}},
		// fib: 1 1 2 3 5 8 13 s, capped at 5 s.
		{"Capped Fibonacci", intersect{capped{schedule.Fibonacci{Base: sec}, 5 * sec}, times{8}}, schedule.Limits{8, 22 * sec, 22 * sec, 5 * sec, true}},
		{"full jitter", intersect{jittered{expo{sec, 100, sec, 0}, 0, 100, 0, 0}, times{4}}, schedule.Limits{4, 0, 3 * sec, sec, true}},
		// A cap of 5m is never reached in two waits: 100ms, then 200ms.
		{"cap out of reach", intersect{schedule.FullJitter(100*ms, 5*time.Minute), times{3}}, schedule.Limits{3, 0, 300 * ms, 200 * ms, true}},
		{"jitter above 100%", intersect{jittered{expo{sec, 100, sec, 0}, 50, 150, 0, 0}, times{3}}, schedule.Limits{3, sec, 3 * sec, 1500 * ms, true}},
		// Two decisions at min(0, 1s), then 1s twice.
		{"Union of untimed", union{times{3}, intersect{expo{sec, 100, sec, 0}, times{5}}}, schedule.Limits{5, 2 * sec, 2 * sec, sec, true}},
		{"UpTo Spaced", upTo{spaced{10 * sec}, 35 * sec}, schedule.Limits{4, 30 * sec, 30 * sec, 10 * sec, true}},
		{"UpTo Spaced exactly at the budget", upTo{spaced{10 * sec}, 30 * sec}, schedule.Limits{4, 30 * sec, 30 * sec, 10 * sec, true}},
		{"UpTo zero", upTo{spaced{10 * sec}, 0}, schedule.Limits{1, 0, 0, 0, true}},
		{"UpTo a run of a billion tiny delays", upTo{expo{1, 100, 1, 0}, time.Hour}, schedule.Limits{3_600_000_000_001, time.Hour, time.Hour, 1, true}},
		// Least delays 50ms·2ᵏ, capped at 15s, add up past 1m after 11
		// decisions. A run can stop on the budget no sooner than the
		// 10th decision, whose delay reaches 30s, at a time past 30s.
		{"UpTo backoff", upTo{backoff, time.Minute}, schedule.Limits{12, 30*sec + 1, time.Minute, 30 * sec, true}},
		{"UpTo Forever stops in time, not in attempts", upTo{forever{}, time.Minute}, schedule.Limits{many, none, 0, 0, true}},
		{"UpTo an UpTo", upTo{upTo{spaced{10 * sec}, time.Hour}, 35 * sec}, schedule.Limits{4, 30 * sec, 30 * sec, 10 * sec, true}},
		{"UpTo a Spaced grid", upTo{intersect{spaced{sec}, times{100}}, 10 * sec}, schedule.Limits{11, 10 * sec, 10 * sec, sec, true}},
		{"AndThen then Spaced", andThen{times{3}, spaced{time.Minute}}, schedule.Limits{many, none, none, time.Minute, false}},
		{"AndThen then UpTo backoff", andThen{times{3}, upTo{backoff, time.Minute}}, schedule.Limits{14, 30*sec + 1, time.Minute, 30 * sec, true}},
		{"UpTo then Times", andThen{upTo{spaced{10 * sec}, 35 * sec}, times{3}}, schedule.Limits{6, 30 * sec, 30 * sec, 10 * sec, true}},
		{"UpTo backoff then UpTo Spaced", andThen{upTo{backoff, time.Minute}, upTo{spaced{10 * sec}, 35 * sec}}, schedule.Limits{15, 60*sec + 1, 90 * sec, 30 * sec, true}},
		// Three decisions at once while Times(3) goes on, then 10s apart
		// from 0s to 60s.
		{"Union with an UpTo, no randomness", union{upTo{spaced{10 * sec}, time.Minute}, times{3}}, schedule.Limits{9, time.Minute, time.Minute, 10 * sec, true}},
		// Spaced stays on its grid, 15 slots per decision.
		{"Spaced inside a slower Intersect", intersect{intersect{spaced{2 * ms}, expo{30 * ms, 100, 30 * ms, 0}}, times{1_000_000}}, schedule.Limits{1_000_000, 999_999 * 30 * ms, 999_999 * 30 * ms, 30 * ms, true}},
		{"Union that never stops", union{upTo{spaced{sec}, 10 * sec}, backoff}, schedule.Limits{many, none, none, 30 * sec, false}},
		{"invalid stops at once", times{0}, schedule.Limits{1, 0, 0, 0, true}},
		{"nil stops at once", nil, schedule.Limits{1, 0, 0, 0, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, schedule.Bounds(tt.s)); diff != "" {
				t.Errorf("Bounds(%v) (-want +got):\n%s", tt.s, diff)
			}
		})
	}
}

func TestStops(t *testing.T) {
	tests := []struct {
		s    schedule.Schedule
		want bool
	}{
		{times{3}, true},
		{spaced{time.Second}, false},
		{upTo{forever{}, time.Minute}, true},
		{upTo{forever{}, schedule.MaxDuration}, false},
		{union{times{3}, spaced{time.Second}}, false},
		{intersect{times{3}, spaced{time.Second}}, true},
		{andThen{times{3}, spaced{time.Second}}, false},
		{times{0}, true}, // invalid: stops at its first decision
	}
	for _, tt := range tests {
		if got := schedule.Stops(tt.s); got != tt.want {
			t.Errorf("Stops(%v) = %v; want %v", tt.s, got, tt.want)
		}
	}
}

func TestLimitsBounded(t *testing.T) {
	tests := []struct {
		l                 schedule.Limits
		attempts, waiting bool
	}{
		{schedule.Limits{MaxAttempts: 5, MaxTotal: time.Second}, true, true},
		{schedule.Limits{MaxAttempts: math.MaxInt, MaxTotal: 0}, false, true},
		{schedule.Limits{MaxAttempts: 3, MaxTotal: schedule.MaxDuration}, true, false},
	}
	for _, tt := range tests {
		if got := tt.l.AttemptsBounded(); got != tt.attempts {
			t.Errorf("%+v.AttemptsBounded() = %v", tt.l, got)
		}
		if got := tt.l.TotalBounded(); got != tt.waiting {
			t.Errorf("%+v.TotalBounded() = %v", tt.l, got)
		}
	}
}

// TestPropBoundsUpTo checks what an UpTo at the root always guarantees.
func TestPropBoundsUpTo(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genSchedule().Draw(t, "s")
		budget := genDuration().Draw(t, "budget")
		if budget == schedule.MaxDuration {
			budget-- // a budget of MaxDuration saturates: no bound
		}
		b := schedule.Bounds(schedule.UpTo{Inner: s, Budget: budget})
		if !b.Stops || b.MaxTotal > budget {
			t.Fatalf("Bounds(UpTo(%v, %v)) = %+v", s, budget, b)
		}
	})
}

// TestPropBoundsSimplified checks that Bounds does not depend on the
// spelling of a schedule, and is consistent in itself.
func TestPropBoundsSimplified(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genSchedule().Draw(t, "s")
		b := schedule.Bounds(s)
		if diff := cmp.Diff(b, schedule.Bounds(schedule.Simplify(s))); diff != "" {
			t.Fatalf("Bounds(%v) (-s +simplified):\n%s", s, diff)
		}
		if !b.Stops && (b.AttemptsBounded() || b.MinTotal != schedule.MaxDuration) {
			t.Fatalf("Bounds(%v) = %+v", s, b)
		}
		if b.MinTotal != schedule.MaxDuration && b.MinTotal > b.MaxTotal {
			t.Fatalf("Bounds(%v) = %+v", s, b)
		}
		if b.MaxDelay < 0 || b.MaxDelay > b.MaxTotal || b.MaxAttempts == 1 && b.MaxDelay != 0 {
			t.Fatalf("Bounds(%v) = %+v", s, b)
		}
		if got := schedule.Stops(s); got != b.Stops {
			t.Fatalf("Stops(%v) = %v; Bounds says %+v", s, got, b)
		}
	})
}

func ExampleBounds() {
	for _, s := range []schedule.Schedule{
		schedule.Intersect{A: schedule.Backoff(100*time.Millisecond, 30*time.Second), B: schedule.Times{N: 5}},
		schedule.UpTo{Inner: schedule.Spaced{Every: 10 * time.Second}, Budget: 35 * time.Second},
		schedule.AndThen{First: schedule.Times{N: 3}, Then: schedule.Spaced{Every: time.Minute}},
	} {
		b := schedule.Bounds(s)
		fmt.Println(s)
		if !b.Stops {
			fmt.Println("  never stops")
			continue
		}
		fmt.Printf("  at most %d attempts, waiting %v to %v, at most %v at once\n", b.MaxAttempts, b.MinTotal, b.MaxTotal, b.MaxDelay)
	}
	// Output:
	// Intersect(Jittered(Exponential(100ms, 200%, 30s), 50%, 100%), Times(5))
	//   at most 5 attempts, waiting 750ms to 1.5s, at most 800ms at once
	// UpTo(Spaced(10s), 35s)
	//   at most 4 attempts, waiting 30s to 30s, at most 10s at once
	// AndThen(Times(3), Spaced(1m0s))
	//   never stops
}
