package lint

import (
	"fmt"
	"math"
	"time"

	"github.com/recur-go/recur/schedule"
)

// Limits the rules use, from the sources docs/lint.md cites.
const (
	// MaxAttempts is the most attempts the SRE book's per-request budget
	// allows without comment ("cap at 3, or 5 for highly transient infra").
	MaxAttempts = 5
	// MaxDelay is the largest single wait Brooker's recipe allows (a cap of
	// 30 to 60 seconds).
	MaxDelay = time.Minute
	// MinDelay is the smallest useful wait: below it a retry arrives before
	// the fault can clear.
	MinDelay = time.Millisecond
)

// Rules returns the rules Check applies, in the order it applies them.
func Rules() []Rule {
	return []Rule{
		{"never-stops", Error, "the policy never stops on its own", neverStops},
		{"unbounded-wait", Warning, "no upper bound on the total wait", unboundedWait},
		{"union-unbounded", Warning, "a Union makes a bounded policy unbounded", unionUnbounded},
		{"too-many-attempts", Warning, "more than 5 attempts", tooManyAttempts},
		{"no-jitter", Warning, "exponential or Fibonacci backoff without jitter", noJitter},
		{"no-cap", Warning, "a growing delay with no cap, or a cap above 60s", noCap},
		{"tiny-delay", Warning, "a delay below 1ms", tinyDelay},
		{"dead-upto", Warning, "an UpTo budget shorter than the first delay", deadUpTo},
		{"no-delay", Warning, "retries that never wait", noDelay},
		{"equal-jitter", Info, "equal jitter where full jitter would do", equalJitter},
		{"jitter-above-cap", Info, "jitter above 100% lets delays pass the cap", jitterAboveCap},
	}
}

type reportFunc = func(node schedule.Schedule, msg, fix string)

func neverStops(s schedule.Schedule, report reportFunc) {
	if !schedule.Bounds(s).Stops {
		report(s, "the policy never stops: it retries as long as the operation fails, against a dependency that may be down",
			"bound it: & times(3), or upto 1m")
	}
}

func unboundedWait(s schedule.Schedule, report reportFunc) {
	if !schedule.Bounds(s).TotalBounded() {
		report(s, "the total wait has no upper bound", "bound it with upto, e.g. ... upto 1m")
	}
}

func unionUnbounded(s schedule.Schedule, report reportFunc) {
	walk(s, func(n schedule.Schedule, _ []schedule.Schedule) {
		u, ok := n.(schedule.Union)
		if !ok {
			return
		}
		a, b := schedule.Bounds(u.A).Stops, schedule.Bounds(u.B).Stops
		if a != b {
			report(n, fmt.Sprintf("%v continues while either side does, so it never stops although one side does", n),
				"to bound a policy, intersect it: a & b")
		}
	})
}

func tooManyAttempts(s schedule.Schedule, report reportFunc) {
	b := schedule.Bounds(s)
	if !b.Stops || b.MaxAttempts <= MaxAttempts {
		return
	}
	n := "unbounded"
	if b.AttemptsBounded() {
		n = fmt.Sprint(b.MaxAttempts)
	}
	report(s, fmt.Sprintf("up to %s attempts: retries at every layer multiply (4 attempts at 3 layers is 64× the load), and by attempt 10 the upstream is gone", n),
		"allow 3 attempts (5 for very transient faults): & times(3)")
}

// jittered reports whether some ancestor spreads delays randomly.
func jittered(anc []schedule.Schedule) bool {
	for _, a := range anc {
		if j, ok := a.(schedule.Jittered); ok && j.LowPct < j.HighPct {
			return true
		}
	}
	return false
}

func noJitter(s schedule.Schedule, report reportFunc) {
	walk(s, func(n schedule.Schedule, anc []schedule.Schedule) {
		switch n := n.(type) {
		case schedule.Exponential:
			if n.FactorPct > 100 && !jittered(anc) {
				report(n, fmt.Sprintf("%v has no jitter: clients that failed together retry together, and the retries arrive as one storm", n),
					fmt.Sprintf("add full jitter: fulljitter(%v, %v)", n.Base, n.Cap))
			}
		case schedule.Fibonacci:
			if !jittered(anc) {
				report(n, fmt.Sprintf("%v has no jitter: clients that failed together retry together", n),
					fmt.Sprintf("add jitter: Jittered(%v, 0%%, 100%%)", n))
			}
		}
	})
}

// effectiveCap returns the largest delay a growing node can produce in
// its place: its own cap, lowered by Capped and UpTo ancestors and scaled
// by the jitter above it.
func effectiveCap(own time.Duration, anc []schedule.Schedule) time.Duration {
	c := own
	for i := len(anc) - 1; i >= 0; i-- {
		switch a := anc[i].(type) {
		case schedule.Jittered:
			if c != schedule.MaxDuration {
				c = time.Duration(min(float64(c)*float64(a.HighPct)/100, math.MaxInt64/2))
			}
		case schedule.Capped:
			c = min(c, a.Max)
		case schedule.UpTo:
			c = min(c, a.Budget)
		}
	}
	return c
}

