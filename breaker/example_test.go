package breaker_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/verdict"
)

// A breaker around a call: Allow before, Record after, and fail fast when
// it refuses.
func Example() {
	clock := clockcap.Virtual(time.Now())
	b, err := breaker.New(breaker.Config{Name: "inventory", Clock: clock})
	if err != nil {
		panic(err)
	}
	down := true
	fetch := func() error {
		p, err := b.Allow()
		if err != nil {
			return err // open: do not call, do not retry
		}
		if down {
			b.Record(&p, verdict.Transient)
			return errors.New("connection refused")
		}
		b.Record(&p, verdict.Success)
		return nil
	}
	for i := range 7 {
		err := fetch()
		fmt.Printf("call %d: %v (open: %v)\n", i+1, err, errors.Is(err, breaker.ErrOpen))
	}
	down = false
	clock.Advance(5 * time.Second)
	fmt.Println("5s later:", fetch(), b.State())
	// Output:
	// call 1: connection refused (open: false)
	// call 2: connection refused (open: false)
	// call 3: connection refused (open: false)
	// call 4: connection refused (open: false)
	// call 5: connection refused (open: false)
	// call 6: breaker inventory: circuit open, an opening of 5s (open: true)
	// call 7: breaker inventory: circuit open, an opening of 5s (open: true)
	// 5s later: <nil> closed
}

// An outage, minute by minute: the open duration doubles with each failed
// probe, up to its cap, and starts again from 5 s after the breaker
// closes.
func Example_outage() {
	clock := clockcap.Virtual(time.Now())
	b, _ := breaker.New(breaker.Config{Clock: clock, OnStateChange: func(_ string, from, to breaker.State) {
		fmt.Printf("t=%-6v %v -> %v\n", clock.Elapsed(), from, to)
	}})
	upAt := 100 * time.Second
	for clock.Elapsed() < 3*time.Minute {
		if p, err := b.Allow(); err == nil {
			if clock.Elapsed() < upAt {
				b.Record(&p, verdict.Transient)
			} else {
				b.Record(&p, verdict.Success)
			}
		}
		clock.Advance(time.Second) // one call a second
	}
	fmt.Println(b.Stats().Opened, "openings,", b.Stats().Rejected, "calls refused")
	// Output:
	// t=4s     closed -> open
	// t=9s     open -> half-open
	// t=9s     half-open -> open
	// t=19s    open -> half-open
	// t=19s    half-open -> open
	// t=39s    open -> half-open
	// t=39s    half-open -> open
	// t=1m19s  open -> half-open
	// t=1m19s  half-open -> open
	// t=2m19s  open -> half-open
	// t=2m19s  half-open -> closed
	// 5 openings, 130 calls refused
}

// Operators can force a breaker open during an incident, turn it off, and
// close it again.
func ExampleBreaker_ForceOpen() {
	b, _ := breaker.New(breaker.Config{Name: "payments"})
	b.ForceOpen()
	_, err := b.Allow()
	fmt.Println(err)
	b.Reset()
	_, err = b.Allow()
	fmt.Println(err, b.State())
	// Output:
	// breaker payments: circuit forced open
	// <nil> closed
}

// A registry keeps one breaker per target.
func ExampleRegistry() {
	r, _ := breaker.NewRegistry(breaker.Config{ConsecutiveFailures: 2}, 0)
	for range 2 {
		p, _ := r.Get("https://a.example:443").Allow()
		r.Get("https://a.example:443").Record(&p, verdict.Transient)
	}
	for target, b := range r.All() {
		fmt.Println(target, b.State(), b.Stats().Failures)
	}
	_, err := r.Get("https://a.example:443").Allow()
	fmt.Println(err)
	// Output:
	// https://a.example:443 open 2
	// breaker https://a.example:443: circuit open, an opening of 5s
}

// An OpenError tells how long until the breaker lets a call through, which
// a server can pass on as Retry-After.
func ExampleOpenError_Remaining() {
	clock := clockcap.Virtual(time.Now())
	b, _ := breaker.New(breaker.Config{ConsecutiveFailures: 1, Clock: clock})
	p, _ := b.Allow()
	b.Record(&p, verdict.Failure)
	clock.Advance(2 * time.Second)
	_, err := b.Allow()
	var oe *breaker.OpenError
	if errors.As(err, &oe) {
		d, _ := oe.Remaining(clock.Now())
		fmt.Println("Retry-After:", d)
	}
	// Output:
	// Retry-After: 3s
}

// A breaker that behaves as Resilience4j's default one: it judges the last
// 100 calls once there are 100, and opens at a 50% failure rate.
func ExampleResilience4jDefaults() {
	c := breaker.Resilience4jDefaults()
	c.Name, c.Clock = "payments", clockcap.Virtual(time.Now())
	b, err := breaker.New(c)
	if err != nil {
		panic(err)
	}
	for i := range 100 {
		p, _ := b.Allow()
		v := verdict.Success
		if i%2 == 0 {
			v = verdict.Transient
		}
		b.Record(&p, v)
	}
	_, err = b.Allow()
	fmt.Println(err)
	// Output:
	// breaker payments: circuit open, an opening of 1m0s
}

// TripWhen replaces the built-in rules with a predicate over the window's
// counts, as gobreaker's ReadyToTrip does: here, open once at least 3
// calls were made and 60% of them failed.
func ExampleConfig_tripWhen() {
	b, err := breaker.New(breaker.Config{
		Clock: clockcap.Virtual(time.Now()),
		TripWhen: func(c breaker.Counts) bool {
			return c.Calls >= 3 && c.Failures*10 >= c.Calls*6
		},
	})
	if err != nil {
		panic(err)
	}
	for _, v := range []verdict.Verdict{verdict.Failure, verdict.Success, verdict.Failure} {
		p, _ := b.Allow()
		b.Record(&p, v)
		fmt.Println(b.State())
	}
	// Output:
	// closed
	// closed
	// open
}

// MetricsOnly counts outcomes without acting on them: a way to watch what
// a breaker would do before letting it refuse calls.
func ExampleBreaker_MetricsOnly() {
	b, err := breaker.New(breaker.Config{Clock: clockcap.Virtual(time.Now())})
	if err != nil {
		panic(err)
	}
	b.MetricsOnly()
	for range 10 {
		p, _ := b.Allow()
		b.Record(&p, verdict.Transient)
	}
	st := b.Stats()
	fmt.Println(st.State, st.Failures)
	// Output:
	// metrics-only 10
}
