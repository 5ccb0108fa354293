package lint

import "github.com/recur-go/recur/schedule"

// A phase is the Then of an AndThen: times(3) then spaced(1m) has a fast
// phase and a slow one. A fix must keep every phase a policy reaches, so
// that bounding times(3) then spaced(1m) bounds its slow phase instead of
// cutting it off: times(3) then spaced(1m) & times(3).

// livePhases counts the AndThen nodes of s whose First may continue and
// whose Then is live: replacing
// it by times(1), which never continues, changes the bounds of s (its
// attempts, its waits, whether it stops), or of its side of a Union.
func (m *memo) livePhases(s schedule.Schedule) int {
	if m.Bounds(s).MaxAttempts <= 1 {
		return 0 // a policy that never retries has no phases
	}
	n := 0
	walk(s, func(node schedule.Schedule, anc []schedule.Schedule) {
		a, ok := node.(schedule.AndThen)
		if !ok || a.Then == (schedule.Times{N: 1}) || m.Bounds(a.First).MaxAttempts <= 1 {
			return // times(1) then x is x: one phase
		}
		// A side of a Union is a policy of its own, whose phases the
		// other side may hide: judge the phase within its side.
		root := s
		for i, p := range anc {
			if _, ok := p.(schedule.ResetAfter); ok {
				return // a reset starts the phases over, at times Bounds does not follow
			}
			if _, ok := p.(schedule.Union); ok {
				if i+1 < len(anc) {
					root = anc[i+1]
				} else {
					root = node
				}
			}
		}
		cut := transform(root, func(orig, n schedule.Schedule) schedule.Schedule {
			if orig == node {
				return schedule.AndThen{First: n.(schedule.AndThen).First, Then: schedule.Times{N: 1}}
			}
			return n
		})
		if m.Bounds(cut) != m.Bounds(root) {
			n++
		}
	})
	return n
}

// limitAttempts returns s changed to make at most MaxAttempts attempts and
// to stop, keeping its phases where the attempts allow: see boundTo.
func (m *memo) limitAttempts(s schedule.Schedule) schedule.Schedule {
	return m.boundTo(s, MaxAttempts)
}

// boundTo returns s changed to make at most k ≥ 2 attempts and to stop. A
// times above k becomes times(3) (or k); a policy that has none to lower
// gets & times(3). The attempts of an AndThen are shared between its
// phases, so that each phase keeps at least one; a Union is bounded on
// each side, and an UpTo, a jitter or a cap inside when it has phases.
func (m *memo) boundTo(s schedule.Schedule, k int) schedule.Schedule {
	if b := m.Bounds(s); b.Stops && b.MaxAttempts <= k {
		return s
	}
	limit := schedule.Times{N: min(3, k)}
	// A side of a Union that stops on time may be asked more often there
	// than alone, when the other side waits less: check the whole.
	if t := m.boundInside(s, k); m.Bounds(t).Stops && m.Bounds(t).MaxAttempts <= k {
		return t
	}
	return schedule.Intersect{A: s, B: limit}
}

// intersectUnion is the fix of union-unbounded for the Union u in s: a & b
// for a | b, unless that cuts off a phase of s, in which case the side of
// u that never stops is bounded instead: (times(2) then spaced(1s)) |
// times(1) becomes (times(2) then spaced(1s) & times(3)) | times(1), not
// times(1).
func (m *memo) intersectUnion(s schedule.Schedule, u schedule.Union) schedule.Schedule {
	replace := func(with schedule.Schedule) schedule.Schedule {
		return transform(s, func(orig, n schedule.Schedule) schedule.Schedule {
			if orig == u {
				return with
			}
			return n
		})
	}
	want := m.livePhases(s)
	best := replace(schedule.Intersect(u))
	if m.livePhases(best) >= want {
		return best
	}
	// Bound the side that never stops: as boundTo does, else to
	// MaxAttempts, or more when the rest needs more to reach its phases
	// (too-many-attempts then shares MaxAttempts between them).
	bounds := []func(schedule.Schedule) schedule.Schedule{
		func(x schedule.Schedule) schedule.Schedule { return m.boundTo(x, MaxAttempts) },
	}
	for n := MaxAttempts; n <= 1<<10; n *= 2 {
		bounds = append(bounds, func(x schedule.Schedule) schedule.Schedule { return schedule.Intersect{A: x, B: schedule.Times{N: n}} })
	}
	for _, bound := range bounds {
		b := u
		if !m.Stops(b.A) {
			b.A = bound(b.A)
		}
		if !m.Stops(b.B) {
			b.B = bound(b.B)
		}
		t := replace(b)
		if m.livePhases(t) >= want {
			return t
		}
		if m.livePhases(t) > m.livePhases(best) {
			best = t
		}
	}
	return best
}

// boundEither bounds one of the two sides of a policy that continues while
// both do (an Intersect, a Sum) to k attempts: the one whose bound keeps
// more phases, else the side that stops (times(10) in a & times(10)),
// else b.
func (m *memo) boundEither(a, b schedule.Schedule, k int) (schedule.Schedule, schedule.Schedule) {
	ba, bb := m.boundTo(a, k), m.boundTo(b, k)
	pa := m.livePhases(schedule.Intersect{A: ba, B: b}) // a bounded
	pb := m.livePhases(schedule.Intersect{A: a, B: bb}) // b bounded
	switch {
	case pa > pb:
		return ba, b
	case pb > pa:
		return a, bb
	case !m.Bounds(b).Stops && m.Bounds(a).Stops:
		return ba, b
	}
	return a, bb
}
