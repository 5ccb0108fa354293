package interp

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/internal/sat"
	"github.com/recur-go/recur/schedule"
	"pgregory.net/rapid"
)

// The reference interpreter below is the plain recursive reading of
// the step model (docs/schedules.md), walking the schedule tree itself. Run is written for speed;
// TestPropMatchesReference checks that it makes exactly the decisions of
// this one, so that an optimisation can never change a delay.

// refNode is the state of one node of the reference interpreter.
type refNode struct {
	s        schedule.Schedule
	a, b     *refNode // the children, as schedule.Children returns them
	k, start int64
	stA, stB int64 // variant state, as in step's comment
	stoppedA bool  // Union: A stopped; AndThen: First stopped
	stoppedB bool  // Union: B stopped
}

func newRef(s schedule.Schedule) *refNode {
	if s == nil {
		return nil
	}
	a, b := schedule.Children(s)
	return &refNode{s: s, a: newRef(a), b: newRef(b)}
}

// clear returns the subtree to its state before any decision.
func (nd *refNode) clear() {
	if nd == nil {
		return
	}
	nd.k, nd.start, nd.stA, nd.stB, nd.stoppedA, nd.stoppedB = 0, 0, 0, 0, false, false
	nd.a.clear()
	nd.b.clear()
}

// refRun is a run of the reference interpreter.
type refRun struct {
	root    *refNode
	seed, n uint64
}

func (r *refRun) draw(nd *refNode) uint64 {
	return mix(r.seed + key(nd.s) + r.n*0x9e3779b97f4a7c15)
}

func (r *refRun) step(nd *refNode, st, now int64) (int64, bool) {
	if nd.k == 0 {
		nd.start = st
	}
	nd.k++
	switch s := nd.s.(type) {
	case schedule.Times:
		return 0, nd.k < int64(s.N)
	case schedule.Forever:
		return 0, true
	case schedule.Spaced:
		every := int64(s.Every)
		if c := (st - nd.start) / every; c > nd.stA {
			nd.stA = c
		}
		next := sat.Mul(nd.stA+1, every) // from the node's start
		if elapsed := now - nd.start; next > elapsed {
			return next - elapsed, true
		}
		return 0, true
	case schedule.Exponential:
		if nd.k == 1 {
			nd.stA = min(int64(s.Base), int64(s.Cap))
		} else {
			if s.FactorFrac != 0 {
				nd.stA = scaleCapPPM(nd.stA, uint64(s.FactorPPM()), int64(s.Cap))
			} else {
				nd.stA = scaleCap(nd.stA, uint64(s.FactorPct), int64(s.Cap))
			}
		}
		return nd.stA, true
	case schedule.Fibonacci:
		if nd.k == 1 {
			nd.stA, nd.stB = 0, int64(s.Base)
		} else {
			nd.stA, nd.stB = nd.stB, sat.Add(nd.stA, nd.stB)
		}
		return nd.stB, true
	case schedule.Decorrelated:
		prev := nd.stA
		if nd.k == 1 {
			prev = int64(s.Base)
		}
		lo, hi := int64(s.Base), sat.Mul(prev, 3)
		if hi < lo {
			lo, hi = hi, lo
		}
		nd.stA = min(int64(s.Cap), lo+uniform(r.draw(nd), hi-lo))
		return nd.stA, true
	case schedule.Jittered:
		d, ok := r.step(nd.a, st, now)
		if !ok {
			return 0, false
		}
		if s.LowFrac != 0 || s.HighFrac != 0 {
			return jitterPPM(d, s.LowPPM(), s.HighPPM(), r.draw(nd)), true
		}
		return jitter(d, int64(s.LowPct), int64(s.HighPct), r.draw(nd)), true
	case schedule.Linear:
		if nd.k == 1 {
			nd.stA = int64(s.Base)
		} else {
			nd.stA = sat.Add(nd.stA, int64(s.Step))
		}
		return nd.stA, true
	case schedule.Random:
		return int64(s.Lo) + uniform(r.draw(nd), int64(s.Hi-s.Lo)), true
	case schedule.DecorrelatedV2:
		d, next := s.Step(nd.k, float64(r.draw(nd)>>11)/(1<<53), math.Float64frombits(uint64(nd.stA)))
		nd.stA = int64(math.Float64bits(next))
		return int64(d), true
	case schedule.ResetAfter:
		if nd.k == 1 {
			nd.stB = now
		} else if now-nd.stB >= int64(s.After) {
			nd.a.clear()
			nd.stB = now
		}
		return r.step(nd.a, st, now)
	case schedule.WhileBelow:
		d, ok := r.step(nd.a, st, now)
		if !ok || d >= int64(s.Limit) {
			return 0, false
		}
		return d, true
	case schedule.Sum:
		da, oka := r.step(nd.a, st, now)
		db, okb := r.step(nd.b, st, now)
		return sat.Add(da, db), oka && okb
	case schedule.Capped:
		d, ok := r.step(nd.a, st, now)
		return min(d, int64(s.Max)), ok
	case schedule.UpTo:
		d, ok := r.step(nd.a, st, now)
		if !ok || sat.Add(now-nd.start, d) > int64(s.Budget) {
			return 0, false
		}
		return d, true
	case schedule.Union:
		var da, db int64
		var oka, okb bool
		if !nd.stoppedA {
			da, oka = r.step(nd.a, st, now)
			nd.stoppedA = !oka
		}
		if !nd.stoppedB {
			db, okb = r.step(nd.b, st, now)
			nd.stoppedB = !okb
		}
		switch {
		case oka && okb:
			return min(da, db), true
		case oka:
			return da, true
		case okb:
			return db, true
		}
		return 0, false
	case schedule.Intersect:
		da, oka := r.step(nd.a, st, now)
		db, okb := r.step(nd.b, st, now)
		return max(da, db), oka && okb
	case schedule.AndThen:
		if !nd.stoppedA {
			if d, ok := r.step(nd.a, st, now); ok {
				return d, true
			}
			nd.stoppedA = true
		}
		return r.step(nd.b, st, now)
	}
	panic("unknown variant")
}

