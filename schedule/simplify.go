package schedule

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/recur-go/recur/internal/sat"
)

// Simplify returns a schedule equivalent to s, usually smaller, in a
// canonical form. Equivalent means exactly that: for every seed and every
// sequence of attempt durations, package interp makes the same decisions for
// both, jitter included (random draws are keyed by a node's own parameters,
// not its children, so rewriting children leaves them unchanged). Simplify
// is idempotent: Simplify(Simplify(s)) == Simplify(s).
//
// It rewrites bottom-up:
//
//   - Union and Intersect chains are flattened, equal operands deduplicated,
//     the operands ordered by their String form and rebuilt nested to the
//     left, so that equivalent spellings of a commutative chain become ==.
//   - Identities go: Times{1} in a Union, Forever in an Intersect, Times{1}
//     on either side of an AndThen, Jittered at 100%–100%, a Capped whose Max
//     no delay of its inner schedule reaches, an UpTo whose Budget is
//     MaxDuration, a Jittered over a schedule that never waits.
//   - Absorbing elements win: a Union with Forever is Forever, an Intersect
//     with Times{1} is Times{1}, and so is an UpTo over Times{1}.
//   - Times merge: the largest in a Union, the smallest in an Intersect, and
//     adjacent Times{m}, Times{n} in an AndThen chain become Times{m+n-1}.
//   - UpTo(UpTo(a, x), y) is UpTo(a, min(x, y)); Capped and WhileBelow
//     likewise, and a WhileBelow whose Limit no delay reaches goes.
//   - Sum chains are flattened and ordered like Union's, but keep their
//     duplicates (a + a waits twice a's delay); Forever, their identity,
//     goes, the Times keep their smallest and Times{1} absorbs.
//   - AndThen chains nest to the right, and whatever follows a part that
//     never stops (Spaced, Forever, an uncapped backoff …) is dropped.
//
// For example
//
//	Union(Intersect(Times(3), Forever), AndThen(AndThen(Times(2), Times(1)), Times(4)))
//
// simplifies to Times(5). An invalid s (see Validate) is returned unchanged.
func Simplify(s Schedule) Schedule {
	if Validate(s) != nil {
		return s
	}
	return simplify(s)
}

// simplify simplifies a valid schedule; the result is in normal form.
func simplify(s Schedule) Schedule {
	switch s := s.(type) {
	case Jittered:
		return jitteredOf(simplify(s.Inner), s)
	case Capped:
		return cappedOf(simplify(s.Inner), s.Max)
	case UpTo:
		return upToOf(simplify(s.Inner), s.Budget)
	case WhileBelow:
		return whileBelowOf(simplify(s.Inner), s.Limit)
	case ResetAfter:
		if in := simplify(s.Inner); in != (Times{1}) {
			return ResetAfter{Inner: in, After: s.After}
		}
		return Times{1} // it stops at its first decision, fresh or not
	case Sum:
		var ops []Schedule
		for _, op := range appendSum(nil, s) {
			ops = appendSum(ops, simplify(op))
		}
		return sumOf(ops)
	// A chain is flattened before its operands are simplified, and built
	// once: simplifying each link of a chain of n would cost n².
	case Union:
		var ops []Schedule
		for _, op := range appendUnion(nil, s) {
			ops = appendUnion(ops, simplify(op))
		}
		return unionOf(ops)
	case Intersect:
		var ops []Schedule
		for _, op := range appendIntersect(nil, s) {
			ops = appendIntersect(ops, simplify(op))
		}
		return intersectOf(ops)
	case AndThen:
		var chain []Schedule
		for _, op := range appendAndThen(nil, s) {
			chain = appendAndThen(chain, simplify(op))
		}
		return andThenOf(chain)
	case Decorrelated, DecorrelatedV2, Exponential, Fibonacci, Forever, Linear, Random, Spaced, Times:
		// These take the path after the switch.
	}
	return s // the leaves are already as simple as they get
}

// The ...Of functions build the normal form of a node whose children are
// already in normal form.

func jitteredOf(in Schedule, j Jittered) Schedule {
	if j.LowPPM() == 1_000_000 && j.HighPPM() == 1_000_000 || maxDelay(in) == 0 {
		return in // scaling by exactly 1, or scaling zero delays
	}
	j.Inner = in
	return j
}

func cappedOf(in Schedule, limit time.Duration) Schedule {
	if c, ok := in.(Capped); ok {
		return cappedOf(c.Inner, min(c.Max, limit))
	}
	if maxDelay(in) <= limit {
		return in // the cap never bites
	}
	return Capped{Inner: in, Max: limit}
}

