package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/recur-go/recur/schedule"
)

const explainHelp = `
Explain says in plain words what a policy does and what its static bounds
are: the most attempts, the least and most total wait of a run whose
attempts take no time, and whether it ever stops on its own. --json gives
the bounds as numbers (null where unbounded).

Examples:
  schedcheck explain 'backoff(100ms, 30s) & times(5)'
  schedcheck explain 'times(3) then spaced(1m)'
  schedcheck explain --json 'fulljitter(100ms, 10s) upto 1m'
`

// explanation is explain's JSON output.
type explanation struct {
	Policy      string `json:"policy"`
	Explanation string `json:"explanation"`
	MaxAttempts *int   `json:"max_attempts"`
	MinTotalNS  *int64 `json:"min_total_ns"`
	MaxTotalNS  *int64 `json:"max_total_ns"`
	Stops       bool   `json:"stops"`
}

func runExplain(c *cli, args []string) int {
	fs := c.newFlags("explain", "[--json] POLICY | -f FILE", explainHelp)
	file := fs.String("f", "", "read the policy from `FILE`")
	asJSON := fs.Bool("json", false, "print one JSON object")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return flagExit(err)
	}
	p, status := c.onePolicy(fs, pos, *file)
	if status != exitOK {
		return status
	}
	e := explain(p.s)
	if *asJSON {
		json.NewEncoder(c.stdout).Encode(e)
		return exitOK
	}
	fmt.Fprintf(c.stdout, "%s\n  %s\n", e.Policy, e.Explanation)
	return exitOK
}

func explain(s schedule.Schedule) explanation {
	b := schedule.Bounds(s)
	e := explanation{Policy: s.String(), Stops: b.Stops}
	if b.AttemptsBounded() {
		e.MaxAttempts = &b.MaxAttempts
	}
	if b.MinTotal != schedule.MaxDuration {
		e.MinTotalNS = ptr(int64(b.MinTotal))
	}
	if b.TotalBounded() {
		e.MaxTotalNS = ptr(int64(b.MaxTotal))
	}
	e.Explanation = describe(s) + "; " + summary(b)
	return e
}

func ptr[T any](v T) *T { return &v }

// summary states the bounds in words.
func summary(b schedule.Limits) string {
	attempts := "no limit on attempts"
	if b.AttemptsBounded() {
		attempts = "at most " + plural(b.MaxAttempts, "attempt")
	}
	switch {
	case !b.Stops:
		return attempts + "; never gives up on its own"
	case b.MinTotal == schedule.MaxDuration:
		return attempts + "; its waits alone never end it: it gives up when its time budget runs out"
	case b.MinTotal > b.MaxTotal:
		return attempts + "; it gives up only on its time budget"
	case b.TotalBounded() && b.MinTotal == b.MaxTotal:
		return attempts + " and " + dur(b.MaxTotal) + " of waiting in all, then it gives up"
	case b.TotalBounded():
		return attempts + " and " + dur(b.MinTotal) + " to " + dur(b.MaxTotal) + " of waiting in all, then it gives up"
	}
	return attempts + "; it gives up, but with no bound on the total wait"
}

// describe says what s does, node by node.
func describe(s schedule.Schedule) string {
	switch s := s.(type) {
	case schedule.Times:
		if s.N == 1 {
			return "a single attempt, no retry"
		}
		return "up to " + plural(s.N, "attempt")
	case schedule.Forever:
		return "retries at once, without end"
	case schedule.Spaced:
		return "one attempt every " + dur(s.Every) + ", on a fixed grid"
	case schedule.Exponential:
		first := min(s.Base, s.Cap)
		switch {
		case s.FactorPct == 100 || s.Cap <= s.Base:
			return "waits " + dur(first) + " between attempts"
		case s.FactorPct == 200:
			return "waits grow from " + dur(first) + " doubling to " + dur(s.Cap)
		}
		return "waits grow from " + dur(first) + " by ×" + factor(s.FactorPct) + " to " + dur(s.Cap)
	case schedule.Fibonacci:
		return "waits grow as Fibonacci multiples of " + dur(s.Base) + " (1, 1, 2, 3, 5, …)"
	case schedule.Decorrelated:
		return "decorrelated-jitter waits, each random between " + dur(s.Base) + " and three times the last, at most " + dur(s.Cap)
	case schedule.Jittered:
		return describe(s.Inner) + ", each scaled by a random " + strconv.Itoa(s.LowPct) + "–" + strconv.Itoa(s.HighPct) + "%"
	case schedule.Capped:
		return describe(s.Inner) + ", each wait at most " + dur(s.Max)
	case schedule.UpTo:
		return describe(s.Inner) + "; no attempt starts later than " + dur(s.Budget) + " after the first began"
	case schedule.Intersect:
		var counts, rest []string
		for _, p := range flatten(s) {
			if _, ok := p.(schedule.Times); ok {
				counts = append(counts, describe(p))
			} else {
				rest = append(rest, describe(p))
			}
		}
		return strings.Join(append(counts, rest...), "; ")
	case schedule.Union:
		return "either (" + describe(s.A) + ") or (" + describe(s.B) + "), whichever goes sooner, until both have stopped"
	case schedule.AndThen:
		return describe(s.First) + "; then " + describe(s.Then)
	}
	return "?"
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

func factor(pct int) string {
	return strconv.FormatFloat(float64(pct)/100, 'f', -1, 64)
}

// dur prints a duration rounded for people: whole milliseconds above a
// second, and no "0s" tails.
func dur(d time.Duration) string {
	if d == schedule.MaxDuration {
		return "forever"
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
