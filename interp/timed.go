package interp

import "github.com/recur-go/recur/schedule"

// Check walks s once and reports two static properties of it: timed,
// whether s measures time from a node's start (see NeedsStart), and valid,
// whether schedule.Validate(s) would return nil. A runner calls it before
// its first attempt, so that an invalid schedule is reported before the
// operation runs, and builds the detailed error with schedule.Validate
// only when valid is false. Check allocates nothing and has no error
// path: each node costs one type switch and a few comparisons.
//
// timed is exact whether or not s is valid.
func Check(s schedule.Schedule) (timed, valid bool) {
	// The usual shapes in one go: Backoff or FullJitter & Times(n), a bare
	// Times(n), and either inside an UpTo. Type assertions, not a type
	// switch: a switch over every variant (which package exhaustive
	// requires) finds its case by a search over type hashes, and this is
	// the whole cost of a first attempt's check.
	if v, ok := s.(schedule.Intersect); ok {
		if j, ok := v.A.(schedule.Jittered); ok {
			if e, ok := j.Inner.(schedule.Exponential); ok {
				if n, ok := v.B.(schedule.Times); ok && j.LowFrac|j.HighFrac|e.FactorFrac == 0 {
					return false, j.LowPct >= 0 && j.HighPct <= 1000 && j.LowPct <= j.HighPct &&
						e.Base > 0 && e.FactorPct >= 100 && e.Cap > 0 && n.N >= 1
				}
			}
		}
	} else if v, ok := s.(schedule.Times); ok {
		return false, v.N >= 1
	} else if v, ok := s.(schedule.UpTo); ok {
		_, valid := Check(v.Inner)
		return true, valid && v.Budget >= 0
	}
	return check(s)
}

// check is Check for any schedule. One type switch a node, which the
// compiler makes a jump table: a chain of type assertions costs more from
// the third variant on.
func check(s schedule.Schedule) (timed, valid bool) {
	// The checks below are schedule.Validate's, node by node; a property
	// test holds them equal. A binary node whose second child is a Times
	// checks it in place; any other walks its first child by recursion
	// and its second by the loop.
	valid = true
	for {
		var a, b schedule.Schedule
		switch v := s.(type) {
		case schedule.Times:
			return timed, valid && v.N >= 1
		case schedule.Exponential:
			return timed, valid && v.Base > 0 && v.FactorPct >= 100 && v.Cap > 0 &&
				(v.FactorFrac == 0 || v.FactorFrac > 0 && v.FactorFrac < schedule.PctFracs && v.FactorPct < 1_000_000_000)
		case schedule.Forever:
			return timed, valid
		case schedule.Spaced:
			return true, valid && v.Every > 0
		case schedule.Fibonacci:
			return timed, valid && v.Base > 0
		case schedule.Decorrelated:
			return timed, valid && v.Base > 0 && v.Cap > 0
		case schedule.Linear:
			return timed, valid && v.Base >= 0 && v.Step >= 0
		case schedule.DecorrelatedV2:
			return timed, valid && v.Base > 0
		case schedule.Random:
			return timed, valid && v.Lo >= 0 && v.Lo <= v.Hi
		case schedule.WhileBelow:
			valid = valid && v.Limit > 0
			s = v.Inner
			continue
		case schedule.ResetAfter:
			timed = true // it resets on the clock
			valid = valid && v.After > 0
			s = v.Inner
			continue
		case schedule.Sum:
			a, b = v.A, v.B
		case schedule.Jittered:
			valid = valid && v.LowPct >= 0 && v.HighPct <= 1000 && v.LowPct <= v.HighPct
			if v.LowFrac != 0 || v.HighFrac != 0 {
				valid = valid && v.LowFrac >= 0 && v.LowFrac < schedule.PctFracs && v.HighFrac >= 0 && v.HighFrac < schedule.PctFracs &&
					(v.HighPct < 1000 || v.HighFrac == 0) && v.LowPPM() <= v.HighPPM()
			}
			s = v.Inner
			continue
		case schedule.Capped:
			valid = valid && v.Max >= 0
			s = v.Inner
			continue
		case schedule.UpTo:
			timed = true
			valid = valid && v.Budget >= 0
			s = v.Inner
			continue
		case schedule.Intersect:
			a, b = v.A, v.B
		case schedule.Union:
			a, b = v.A, v.B
		case schedule.AndThen:
			a, b = v.First, v.Then
		default: // nil, a missing child, or a type that only embeds a variant
			return timed, false
		}
		if v, ok := b.(schedule.Times); ok {
			valid = valid && v.N >= 1
			s = a
			continue
		}
		ta, va := check(a)
		timed = timed || ta
		valid = valid && va
		s = b
	}
}

// NeedsStart reports whether s measures time from a node's start, that is
// whether it contains a Spaced, an UpTo or a ResetAfter node. Only such a schedule needs
// to know when the first attempt began; for any other schedule the start
// and end times passed to Run.Next make no difference, so a runner need not
// read its clock before the first attempt. It is a static property of s:
// it walks the tree and allocates nothing.
func NeedsStart(s schedule.Schedule) bool {
	timed, _ := Check(s)
	return timed
}
