package clockcap_test

import (
	"context"
	"fmt"
	"time"

	"github.com/recur-go/recur/clockcap"
)

// A virtual clock makes a test of code that sleeps run at once: each Sleep
// moves the clock and is recorded, so the test reads the waits instead of
// waiting them.
func ExampleVirtual() {
	start := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	clock := clockcap.Virtual(start)
	ctx := context.Background()
	for _, d := range []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond} {
		if err := clock.Sleep(ctx, d); err != nil {
			fmt.Println(err)
			return
		}
	}
	clock.Advance(time.Second) // an attempt that took a second: not a sleep
	fmt.Println(clock.Sleeps())
	fmt.Println(clock.Elapsed(), clock.Now().Format(time.TimeOnly))

	// With a deadline, start the clock at time.Now(), which package context
	// compares the deadline with, and take the deadline from the clock. A
	// sleep past it stops at the deadline.
	now := clockcap.Virtual(time.Now())
	dctx, cancel := context.WithDeadline(ctx, now.Now().Add(time.Second))
	defer cancel()
	fmt.Println(now.Sleep(dctx, time.Minute), now.Elapsed())
	// Output:
	// [100ms 200ms 400ms]
	// 1.7s 09:00:01
	// context deadline exceeded 1s
}

// A manual clock moves only when the test says so: a goroutine that sleeps
// on it blocks until the test advances the clock past its wake-up time.
func ExampleManual() {
	clock := clockcap.Manual(time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC))
	ctx := context.Background()
	woke := make(chan time.Time)
	go func() {
		if err := clock.Sleep(ctx, 5*time.Second); err != nil {
			fmt.Println(err)
		}
		woke <- clock.Now()
	}()
	if err := clock.WaitSleepers(ctx, 1); err != nil { // the goroutine is asleep
		fmt.Println(err)
		return
	}
	clock.Advance(3 * time.Second)
	fmt.Println("after 3s:", clock.Sleepers(), "asleep")
	clock.Advance(2 * time.Second)
	fmt.Println("woke at", (<-woke).Format(time.TimeOnly))
	fmt.Println("after 5s:", clock.Sleepers(), "asleep")
	// Output:
	// after 3s: 1 asleep
	// woke at 09:00:05
	// after 5s: 0 asleep
}
