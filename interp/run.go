package interp

import (
	"time"

	"github.com/recur-go/recur/schedule"
)

// Run is the state of one run of a schedule: how many decisions were made
// and the state of every node. It is a plain value: MarshalBinary saves it
// and UnmarshalBinary restores it into a Run started on the same schedule.
// Assignment shares the node state; use Clone for an independent copy.
// The zero Run runs no schedule: it stops at the first decision.
type Run struct {
	sched schedule.Schedule
	seed  uint64
	n     int64      // decisions made so far
	live  bool       // the schedule is valid and has not said stop
	whole wholeShape // the shape Next decides inline, if any
	nodes []node
}

// node is one schedule node, stored in preorder: what layout fixes and
// what its decisions change.
type node struct {
	step stepFunc // how the node decides, chosen by its variant
	p, q int64    // the variant's parameters; see layout
	key  uint64   // what the node's random draws are keyed by
	nodeState
}

// nodeState is what a node's decisions change: all that Reset clears and
// MarshalBinary saves.
type nodeState struct {
	k     int64 // the node's own decisions so far
	start int64 // the node's start, set at its first decision
	a, b  int64 // variant state; see stepFunc
}

// Start begins a run of s whose random draws derive from seed. It returns
// no error: the run of an invalid schedule (see schedule.Validate) stops at
// the first decision.
func Start(s schedule.Schedule, seed uint64) Run { return StartIn(s, seed, nil) }

// BufferNodes is how many schedule nodes a Buffer holds: enough for the
// usual policies, such as fulljitter(100ms, 30s) & times(5) (4 nodes:
// intersect, jittered, exponential, times).
const BufferNodes = 4

// Buffer is storage for the nodes of a small schedule's run, for StartIn.
// The zero Buffer is ready to use.
type Buffer struct{ nodes [BufferNodes]node }

// StartIn is Start keeping the run's nodes in buf when s has at most
// BufferNodes of them, so that a runner holding its Run and a Buffer in one
// struct starts a run without an allocation of its own. The run uses buf
// for as long as it lives: buf must not be used for another run meanwhile.
// A nil buf, or a larger schedule, allocates as Start does.
func StartIn(s schedule.Schedule, seed uint64, buf *Buffer) Run {
	r := Run{sched: s, seed: seed}
	if _, valid := Check(s); !valid { // schedule.Validate's verdict, without building its error
		return r
	}
	r.live = true
	if n := count(s); buf != nil && n <= BufferNodes {
		r.nodes = buf.nodes[:n:n]
		clear(r.nodes)
	} else {
		r.nodes = make([]node, n)
	}
	r.layout(s, 0)
	r.whole = wholeShapeOf(s)
	return r
}

// Next reports the decision after an attempt that started at start and
// ended at now, both measured from the beginning of the run: ok is false
// when the schedule stops, otherwise the next attempt should start delay
// after now. Once Next has said stop it keeps saying so.
func (r *Run) Next(start, now time.Duration) (delay time.Duration, ok bool) {
	if !r.live {
		return 0, false
	}
	st := max(int64(start), 0)
	r.n++
	if r.whole == wholeNone {
		d, ok := r.step(0, st, max(int64(now), st))
		if !ok {
			r.live = false
			return 0, false
		}
		return time.Duration(max(d, 0)), true // never negative, even from a doctored saved state
	}

	// Backoff and FullJitter, alone or & Times(n) (see wholeShape), decided
	// here because even one call costs a tenth of the time
	// (docs/benchmarks.md, Interpreter). The nodes are left as the general
	// steps leave them (TestPropWholeInline): all decide at every decision,
	// so they enter together. Only a doctored saved state could set their
	// counts apart, and then only the start of one would differ, which none
	// of them reads.
	var j, e, t *node
	if r.whole == wholeBackoffTimes {
		ns := r.nodes[:4]
		x := &ns[0]
		j, e, t = &ns[x.p&3], &ns[(x.p+1)&3], &ns[x.q&3] // &3: no bounds checks
		if x.k == 0 {
			x.start, t.start = st, st
		}
		x.k++
		t.k++
	} else {
		ns := r.nodes[:2]
		j, e = &ns[0], &ns[1]
	}
	if j.k == 0 {
		j.start, e.start = st, st
	}
	j.k++
	e.k++
	d := min(e.p, e.q) // stepExponential, written out: see stepJitteredExponential
	if e.k > 1 {
		d = scaleCap(e.a, e.key, e.q)
	}
	e.a = d
	if t != nil && t.k >= t.p {
		r.live = false
		return 0, false
	}
	return time.Duration(jitter(d, j.p, j.q, r.draw(j.key))), true // jitter is never negative
}

// Decisions returns how many decisions the run has made.
func (r *Run) Decisions() int64 { return r.n }

// Stopped reports whether the schedule has said stop.
func (r *Run) Stopped() bool { return !r.live }

// Schedule returns the schedule the run steps.
func (r *Run) Schedule() schedule.Schedule { return r.sched }

