package audit

import (
	"math"
	"strings"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// none stands for a missing deadline or timeout: no bound.
const none = schedule.MaxDuration

// facts is what the rules know of a layer, worked out once.
type facts struct {
	Layer
	index    int
	s        schedule.Schedule // the retry policy, or nil
	limits   schedule.Limits   // schedule.Bounds(s), for a non-nil s
	attempts int               // MaxAttempts(s, MinAttemptTime)
	// received is the most time the layer has for one call it serves:
	// the plan's deadline, lowered to every attempt timeout above the
	// layer; none when nothing bounds it.
	received time.Duration
	// perAttempt is the longest one attempt to the next hop can take:
	// the attempt timeout, else the deadline the layer propagates, else
	// none.
	perAttempt time.Duration
	worst      time.Duration // worstTime of the retry loop
	next       string        // the next hop's name
	copies     int           // the most copies a hedged call sends, 1 without Hedge
}

func (f facts) retries() bool { return f.attempts > 1 }

// layerFacts works out the facts of every layer, edge first.
func layerFacts(p Plan) []facts {
	received := none
	if p.Deadline > 0 {
		received = time.Duration(p.Deadline)
	}
	out := make([]facts, len(p.Layers))
	for i, l := range p.Layers {
		f := facts{Layer: l, index: i, s: l.Retry.Schedule, received: received, next: dependency(p)}
		if i+1 < len(p.Layers) {
			f.next = p.Layers[i+1].Name
		}
		if f.s != nil {
			f.limits = schedule.Bounds(f.s)
		}
		f.attempts = MaxAttempts(f.s, time.Duration(l.MinAttemptTime))
		f.copies = Copies(l.Hedge.Schedule)
		t := time.Duration(l.AttemptTimeout)
		switch {
		case t > 0:
			f.perAttempt = t
		case l.PropagatesDeadline:
			f.perAttempt = received
		default:
			f.perAttempt = none
		}
		f.worst = worstTime(f.s, f.attempts, f.perAttempt)
		if t > 0 {
			received = min(received, t)
		}
		out[i] = f
	}
	return out
}

func dependency(p Plan) string {
	if p.Dependency != "" {
		return p.Dependency
	}
	return "the dependency"
}

// Amplification returns the most attempts one request at the edge can
// make on the dependency: the product of every layer's MaxAttempts (or,
// for a layer that hedges, its Copies if they are more), as each attempt
// of a layer is a call that the next layer may retry. It is math.MaxInt
// when a layer's attempts have no bound (or the product does not fit in
// an int). Four attempts at each of three layers make 64.
func (p Plan) Amplification() int {
	n := 1
	for _, l := range p.Layers {
		n = mulAttempts(n, max(MaxAttempts(l.Retry.Schedule, time.Duration(l.MinAttemptTime)), Copies(l.Hedge.Schedule)))
	}
	return n
}

// Copies returns the most copies of one call a hedging policy s starts:
// its bound on attempts, at most retry.MaxCopies, which retry.Hedge never
// exceeds; 1 for a nil s, which does not hedge.
func Copies(s schedule.Schedule) int {
	if s == nil {
		return 1
	}
	return min(schedule.Bounds(s).MaxAttempts, retry.MaxCopies)
}

// mulAttempts multiplies attempt counts (at least 1 each), with
// math.MaxInt for no bound.
func mulAttempts(a, b int) int {
	if a == math.MaxInt || b == math.MaxInt || a > math.MaxInt/b {
		return math.MaxInt
	}
	return a * b
}

// openTime returns the shortest time a breaker with these settings stays
// open: the least first delay of its OpenFor policy.
func openTime(b *Breaker) time.Duration {
	s := b.OpenFor.Schedule
	if s == nil {
		s = breaker.DefaultOpenFor
	}
	return schedule.FirstWait(s).MinTotal
}

// random reports whether the waits of s vary from run to run: whether it
// has a Jittered that spreads a wait that is not always zero, or a
// Decorrelated whose range is not a point.
func random(s schedule.Schedule) bool {
	switch v := s.(type) {
	case schedule.Jittered:
		if v.LowPPM() < v.HighPPM() && schedule.MaxDelayAnyPace(v.Inner) > 0 {
			return true
		}
	case schedule.Decorrelated:
		return v.Base < v.Cap
	case schedule.Random:
		return v.Lo < v.Hi
	case schedule.DecorrelatedV2:
		return true
	case schedule.AndThen, schedule.Capped, schedule.Exponential, schedule.Fibonacci, schedule.Forever, schedule.Intersect, schedule.Linear, schedule.ResetAfter, schedule.Spaced, schedule.Sum, schedule.Times, schedule.Union, schedule.UpTo, schedule.WhileBelow:
		// These take the path after the switch.
	}
	a, b := schedule.Children(s)
	return a != nil && random(a) || b != nil && random(b)
}

// dur prints a duration for people: "forever" for none, whole
// milliseconds from a second up, and no "0s" tails.
func dur(d time.Duration) string {
	if d >= none {
		return "forever"
	}
	if d >= time.Second {
		d = d.Round(time.Millisecond)
	}
	s := d.String()
	for _, tail := range []string{"m0s", "h0m"} {
		if strings.HasSuffix(s, tail) {
			s = strings.TrimSuffix(s, tail[1:])
		}
	}
	return s
}
