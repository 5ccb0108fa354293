package interp

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/recur-go/recur/internal/sat"
	"github.com/recur-go/recur/schedule"
)

// ErrInvalidState reports a saved run that UnmarshalBinary refuses: bytes
// that are not a saved run, or a state that stepping the schedule could
// not have produced. The message names the field, as in
// "interp: state: node 2 (Times): k 9 exceeds N 5".
var ErrInvalidState = errors.New("interp: state")

// MaxDecisions is the most decisions a saved run may have made. No run
// makes that many (at one decision a nanosecond it would take 146 years),
// and below it no counter of a resumed run can overflow.
const MaxDecisions = 1 << 62

// A status is what a node's last decision may have been: continue, stop,
// or either when that depended on a time the state does not keep (an UpTo
// compares its budget with the clock).
type status uint8

const (
	mayGo status = 1 << iota
	mayStop
)

// checkState returns nil if stepping r's schedule could have left n
// decisions made, the run stopped or not, and nodes, or else an error
// wrapping ErrInvalidState that names the first field that could not. It
// checks every node against its schedule: counters against the Times
// bounds and against the parents' counters, each stop recorded by a Union
// or an AndThen against the child that made it, starts against the
// parents' starts, the variant state against its counter. It also returns
// the most decisions the resumed run may make: the attempts
// schedule.Bounds allows.
//
// Where a stop depends on time (an UpTo's budget), the state cannot show
// how much time a run took to reach it, so a state may claim decisions
// made faster than the run allows; UnmarshalBinary then bounds the resumed
// run's root by the most decisions (stepAtMost), which is why a stopped
// state whose last decision went on is accepted at that count.
func (r *Run) checkState(n int64, done bool, nodes []node) (int64, error) {
	if len(nodes) == 0 {
		if n != 0 || !done {
			return 0, stateErr("a run of an invalid schedule makes no decision, yet %d decisions, stopped %v", n, done)
		}
		return 0, nil
	}
	if n > MaxDecisions {
		return 0, stateErr("decisions %d exceed %d", n, int64(MaxDecisions))
	}
	if n == 0 && done {
		return 0, stateErr("stopped before any decision")
	}
	// Bounds is the one home of how many attempts a schedule allows: n
	// decisions follow n attempts, and a run that goes on makes one more.
	// Its count assumes a timeline that never reaches the largest
	// Duration: there the clock stands still (every later time saturates
	// to it) and an UpTo whose budget's end saturated too may go on at
	// that instant. A schedule whose waits, or one of them, can come near
	// it (half of it, to leave room for the attempts' own time) is not
	// held to the count.
	l := schedule.Bounds(r.sched)
	most := int64(l.MaxAttempts)
	if max(l.MaxTotal, schedule.MaxDelayAnyPace(r.sched)) >= schedule.MaxDuration/2 {
		most = math.MaxInt64
	}
	if n > most || !done && n >= most {
		return 0, stateErr("decisions %d, stopped %v: the schedule allows %d attempts", n, done, most)
	}
	c := stateChecker{nodes: nodes}
	_, st, err := c.check(r.sched, 0, n, 0, true) // the first attempt may start at any time
	if err != nil {
		return 0, err
	}
	if n > 0 && done && st&mayStop == 0 && n != most {
		return 0, stateErr("stopped, yet the schedule's last decision went on")
	}
	if n > 0 && !done && st&mayGo == 0 {
		return 0, stateErr("not stopped, yet the schedule's last decision was stop")
	}
	return most, nil
}

func stateErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidState}, args...)...)
}

// stateChecker walks the saved nodes in preorder beside the schedule.
type stateChecker struct{ nodes []node }

// nodeErr names node i of variant s in an error.
func nodeErr(i int, s schedule.Schedule, format string, args ...any) error {
	name := strings.TrimPrefix(fmt.Sprintf("%T", s), "schedule.")
	return stateErr("node %d (%s): "+format, append([]any{i, name}, args...)...)
}