func upToOf(in Schedule, budget time.Duration) Schedule {
	if u, ok := in.(UpTo); ok {
		return upToOf(u.Inner, min(u.Budget, budget))
	}
	if budget == MaxDuration || in == (Times{1}) {
		// A budget of MaxDuration saturates: no attempt is ever past it.
		// Times{1} stops at the first decision whatever the budget.
		return in
	}
	return UpTo{Inner: in, Budget: budget}
}

func whileBelowOf(in Schedule, limit time.Duration) Schedule {
	if w, ok := in.(WhileBelow); ok {
		return whileBelowOf(w.Inner, min(w.Limit, limit))
	}
	if maxDelay(in) < limit || in == (Times{1}) {
		return in // no delay reaches the limit, or it stops at once anyway
	}
	return WhileBelow{Inner: in, Limit: limit}
}

// appendSum appends the operands of a Sum chain s, or s.
func appendSum(ops []Schedule, s Schedule) []Schedule {
	if u, ok := s.(Sum); ok {
		return appendSum(appendSum(ops, u.A), u.B)
	}
	return append(ops, s)
}

// sumOf builds the normal form of the Sum of ops: Forever, its identity,
// is dropped; the Times keep their smallest, which adds no delay; Times{1}
// absorbs. Operands are ordered by their String form but, unlike in a
// Union, duplicates stay: a + a waits twice as long as a.
func sumOf(ops []Schedule) Schedule {
	least := math.MaxInt
	rest := ops[:0]
	for _, op := range ops {
		switch op := op.(type) {
		case Forever:
		case Times:
			least = min(least, op.N)
		case Spaced, Exponential, Fibonacci, Decorrelated, DecorrelatedV2, Linear, Random, Jittered, Capped, UpTo, WhileBelow, ResetAfter, Union, Intersect, Sum, AndThen:
			rest = append(rest, op)
		}
	}
	if least == 1 {
		return Times{1}
	}
	if least < math.MaxInt {
		rest = append(rest, Times{least})
	}
	if len(rest) == 0 {
		return Forever{}
	}
	keys := make([]string, len(rest))
	idx := make([]int, len(rest))
	for i, op := range rest {
		keys[i], idx[i] = op.String(), i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return strings.Compare(keys[a], keys[b]) })
	s := rest[idx[0]]
	for _, j := range idx[1:] {
		s = Sum{s, rest[j]}
	}
	return s
}

// appendUnion appends the operands of a Union chain s, or s.
func appendUnion(ops []Schedule, s Schedule) []Schedule {
	if u, ok := s.(Union); ok {
		return appendUnion(appendUnion(ops, u.A), u.B)
	}
	return append(ops, s)
}

func appendIntersect(ops []Schedule, s Schedule) []Schedule {
	if u, ok := s.(Intersect); ok {
		return appendIntersect(appendIntersect(ops, u.A), u.B)
	}
	return append(ops, s)
}

func appendAndThen(chain []Schedule, s Schedule) []Schedule {
	if a, ok := s.(AndThen); ok {
		return appendAndThen(appendAndThen(chain, a.First), a.Then)
	}
	return append(chain, s)
}

// unionOf builds the normal form of the Union of ops: Forever absorbs, the
// Times keep their largest, Times{1} is dropped.
func unionOf(ops []Schedule) Schedule {
	most := 1
	rest := ops[:0]
	for _, op := range ops {
		switch op := op.(type) {
		case Forever:
			return op
		case Times:
			most = max(most, op.N)
		case Spaced, Exponential, Fibonacci, Decorrelated, DecorrelatedV2, Linear, Random, Jittered, Capped, UpTo, WhileBelow, ResetAfter, Union, Intersect, Sum, AndThen:
			rest = append(rest, op)
		}
	}
	if most > 1 {
		rest = append(rest, Times{most})
	}
	return nest(rest, Times{1}, func(a, b Schedule) Schedule { return Union{a, b} })
}

// intersectOf builds the normal form of the Intersect of ops: Times{1}
// absorbs, the Times keep their smallest, Forever is dropped.
func intersectOf(ops []Schedule) Schedule {
	least := math.MaxInt
	rest := ops[:0]
	for _, op := range ops {
		switch op := op.(type) {
		case Forever:
		case Times:
			least = min(least, op.N)
		case Spaced, Exponential, Fibonacci, Decorrelated, DecorrelatedV2, Linear, Random, Jittered, Capped, UpTo, WhileBelow, ResetAfter, Union, Intersect, Sum, AndThen:
			rest = append(rest, op)
		}
	}
	if least == 1 {
		return Times{1}
	}
	if least < math.MaxInt {
		rest = append(rest, Times{least})
	}
	return nest(rest, Forever{}, func(a, b Schedule) Schedule { return Intersect{a, b} })
}

