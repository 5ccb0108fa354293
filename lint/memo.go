package lint

import "github.com/recur-go/recur/schedule"

// memo keeps what one Check learns from schedule.Bounds and schedule.Stops,
// so that the rules, and the repairs that work out the fixes, ask each
// question about a policy once. A large policy is asked about again and
// again: once per Union for Stops, once per repair step for Bounds.
type memo struct {
	mode   Mode // what the policy is for: the rules that apply
	bounds map[schedule.Schedule]schedule.Limits
	stops  map[schedule.Schedule]bool
	first  map[schedule.Schedule]schedule.Limits
}

func newMemo(mode Mode) *memo {
	return &memo{mode: mode, bounds: map[schedule.Schedule]schedule.Limits{}, stops: map[schedule.Schedule]bool{}, first: map[schedule.Schedule]schedule.Limits{}}
}

// Bounds is schedule.Bounds(s), remembered.
func (m *memo) Bounds(s schedule.Schedule) schedule.Limits {
	b, ok := m.bounds[s]
	if !ok {
		b = schedule.Bounds(s)
		m.bounds[s] = b
	}
	return b
}

// Stops is schedule.Stops(s), remembered.
func (m *memo) Stops(s schedule.Schedule) bool {
	st, ok := m.stops[s]
	if !ok {
		st = schedule.Stops(s)
		m.stops[s] = st
	}
	return st
}

// input returns the rules' input for s.
func (m *memo) input(s schedule.Schedule) *input {
	return &input{s: s, limits: m.Bounds(s), m: m}
}

// firstWait is schedule.FirstWait(s), remembered.
func (m *memo) firstWait(s schedule.Schedule) schedule.Limits {
	b, ok := m.first[s]
	if !ok {
		b = schedule.FirstWait(s)
		m.first[s] = b
	}
	return b
}
