package interp_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/schedule"
)

// A job queue saves a run between attempts and resumes it later with the
// same decisions. A saved state that the schedule could not have produced
// is refused, with an error that names the field.
func ExampleRun_UnmarshalBinary() {
	s := schedule.Intersect{A: schedule.Exponential{Base: time.Second, FactorPct: 200, Cap: time.Minute}, B: schedule.Times{N: 3}}
	r := interp.Start(s, 42)
	r.Next(0, 0) // the first attempt failed: wait 1s
	saved, _ := r.MarshalBinary()

	resumed := interp.Start(s, 0) // the seed comes from the saved state
	if err := resumed.UnmarshalBinary(saved); err != nil {
		fmt.Println(err)
		return
	}
	for {
		d, ok := resumed.Next(0, 0)
		if !ok {
			break
		}
		fmt.Println("wait", d)
	}
	fmt.Println("decisions:", resumed.Decisions())

	// The last four bytes are the Times node's count, start and state.
	doctored := append([]byte(nil), saved...)
	doctored[len(doctored)-4] = 18 // a count of 9, in varint encoding
	again := interp.Start(s, 0)
	err := again.UnmarshalBinary(doctored)
	fmt.Println(errors.Is(err, interp.ErrInvalidState), err)
	// Output:
	// wait 2s
	// decisions: 3
	// true interp: state: node 2 (Times): k 9 exceeds N 3
}

// A run is stepped by hand: start it, tell it when each attempt began and
// ended, and it answers the wait before the next attempt, or stop. Between
// two attempts the run is saved, as a job queue would, and a fresh Run
// resumes from the saved bytes with the same decisions.
func Example() {
	s := schedule.UpTo{Inner: schedule.Spaced{Every: 10 * time.Second}, Budget: 35 * time.Second}
	r := interp.Start(s, 1)
	var start time.Duration
	end := start + 2*time.Second // the first attempt took 2s and failed
	d, ok := r.Next(start, end)
	fmt.Println("attempt 1:", d, ok)

	saved, err := r.MarshalBinary()
	if err != nil {
		fmt.Println(err)
		return
	}
	resumed := interp.Start(s, 0)
	if err := resumed.UnmarshalBinary(saved); err != nil {
		fmt.Println(err)
		return
	}
	for n := 2; ; n++ {
		start = end + d
		end = start + 2*time.Second
		if d, ok = resumed.Next(start, end); !ok {
			fmt.Printf("attempt %d at %v: stop\n", n, start)
			break
		}
		fmt.Printf("attempt %d at %v: wait %v\n", n, start, d)
	}
	// Output:
	// attempt 1: 8s true
	// attempt 2 at 10s: wait 8s
	// attempt 3 at 20s: wait 8s
	// attempt 4 at 30s: stop
}

// A runner that keeps a run in a struct of its own keeps the run's nodes
// there too, so that starting a run of a small schedule costs no
// allocation beyond the struct's.
func ExampleStartIn() {
	type call struct {
		run   interp.Run
		nodes interp.Buffer
	}
	c := &call{}
	s := schedule.Intersect{A: schedule.Exponential{Base: 100 * time.Millisecond, FactorPct: 200, Cap: time.Second}, B: schedule.Times{N: 4}}
	c.run = interp.StartIn(s, 0, &c.nodes)
	for {
		d, ok := c.run.Next(0, 0)
		if !ok {
			break
		}
		fmt.Println(d)
	}
	// Output:
	// 100ms
	// 200ms
	// 400ms
}
