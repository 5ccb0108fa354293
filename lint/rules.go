package lint

import (
	"fmt"
	"time"

	"github.com/recur-go/recur/schedule"
)

// Limits the rules use, from the rules' sources.
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
	// MinBareDuration is the smallest bare integer (milliseconds) that
	// reads as a deliberate duration: spaced(1) is one millisecond, which
	// was rarely meant.
	MinBareDuration = 10
)

// The values the fixes write.
const (
	fixBase = 100 * time.Millisecond
	fixCap  = 30 * time.Second
)

// Rules returns the rules Check applies, in the order it applies them.
func Rules() []Rule {
	return []Rule{
		{"never-stops", Error, "the policy never stops on its own", neverStops},
		{"unbounded-wait", Warning, "no upper bound on the total wait", unboundedWait},
		{"union-unbounded", Warning, "a Union makes a bounded policy unbounded", unionUnbounded},
		{"too-many-attempts", Warning, "more than 5 attempts", tooManyAttempts},
		{"bare-duration", Error, "a bare integer below 10 where a duration belongs: it means milliseconds", bareDuration},
		{"cap-below-base", Error, "a cap below the base: every wait is the cap", capBelowBase},
		{"no-jitter", Warning, "exponential or Fibonacci backoff without jitter", noJitter},
		{"no-cap", Warning, "a single wait can pass 60s", noCap},
		{"tiny-delay", Warning, "the first retry waits less than 1ms", tinyDelay},
		{"dead-upto", Warning, "an UpTo budget that ends before the first retry", deadUpTo},
		{"no-delay", Warning, "retries that never wait", noDelay},
		{"busy-repeat", Warning, "a repeat policy that never waits 1ms between runs: a busy loop", busyRepeat},
		{"hedge-no-delay", Error, "a hedging policy that can send a second copy at once", hedgeNoDelay},
		{"hedge-unbounded", Error, "a hedging policy with no bound on its copies", hedgeUnbounded},
		{"hedge-too-many", Warning, "a hedging policy of more than 5 copies", hedgeTooMany},
		{"jitter-above-cap", Info, "jitter above 100% lets delays pass the cap", jitterAboveCap},
		{"dead-whilebelow", Warning, "a whilebelow limit at or below the first wait: the policy never retries", deadWhileBelow},
		{"whilebelow-unreached", Info, "a whilebelow limit above every wait: it never gives up", unreachedWhileBelow},
		{"sum-times", Info, "a times added with +: it adds no wait, & says what it does", sumTimes},
		{"resetafter-count", Warning, "a times inside resetafter starts over too: the attempts have no bound", resetAfterCount},
	}
}

// walk calls f for every node of s, parents first, with the chain of
// ancestors (root first).
func walk(s schedule.Schedule, f func(n schedule.Schedule, ancestors []schedule.Schedule)) {
	var rec func(n schedule.Schedule, anc []schedule.Schedule)
	rec = func(n schedule.Schedule, anc []schedule.Schedule) {
		if n == nil {
			return
		}
		f(n, anc)
		a, b := schedule.Children(n)
		anc = append(anc, n)
		rec(a, anc)
		rec(b, anc)
	}
	rec(s, nil)
}

func neverStops(in *input, report reportFunc) {
	if !in.limits.Stops {
		report(in.s, "the policy never stops: it retries as long as the operation fails, against a dependency that may be down; bound it with & times(3) or upto 1m",
			whole(in.m.limitAttempts))
	}
}

func unboundedWait(in *input, report reportFunc) {
	if !in.limits.TotalBounded() {
		report(in.s, "the total wait has no upper bound: bound the attempts, or the time with upto", whole(func(s schedule.Schedule) schedule.Schedule {
			if s = in.m.limitAttempts(s); in.m.Bounds(s).TotalBounded() {
				return s
			}
			if s = in.m.lowerCaps(s); in.m.Bounds(s).TotalBounded() {
				return s // a bounded number of waits, each capped
			}
			return schedule.UpTo{Inner: s, Budget: time.Minute}
		}))
	}
}

