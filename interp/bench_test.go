package interp_test

import (
	"testing"
	"time"

	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/schedule"
)

var sink time.Duration

// composite20 is a 20-node schedule using every variant.
var composite20 schedule.Schedule = schedule.UpTo{
	Inner: schedule.AndThen{
		First: schedule.Intersect{
			A: schedule.Union{A: schedule.Backoff(100*ms, 30*sec), B: schedule.Decorrelated{Base: 50 * ms, Cap: 10 * sec}},
			B: schedule.Times{N: 5},
		},
		Then: schedule.Capped{
			Inner: schedule.Intersect{
				A: schedule.Union{A: schedule.Fibonacci{Base: sec}, B: schedule.Jittered{Inner: schedule.Spaced{Every: 10 * sec}, LowPct: 90, HighPct: 110}},
				B: schedule.Intersect{A: schedule.Forever{}, B: schedule.FullJitter(sec, time.Minute)},
			},
			Max: time.Minute,
		},
	},
	Budget: 1 << 62,
}

func benchDecisions(b *testing.B, s schedule.Schedule) {
	r := interp.Start(s, 1)
	var now time.Duration
	b.ReportAllocs()
	for b.Loop() {
		d, ok := r.Next(now, now)
		if !ok {
			r.Reset(r.Seed() + 1)
			now = 0
			continue
		}
		now += d
		sink = d
	}
}

// BenchmarkDecision measures one decision. Times(5) stops every fifth
// decision; the run is then Reset (that cost is included).
func BenchmarkDecision(b *testing.B) {
	b.Run("backoff&times5", func(b *testing.B) {
		benchDecisions(b, schedule.Intersect{A: schedule.Backoff(100*ms, 30*sec), B: schedule.Times{N: 5}})
	})
	b.Run("exponential", func(b *testing.B) {
		benchDecisions(b, schedule.Exponential{Base: 100 * ms, FactorPct: 200, Cap: 30 * sec})
	})
	b.Run("composite20", func(b *testing.B) { benchDecisions(b, composite20) })
}

// BenchmarkStart measures starting a run: validation and the one
// allocation of node state.
func BenchmarkStart(b *testing.B) {
	for _, c := range []struct {
		name string
		s    schedule.Schedule
	}{
		{"backoff&times5", schedule.Intersect{A: schedule.Backoff(100*ms, 30*sec), B: schedule.Times{N: 5}}},
		{"composite20", composite20},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r := interp.Start(c.s, 1)
				sink = time.Duration(r.Decisions())
			}
		})
	}
}