func noCap(s schedule.Schedule, report reportFunc) {
	walk(s, func(n schedule.Schedule, anc []schedule.Schedule) {
		var own time.Duration
		switch n := n.(type) {
		case schedule.Exponential:
			if n.FactorPct == 100 {
				return
			}
			own = n.Cap
		case schedule.Decorrelated:
			own = n.Cap
		case schedule.Fibonacci:
			own = schedule.MaxDuration
		default:
			return
		}
		c := effectiveCap(own, anc)
		switch {
		case c == schedule.MaxDuration:
			report(n, fmt.Sprintf("%v grows without a cap", n), "cap it at 30s to 60s: Capped(..., 30s)")
		case c > MaxDelay:
			report(n, fmt.Sprintf("%v can wait %v at once: longer than any caller waits", n, c),
				"cap single waits at 30s to 60s")
		}
	})
}

func tinyDelay(s schedule.Schedule, report reportFunc) {
	walk(s, func(n schedule.Schedule, _ []schedule.Schedule) {
		var d time.Duration
		switch n := n.(type) {
		case schedule.Exponential:
			d = min(n.Base, n.Cap)
		case schedule.Fibonacci:
			d = n.Base
		case schedule.Decorrelated:
			d = min(n.Base, n.Cap)
		case schedule.Spaced:
			d = n.Every
		default:
			return
		}
		if d < MinDelay {
			report(n, fmt.Sprintf("%v waits %v: less than a network round trip, so the retry lands before the fault can clear", n, d),
				"start at 10ms to 200ms (Brooker: a base of 50ms to 200ms)")
		}
	})
}

// firstDelay returns a lower bound of the first delay s can choose, and
// false when s stops at its first decision.
func firstDelay(s schedule.Schedule) (time.Duration, bool) {
	switch s := s.(type) {
	case schedule.Times:
		return 0, s.N > 1
	case schedule.Forever:
		return 0, true
	case schedule.Spaced:
		return 0, true // an overrun first attempt is followed at once
	case schedule.Exponential:
		return min(s.Base, s.Cap), true
	case schedule.Fibonacci:
		return s.Base, true
	case schedule.Decorrelated:
		return min(s.Base, s.Cap), true
	case schedule.Jittered:
		d, ok := firstDelay(s.Inner)
		return time.Duration(float64(d) * float64(s.LowPct) / 100), ok
	case schedule.Capped:
		d, ok := firstDelay(s.Inner)
		return min(d, s.Max), ok
	case schedule.UpTo:
		d, ok := firstDelay(s.Inner)
		return d, ok && d <= s.Budget
	case schedule.Union:
		da, oka := firstDelay(s.A)
		db, okb := firstDelay(s.B)
		switch {
		case oka && okb:
			return min(da, db), true
		case oka:
			return da, true
		}
		return db, okb
	case schedule.Intersect:
		da, oka := firstDelay(s.A)
		db, okb := firstDelay(s.B)
		return max(da, db), oka && okb
	case schedule.AndThen:
		da, oka := firstDelay(s.First)
		db, okb := firstDelay(s.Then)
		if !oka {
			return db, okb
		}
		if okb {
			return min(da, db), true
		}
		return da, true
	}
	return 0, false
}

func deadUpTo(s schedule.Schedule, report reportFunc) {
	walk(s, func(n schedule.Schedule, _ []schedule.Schedule) {
		u, ok := n.(schedule.UpTo)
		if !ok {
			return
		}
		if d, ok := firstDelay(u.Inner); ok && d > u.Budget {
			report(n, fmt.Sprintf("%v never retries: the first wait is at least %v, past the %v budget", n, d, u.Budget),
				"raise the budget above the first delay, or drop the retry policy")
		}
	})
}

func noDelay(s schedule.Schedule, report reportFunc) {
	b := schedule.Bounds(s)
	if b.MaxAttempts > 1 && b.TotalBounded() && b.MaxTotal == 0 {
		report(s, "every retry goes at once: a failing dependency gets the whole burst",
			"back off between attempts: backoff(100ms, 30s) & times(3)")
	}
}

func equalJitter(s schedule.Schedule, report reportFunc) {
	walk(s, func(n schedule.Schedule, _ []schedule.Schedule) {
		j, ok := n.(schedule.Jittered)
		if !ok || j.LowPct < 50 || j.LowPct >= j.HighPct {
			return
		}
		if e, ok := j.Inner.(schedule.Exponential); ok && e.FactorPct > 100 {
			report(n, fmt.Sprintf("%v keeps at least %d%% of each delay: Brooker measured that equal jitter does more work and takes longer than full jitter", n, j.LowPct),
				fmt.Sprintf("use full jitter: fulljitter(%v, %v)", e.Base, e.Cap))
		}
	})
}

func jitterAboveCap(s schedule.Schedule, report reportFunc) {
	walk(s, func(n schedule.Schedule, _ []schedule.Schedule) {
		if j, ok := n.(schedule.Jittered); ok && j.HighPct > 100 {
			report(n, fmt.Sprintf("%v can stretch a delay to %d%%, past the cap of the schedule inside", n, j.HighPct),
				"keep the high end at 100% and raise the inner cap instead")
		}
	})
}
