package schedule

import (
	"math"
	"time"

	"github.com/recur-go/recur/internal/sat"
)

// Limits is what Bounds can tell about a schedule without running it. The
// totals are for a run whose attempts take no time, so they count waiting
// only: a real run also spends the attempts' own time.
type Limits struct {
	// MaxAttempts is the most attempts a run makes in all, the first
	// included, or math.MaxInt when the number has no bound.
	MaxAttempts int
	// MinTotal is the least total wait of a run that ends, or MaxDuration
	// when no run ends.
	MinTotal time.Duration
	// MaxTotal is the most total wait of a run, or MaxDuration when the
	// wait has no bound. For a run that never ends it is the most the
	// waits add up to: zero for Forever{}, which never waits.
	MaxTotal time.Duration
	// MaxDelay is the longest single wait of a run, or MaxDuration when a
	// wait has no bound: the real cap of the policy, after every Capped,
	// UpTo, jitter and attempt limit. It is zero when no run ever waits.
	MaxDelay time.Duration
	// Stops reports whether every run stops on its own, after a bounded
	// number of attempts or once a time budget (UpTo) is spent. With
	// attempts that take no time, UpTo{Forever{}, time.Minute} never spends
	// its budget, yet it Stops: real attempts take time.
	Stops bool
}

// AttemptsBounded reports whether the number of attempts has a bound.
func (l Limits) AttemptsBounded() bool { return l.MaxAttempts < math.MaxInt }

// TotalBounded reports whether the total wait has a bound.
func (l Limits) TotalBounded() bool { return l.MaxTotal < MaxDuration }

// Bounds tells, without running s, how many attempts it allows and how
// long a run waits in all when its attempts take no time, for every seed.
//
// The limits are sound: no run exceeds them. They are exact — some run, for
// some draws of the random factors, reaches each of them — for every
// schedule without Spaced and UpTo nodes, for every schedule without random
// factors (Jittered with LowPct < HighPct, Decorrelated with Base < Cap), and
// for Spaced and UpTo nodes over such schedules where they drive the run's
// timeline themselves: at the root, or along AndThen and UpTo. A Spaced or
// UpTo inside a Union, Intersect, Sum, Jittered or Capped sees a timeline
// that others shape, and its limits there may be loose; so are those of a
// WhileBelow whose stop depends on the draws or the timeline (over random
// delays, or over a Spaced, which waits less after a slow attempt). A jitter factor counts
// as ranging over all of [LowPct%, HighPct%]; the interpreter's draws come
// within 2⁻⁵³ of HighPct%.
//
// For example, Intersect(Backoff(100ms, 30s), Times(5)) allows 5 attempts
// and waits between 750ms and 1.5s, 800ms at most at once; UpTo(Spaced(10s), 35s) makes 4
// attempts and waits 30s; AndThen(Times(3), Spaced(1m)) never stops.
//
// The work is bounded whatever the numbers in s: stretches where nothing
// changes but counters, such as Times{1_000_000_000}, are skipped in one
// step. An invalid s (see Validate) stops at its first decision in package
// interp, so its limits are those of Times{1}.
func Bounds(s Schedule) Limits {
	if Validate(s) != nil {
		return Limits{MaxAttempts: 1, Stops: true}
	}
	s = simplify(s)
	a := analyzer{steps: stepBudget}
	e := a.drive(s, 0, true)
	if b, ok := maxBudget(s); ok && sat.Add(e.hi, b) == inf {
		// Some UpTo might start so late that its budget saturates; see
		// analyzer.hazards.
		a = analyzer{steps: stepBudget, hazards: true}
		e = a.drive(s, 0, true)
	}
	l := Limits{
		MaxAttempts: int(min(e.att, math.MaxInt)),
		MinTotal:    time.Duration(e.lo),
		MaxTotal:    time.Duration(e.hi),
		MaxDelay:    time.Duration(min(e.dmax, e.hi)), // one wait is at most them all
		Stops:       !neverStops(s),                   // as Stops, s being simplified
	}
	if e.att == 1 && !e.never {
		l.MaxDelay = 0 // no decision continues
	}
	if e.never || !l.Stops {
		l.MaxAttempts, l.MinTotal = math.MaxInt, MaxDuration
	}
	return l
}

// MaxDelayAnyPace returns the longest single wait of a run of s whatever
// its attempts take, or MaxDuration when a wait has no bound. It is
// Bounds(s).MaxDelay for a schedule without Spaced and UpTo, whose waits
// do not depend on the clock. With them it can be longer: slow attempts
// can make a clock-driven side of a Union stop early and hand the run to a
// side with longer waits, so it is then the largest wait any node of s can
// choose on any timeline. Union(UpTo(Spaced(1ms), 5ms), Intersect(
// Backoff(1s, 1m), Times(6))) waits 1ms at most between instant attempts,
// and up to 16s between attempts of a second: MaxDelayAnyPace is 1m.
func MaxDelayAnyPace(s Schedule) time.Duration {
	if Validate(s) != nil {
		return 0
	}
	if t := simplify(s); !untimed(t) {
		return maxDelay(t)
	}
	return Bounds(s).MaxDelay
}

// FirstWait tells, as Bounds does, about the first wait of s alone: the
// limits of s cut after its second attempt. MaxAttempts is 2 when some run
// of s retries and 1 when none does; MinTotal and MaxTotal are the least
// and the most a run waits before its second attempt (zero for a run that
// stops at once).
//
// For example, Backoff(100ms, 30s) first waits between 50ms and 100ms, and
// FullJitter(100ms, 30s) between 0 and 100ms.
func FirstWait(s Schedule) Limits {
	return Bounds(Intersect{A: s, B: Times{N: 2}})
}

// Stops reports Bounds(s).Stops, whether every run of s stops on its own,
// without the rest of Bounds' work: it looks at the structure of s only.
func Stops(s Schedule) bool {
	return Validate(s) != nil || !neverStops(simplify(s))
}

// maxBudget returns the largest UpTo budget in s, and whether s has one.
func maxBudget(s Schedule) (int64, bool) {
	b, ok := int64(-1), false
	if u, isUpTo := s.(UpTo); isUpTo {
		b, ok = int64(u.Budget), true
	}
	if x, y := Children(s); x != nil {
		if bx, okx := maxBudget(x); okx {
			b, ok = max(b, bx), true
		}
		if y != nil {
			if by, oky := maxBudget(y); oky {
				b, ok = max(b, by), true
			}
		}
	}
	return b, ok
}

// untimed reports whether s has no Spaced and no UpTo node: its decisions
// then do not depend on the timeline.
func untimed(s Schedule) bool {
	switch s.(type) {
	case Spaced, UpTo, ResetAfter:
		return false
	case AndThen, Capped, Decorrelated, DecorrelatedV2, Exponential, Fibonacci, Forever, Intersect, Jittered, Linear, Random, Sum, Times, Union, WhileBelow:
		// These take the path after the switch.
	}
	if a, b := Children(s); a != nil {
		return untimed(a) && (b == nil || untimed(b))
	}
	return true
}
