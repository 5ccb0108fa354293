package interp

import "github.com/recur-go/recur/schedule"

// NeedsStart reports whether s measures time from a node's start, that is
// whether it contains a Spaced or an UpTo node. Only such a schedule needs
// to know when the first attempt began; for any other schedule the start
// and end times passed to Run.Next make no difference, so a runner need not
// read its clock before the first attempt. It is a static property of s:
// it walks the tree and allocates nothing.
func NeedsStart(s schedule.Schedule) bool {
	// Runners call this before every first attempt, so it is written for
	// speed: one type switch per node, and no recursion into a binary
	// node whose second child is a leaf without a start, which covers the
	// usual Intersect{backoff, Times{n}}.
	for {
		var a, b schedule.Schedule
		switch v := s.(type) {
		case schedule.Spaced, schedule.UpTo:
			return true
		case schedule.Jittered:
			s = v.Inner
			continue
		case schedule.Capped:
			s = v.Inner
			continue
		case schedule.Intersect:
			a, b = v.A, v.B
		case schedule.Union:
			a, b = v.A, v.B
		case schedule.AndThen:
			a, b = v.First, v.Then
		default: // the other leaves, and nil
			return false
		}
		switch b.(type) {
		case schedule.Times, schedule.Forever, schedule.Exponential, schedule.Fibonacci, schedule.Decorrelated:
			s = a
			continue
		}
		if NeedsStart(a) {
			return true
		}
		s = b
	}
}
