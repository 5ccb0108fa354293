package interp

import (
	"time"

	"github.com/recur-go/recur/schedule"
)

// Run is the state of one run of a schedule: how many decisions were made
// and the state of every node. It is a plain value: MarshalBinary saves it
// and UnmarshalBinary restores it into a Run started on the same schedule.
// Assignment shares the node state; use Clone for an independent copy.
type Run struct {
	sched schedule.Schedule
	seed  uint64
	n     int64 // decisions made so far
	done  bool
	nodes []node
}

// node is the state of one schedule node, stored in preorder.
type node struct {
	size  int32  // nodes in this subtree, itself included
	key   uint64 // what the node's random draws are keyed by
	k     int64  // the node's own decisions so far
	start int64  // the node's start, set at its first decision
	a, b  int64  // variant state; see step
}

// Start begins a run of s whose random draws derive from seed. It does not
// validate s: an invalid schedule (see schedule.Validate) stops at the first
// decision.
func Start(s schedule.Schedule, seed uint64) Run {
	r := Run{sched: s, seed: seed}
	if schedule.Validate(s) != nil {
		r.done = true
		return r
	}
	r.nodes = make([]node, count(s))
	r.layout(s, 0)
	return r
}

// Next reports the decision after an attempt that started at start and
// ended at now, both measured from the beginning of the run: ok is false
// when the schedule stops, otherwise the next attempt should start delay
// after now. Once Next has said stop it keeps saying so.
func (r *Run) Next(start, now time.Duration) (delay time.Duration, ok bool) {
	if r.done {
		return 0, false
	}
	if start < 0 {
		start = 0
	}
	if now < start {
		now = start
	}
	r.n++
	d, ok := r.step(0, r.sched, int64(start), int64(now))
	if !ok {
		r.done = true
		return 0, false
	}
	return time.Duration(d), true
}

// Decisions returns how many decisions the run has made.
func (r *Run) Decisions() int64 { return r.n }

// Stopped reports whether the schedule has said stop.
func (r *Run) Stopped() bool { return r.done }

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

// layout fills in the size and key of the subtree s rooted at node i and
// returns the index after it.
func (r *Run) layout(s schedule.Schedule, i int) int {
	r.nodes[i].key = key(s)
	j := i + 1
	if a, b := schedule.Children(s); a != nil {
		j = r.layout(a, j)
		if b != nil {
			j = r.layout(b, j)
		}
	}
	r.nodes[i].size = int32(j - i)
	return j
}
