package interp

import "github.com/recur-go/recur/schedule"

// NeedsStart reports whether s measures time from a node's start, that is
// whether it contains a Spaced or an UpTo node. Only such a schedule needs
// to know when the first attempt began; for any other schedule the start
// and end times passed to Run.Next make no difference, so a runner need not
// read its clock before the first attempt. It is a static property of s:
// it walks the tree and allocates nothing.
func NeedsStart(s schedule.Schedule) bool {
	for {
		switch v := s.(type) {
		case schedule.Spaced, schedule.UpTo:
			return true
		case schedule.Jittered:
			s = v.Inner
		case schedule.Capped:
			s = v.Inner
		case schedule.Intersect:
			if NeedsStart(v.A) {
				return true
			}
			s = v.B
		case schedule.Union:
			if NeedsStart(v.A) {
				return true
			}
			s = v.B
		case schedule.AndThen:
			if NeedsStart(v.First) {
				return true
			}
			s = v.Then
		default: // the other leaves, and nil
			return false
		}
	}
}
