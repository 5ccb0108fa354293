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
	return fallback
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