// refDecisions drives the reference interpreter like Run.Next: attempts
// take durs in turn and the next starts when the delay ends.
func refDecisions(s schedule.Schedule, seed uint64, durs []time.Duration, limit int) []refDecision {
	r := refRun{root: newRef(s), seed: seed}
	var out []refDecision
	var t time.Duration
	for i := 0; i < limit; i++ {
		end := sat.AddDur(t, durs[i%len(durs)])
		r.n++
		d, ok := r.step(r.root, int64(t), int64(end))
		if !ok {
			return append(out, refDecision{})
		}
		out = append(out, refDecision{time.Duration(max(d, 0)), true})
		t = sat.AddDur(end, time.Duration(d))
	}
	return out
}

// runDecisions drives Run the same way.
func runDecisions(s schedule.Schedule, seed uint64, durs []time.Duration, limit int) []refDecision {
	r := Start(s, seed)
	var out []refDecision
	var t time.Duration
	for i := 0; i < limit; i++ {
		end := sat.AddDur(t, durs[i%len(durs)])
		d, ok := r.Next(t, end)
		out = append(out, refDecision{d, ok})
		if !ok {
			return out
		}
		t = sat.AddDur(end, d)
	}
	return out
}

type refDecision struct {
	Delay time.Duration
	OK    bool
}

func TestPropMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := GenSchedule().Draw(t, "s")
		seed := rapid.Uint64().Draw(t, "seed")
		durs := GenDurations(40).Draw(t, "durs")
		want, got := refDecisions(s, seed, durs, 200), runDecisions(s, seed, durs, 200)
		if !slices.Equal(want, got) { // cmp.Diff is slow: only for the message
			t.Fatalf("%v: (-reference +Run):\n%s", s, cmp.Diff(want, got))
		}
	})
}