// check checks the subtree s at node i, which must have made k decisions
// and, if any, started at start (exactly, or at least when atLeast). It
// returns the index after the subtree and what the node's last decision
// may have been.
func (c *stateChecker) check(s schedule.Schedule, i int, k, start int64, atLeast bool) (int, status, error) {
	nd := &c.nodes[i]
	if t, ok := s.(schedule.Times); ok && nd.k > int64(t.N) {
		return 0, 0, nodeErr(i, s, "k %d exceeds N %d", nd.k, t.N)
	}
	switch {
	case nd.k != k:
		return 0, 0, nodeErr(i, s, "k %d, yet %d decisions reached it", nd.k, k)
	case k == 0 && (nd.start != 0 || nd.a != 0 || nd.b != 0):
		return 0, 0, nodeErr(i, s, "no decision, yet start %d, a %d, b %d", nd.start, nd.a, nd.b)
	case k > 0 && !atLeast && nd.start != start:
		return 0, 0, nodeErr(i, s, "start %d, yet it started with its parent at %d", nd.start, start)
	case k > 0 && atLeast && nd.start < start:
		return 0, 0, nodeErr(i, s, "start %d before its parent's %d", nd.start, start)
	}
	start = nd.start
	zeroAB := func() error {
		if nd.a != 0 || nd.b != 0 {
			return nodeErr(i, s, "a %d, b %d; want 0, 0", nd.a, nd.b)
		}
		return nil
	}
	switch s := s.(type) {
	case schedule.Times:
		if k == int64(s.N) {
			return i + 1, mayStop, zeroAB()
		}
		return i + 1, mayGo, zeroAB()
	case schedule.Forever:
		return i + 1, mayGo, zeroAB()
	case schedule.Spaced:
		// The slot is that of an attempt's start, so no later than the
		// largest time allows; the first decision's is 0.
		if most := (math.MaxInt64 - start) / int64(s.Every); nd.a > most || k <= 1 && nd.a != 0 || nd.b != 0 {
			return 0, 0, nodeErr(i, s, "slot %d, b %d after %d decisions from start %d", nd.a, nd.b, k, start)
		}
		return i + 1, mayGo, nil
	case schedule.Exponential:
		if want := exponentialAt(s, k); nd.a != want || nd.b != 0 {
			return 0, 0, nodeErr(i, s, "delay %d, b %d at decision %d; want %d, 0", nd.a, nd.b, k, want)
		}
		return i + 1, mayGo, nil
	case schedule.Fibonacci:
		if a, b := fibonacciAt(s, k); nd.a != a || nd.b != b {
			return 0, 0, nodeErr(i, s, "delays %d, %d at decision %d; want %d, %d", nd.a, nd.b, k, a, b)
		}
		return i + 1, mayGo, nil
	case schedule.Decorrelated:
		lo, hi := min(int64(s.Base), int64(s.Cap)), decorrelatedMost(s, k)
		if k > 0 && (nd.a < lo || nd.a > hi) || nd.b != 0 {
			return 0, 0, nodeErr(i, s, "previous delay %d, b %d; want a delay in [%d, %d], 0", nd.a, nd.b, lo, hi)
		}
		return i + 1, mayGo, nil
	case schedule.Linear:
		if want := linearAt(s, k); nd.a != want || nd.b != 0 {
			return 0, 0, nodeErr(i, s, "delay %d, b %d at decision %d; want %d, 0", nd.a, nd.b, k, want)
		}
		return i + 1, mayGo, nil
	case schedule.Random:
		return i + 1, mayGo, zeroAB()
	case schedule.DecorrelatedV2:
		// a holds the curve's value at the k-th decision, g(k−1+u) for a
		// draw u in [0, 1): between g(k−1) and g(k).
		g := math.Float64frombits(uint64(nd.a))
		if k > 0 && !(g >= v2Curve(k-1) && g <= v2Curve(k)) || nd.b != 0 {
			return 0, 0, nodeErr(i, s, "curve %v, b %d at decision %d; want a value in [%v, %v], 0", g, nd.b, k, v2Curve(k-1), v2Curve(k))
		}
		return i + 1, mayGo, nil
	case schedule.Jittered, schedule.Capped:
		// A wrapper decides with its child and stops when it stops.
		if err := zeroAB(); err != nil {
			return 0, 0, err
		}
		inner, _ := schedule.Children(s)
		return c.check(inner, i+1, k, start, false)
	case schedule.UpTo:
		if err := zeroAB(); err != nil {
			return 0, 0, err
		}
		j, st, err := c.check(s.Inner, i+1, k, start, false)
		if st&mayGo != 0 {
			st |= mayStop // the budget may have run out
		}
		return j, st, err
	case schedule.ResetAfter:
		// Its inner schedule decided at every decision since its last
		// reset, which b, the end of that decision's attempt, dates; the
		// inner's start is at least the node's.
		ck := c.nodes[i+1].k
		if nd.a != 0 || k == 0 && nd.b != 0 || k > 0 && (nd.b < start || ck < 1 || ck > k) || k == 0 && ck != 0 {
			return 0, 0, nodeErr(i, s, "a %d, reset at %d, inner k %d after %d decisions from %d", nd.a, nd.b, ck, k, start)
		}
		return c.check(s.Inner, i+1, ck, start, ck < k)
	case schedule.WhileBelow:
		if err := zeroAB(); err != nil {
			return 0, 0, err
		}
		j, st, err := c.check(s.Inner, i+1, k, start, false)
		if st&mayGo != 0 {
			st |= mayStop // the delay may have reached the limit
		}
		return j, st, err
	case schedule.Intersect, schedule.Sum:
		if err := zeroAB(); err != nil {
			return 0, 0, err
		}
		x, y := schedule.Children(s)
		j, sa, err := c.check(x, i+1, k, start, false)
		if err != nil {
			return 0, 0, err
		}
		end, sb, err := c.check(y, j, k, start, false)
		st := sa&sb&mayGo | (sa|sb)&mayStop
		return end, st, err
	case schedule.Union:
		return c.checkUnion(s, i, k, start)
	case schedule.AndThen:
		return c.checkAndThen(s, i, k, start)
	}
	return 0, 0, nodeErr(i, s, "unknown variant")
}