func unionUnbounded(in *input, report reportFunc) {
	walk(in.s, func(n schedule.Schedule, _ []schedule.Schedule) {
		u, ok := n.(schedule.Union)
		if !ok {
			return
		}
		if in.m.Stops(u.A) != in.m.Stops(u.B) {
			report(n, fmt.Sprintf("%v continues while either side does, so it never stops although one side does: to bound a policy, intersect it (a & b)", n),
				whole(func(s schedule.Schedule) schedule.Schedule { return in.m.intersectUnion(s, u) }))
		}
	})
}

func tooManyAttempts(in *input, report reportFunc) {
	b := in.limits
	if !b.Stops || b.MaxAttempts <= MaxAttempts {
		return
	}
	n := "no bound on the attempts (it stops on time only, and attempts that fail fast fill the time with as many as fit)"
	if b.AttemptsBounded() {
		n = fmt.Sprintf("up to %d attempts", b.MaxAttempts)
	}
	report(in.s, fmt.Sprintf("%s: retries at every layer multiply (4 attempts at 3 layers is 64× the load), and by attempt 10 the upstream is gone; allow 3 (5 for very transient faults)", n),
		whole(in.m.limitAttempts))
}

// jittered reports whether some ancestor spreads delays randomly: a
// Jittered, or a Sum with a random part (additive jitter).
func jittered(anc []schedule.Schedule) bool {
	for _, a := range anc {
		if j, ok := a.(schedule.Jittered); ok && j.LowPPM() < j.HighPPM() {
			return true
		}
		if addsJitter(a) {
			return true
		}
	}
	return false
}

// swapExponential swaps an Exponential's base and cap.
func swapExponential(n schedule.Schedule) schedule.Schedule {
	e := n.(schedule.Exponential)
	e.Base, e.Cap = e.Cap, e.Base
	return e
}

// swapDecorrelated swaps a Decorrelated's base and cap.
func swapDecorrelated(n schedule.Schedule) schedule.Schedule {
	d := n.(schedule.Decorrelated)
	d.Base, d.Cap = d.Cap, d.Base
	return d
}

// fullJitter wraps n in full jitter, 0–100%.
func fullJitter(n schedule.Schedule) schedule.Schedule {
	return schedule.Jittered{Inner: n, LowPct: 0, HighPct: 100}
}

func noJitter(in *input, report reportFunc) {
	if in.limits.MaxDelay == 0 {
		return // it never waits: no-delay says so
	}
	walk(in.s, func(n schedule.Schedule, anc []schedule.Schedule) {
		switch n := n.(type) {
		case schedule.Exponential:
			if n.FactorPPM() > 1_000_000 && !jittered(anc) {
				report(n, fmt.Sprintf("%v has no jitter: clients that failed together retry together, and the retries arrive as one storm; add full jitter", n),
					edit(n, fullJitter))
			}
		case schedule.Fibonacci:
			if !jittered(anc) {
				report(n, fmt.Sprintf("%v has no jitter: clients that failed together retry together; add full jitter", n),
					edit(n, fullJitter))
			}
		case schedule.AndThen, schedule.Capped, schedule.Decorrelated, schedule.Forever, schedule.Intersect, schedule.Jittered, schedule.Spaced, schedule.Times, schedule.Union, schedule.UpTo:
			// Only a growing delay needs jitter to spread clients apart.
		case schedule.DecorrelatedV2, schedule.Linear, schedule.Random, schedule.ResetAfter, schedule.Sum, schedule.WhileBelow:
			// A DecorrelatedV2 is jitter itself. A Linear grows by steps, not by a factor, and is usually
			// jittered by a Random added to it.
		}
	})
}

