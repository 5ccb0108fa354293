package interp

import "github.com/recur-go/recur/schedule"

// NeedsStart reports whether s measures time from a node's start, that is
// whether it contains a Spaced or an UpTo node. Only such a schedule needs
// to know when the first attempt began; for any other schedule the start
// and end times passed to Run.Next make no difference, so a runner need not
// read its clock before the first attempt. It is a static property of s:
// it walks the tree and allocates nothing.
func NeedsStart(s schedule.Schedule) bool {
	// A chain of type assertions compares one type word each, which is
	// cheaper than a type switch's hash search on a path as hot as the
	// first attempt of every call.
	for {
		if v, ok := s.(schedule.Intersect); ok {
			if NeedsStart(v.A) {
				return true
			}
			s = v.B
		} else if v, ok := s.(schedule.Jittered); ok {
			s = v.Inner
		} else if v, ok := s.(schedule.Union); ok {
			if NeedsStart(v.A) {
				return true
			}
			s = v.B
		} else if v, ok := s.(schedule.AndThen); ok {
			if NeedsStart(v.First) {
				return true
			}
			s = v.Then
		} else if v, ok := s.(schedule.Capped); ok {
			s = v.Inner
		} else {
			switch s.(type) {
			case schedule.Spaced, schedule.UpTo:
				return true
			}
			return false // the other leaves, and nil
		}
	}
}
