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
// that remains, one at a time, until none remains, and tidies the result. A policy that does not
// come clean within maxRepairs rewrites is replaced by the fallback.
func repair(s schedule.Schedule, fix rewrite, sev Severity) schedule.Schedule {
	for range maxRepairs {
		s = fix(s)
		if schedule.Validate(s) != nil {
			break
		}
		hs := run(&input{s: s, limits: schedule.Bounds(s)}, sev)
		if len(hs) == 0 {
			return tidy(s, sev)
		}
		fix = hs[0].fix
	}
	return fallback
}

// tidy returns the simplified form of s, which the rewrites may have left
// with repeated parts, if that is shorter and clean at sev as well.
func tidy(s schedule.Schedule, sev Severity) schedule.Schedule {
	t := schedule.Simplify(s)
	if len(parse.Format(t, parse.Infix)) >= len(parse.Format(s, parse.Infix)) || len(run(&input{s: t, limits: schedule.Bounds(t)}, sev)) > 0 {
		return s
	}
	return t
}

// transform rebuilds s bottom-up, replacing each node n by f(n) once its
// children are transformed.
func transform(s schedule.Schedule, f func(schedule.Schedule) schedule.Schedule) schedule.Schedule {
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
	}
	return f(s)
}

// replace returns s with every node equal to old replaced by new.
func replace(old, new schedule.Schedule) rewrite {
	return func(s schedule.Schedule) schedule.Schedule {
		return transform(s, func(n schedule.Schedule) schedule.Schedule {
			if n == old {
				return new
			}
			return n
		})
	}
}

// limitAttempts lowers every Times above MaxAttempts to 3 and, if the policy
// still allows too many attempts or never stops, adds & times(3).
func limitAttempts(s schedule.Schedule) schedule.Schedule {
	s = transform(s, func(n schedule.Schedule) schedule.Schedule {
		if t, ok := n.(schedule.Times); ok && t.N > MaxAttempts {
			return schedule.Times{N: 3}
		}
		return n
	})
	if b := schedule.Bounds(s); !b.Stops || b.MaxAttempts > MaxAttempts {
		s = schedule.Intersect{A: s, B: schedule.Times{N: 3}}
	}
	return s
}
