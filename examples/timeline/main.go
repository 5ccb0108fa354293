// Command timeline prints the delays of the README's policy —
// back off from 100ms up to 30s with 50–100% jitter, at most five attempts —
// for one fixed seed.
package main

import (
	"fmt"
	"time"

	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/schedule"
)

func main() {
	s := schedule.Intersect{A: schedule.Backoff(100*time.Millisecond, 30*time.Second), B: schedule.Times{N: 5}}
	fmt.Println(s)
	attempt := 1
	var total time.Duration
	for d := range interp.Delays(s, 1) {
		total += d
		fmt.Printf("attempt %d failed; wait %v (total %v)\n", attempt, d.Round(time.Millisecond), total.Round(time.Millisecond))
		attempt++
	}
	fmt.Printf("attempt %d failed; give up\n", attempt)
}