// nest sorts ops by their String form, drops duplicates and nests them to
// the left with join; no operands give empty.
func nest(ops []Schedule, empty Schedule, join func(a, b Schedule) Schedule) Schedule {
	if len(ops) == 0 {
		return empty
	}
	type keyed struct {
		s   Schedule
		key string
	}
	ks := make([]keyed, len(ops))
	for i, op := range ops {
		ks[i] = keyed{op, op.String()}
	}
	slices.SortFunc(ks, func(a, b keyed) int { return strings.Compare(a.key, b.key) })
	// String is injective, so equal keys mean equal operands.
	ks = slices.CompactFunc(ks, func(a, b keyed) bool { return a.key == b.key })
	s := ks[0].s
	for _, k := range ks[1:] {
		s = join(s, k.s)
	}
	return s
}

// andThenOf builds the normal form of the AndThen chain: Times{1} dropped,
// adjacent Times merged, everything after a part that never stops dropped,
// nested to the right.
func andThenOf(chain []Schedule) Schedule {
	out := chain[:0]
	for _, s := range chain {
		if s == (Times{1}) {
			continue
		}
		if t, ok := s.(Times); ok && len(out) > 0 {
			if p, ok := out[len(out)-1].(Times); ok && p.N <= math.MaxInt-t.N+1 {
				// p.N-1 decisions continue, then t.N-1 more.
				out[len(out)-1] = Times{p.N + t.N - 1}
				continue
			}
		}
		out = append(out, s)
		if neverStops(s) {
			break // Then never starts
		}
	}
	if len(out) == 0 {
		return Times{1}
	}
	s := out[len(out)-1]
	for i := len(out) - 2; i >= 0; i-- {
		s = AndThen{out[i], s}
	}
	return s
}

// maxDelay returns an upper bound on every delay s can answer, whatever the
// timeline: zero for a schedule that never waits.
func maxDelay(s Schedule) time.Duration {
	switch s := s.(type) {
	case Times, Forever:
		return 0
	case Spaced:
		return s.Every // the next slot is at most Every after the attempt began
	case Exponential:
		if s.FactorPct == 100 && s.FactorFrac == 0 {
			return min(s.Base, s.Cap) // it never grows
		}
		return s.Cap
	case Decorrelated:
		return s.Cap
	case Jittered:
		return scaleDur(maxDelay(s.Inner), s.HighPPM())
	case Capped:
		return min(maxDelay(s.Inner), s.Max)
	case UpTo:
		// Not the budget: near MaxDuration the budget saturates and lets
		// longer delays through.
		return maxDelay(s.Inner)
	case Union:
		return max(maxDelay(s.A), maxDelay(s.B))
	case Intersect:
		return max(maxDelay(s.A), maxDelay(s.B))
	case AndThen:
		return max(maxDelay(s.First), maxDelay(s.Then))
	case Fibonacci, DecorrelatedV2:
		return MaxDuration // it grows without bound
	case Linear:
		if s.Step == 0 {
			return s.Base
		}
		return MaxDuration // it grows without bound
	case Random:
		return s.Hi
	case Sum:
		return time.Duration(sat.Add(int64(maxDelay(s.A)), int64(maxDelay(s.B))))
	case WhileBelow:
		return min(maxDelay(s.Inner), s.Limit-1)
	case ResetAfter:
		return maxDelay(s.Inner)
	}
	return MaxDuration // not reached for a valid schedule
}

// neverStops reports whether s certainly never stops, whatever the timeline.
func neverStops(s Schedule) bool {
	switch s := s.(type) {
	case Forever, Spaced, Exponential, Fibonacci, Decorrelated, DecorrelatedV2, Linear, Random:
		return true
	case Sum:
		return neverStops(s.A) && neverStops(s.B)
	case WhileBelow:
		return maxDelay(s.Inner) < s.Limit && neverStops(s.Inner)
	case ResetAfter:
		return neverStops(s.Inner)
	case Jittered:
		return neverStops(s.Inner)
	case Capped:
		return neverStops(s.Inner)
	case UpTo:
		return s.Budget == MaxDuration && neverStops(s.Inner)
	case Union:
		return neverStops(s.A) || neverStops(s.B)
	case Intersect:
		return neverStops(s.A) && neverStops(s.B)
	case AndThen:
		return neverStops(s.First) || neverStops(s.Then)
	case Times:
		return false
	}
	return false // nil
}