// lowerCaps lowers every cap above MaxDelay to fixCap, caps every
// Fibonacci and keeps jitter at or below 100%.
func (m *memo) lowerCaps(s schedule.Schedule) schedule.Schedule {
	s = transform(s, each(func(n schedule.Schedule) schedule.Schedule {
		switch n := n.(type) {
		case schedule.Exponential:
			if n.Cap > MaxDelay {
				n.Base, n.Cap = min(n.Base, fixCap), fixCap
			}
			return n
		case schedule.Decorrelated:
			if n.Cap > MaxDelay {
				n.Base, n.Cap = min(n.Base, fixCap), fixCap
			}
			return n
		case schedule.Fibonacci:
			return schedule.Capped{Inner: n, Max: fixCap}
		case schedule.Linear:
			if n.Step > 0 || n.Base > MaxDelay {
				return schedule.Capped{Inner: n, Max: fixCap}
			}
			return n
		case schedule.DecorrelatedV2:
			return schedule.Capped{Inner: n, Max: fixCap}
		case schedule.Random:
			if n.Hi > MaxDelay {
				n.Lo, n.Hi = min(n.Lo, fixCap), fixCap
			}
			return n
		case schedule.Capped:
			if f, ok := n.Inner.(schedule.Capped); ok { // a Fibonacci capped twice
				n.Inner, n.Max = f.Inner, min(n.Max, f.Max)
			}
			return n
		case schedule.AndThen, schedule.Forever, schedule.Intersect, schedule.Jittered, schedule.ResetAfter, schedule.Spaced, schedule.Sum, schedule.Times, schedule.Union, schedule.UpTo, schedule.WhileBelow:
			// These take the path after the switch.
		}
		return n
	}))
	if m.Bounds(s).MaxDelay > MaxDelay {
		s = schedule.Capped{Inner: s, Max: fixCap}
	}
	return s
}

func noCap(in *input, report reportFunc) {
	switch d := in.limits.MaxDelay; {
	case d == schedule.MaxDuration:
		report(in.s, "a single wait has no upper bound: cap it at 30s to 60s", whole(in.m.lowerCaps))
	case d > MaxDelay:
		report(in.s, fmt.Sprintf("a single wait can last %v: longer than any caller waits; cap it at 30s to 60s", d), whole(in.m.lowerCaps))
	}
}

func capBelowBase(in *input, report reportFunc) {
	walk(in.s, func(n schedule.Schedule, _ []schedule.Schedule) {
		const msg = "%v has its cap %v below its base %v, so every wait is the cap: were they swapped?"
		switch n := n.(type) {
		case schedule.Exponential:
			if n.Cap < n.Base {
				report(n, fmt.Sprintf(msg, n, n.Cap, n.Base), edit(n, swapExponential))
			}
		case schedule.Decorrelated:
			if n.Cap < n.Base {
				report(n, fmt.Sprintf(msg, n, n.Cap, n.Base), edit(n, swapDecorrelated))
			}
		case schedule.AndThen, schedule.Capped, schedule.Fibonacci, schedule.Forever, schedule.Intersect, schedule.Jittered, schedule.DecorrelatedV2, schedule.Linear, schedule.Random, schedule.ResetAfter, schedule.Spaced, schedule.Sum, schedule.Times, schedule.Union, schedule.UpTo, schedule.WhileBelow:
			// No base and cap to swap.
		}
	})
}

// raiseDelays raises every base, spacing and cap below MinDelay.
func raiseDelays(s schedule.Schedule) schedule.Schedule {
	return transform(s, each(func(n schedule.Schedule) schedule.Schedule {
		switch n := n.(type) {
		case schedule.Exponential:
			if n.Base < MinDelay {
				n.Base = fixBase
			}
			if n.Cap < MinDelay {
				n.Cap = fixCap
			}
			return n
		case schedule.Decorrelated:
			if n.Base < MinDelay {
				n.Base = fixBase
			}
			if n.Cap < MinDelay {
				n.Cap = fixCap
			}
			return n
		case schedule.Fibonacci:
			if n.Base < MinDelay {
				n.Base = fixBase
			}
			return n
		case schedule.Spaced:
			if n.Every < MinDelay {
				n.Every = fixBase
			}
			return n
		case schedule.Capped:
			if n.Max < MinDelay {
				n.Max = fixCap
			}
			return n
		case schedule.Linear:
			if n.Base < MinDelay {
				n.Base = fixBase
			}
			return n
		case schedule.Random:
			if n.Hi < MinDelay {
				n.Hi = fixBase
			}
			return n
		case schedule.DecorrelatedV2:
			if n.Base < MinDelay {
				n.Base = fixBase
			}
			return n
		case schedule.WhileBelow:
			if n.Limit <= fixBase {
				n.Limit = fixCap // the raised delays must fit below it
			}
			return n
		case schedule.AndThen, schedule.Forever, schedule.Intersect, schedule.Jittered, schedule.ResetAfter, schedule.Sum, schedule.Times, schedule.Union, schedule.UpTo:
			// These take the path after the switch.
		}
		return n
	}))
}

