package interp

import (
	"iter"
	"time"

	"github.com/recur-go/recur/internal/sat"
	"github.com/recur-go/recur/schedule"
)

// Delays returns the delays of a run of s with the given seed whose
// attempts take no time: each attempt starts when the previous delay ends.
// The sequence ends when the schedule stops; for a schedule that never
// stops it is infinite, so range over it with a bound.
func Delays(s schedule.Schedule, seed uint64) iter.Seq[time.Duration] {
	return func(yield func(time.Duration) bool) {
		r := Start(s, seed)
		var t time.Duration
		for {
			d, ok := r.Next(t, t)
			if !ok || !yield(d) {
				return
			}
			t = sat.AddDur(t, d)
		}
	}
}