// Seed returns the run's seed.
func (r *Run) Seed() uint64 { return r.seed }

// Clone returns an independent copy of the run.
func (r *Run) Clone() Run {
	c := *r
	c.nodes = append([]node(nil), r.nodes...)
	return c
}

// count returns the number of nodes in s.
func count(s schedule.Schedule) int {
	if s == nil {
		return 0
	}
	a, b := schedule.Children(s)
	return 1 + count(a) + count(b)
}

// layout fills in the step function, parameters and key of the subtree s
// rooted at node i and returns the index after it. Parameters:
//
//	Times N → p; Spaced Every → p; Exponential Base, Cap → p, q and
//	FactorPct → key (it draws nothing), or its factor in millionths when
//	it has a fraction; Fibonacci Base → p; Decorrelated Base, Cap → p, q;
//	Jittered LowPct, HighPct → p, q, or its ends in millionths when one
//	has a fraction;
//	Capped Max → p; UpTo Budget → p; Linear Base, Step → p, q; Random
//	Lo, Hi → p, q; DecorrelatedV2 Base → p; WhileBelow Limit → p;
//	ResetAfter After → p and the index after its subtree → q; Union, Intersect, Sum, AndThen:
//	the indexes of A and B (First and Then) → p, q. The child of
//	Jittered, Capped, UpTo and WhileBelow is node i+1.
//
// A Jittered over an Exponential and an Intersect with a Times get a fused
// step; see stepJitteredExponential and stepIntersectTimes. Next decides
// the commonest whole schedules inline; see wholeShape.
func (r *Run) layout(s schedule.Schedule, i int) int {
	nd := &r.nodes[i]
	nd.key = key(s)
	swap := false // put the children's indexes in p, q the other way round
	switch s := s.(type) {
	case schedule.Times:
		nd.step, nd.p = stepTimes, int64(s.N)
	case schedule.Forever:
		nd.step = stepForever
	case schedule.Spaced:
		nd.step, nd.p = stepSpaced, int64(s.Every)
	case schedule.Exponential:
		nd.step, nd.p, nd.q, nd.key = stepExponential, int64(s.Base), int64(s.Cap), uint64(s.FactorPct)
		if s.FactorFrac != 0 {
			nd.step, nd.key = stepExponentialFine, uint64(s.FactorPPM())
		}
	case schedule.Fibonacci:
		nd.step, nd.p = stepFibonacci, int64(s.Base)
	case schedule.Decorrelated:
		nd.step, nd.p, nd.q = stepDecorrelated, int64(s.Base), int64(s.Cap)
	case schedule.Jittered:
		nd.step, nd.p, nd.q = stepJittered, int64(s.LowPct), int64(s.HighPct)
		if s.LowFrac != 0 || s.HighFrac != 0 {
			nd.step, nd.p, nd.q = stepJitteredFine, s.LowPPM(), s.HighPPM()
		} else if isJitteredExponential(s) {
			nd.step = stepJitteredExponential
		}
	case schedule.Capped:
		nd.step, nd.p = stepCapped, int64(s.Max)
	case schedule.UpTo:
		nd.step, nd.p = stepUpTo, int64(s.Budget)
	case schedule.Union:
		nd.step = stepUnion
	case schedule.Intersect:
		nd.step = stepIntersect
		_, aTimes := s.A.(schedule.Times)
		_, bTimes := s.B.(schedule.Times)
		if aTimes || bTimes {
			nd.step, swap = stepIntersectTimes, aTimes // the Times goes in q
		}
	case schedule.AndThen:
		nd.step = stepAndThen
	case schedule.Linear:
		nd.step, nd.p, nd.q = stepLinear, int64(s.Base), int64(s.Step)
	case schedule.Random:
		nd.step, nd.p, nd.q = stepRandom, int64(s.Lo), int64(s.Hi)
	case schedule.DecorrelatedV2:
		nd.step, nd.p = stepDecorrelatedV2, int64(s.Base)
	case schedule.Sum:
		nd.step = stepSum
	case schedule.WhileBelow:
		nd.step, nd.p = stepWhileBelow, int64(s.Limit)
	case schedule.ResetAfter:
		nd.step, nd.p = stepResetAfter, int64(s.After)
	}
	a, b := schedule.Children(s)
	if a == nil {
		return i + 1
	}
	j := r.layout(a, i+1)
	if b == nil {
		if _, ok := s.(schedule.ResetAfter); ok {
			r.nodes[i].q = int64(j) // the end of the subtree it resets
		}
		return j
	}
	nd.p, nd.q = int64(i+1), int64(j)
	if swap {
		nd.p, nd.q = nd.q, nd.p
	}
	return r.layout(b, j)
}

// Reset returns the run to its start with a new seed, keeping its node
// storage, so that a caller running the same schedule many times allocates
// only once.
func (r *Run) Reset(seed uint64) {
	r.seed, r.n, r.live = seed, 0, r.nodes != nil
	ns := r.nodes // a local, so the loop keeps the slice in registers
	for i := range ns {
		ns[i].nodeState = nodeState{}
	}
}