// widenJitter raises the high end of every jitter below 100% to 100%: a
// jitter of 0.0001–1% shrinks even raised waits below MinDelay.
func widenJitter(s schedule.Schedule) schedule.Schedule {
	return transform(s, each(func(n schedule.Schedule) schedule.Schedule {
		if j, ok := n.(schedule.Jittered); ok && j.HighPPM() < 1_000_000 {
			j.HighPct, j.HighFrac = 100, 0
			return j
		}
		return n
	}))
}

func tinyDelay(in *input, report reportFunc) {
	if f := in.m.firstWait(in.s); f.MaxAttempts == 2 && f.MaxTotal > 0 && f.MaxTotal < MinDelay {
		report(in.s, fmt.Sprintf("the first retry waits %v at most: less than a network round trip, so it lands before the fault can clear; start at 10ms to 200ms (Brooker: a base of 50ms to 200ms)", f.MaxTotal),
			whole(func(s schedule.Schedule) schedule.Schedule {
				if s = raiseDelays(s); in.m.firstWait(s).MaxTotal >= MinDelay {
					return s
				}
				return widenJitter(s)
			}))
	}
}

func deadUpTo(in *input, report reportFunc) {
	walk(in.s, func(n schedule.Schedule, _ []schedule.Schedule) {
		u, ok := n.(schedule.UpTo)
		if !ok || in.m.Bounds(u).MaxAttempts > 1 {
			return
		}
		f := in.m.firstWait(u.Inner)
		if f.MaxAttempts < 2 {
			return // the inner policy does not retry either
		}
		budget := min(schedule.MaxDuration/2, max(f.MaxTotal, time.Second)) * 2
		report(n, fmt.Sprintf("%v never retries: its first wait is longer than the %v budget; raise the budget, or drop the retry policy", n, u.Budget),
			edit(u, func(n schedule.Schedule) schedule.Schedule {
				u := n.(schedule.UpTo)
				u.Budget = budget
				return u
			}))
	})
}

func noDelay(in *input, report reportFunc) {
	b := in.limits
	if b.MaxAttempts > 1 && b.TotalBounded() && b.MaxTotal == 0 {
		report(in.s, "no delay between attempts: every retry goes at once, so a dependency that is failing (often because it is overloaded) gets each call's whole burst the moment it is weakest, and clients that failed together retry together; back off with jitter between attempts, as recur's default policy does (fulljitter(100ms, 2s) & times(3))", whole(func(s schedule.Schedule) schedule.Schedule {
			return schedule.Intersect{A: schedule.FullJitter(fixBase, fixCap), B: s}
		}))
	}
}

func jitterAboveCap(in *input, report reportFunc) {
	walk(in.s, func(n schedule.Schedule, _ []schedule.Schedule) {
		if j, ok := n.(schedule.Jittered); ok && j.HighPPM() > 1_000_000 {
			report(n, fmt.Sprintf("%v can stretch a delay to %s, past the cap of the schedule inside: keep the high end at 100%% and raise the inner cap instead", n, schedule.AppendPercent(nil, j.HighPct, j.HighFrac)),
				edit(j, func(n schedule.Schedule) schedule.Schedule {
					j := n.(schedule.Jittered)
					if j.LowPPM() > 1_000_000 {
						j.LowPct, j.LowFrac = 100, 0
					}
					j.HighPct, j.HighFrac = 100, 0
					return j
				}))
		}
	})
}
