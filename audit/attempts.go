package audit

import (
	"math"
	"time"

	"github.com/recur-go/recur/internal/sat"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/schedule"
)

// MaxCounted is the largest attempt count MaxAttempts finds by running a
// policy; a policy bounded only by time that allows more is reported as
// unbounded (math.MaxInt), which is past every limit anyway.
const MaxCounted = 1 << 20

// MaxAttempts returns the most attempts, the first included, that a run of
// s makes when every attempt takes at least minAttempt before it fails, or
// math.MaxInt when the number has no bound. A nil s makes one attempt.
//
// Attempts that take no time (minAttempt 0: connection refused, a
// breaker's rejection) make the most of a time budget, so:
//
//   - A policy that never stops (schedule.Bounds(s).Stops is false) has no
//     bound.
//   - A policy without Spaced or UpTo counts its attempts whatever the
//     time: its bound is schedule.Bounds(s).MaxAttempts. Times(4) makes 4,
//     AndThen(Times(3), Times(2)) makes 4.
//   - A policy with Spaced or UpTo is run once, on a virtual timeline where
//     each attempt takes exactly minAttempt and every random factor is at
//     its least (Jittered at LowPct, Decorrelated at Base), which gives the
//     earliest possible start to every attempt and so the most attempts
//     within each budget. UpTo(Forever, 10s) has no bound for instant
//     attempts and makes 11 when each takes 1s; Spaced(1s) upto 10s makes
//     11 either way. The run is cut at MaxCounted attempts, and then the
//     count is schedule.Bounds(s).MaxAttempts if that is larger, else
//     unbounded.
//
// The count is exact — some run makes that many, none makes more — for
// every policy in which a later attempt never lets the next one start
// earlier: all but a Jittered with a factor above 100% over a Spaced
// (lint flags such jitter as jitter-above-cap).
func MaxAttempts(s schedule.Schedule, minAttempt time.Duration) int {
	if s == nil {
		return 1
	}
	if schedule.Validate(s) != nil {
		return 1 // interp stops an invalid schedule at its first decision
	}
	b := schedule.Bounds(s)
	switch {
	case !b.Stops:
		return math.MaxInt
	case !interp.NeedsStart(s):
		return b.MaxAttempts
	case minAttempt <= 0 && !b.AttemptsBounded():
		return math.MaxInt // a time budget does not bound instant attempts
	case minAttempt <= 0 && b.MaxAttempts > MaxCounted:
		return b.MaxAttempts
	}
	if paceBound(s) {
		// Slower attempts reach a ResetAfter's quiet time and start its
		// inner schedule over, and shorten the waits a WhileBelow judges
		// (a Spaced slot shrinks as an attempt runs long), so the fastest
		// run is not the longest: only Bounds, which allows for every
		// pace, bounds the attempts.
		return b.MaxAttempts
	}
	if n, ok := fastestRun(s, max(minAttempt, 0), MaxCounted); ok {
		return n
	}
	if b.MaxAttempts > MaxCounted {
		return b.MaxAttempts // instant attempts make the most of every budget
	}
	// A run made more attempts than Bounds allows instant ones: times near
	// the largest Duration saturate, and a budget that could not hold an
	// instant retry holds a later one. Count it as no bound.
	return math.MaxInt
}

// fastestRun counts the attempts of the run of s in which each attempt
// takes d and every random factor is at its least, up to limit attempts;
// ok is false when the run goes past limit.
func fastestRun(s schedule.Schedule, d time.Duration, limit int) (n int, ok bool) {
	r := interp.Start(leastDraws(s), 0)
	var start time.Duration
	for n = 1; n <= limit; n++ {
		end := sat.AddDur(start, d)
		delay, more := r.Next(start, end)
		if !more {
			return n, true
		}
		start = sat.AddDur(end, delay)
	}
	return 0, false
}

// leastDraws returns s with every random factor fixed at its least:
// Jittered scales by exactly LowPct, and Decorrelated, whose least draw is
// always Base, waits min(Base, Cap) each time.
func leastDraws(s schedule.Schedule) schedule.Schedule {
	switch v := s.(type) {
	case schedule.Jittered:
		return schedule.Jittered{Inner: leastDraws(v.Inner), LowPct: v.LowPct, LowFrac: v.LowFrac, HighPct: v.LowPct, HighFrac: v.LowFrac}
	case schedule.Decorrelated:
		return schedule.Exponential{Base: v.Base, FactorPct: 100, Cap: v.Cap}
	case schedule.Capped:
		return schedule.Capped{Inner: leastDraws(v.Inner), Max: v.Max}
	case schedule.UpTo:
		return schedule.UpTo{Inner: leastDraws(v.Inner), Budget: v.Budget}
	case schedule.Union:
		return schedule.Union{A: leastDraws(v.A), B: leastDraws(v.B)}
	case schedule.Intersect:
		return schedule.Intersect{A: leastDraws(v.A), B: leastDraws(v.B)}
	case schedule.AndThen:
		return schedule.AndThen{First: leastDraws(v.First), Then: leastDraws(v.Then)}
	case schedule.Random:
		return schedule.Random{Lo: v.Lo, Hi: v.Lo}
	case schedule.Sum:
		return schedule.Sum{A: leastDraws(v.A), B: leastDraws(v.B)}
	case schedule.WhileBelow:
		return schedule.WhileBelow{Inner: leastDraws(v.Inner), Limit: v.Limit}
	case schedule.ResetAfter:
		return schedule.ResetAfter{Inner: leastDraws(v.Inner), After: v.After}
	case schedule.DecorrelatedV2:
		// Its least draws make its waits zero from the second on: a
		// Linear of zero step from 0 waits no less.
		return schedule.Linear{}
	case schedule.Exponential, schedule.Fibonacci, schedule.Forever, schedule.Linear, schedule.Spaced, schedule.Times:
		// These take the path after the switch.
	}
	return s
}

