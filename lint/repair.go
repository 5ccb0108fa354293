package lint

import (
	"time"

	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
)

// fallback is the fix of last resort, and the policy the rules' sources
// recommend: full jitter from 100ms, capped at 30s, three attempts. It lints
// clean (TestFallbackIsClean).
var fallback schedule.Schedule = schedule.Intersect{A: schedule.FullJitter(100*time.Millisecond, 30*time.Second), B: schedule.Times{N: 3}}

// hedgeFallback is the fallback of a hedging policy: a second and a third
// copy 50ms apart, hedge-no-delay's delay.
var hedgeFallback schedule.Schedule = schedule.Intersect{A: schedule.Spaced{Every: hedgeDelay}, B: schedule.Times{N: 3}}

// lastResort returns the fallback for m's mode.
func (m *memo) lastResort() schedule.Schedule {
	if m.mode == Hedge {
		return hedgeFallback
	}
	return fallback
}

// maxRepairs bounds the rewrites one fix may take.
const maxRepairs = 12

// repair applies fix to s, then the fix of every finding at or above sev
// that remains, one rule at a time, until none remains, and tidies the
// result. A policy that does not come clean within maxRepairs rewrites is
// replaced by the fallback.
func repair(m *memo, s schedule.Schedule, fix rewrite, sev Severity) schedule.Schedule {
	for range maxRepairs {
		s = fix(s)
		if schedule.Validate(s) != nil {
			break
		}
		hs := run(m.input(s), sev)
		if len(hs) == 0 {
			return tidy(m, s, sev)
		}
		fix = ruleFix(hs, hs[0].ID)
	}
	return m.lastResort()
}

// ruleFix returns the rewrite that removes every hit of rule id among hs:
// their node edits in one pass, then their whole-policy rewrites.
func ruleFix(hs []hit, id string) rewrite {
	edits := map[schedule.Schedule]rewrite{}
	var rewrites []rewrite
	for _, h := range hs {
		switch {
		case h.ID != id:
		case h.fix.rewrite != nil:
			rewrites = append(rewrites, h.fix.rewrite)
		default:
			edits[h.fix.node] = h.fix.edit
		}
	}
	return func(s schedule.Schedule) schedule.Schedule {
		if len(edits) > 0 {
			s = transform(s, func(orig, n schedule.Schedule) schedule.Schedule {
				if e, ok := edits[orig]; ok {
					return e(n)
				}
				return n
			})
		}
		for _, r := range rewrites {
			s = r(s)
		}
		return s
	}
}

// tidy returns the simplified form of s, which the rewrites may have left
// with repeated parts, if that is shorter, parses back (Simplify nests a
// chain of n operands n deep), is clean at sev as well and keeps the
// phases of s (Simplify merges times(3) then times(2) into times(4)).
func tidy(m *memo, s schedule.Schedule, sev Severity) schedule.Schedule {
	t := schedule.Simplify(s)
	text := Format(t)
	if len(text) >= len(Format(s)) || len(run(m.input(t), sev)) > 0 || m.livePhases(t) < m.livePhases(s) {
		return s
	}
	if _, err := parse.Parse(text); err != nil {
		return s
	}
	return t
}

// transform rebuilds s bottom-up, replacing each node by f(orig, n): orig
// is the node as it was, n the node with its children transformed.
func transform(s schedule.Schedule, f func(orig, n schedule.Schedule) schedule.Schedule) schedule.Schedule {
	orig := s
	switch n := s.(type) {
	case schedule.Jittered:
		n.Inner = transform(n.Inner, f)
		s = n
	case schedule.Capped:
		n.Inner = transform(n.Inner, f)
		s = n
	case schedule.UpTo:
		n.Inner = transform(n.Inner, f)
		s = n
	case schedule.Union:
		n.A, n.B = transform(n.A, f), transform(n.B, f)
		s = n
	case schedule.Intersect:
		n.A, n.B = transform(n.A, f), transform(n.B, f)
		s = n
	case schedule.AndThen:
		n.First, n.Then = transform(n.First, f), transform(n.Then, f)
		s = n
	case schedule.Sum:
		n.A, n.B = transform(n.A, f), transform(n.B, f)
		s = n
	case schedule.WhileBelow:
		n.Inner = transform(n.Inner, f)
		s = n
	case schedule.ResetAfter:
		n.Inner = transform(n.Inner, f)
		s = n
	case schedule.Decorrelated, schedule.DecorrelatedV2, schedule.Exponential, schedule.Fibonacci, schedule.Forever, schedule.Linear, schedule.Random, schedule.Spaced, schedule.Times:
		// These take the path after the switch.
	}
	return f(orig, s)
}

// each adapts f, which looks at the transformed node only, to transform.
func each(f rewrite) func(orig, n schedule.Schedule) schedule.Schedule {
	return func(_, n schedule.Schedule) schedule.Schedule { return f(n) }
}

// boundInside is boundTo's work on the parts of s.
func (m *memo) boundInside(s schedule.Schedule, k int) schedule.Schedule {
	limit := schedule.Times{N: min(3, k)}
	switch n := s.(type) {
	case schedule.Times:
		return limit
	case schedule.AndThen:
		if k < 3 {
			break // no room for two phases
		}
		// First keeps its attempts, up to k-1 and 3 if it has no bound;
		// Then has the rest. AndThen(Times(a), Times(b)) makes a+b-1.
		fk := k - 1
		if fb := m.Bounds(n.First); !fb.Stops || !fb.AttemptsBounded() {
			fk = min(3, fk)
		} else {
			fk = min(fb.MaxAttempts, fk)
		}
		if fk < 2 {
			// times(1) then x is x: First makes no decision to go on.
			return schedule.AndThen{First: n.First, Then: m.boundTo(n.Then, k)}
		}
		// Then's own phases need an attempt each, and two more.
		if need := m.livePhases(n.Then) + 2; k-fk+1 < need {
			fk = max(2, k-need+1)
		}
		return schedule.AndThen{First: m.boundTo(n.First, fk), Then: m.boundTo(n.Then, k-fk+1)}
	case schedule.Intersect:
		a, b := m.boundEither(n.A, n.B, k)
		return schedule.Intersect{A: a, B: b}
	case schedule.Sum:
		// A Sum continues while both sides do, as an Intersect does.
		a, b := m.boundEither(n.A, n.B, k)
		return schedule.Sum{A: a, B: b}
	case schedule.Union:
		return schedule.Union{A: m.boundTo(n.A, k), B: m.boundTo(n.B, k)}
	case schedule.UpTo:
		if m.livePhases(n.Inner) > 0 {
			n.Inner = m.boundTo(n.Inner, k)
			return n
		}
	case schedule.Jittered:
		if m.livePhases(n.Inner) > 0 {
			n.Inner = m.boundTo(n.Inner, k)
			return n
		}
	case schedule.Capped:
		if m.livePhases(n.Inner) > 0 {
			n.Inner = m.boundTo(n.Inner, k)
			return n
		}
	case schedule.Decorrelated, schedule.DecorrelatedV2, schedule.Exponential, schedule.Fibonacci, schedule.Forever, schedule.Linear, schedule.Random, schedule.ResetAfter, schedule.Spaced, schedule.WhileBelow:
		// Bounded as a whole: a times inside a resetafter starts over, and
		// a whilebelow's attempts are its inner policy's.
	}
	return schedule.Intersect{A: s, B: limit}
}
