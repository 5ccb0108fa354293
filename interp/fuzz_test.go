package interp_test

import (
	"testing"
	"time"

	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/schedule"
)

// FuzzUnmarshalBinary feeds arbitrary saved states to a run: they are
// rejected or resumed, and a resumed run never panics and never answers a
// negative delay.
func FuzzUnmarshalBinary(f *testing.F) {
	s := schedule.Union{
		A: schedule.Intersect{A: schedule.Backoff(100*time.Millisecond, 30*time.Second), B: schedule.Times{N: 5}},
		B: schedule.AndThen{First: schedule.Capped{Inner: schedule.Fibonacci{Base: time.Second}, Max: time.Minute}, Then: schedule.UpTo{Inner: schedule.Spaced{Every: time.Second}, Budget: time.Hour}},
	}
	for k := 0; k < 4; k++ {
		r := interp.Start(s, uint64(k))
		for i := 0; i < k*3; i++ {
			r.Next(time.Duration(i)*time.Second, time.Duration(i)*time.Second)
		}
		data, _ := r.MarshalBinary()
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := interp.Start(s, 0)
		if err := r.UnmarshalBinary(data); err != nil {
			return
		}
		var now time.Duration
		for i := 0; i < 50; i++ {
			d, ok := r.Next(now, now+time.Millisecond)
			if d < 0 {
				t.Fatalf("decision %d after resuming %x: negative delay %v", i, data, d)
			}
			if !ok {
				return
			}
			now = schedule.AddSat(now+time.Millisecond, d)
		}
	})
}
