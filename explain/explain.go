// Package explain says in plain words what a retry policy does.
//
// Explain walks a schedule node by node and words it ("waits grow from
// 100ms doubling to 30s, each scaled by a random 0–100%"), then adds its
// static bounds from schedule.Bounds: the most attempts, the total wait
// range, and whether it ever stops on its own. The schedcheck CLI's
// explain command and the browser playground both print this text.
package explain

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/recur-go/recur/internal/sat"
	"github.com/recur-go/recur/schedule"
)

// Explanation is a policy in words with its bounds. Its JSON form is
// schedcheck explain --json's output; a bound is null where unbounded or
// saturated.
type Explanation struct {
	Policy      string `json:"policy"`      // the canonical form
	Explanation string `json:"explanation"` // what it does, in words
	MaxAttempts *int   `json:"max_attempts"`
	MinTotalNS  *int64 `json:"min_total_ns"`
	MaxTotalNS  *int64 `json:"max_total_ns"`
	Stops       bool   `json:"stops"` // whether it stops on its own
}

// Explain says in plain words what s does and states its static bounds:
// the most attempts, the least and most total wait of a run whose attempts
// take no time, and whether it ever stops on its own, saying each fact
// once. A count or a duration at the largest value Go can hold is called
// what it is in practice: no limit.
func Explain(s schedule.Schedule) Explanation {
	b := schedule.Bounds(s)
	e := Explanation{Policy: s.String(), Stops: b.Stops}
	if b.AttemptsBounded() {
		e.MaxAttempts = &b.MaxAttempts
	}
	if b.MinTotal != schedule.MaxDuration {
		e.MinTotalNS = ptr(int64(b.MinTotal))
	}
	if b.TotalBounded() {
		e.MaxTotalNS = ptr(int64(b.MaxTotal))
	}
	e.Explanation = Describe(s)
	if sum := summary(b, statesCount(s, b.MaxAttempts)); sum != "" {
		e.Explanation += "; " + sum
	}
	return e
}

func ptr[T any](v T) *T { return &v }

// statesCount reports whether Describe(s) already names max as the
// number of attempts: s has a Times{max} that counts the run's attempts
// from the first, through Intersect, Union, UpTo, Capped and Jittered (not
// in an AndThen, whose Then counts from where First stopped).
func statesCount(s schedule.Schedule, max int) bool {
	switch s := s.(type) {
	case schedule.Times:
		return s.N == max
	case schedule.Intersect:
		return statesCount(s.A, max) || statesCount(s.B, max)
	case schedule.Union:
		return statesCount(s.A, max) || statesCount(s.B, max)
	case schedule.UpTo:
		return statesCount(s.Inner, max)
	case schedule.Capped:
		return statesCount(s.Inner, max)
	case schedule.Jittered:
		return statesCount(s.Inner, max)
	case schedule.Sum:
		return statesCount(s.A, max) || statesCount(s.B, max)
	case schedule.WhileBelow:
		return statesCount(s.Inner, max)
	case schedule.ResetAfter:
		return false // its inner's count starts over
	case schedule.AndThen, schedule.Spaced, schedule.Exponential, schedule.Fibonacci,
		schedule.Decorrelated, schedule.DecorrelatedV2, schedule.Forever, schedule.Linear, schedule.Random:
		return false // no Times that counts from the first attempt
	}
	return false
}

