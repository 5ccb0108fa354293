package schedule_test

import (
	"fmt"
	"time"

	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/schedule"
)

// first prints up to n delays of s for attempts that take no time, seed 1,
// and whether the schedule stopped.
func first(s schedule.Schedule, n int) {
	fmt.Println(s)
	var out []time.Duration
	stopped := true
	for d := range interp.Delays(s, 1) {
		if len(out) == n {
			stopped = false
			break
		}
		out = append(out, d.Round(time.Millisecond))
	}
	if stopped {
		fmt.Println(out, "stop")
	} else {
		fmt.Println(out, "…")
	}
}

func ExampleTimes() {
	first(schedule.Times{N: 3}, 10)
	// Output:
	// Times(3)
	// [0s 0s] stop
}

func ExampleSpaced() {
	first(schedule.Spaced{Every: 30 * time.Second}, 4)
	// Output:
	// Spaced(30s)
	// [30s 30s 30s 30s] …
}

func ExampleExponential() {
	first(schedule.Exponential{Base: 100 * time.Millisecond, FactorPct: 200, Cap: time.Second}, 6)
	// Output:
	// Exponential(100ms, 200%, 1s)
	// [100ms 200ms 400ms 800ms 1s 1s] …
}

func ExampleFibonacci() {
	first(schedule.Fibonacci{Base: 100 * time.Millisecond}, 6)
	// Output:
	// Fibonacci(100ms)
	// [100ms 100ms 200ms 300ms 500ms 800ms] …
}

func ExampleJittered() {
	// A constant 1s delay, each scaled by a random 50–100%.
	first(schedule.Jittered{Inner: schedule.Exponential{Base: time.Second, FactorPct: 100, Cap: time.Second}, LowPct: 50, HighPct: 100}, 4)
	// Output:
	// Jittered(Exponential(1s, 100%, 1s), 50%, 100%)
	// [618ms 900ms 883ms 869ms] …
}

func ExampleUnion() {
	// Three quick tries, or a minute's worth of 20-second polls: whichever
	// wants to go sooner goes, until both have stopped.
	first(schedule.Union{
		A: schedule.Times{N: 4},
		B: schedule.UpTo{Inner: schedule.Spaced{Every: 20 * time.Second}, Budget: time.Minute},
	}, 10)
	// Output:
	// Union(Times(4), UpTo(Spaced(20s), 1m0s))
	// [0s 0s 0s 20s 20s 20s] stop
}

func ExampleIntersect() {
	first(schedule.Intersect{A: schedule.Exponential{Base: time.Second, FactorPct: 200, Cap: time.Minute}, B: schedule.Times{N: 5}}, 10)
	// Output:
	// Intersect(Exponential(1s, 200%, 1m0s), Times(5))
	// [1s 2s 4s 8s] stop
}

func ExampleAndThen() {
	// Try hard three times, then keep trying once a minute.
	first(schedule.AndThen{First: schedule.Times{N: 3}, Then: schedule.Spaced{Every: time.Minute}}, 5)
	// Output:
	// AndThen(Times(3), Spaced(1m0s))
	// [0s 0s 1m0s 1m0s 1m0s] …
}

func ExampleUpTo() {
	// Back off, but start no attempt later than 10s after the first began.
	first(schedule.UpTo{Inner: schedule.Exponential{Base: time.Second, FactorPct: 200, Cap: time.Minute}, Budget: 10 * time.Second}, 10)
	// Output:
	// UpTo(Exponential(1s, 200%, 1m0s), 10s)
	// [1s 2s 4s] stop
}

func ExampleForever() {
	first(schedule.Forever{}, 3)
	// Output:
	// Forever
	// [0s 0s 0s] …
}

func ExampleCapped() {
	first(schedule.Capped{Inner: schedule.Fibonacci{Base: time.Second}, Max: 4 * time.Second}, 7)
	// Output:
	// Capped(Fibonacci(1s), 4s)
	// [1s 1s 2s 3s 4s 4s 4s] …
}

func ExampleDecorrelated() {
	first(schedule.Decorrelated{Base: 100 * time.Millisecond, Cap: 2 * time.Second}, 6)
	// Output:
	// Decorrelated(100ms, 2s)
	// [243ms 593ms 1.139s 1.431s 2s 1.189s] …
}

func ExampleBackoff() {
	first(schedule.Intersect{A: schedule.Backoff(100*time.Millisecond, 30*time.Second), B: schedule.Times{N: 5}}, 10)
	// Output:
	// Intersect(Jittered(Exponential(100ms, 200%, 30s), 50%, 100%), Times(5))
	// [62ms 180ms 353ms 695ms] stop
}

func ExampleFullJitter() {
	first(schedule.Intersect{A: schedule.FullJitter(100*time.Millisecond, 30*time.Second), B: schedule.Times{N: 5}}, 10)
	// Output:
	// Intersect(Jittered(Exponential(100ms, 200%, 30s), 0%, 100%), Times(5))
	// [66ms 185ms 226ms 262ms] stop
}

func ExampleValidate() {
	s := schedule.Intersect{A: schedule.Jittered{Inner: schedule.Spaced{Every: time.Second}, LowPct: 120, HighPct: 100}, B: schedule.Times{N: 5}}
	fmt.Println(schedule.Validate(s))
	// Output:
	// Intersect.A.Jittered: low 120% above high 100%
}

func ExampleGoString() {
	s := schedule.Intersect{A: schedule.Backoff(100*time.Millisecond, 30*time.Second), B: schedule.Times{N: 5}}
	fmt.Printf("%#v\n", s)
	// Output:
	// schedule.Intersect{A: schedule.Jittered{Inner: schedule.Exponential{Base: 100*time.Millisecond, FactorPct: 200, Cap: 30*time.Second}, LowPct: 50, HighPct: 100}, B: schedule.Times{N: 5}}
}

// The first wait alone: how long the first retry waits at least and at
// most, and whether there is one.
func ExampleFirstWait() {
	for _, s := range []schedule.Schedule{
		schedule.Backoff(100*time.Millisecond, 30*time.Second),
		schedule.FullJitter(100*time.Millisecond, 30*time.Second),
		schedule.Times{N: 1},
	} {
		f := schedule.FirstWait(s)
		fmt.Printf("%v: retries %v, first wait %v to %v\n", s, f.MaxAttempts == 2, f.MinTotal, f.MaxTotal)
	}
	// Output:
	// Jittered(Exponential(100ms, 200%, 30s), 50%, 100%): retries true, first wait 50ms to 100ms
	// Jittered(Exponential(100ms, 200%, 30s), 0%, 100%): retries true, first wait 0s to 100ms
	// Times(1): retries false, first wait 0s to 0s
}

// Instant attempts keep the Spaced side of this Union going and every wait
// at 1ms; attempts of a second end it at once and leave the Backoff side's
// waits, up to its cap.
func ExampleMaxDelayAnyPace() {
	s := schedule.Union{
		A: schedule.UpTo{Inner: schedule.Spaced{Every: time.Millisecond}, Budget: 5 * time.Millisecond},
		B: schedule.Intersect{A: schedule.Backoff(time.Second, time.Minute), B: schedule.Times{N: 6}},
	}
	fmt.Println(schedule.Bounds(s).MaxDelay, schedule.MaxDelayAnyPace(s))
	// Output:
	// 1ms 1m0s
}