// checkUnion checks a Union: bit 1 of a records that A stopped, bit 2
// that B did. A child that stopped did so at its last decision and was not
// asked again; one that did not went on at every decision of the Union.
func (c *stateChecker) checkUnion(s schedule.Union, i int, k, start int64) (int, status, error) {
	nd := &c.nodes[i]
	if nd.a < 0 || nd.a > 3 || k == 0 && nd.a != 0 || nd.b != 0 {
		return 0, 0, nodeErr(i, s, "stopped bits %d, b %d after %d decisions", nd.a, nd.b, k)
	}
	j := i + 1
	var last int64 // the decision at which the last child stopped
	for bit, child := range [2]schedule.Schedule{s.A, s.B} {
		ck, stopped := k, nd.a&(1<<bit) != 0
		if stopped {
			ck = c.nodes[j].k
			if ck < 1 || ck > k {
				return 0, 0, nodeErr(j, child, "k %d, yet its parent (node %d) recorded its stop within %d decisions", ck, i, k)
			}
			last = max(last, ck)
		}
		end, st, err := c.check(child, j, ck, start, false)
		switch {
		case err != nil:
			return 0, 0, err
		case stopped && st&mayStop == 0:
			return 0, 0, nodeErr(j, child, "its parent (node %d) recorded a stop it cannot have made", i)
		case !stopped && k > 0 && st&mayGo == 0:
			return 0, 0, nodeErr(j, child, "stopped, yet its parent (node %d) did not record it", i)
		}
		j = end
	}
	if nd.a == 3 {
		if last != k {
			return 0, 0, nodeErr(i, s, "both children stopped before its last decision %d", k)
		}
		return j, mayStop, nil
	}
	return j, mayGo, nil
}