// timeLimit returns how late after the run's start s can begin an
// attempt, for a policy bounded by an UpTo at its root, and false for any
// other. An UpTo at the root lets an attempt start only within its budget;
// Capped and Jittered up to 100% only bring starts earlier; a Union or an
// Intersect whose sides are both bounded starts each attempt when one of
// them would.
func timeLimit(s schedule.Schedule) (time.Duration, bool) {
	switch v := s.(type) {
	case schedule.UpTo:
		if l, ok := timeLimit(v.Inner); ok {
			return min(l, v.Budget), true
		}
		return v.Budget, true
	case schedule.Capped:
		return timeLimit(v.Inner)
	case schedule.Jittered:
		if v.HighPPM() <= 1_000_000 {
			return timeLimit(v.Inner)
		}
	case schedule.Union:
		return bothLimited(v.A, v.B)
	case schedule.Intersect:
		return bothLimited(v.A, v.B)
	case schedule.WhileBelow:
		return timeLimit(v.Inner) // it only stops earlier
	case schedule.AndThen, schedule.Decorrelated, schedule.DecorrelatedV2, schedule.Exponential, schedule.Fibonacci, schedule.Forever, schedule.Linear, schedule.Random, schedule.Spaced, schedule.Times:
		// These take the path after the switch.
	case schedule.ResetAfter:
		// A reset starts an UpTo inside over.
	case schedule.Sum:
		// A side's UpTo checks its own delay, not the sum: the next
		// attempt can start past its budget.
		// These take the path after the switch.
	}
	return 0, false
}

func bothLimited(a, b schedule.Schedule) (time.Duration, bool) {
	la, oka := timeLimit(a)
	lb, okb := timeLimit(b)
	return max(la, lb), oka && okb
}

// worstTime returns the longest a retry loop of s can take when it makes
// at most n attempts of at most perAttempt each: n attempts plus maxWait,
// and for a policy bounded by an UpTo at its root, at most the budget plus
// one attempt. schedule.MaxDuration stands for no bound.
func worstTime(s schedule.Schedule, n int, perAttempt time.Duration) time.Duration {
	if s == nil {
		return perAttempt
	}
	w := sat.AddDur(maxWait(s, n), sat.MulDur(perAttempt, int64(n)))
	if l, ok := timeLimit(s); ok {
		w = min(w, sat.AddDur(l, perAttempt))
	}
	return w
}

// maxWait returns the most a run of s with at most n attempts waits in
// all, whatever its attempts take. When the waits do not depend on the
// clock — no Spaced or UpTo, or only UpTos around such a policy, which
// cut a run short but do not change its waits — that is the most waiting
// of schedule.Bounds. Otherwise it is n−1 times the longest single wait
// whatever the attempts take, schedule.MaxDelayAnyPace:
// a clock-driven node that stops early can make others wait longer (a
// Union waits for the shortest of the sides that continue, so when a
// side stops, the other's longer waits take over), so waits that Bounds
// computed for instant attempts do not bound slower ones.
func maxWait(s schedule.Schedule, n int) time.Duration {
	if u := withoutUpTo(s); !interp.NeedsStart(u) {
		return schedule.Bounds(u).MaxTotal
	}
	return sat.MulDur(schedule.MaxDelayAnyPace(s), int64(max(n, 1)-1))
}

// withoutUpTo returns s without the UpTo nodes that bound it from the
// top (through Jittered and Capped).
func withoutUpTo(s schedule.Schedule) schedule.Schedule {
	switch v := s.(type) {
	case schedule.UpTo:
		return withoutUpTo(v.Inner)
	case schedule.Jittered:
		v.Inner = withoutUpTo(v.Inner)
		return v
	case schedule.Capped:
		return schedule.Capped{Inner: withoutUpTo(v.Inner), Max: v.Max}
	case schedule.WhileBelow:
		return schedule.WhileBelow{Inner: withoutUpTo(v.Inner), Limit: v.Limit}
	case schedule.AndThen, schedule.Decorrelated, schedule.DecorrelatedV2, schedule.Exponential, schedule.Fibonacci, schedule.Forever, schedule.Intersect, schedule.Linear, schedule.Random, schedule.ResetAfter, schedule.Spaced, schedule.Sum, schedule.Times, schedule.Union:
		// These take the path after the switch.
	}
	return s
}

// paceBound reports whether s has a ResetAfter or a WhileBelow node,
// whose attempts slower attempts can make more.
func paceBound(s schedule.Schedule) bool {
	if _, ok := s.(schedule.ResetAfter); ok {
		return true
	}
	if _, ok := s.(schedule.WhileBelow); ok {
		return true
	}
	a, b := schedule.Children(s)
	return a != nil && paceBound(a) || b != nil && paceBound(b)
}