// summary states the bounds in words, each fact once: it leaves out the
// number of attempts when describe has already given it (stated). The
// bounds are schedule.Bounds's; summary only words them.
func summary(b schedule.Limits, stated bool) string {
	if b.MaxAttempts == 1 {
		if stated {
			return ""
		}
		return "so a single attempt, no retry"
	}
	var attempts string
	switch {
	case stated:
	case b.AttemptsBounded():
		attempts = "at most " + plural(b.MaxAttempts, "attempt")
	case b.Stops:
		attempts = "no practical limit on attempts"
	}
	var end string
	switch {
	case !b.Stops:
		return "never gives up on its own"
	case b.MinTotal == schedule.MaxDuration && b.TotalBounded():
		// No run ends while attempts take no time, yet it stops: an UpTo
		// ends it once real attempts have used up its time.
		end = "it ends only once the time its attempts take has used up its time budget"
	case b.MinTotal == schedule.MaxDuration:
		end = "its waits add up to 292 years or more: in practice a run ends only when its context does"
	case b.MinTotal > b.MaxTotal:
		end = "it gives up only on its time budget"
	case b.TotalBounded() && b.MaxTotal == 0:
		return joinWait(attempts, "no waiting, then it gives up")
	case b.TotalBounded() && b.MinTotal == b.MaxTotal:
		return joinWait(attempts, Duration(b.MaxTotal)+" of waiting in all, then it gives up")
	case b.TotalBounded():
		return joinWait(attempts, Duration(b.MinTotal)+" to "+Duration(b.MaxTotal)+" of waiting in all, then it gives up")
	default:
		end = "it gives up, but with no bound on the total wait"
	}
	if attempts == "" {
		return end
	}
	return attempts + "; " + end
}

// joinWait joins a count of attempts, if any, and an amount of waiting.
func joinWait(attempts, wait string) string {
	if attempts == "" {
		return wait
	}
	return attempts + " and " + wait
}

// Describe says what s does, node by node, without the bounds that
// Explain adds.
func Describe(s schedule.Schedule) string {
	switch s := s.(type) {
	case schedule.Times:
		switch s.N {
		case 1:
			return "a single attempt, no retry"
		case math.MaxInt:
			return "up to " + plural(s.N, "attempt") + ": in practice no limit"
		}
		return "up to " + plural(s.N, "attempt")
	case schedule.Forever:
		return "retries at once"
	case schedule.Spaced:
		return "one attempt every " + Duration(s.Every) + ", on a fixed grid"
	case schedule.Exponential:
		first := min(s.Base, s.Cap)
		switch {
		case s.FactorPPM() == 1_000_000 || s.Cap <= s.Base:
			return "waits " + Duration(first) + " between attempts"
		case s.FactorPPM() == 2_000_000:
			return "waits grow from " + Duration(first) + " doubling to " + Duration(s.Cap)
		}
		return "waits grow from " + Duration(first) + " by ×" + factor(s.FactorPPM()) + " to " + Duration(s.Cap)
	case schedule.Fibonacci:
		return "waits grow as Fibonacci multiples of " + Duration(s.Base) + " (1, 1, 2, 3, 5, …)"
	case schedule.Decorrelated:
		return "decorrelated-jitter waits, each random between " + Duration(s.Base) + " and three times the last, at most " + Duration(s.Cap)
	case schedule.Jittered:
		low := strings.TrimSuffix(string(schedule.AppendPercent(nil, s.LowPct, s.LowFrac)), "%")
		return Describe(s.Inner) + ", each scaled by a random " + low + "–" + string(schedule.AppendPercent(nil, s.HighPct, s.HighFrac))
	case schedule.Capped:
		return Describe(s.Inner) + ", each wait at most " + Duration(s.Max)
	case schedule.Linear:
		switch {
		case s.Step == 0:
			return "waits " + Duration(s.Base) + " between attempts"
		case s.Step == s.Base:
			return "waits grow linearly: " + Duration(s.Base) + ", " + Duration(sat.MulDur(s.Base, 2)) + ", " + Duration(sat.MulDur(s.Base, 3)) + ", …"
		}
		return "waits grow linearly from " + Duration(s.Base) + ", " + Duration(s.Step) + " longer each time"
	case schedule.DecorrelatedV2:
		return "Polly's soft-exponential jitter: random waits whose medians are near " + Duration(s.Base) + ", " + Duration(sat.MulDur(s.Base, 2)) + ", " + Duration(sat.MulDur(s.Base, 4)) + ", … doubling, with no cap"
	case schedule.Random:
		if s.Lo == s.Hi {
			return "waits " + Duration(s.Lo) + " between attempts"
		}
		return "waits a random " + Duration(s.Lo) + " to " + Duration(s.Hi) + " between attempts"
	case schedule.Sum:
		var counts, rest []string
		for _, p := range flattenSum(s) {
			if _, ok := p.(schedule.Times); ok {
				counts = append(counts, Describe(p))
			} else {
				rest = append(rest, Describe(p))
			}
		}
		switch len(rest) {
		case 0:
		case 1:
			counts = append(counts, rest[0])
		default:
			counts = append(counts, "each wait the sum of ("+strings.Join(rest, ") and (")+"), while all of them go on")
		}
		return strings.Join(counts, "; ")
	case schedule.ResetAfter:
		return Describe(s.Inner) + "; all of it starting over once " + Duration(s.After) + " has passed since it (re)started"
	case schedule.WhileBelow:
		return Describe(s.Inner) + "; gives up once a wait would be " + Duration(s.Limit) + " or more"
	case schedule.UpTo:
		if s.Budget == schedule.MaxDuration {
			return Describe(s.Inner) + "; a time budget of " + Duration(s.Budget) + ": in practice none"
		}
		return Describe(s.Inner) + "; no attempt starts later than " + Duration(s.Budget) + " after the first began"
	case schedule.Intersect:
		var counts, rest []string
		for _, p := range flatten(s) {
			if _, ok := p.(schedule.Times); ok {
				counts = append(counts, Describe(p))
			} else {
				rest = append(rest, Describe(p))
			}
		}
		return strings.Join(append(counts, rest...), "; ")
	case schedule.Union:
		return "either (" + Describe(s.A) + ") or (" + Describe(s.B) + "), whichever goes sooner, until both have stopped"
	case schedule.AndThen:
		first := Describe(s.First)
		if t, ok := s.First.(schedule.Times); ok {
			first = backToBack(t.N)
		}
		then := Describe(s.Then)
		if t, ok := s.Then.(schedule.Times); ok {
			// Then's first attempt is the one that ended First.
			then = "up to " + plural(t.N-1, "more attempt")
			if t.N == 1 {
				then = "no more"
			}
		}
		return first + "; then " + then
	}
	return "?"
}

