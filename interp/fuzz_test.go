package interp_test

import (
	"math"
	"math/bits"
	"testing"
	"time"

	"github.com/recur-go/recur/internal/sat"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/parse"
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
				now = sat.AddDur(now+time.Millisecond, d)
			}
		}
	})
}

// resumePolicies are the schedules FuzzResume starts from: every variant,
// the policies callers write, and those whose doctored states used to
// defeat them.
var resumePolicies = []string{
	"times(5)",
	"backoff(100ms, 30s) & times(5)",
	"fulljitter(100ms, 10s)",
	"spaced(1s)",
	"upto(forever, 1m)",
	"spaced(10s) upto 35s",
	"forever",
	"exponential(1s, 150%, 1m) | times(3)",
	"fibonacci(10ms) & times(40)",
	"decorrelated(50ms, 10s) & times(9)",
	"capped(fibonacci(1s), 1m) then spaced(1s) upto 1h",
	"times(3) then (backoff(1s, 10s) & times(4)) then times(2)",
	"jittered(spaced(10s), 90%, 110%) | (decorrelated(1s, 1m) & times(3))",
	"(times(2) | spaced(5s) upto 20s) & backoff(100ms, 1s)",
}

// FuzzResume checks that a resumed run never outlives its schedule: for a
// schedule parsed from the input and any saved state UnmarshalBinary
// accepts, a run stepped with attempts of any length, from any time on,
// that waits at least the delays it is given, keeps within
// schedule.Bounds. Its decisions in all stay within MaxAttempts; no delay
// is negative or longer than the longest one the schedule's nodes can
// give (maxDelay); without Spaced and UpTo, whose decisions do not depend
// on the timeline, the waits add up to at most MaxTotal; and an UpTo at
// the root stops once its budget from the first attempt is spent.
//
// The state's first 9 bytes, version and fingerprint, are the schedule's,
// so that the fuzzer spends its time on the state itself.
func FuzzResume(f *testing.F) {
	for i, p := range resumePolicies {
		s, err := parse.Parse(p)
		if err != nil {
			f.Fatalf("%q: %v", p, err)
		}
		for k := 0; k < 7; k += 3 {
			r := interp.Start(s, uint64(i))
			for j := 0; j < k; j++ {
				r.Next(time.Duration(j)*time.Second, time.Duration(j)*time.Second+time.Millisecond)
			}
			data, _ := r.MarshalBinary()
			f.Add(p, data[9:], int64(k)*int64(time.Second), []byte{0, 0, 0x41, 0x82, 0x20, 0xe1})
		}
	}
	f.Fuzz(func(t *testing.T, policy string, state []byte, origin int64, steps []byte) {
		s, err := parse.Parse(policy)
		if err != nil || size(s) > 64 {
			return
		}
		fresh := interp.Start(s, 0)
		head, _ := fresh.MarshalBinary()
		r := interp.Start(s, 0)
		if r.UnmarshalBinary(append(head[:9:9], state...)) != nil {
			return
		}
		l := schedule.Bounds(s)
		most, longest := int64(l.MaxAttempts), maxDelay(s)
		if max(l.MaxTotal, schedule.MaxDelayAnyPace(s)) >= schedule.MaxDuration/2 {
			most = math.MaxInt64 // see Run.checkState: the clock may stand still at the end of time
		}
		upTo, rootUpTo := s.(schedule.UpTo)
		clock := time.Duration(max(origin, 0))
		first, total := clock, time.Duration(0)
		for i := 0; i < 300 && !r.Stopped(); i++ {
			var dur, late time.Duration
			if len(steps) > 0 {
				dur, late = fuzzDuration(steps[2*i%len(steps)]), fuzzDuration(steps[(2*i+1)%len(steps)])
			}
			start, end := clock, sat.AddDur(clock, dur)
			d, ok := r.Next(start, end)
			n := r.Decisions()
			switch {
			case d < 0 || d > longest:
				t.Fatalf("%v decision %d: delay %v outside [0, %v]", s, n, d, longest)
			case n > most || ok && n >= most:
				t.Fatalf("%v decision %d went on %v; Bounds allows %d attempts", s, n, ok, most)
			case ok && rootUpTo && sat.AddDur(end, d) > sat.AddDur(first, upTo.Budget):
				t.Fatalf("%v decision %d: next attempt at %v, past the budget from %v", s, n, sat.AddDur(end, d), first)
			}
			if !ok {
				break
			}
			if total = sat.AddDur(total, d); untimed(s) && total > l.MaxTotal {
				t.Fatalf("%v decision %d: waited %v since resuming; Bounds allows %v", s, n, total, l.MaxTotal)
			}
			clock = sat.AddDur(sat.AddDur(end, d), late)
		}
	})
}

// fuzzDuration maps a byte to a duration of one of eight scales, from
// none to the largest.
func fuzzDuration(b byte) time.Duration {
	v := time.Duration(b & 31)
	switch b >> 5 {
	case 0:
		return 0
	case 1:
		return v
	case 2:
		return v * time.Millisecond
	case 3:
		return v * 100 * time.Millisecond
	case 4:
		return v * time.Second
	case 5:
		return v * time.Minute
	case 6:
		return v * time.Hour
	}
	return schedule.MaxDuration - v
}

// size returns the number of nodes of s.
func size(s schedule.Schedule) int {
	a, b := schedule.Children(s)
	if a == nil {
		return 1
	}
	if b == nil {
		return 1 + size(a)
	}
	return 1 + size(a) + size(b)
}

// untimed reports whether s has no Spaced and no UpTo node.
func untimed(s schedule.Schedule) bool {
	switch s.(type) {
	case schedule.Spaced, schedule.UpTo:
		return false
	}
	a, b := schedule.Children(s)
	return (a == nil || untimed(a)) && (b == nil || untimed(b))
}

// maxDelay returns the longest delay any node of s can give, attempts
// taking any time: a Spaced slot comes within a period of the attempt's
// start, an UpTo's delay fits in its budget, an Exponential and a
// Decorrelated are capped, a Fibonacci is not.
func maxDelay(s schedule.Schedule) time.Duration {
	switch s := s.(type) {
	case schedule.Times, schedule.Forever:
		return 0
	case schedule.Spaced:
		return s.Every
	case schedule.Exponential:
		return s.Cap
	case schedule.Decorrelated:
		return s.Cap
	case schedule.Fibonacci:
		return schedule.MaxDuration
	case schedule.Jittered:
		hi, lo := bits.Mul64(uint64(maxDelay(s.Inner)), uint64(s.HighPPM()))
		if hi >= 1_000_000 {
			return schedule.MaxDuration
		}
		q, _ := bits.Div64(hi, lo, 1_000_000)
		return time.Duration(min(q, math.MaxInt64))
	case schedule.Capped:
		return min(maxDelay(s.Inner), s.Max)
	case schedule.UpTo:
		return min(maxDelay(s.Inner), s.Budget)
	case schedule.Linear:
		if s.Step == 0 {
			return s.Base
		}
		return schedule.MaxDuration
	case schedule.Random:
		return s.Hi
	case schedule.DecorrelatedV2:
		return schedule.MaxDuration
	case schedule.Sum:
		return sat.AddDur(maxDelay(s.A), maxDelay(s.B))
	case schedule.WhileBelow:
		return min(maxDelay(s.Inner), s.Limit-1)
	case schedule.ResetAfter:
		return maxDelay(s.Inner)
	}
	a, b := schedule.Children(s)
	return max(maxDelay(a), maxDelay(b))
}
