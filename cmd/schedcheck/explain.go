package main

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/recur-go/recur/grpcconfig"
	"github.com/recur-go/recur/schedule"
)

const explainHelp = `
Explain says in plain words what a policy does and what its static bounds
are: the most attempts, the least and most total wait of a run whose
attempts take no time, and whether it ever stops on its own, saying each
fact once. A count or a duration at the largest value Go can hold
(9223372036854775807 attempts, 292 years) is called what it is in
practice: no limit. --json gives the bounds as numbers (null where
unbounded or saturated).

With --from-grpc-config FILE, it explains instead each retryPolicy of a
gRPC service config (JSON, as grpc.WithDefaultServiceConfig takes it),
converted to the equivalent schedule as docs/grpc.md describes, naming the
methods it applies to.

Examples:
  schedcheck explain 'backoff(100ms, 30s) & times(5)'
  schedcheck explain 'times(3) then spaced(1m)'
  schedcheck explain --json 'fulljitter(100ms, 10s) upto 1m'
  schedcheck explain --from-grpc-config service_config.json
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
	fs := c.newFlags("explain", "[--json] POLICY | -f FILE | --from-grpc-config FILE", explainHelp)
	file := fs.String("f", "", "read the policy from `FILE`")
	asJSON := fs.Bool("json", false, "print one JSON object")
	grpcFile := fs.String("from-grpc-config", "", "explain each retryPolicy of the gRPC service config in `FILE`")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if *grpcFile != "" {
		if len(pos) > 0 || *file != "" {
			c.errorf("explain takes a policy or --from-grpc-config, not both")
			fs.Usage()
			return exitUsage
		}
		return c.explainGRPC(*grpcFile, *asJSON)
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

// explainGRPC explains each method config of a gRPC service config.
func (c *cli) explainGRPC(file string, asJSON bool) int {
	gps, status := c.grpcPolicies(file)
	enc := json.NewEncoder(c.stdout)
	for _, g := range gps {
		if g.err != nil {
			status = exitInvalid
			c.reportError(g.parsed)
			continue
		}
		e := grpcExplanation{Source: g.src.name, Methods: g.methods, Notes: g.notes, explanation: explain(g.s)}
		if asJSON {
			enc.Encode(e)
			continue
		}
		fmt.Fprintf(c.stdout, "%s:\n%s\n  %s\n", e.Source, e.Policy, e.Explanation)
		for _, n := range e.Notes {
			fmt.Fprintf(c.stdout, "  note: %s\n", n)
		}
	}
	return status
}

// grpcExplanation is explain's JSON output for one method config.
type grpcExplanation struct {
	Source  string   `json:"source"`
	Methods []string `json:"methods"`
	Notes   []string `json:"notes,omitempty"`
	explanation
}

// grpcPolicy is one method config of a gRPC service config, as a
// schedule (or the error converting it), with the methods it applies to
// and grpcconfig's notes. Its source is named "FILE (METHODS)".
type grpcPolicy struct {
	parsed
	methods []string
	notes   []string
}

// grpcPolicies reads a gRPC service config and converts the retryPolicy
// of each method config with A6's full jitter (see package grpcconfig); a
// method config without one is Times(1). A file it cannot read is a usage
// error; an invalid config, or one without method configs, is invalid.
func (c *cli) grpcPolicies(file string) ([]grpcPolicy, int) {
	b, err := c.readFile(file)
	if err != nil {
		c.errorf("%v", err)
		return nil, exitUsage
	}
	sc, err := grpcconfig.Parse(b)
	if err != nil {
		c.errorf("%s: %v", file, err)
		return nil, exitInvalid
	}
	if len(sc.Methods) == 0 {
		c.errorf("%s: no methodConfig, so no retry policy", file)
		return nil, exitInvalid
	}
	gps := make([]grpcPolicy, 0, len(sc.Methods))
	for i, mc := range sc.Methods {
		var g grpcPolicy
		for _, n := range mc.Names {
			g.methods = append(g.methods, n.String())
		}
		names := strings.Join(g.methods, ", ")
		if names == "" {
			names = "methodConfig[" + strconv.Itoa(i) + "], which names no method"
		}
		g.src = source{name: file + " (" + names + ")"}
		if mc.RetryPolicy == nil {
			g.s, g.notes = schedule.Times{N: 1}, []string{"no retryPolicy: these methods are not retried"}
		} else {
			g.s, g.err = mc.RetryPolicy.Schedule(grpcconfig.FullJitter)
			g.notes = mc.RetryPolicy.Notes()
		}
		gps = append(gps, g)
	}
	return gps, exitOK
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
	e.Explanation = describe(s)
	if sum := summary(b, statesCount(s, b.MaxAttempts)); sum != "" {
		e.Explanation += "; " + sum
	}
	return e
}

func ptr[T any](v T) *T { return &v }

// statesCount reports whether describe(s) already names max as the
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
		return joinWait(attempts, dur(b.MaxTotal)+" of waiting in all, then it gives up")
	case b.TotalBounded():
		return joinWait(attempts, dur(b.MinTotal)+" to "+dur(b.MaxTotal)+" of waiting in all, then it gives up")
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

// describe says what s does, node by node.
func describe(s schedule.Schedule) string {
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
		if s.Budget == schedule.MaxDuration {
			return describe(s.Inner) + "; a time budget of " + dur(s.Budget) + ": in practice none"
		}
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
		first := describe(s.First)
		if t, ok := s.First.(schedule.Times); ok {
			first = backToBack(t.N)
		}
		then := describe(s.Then)
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