// backToBack says what a Times{n} does as the first part of an AndThen.
func backToBack(n int) string {
	switch n {
	case 1:
		return "a first attempt"
	case math.MaxInt:
		return plural(n, "attempt") + " back to back: in practice no limit"
	}
	return plural(n, "attempt") + " back to back"
}

// flattenSum lists the operands of a chain of Sums.
func flattenSum(s schedule.Schedule) []schedule.Schedule {
	if i, ok := s.(schedule.Sum); ok {
		return append(flattenSum(i.A), flattenSum(i.B)...)
	}
	return []schedule.Schedule{s}
}

// flatten lists the operands of a chain of Intersects.
func flatten(s schedule.Schedule) []schedule.Schedule {
	if i, ok := s.(schedule.Intersect); ok {
		return append(flatten(i.A), flatten(i.B)...)
	}
	return []schedule.Schedule{s}
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// factor prints a factor given in millionths as a decimal, exactly:
// 2_000_000 is 2, 1_000_100 is 1.0001.
func factor(ppm int64) string {
	s := strconv.FormatInt(ppm/1_000_000, 10)
	if f := ppm % 1_000_000; f != 0 {
		s += strings.TrimRight("."+strconv.FormatInt(1_000_000+f, 10)[1:], "0")
	}
	return s
}

// Duration prints a duration rounded for people: whole milliseconds above a
// second, and no "0s" tails.
func Duration(d time.Duration) string {
	if d == schedule.MaxDuration {
		// Saturated: the largest time.Duration, where arithmetic stops.
		return "292 years (the largest duration)"
	}
	switch {
	case d >= time.Second:
		d = d.Round(time.Millisecond)
	case d >= time.Millisecond:
		d = d.Round(10 * time.Microsecond)
	}
	s := d.String()
	for _, tail := range []string{"m0s", "h0m"} {
		if strings.HasSuffix(s, tail) {
			s = strings.TrimSuffix(s, tail[1:])
		}
	}
	return s
}
