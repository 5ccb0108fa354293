package lint

import (
	"fmt"
	"time"

	"github.com/recur-go/recur/schedule"
)

// The rules about the constructs of the language's later additions: + (Sum),
// linear, random and whilebelow.

// deadWhileBelow fires on a whilebelow whose limit is at or below every
// first wait of its policy: with it the policy never retries, without it
// it would.
func deadWhileBelow(in *input, report reportFunc) {
	walk(in.s, func(n schedule.Schedule, _ []schedule.Schedule) {
		w, ok := n.(schedule.WhileBelow)
		if !ok || in.m.Bounds(w).MaxAttempts > 1 {
			return
		}
		f := in.m.firstWait(w.Inner)
		if f.MaxAttempts < 2 {
			return // the inner policy does not retry either
		}
		limit := min(schedule.MaxDuration/2, max(f.MaxTotal, time.Second)) * 2
		report(n, fmt.Sprintf("%v never retries: its first wait is already %v or more, and whilebelow gives up on such a wait; raise the limit, or cap the waits with capped if they are to be shortened, not given up on", n, w.Limit),
			edit(w, func(n schedule.Schedule) schedule.Schedule {
				w := n.(schedule.WhileBelow)
				w.Limit = limit
				return w
			}))
	})
}

// unreachedWhileBelow fires on a whilebelow whose limit is above every
// wait its policy can choose, whatever its attempts take: it never gives
// up on anything, which was rarely meant.
func unreachedWhileBelow(in *input, report reportFunc) {
	walk(in.s, func(n schedule.Schedule, _ []schedule.Schedule) {
		w, ok := n.(schedule.WhileBelow)
		if !ok || schedule.MaxDelayAnyPace(w.Inner) >= w.Limit {
			return
		}
		report(n, fmt.Sprintf("%v never gives up on a wait: no wait of %v reaches %v; lower the limit, or drop whilebelow", n, w.Inner, w.Limit),
			edit(w, func(n schedule.Schedule) schedule.Schedule { return n.(schedule.WhileBelow).Inner }))
	})
}

// sumTimes fires on a + with a times on one side: a times waits nothing,
// so it adds no delay and only bounds the attempts, which & says plainly.
func sumTimes(in *input, report reportFunc) {
	walk(in.s, func(n schedule.Schedule, _ []schedule.Schedule) {
		s, ok := n.(schedule.Sum)
		if !ok {
			return
		}
		_, ta := s.A.(schedule.Times)
		_, tb := s.B.(schedule.Times)
		if !ta && !tb {
			return
		}
		report(n, fmt.Sprintf("%v adds a times, which waits nothing: it only bounds the attempts, as & does; write & to say so", n),
			edit(s, func(n schedule.Schedule) schedule.Schedule {
				return schedule.Intersect(n.(schedule.Sum))
			}))
	})
}

// addsJitter reports whether n is a Sum with a Random part that spreads
// its waits: additive jitter, as tenacity's wait_exponential_jitter.
func addsJitter(n schedule.Schedule) bool {
	if _, ok := n.(schedule.Sum); !ok {
		return false
	}
	var random func(s schedule.Schedule) bool
	random = func(s schedule.Schedule) bool {
		if r, ok := s.(schedule.Random); ok && r.Lo < r.Hi {
			return true
		}
		a, b := schedule.Children(s)
		return a != nil && random(a) || b != nil && random(b)
	}
	return random(n)
}

// resetAfterCount fires on a resetafter over a policy with a times: the
// reset starts the count over too, so that a run of slow attempts (each
// one as long as the reset's After) never ends. The times belongs outside.
func resetAfterCount(in *input, report reportFunc) {
	walk(in.s, func(n schedule.Schedule, _ []schedule.Schedule) {
		r, ok := n.(schedule.ResetAfter)
		if !ok || !counts(r.Inner) {
			return
		}
		report(n, fmt.Sprintf("%v starts its times over at every reset, so its attempts have no bound; put the times outside: resetafter(...) & times(n)", n),
			edit(r, func(n schedule.Schedule) schedule.Schedule {
				r := n.(schedule.ResetAfter)
				most := 1
				r.Inner = transform(r.Inner, each(func(n schedule.Schedule) schedule.Schedule {
					if t, ok := n.(schedule.Times); ok && t.N > 1 {
						most = max(most, t.N)
						return schedule.Forever{}
					}
					return n
				}))
				return schedule.Intersect{A: r, B: schedule.Times{N: min(most, MaxAttempts)}}
			}))
	})
}

// counts reports whether s has a Times that is not Times(1).
func counts(s schedule.Schedule) bool {
	if t, ok := s.(schedule.Times); ok && t.N > 1 {
		return true
	}
	a, b := schedule.Children(s)
	return a != nil && counts(a) || b != nil && counts(b)
}
