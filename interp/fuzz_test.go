package interp_test

import (
	"testing"
	"time"

	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/schedule"
)

// FuzzUnmarshalBinary feeds arbitrary saved states to a run: they are
// rejected or resumed, and a resumed run never panics and never answers a
// negative delay. It tries each state on two schedules: one with every
// kind of node, and Backoff & Times(n), which Next decides inline.
func FuzzUnmarshalBinary(f *testing.F) {
	backoffTimes := schedule.Intersect{A: schedule.Backoff(100*time.Millisecond, 30*time.Second), B: schedule.Times{N: 5}}
	scheds := []schedule.Schedule{
		schedule.Union{
			A: backoffTimes,
			B: schedule.AndThen{First: schedule.Capped{Inner: schedule.Fibonacci{Base: time.Second}, Max: time.Minute}, Then: schedule.UpTo{Inner: schedule.Spaced{Every: time.Second}, Budget: time.Hour}},
		},
		backoffTimes,
	}
	for _, s := range scheds {
		for k := 0; k < 4; k++ {
			r := interp.Start(s, uint64(k))
			for i := 0; i < k*3; i++ {
				r.Next(time.Duration(i)*time.Second, time.Duration(i)*time.Second)
			}
			data, _ := r.MarshalBinary()
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, s := range scheds {
			r := interp.Start(s, 0)
			if err := r.UnmarshalBinary(data); err != nil {
				continue
			}
			var now time.Duration
			for i := 0; i < 50; i++ {
				d, ok := r.Next(now, now+time.Millisecond)
				if d < 0 {
					t.Fatalf("%v: decision %d after resuming %x: negative delay %v", s, i, data, d)
				}
				if !ok {
					break
				}
				now = schedule.AddSat(now+time.Millisecond, d)
			}
		}
	})
}
