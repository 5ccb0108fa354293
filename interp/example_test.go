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