// checkAndThen checks an AndThen: a is its phase, 0 while First decides
// and 1 once First stopped. Then starts at the decision First stopped at.
func (c *stateChecker) checkAndThen(s schedule.AndThen, i int, k, start int64) (int, status, error) {
	nd := &c.nodes[i]
	if nd.a < 0 || nd.a > 1 || k == 0 && nd.a != 0 || nd.b != 0 {
		return 0, 0, nodeErr(i, s, "phase %d, b %d after %d decisions", nd.a, nd.b, k)
	}
	if nd.a == 0 {
		j, st, err := c.check(s.First, i+1, k, start, false)
		if err != nil {
			return 0, 0, err
		}
		if k > 0 && st&mayGo == 0 {
			return 0, 0, nodeErr(i+1, s.First, "stopped, yet its parent (node %d) is in phase 0 (First)", i)
		}
		end, _, err := c.check(s.Then, j, 0, 0, false)
		return end, mayGo, err
	}
	fk := c.nodes[i+1].k
	if fk < 1 || fk > k {
		return 0, 0, nodeErr(i+1, s.First, "k %d, yet its parent (node %d) is in phase 1 (Then) after %d decisions", fk, i, k)
	}
	j, st, err := c.check(s.First, i+1, fk, start, false)
	if err != nil {
		return 0, 0, err
	}
	if st&mayStop == 0 {
		return 0, 0, nodeErr(i+1, s.First, "went on, yet its parent (node %d) is in phase 1 (Then)", i)
	}
	return c.check(s.Then, j, k-fk+1, start, true)
}

// exponentialAt returns the delay of s at its k-th decision, as
// stepExponential computes it, or 0 before the first. The delay grows
// until it reaches its cap or stops growing, so the loop is short.
func exponentialAt(s schedule.Exponential, k int64) int64 {
	if k == 0 {
		return 0
	}
	d := min(int64(s.Base), int64(s.Cap))
	for j := int64(1); j < k; j++ {
		next := scaleCap(d, uint64(s.FactorPct), int64(s.Cap))
		if s.FactorFrac != 0 { // d, not next: the same step in millionths
			next = scaleCapPPM(d, uint64(s.FactorPPM()), int64(s.Cap))
		}
		if next == d {
			break
		}
		d = next
	}
	return d
}

// v2Curve returns DecorrelatedV2's curve at the whole t, as Step computes
// it for a draw of 0.
func v2Curve(t int64) float64 {
	if t == 0 {
		return 0
	}
	_, g := schedule.DecorrelatedV2{Base: 1}.Step(t+1, 0, 0)
	return g
}

// linearAt returns the delay of s at its k-th decision, as stepLinear
// computes it, or 0 before the first.
func linearAt(s schedule.Linear, k int64) int64 {
	if k == 0 {
		return 0
	}
	return sat.Add(int64(s.Base), sat.Mul(k-1, int64(s.Step)))
}

// fibonacciAt returns the previous and the current delay of s at its k-th
// decision, as stepFibonacci computes them, or 0, 0 before the first. The
// delays saturate within a hundred decisions.
func fibonacciAt(s schedule.Fibonacci, k int64) (int64, int64) {
	if k == 0 {
		return 0, 0
	}
	a, b := int64(0), int64(s.Base)
	for j := int64(1); j < k && a < math.MaxInt64; j++ {
		a, b = b, sat.Add(a, b)
	}
	return a, b
}

// decorrelatedMost returns the longest delay s can give at its k-th
// decision, min(Cap, Base·3ᵏ): every draw at its highest.
func decorrelatedMost(s schedule.Decorrelated, k int64) int64 {
	most := int64(s.Base)
	for j := int64(0); j < k && most < int64(s.Cap); j++ {
		most = sat.Mul(most, 3)
	}
	return min(most, int64(s.Cap))
}
