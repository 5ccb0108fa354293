package lint

import (
	"fmt"
	"strings"
	"time"

	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// Mode says what a policy is for, which decides the rules that apply.
type Mode int

const (
	// Retry is a policy that retries a call that failed (retry.Retry,
	// the transports and interceptors): the zero Mode, and every rule
	// about retries applies.
	Retry Mode = iota
	// Repeat is a policy that repeats a call that succeeded (repeat.Repeat:
	// polling, refreshing). Many runs, runs for ever and long waits are
	// its point, so the rules about retries (never-stops, too-many-attempts,
	// no-cap, …) do not apply; busy-repeat does.
	Repeat
	// Hedge is a policy that times hedged copies of a slow call
	// (retry.Hedge, httpretry.Transport.Hedge, grpcretry's hedging): each
	// delay is how long to wait for an answer before sending another copy.
	// The rules about retries do not apply; hedge-no-delay,
	// hedge-unbounded and hedge-too-many do.
	Hedge
)

// String returns the mode's name: "retry", "repeat" or "hedge".
func (m Mode) String() string {
	switch m {
	case Retry:
		return "retry"
	case Repeat:
		return "repeat"
	case Hedge:
		return "hedge"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode returns the Mode named s: "retry", "repeat" or "hedge".
func ParseMode(s string) (Mode, error) {
	switch strings.ToLower(s) {
	case "retry":
		return Retry, nil
	case "repeat":
		return Repeat, nil
	case "hedge":
		return Hedge, nil
	}
	return Retry, fmt.Errorf("lint: unknown mode %q: want retry, repeat or hedge", s)
}

// ParseSeverity returns the Severity named s: "info", "warning" or "error".
func ParseSeverity(s string) (Severity, error) {
	for _, sev := range []Severity{Info, Warning, Error} {
		if strings.EqualFold(s, sev.String()) {
			return sev, nil
		}
	}
	return Error, fmt.Errorf("lint: unknown severity %q: want error, warning or info", s)
}

// UnmarshalText decodes a severity from its name, as MarshalText encodes
// it, so that JSON output reads back.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// modes lists the rules that apply in one mode only; every other rule
// applies in both.
var modes = map[string]Mode{
	"never-stops":       Retry,
	"unbounded-wait":    Retry,
	"too-many-attempts": Retry,
	"no-jitter":         Retry,
	"no-cap":            Retry,
	"tiny-delay":        Retry,
	"no-delay":          Retry,
	"busy-repeat":       Repeat,
	"hedge-no-delay":    Hedge,
	"hedge-unbounded":   Hedge,
	"hedge-too-many":    Hedge,
}

// Applies reports whether the rule applies to policies linted for m.
func (r Rule) Applies(m Mode) bool {
	only, ok := modes[r.ID]
	return !ok || only == m
}

// Options says how to lint. The zero value lints a retry policy, as Check
// does.
type Options struct {
	// For is what the policy is for: Retry (the zero value), Repeat or
	// Hedge.
	For Mode
}

// Check runs every rule of o's mode over s and returns the findings, as
// the package's Check does.
func (o Options) Check(s schedule.Schedule) []Finding {
	if err := schedule.Validate(s); err != nil {
		return []Finding{invalid(err, o.For)}
	}
	m := newMemo(o.For)
	return withFixes(m, s, run(m.input(s), Info))
}

// CheckSource parses src and lints it for o's mode, as the package's
// CheckSource does.
func (o Options) CheckSource(src string) ([]Finding, error) {
	in, err := sourceInput(newMemo(o.For), src)
	if err != nil {
		return nil, err
	}
	return withFixes(in.m, in.s, run(in, Info)), nil
}

// Strict returns an error when s has a finding of severity Error for o's
// mode: an invalid schedule, or one that is valid but almost certainly
// not what was meant, such as a cap below the base. The error is a
// *StrictError. It returns nil when s has no such finding, even if it has
// warnings.
func (o Options) Strict(s schedule.Schedule) error {
	if err := schedule.Validate(s); err != nil {
		return &StrictError{Findings: []Finding{invalid(err, o.For)}}
	}
	m := newMemo(o.For)
	return strictError(withFixes(m, s, run(m.input(s), Error)))
}

// StrictSource parses src and returns what Strict returns for it, with the
// rules that need the text as well (bare-duration). A policy that does not
// parse yields the *parse.Error of parse.Parse.
func (o Options) StrictSource(src string) error {
	in, err := sourceInput(newMemo(o.For), src)
	if err != nil {
		return err
	}
	return strictError(withFixes(in.m, in.s, run(in, Error)))
}

// Strict returns an error naming the rule of each error-severity finding
// of s, linted as a retry policy, or nil when there is none: call it where
// a policy is loaded, so that a policy that is valid but wrong, such as
// backoff(2s, 100ms), whose cap is below its base, fails at start-up. Use
// Options{For: Repeat}.Strict for a repeat policy, and
// Options.StrictSource to have bare-duration checked as well.
func Strict(s schedule.Schedule) error { return Options{}.Strict(s) }

func strictError(fs []Finding) error {
	if len(fs) == 0 {
		return nil
	}
	return &StrictError{Findings: fs}
}

// StrictError is the error of Strict: the error-severity findings of a
// policy, each with its rule and fix.
type StrictError struct {
	Findings []Finding
}

// Error returns the findings on one line, each as "rule: message (fix:
// policy)", separated by "; ".
func (e *StrictError) Error() string {
	var b strings.Builder
	b.WriteString("lint: ")
	for i, f := range e.Findings {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s: %s (fix: %s)", f.ID, f.Message, f.Fix)
	}
	return b.String()
}

// busyRepeat fires on a repeat policy that never waits MinDelay between
// runs: a busy loop. A burst of runs before a slower phase
// (times(3) then spaced(1m)) is no finding.
func busyRepeat(in *input, report reportFunc) {
	b := in.limits
	if b.MaxAttempts < 2 || b.MaxDelay >= MinDelay {
		return
	}
	when := "at once"
	if b.MaxDelay > 0 {
		when = fmt.Sprintf("within %v", b.MaxDelay)
	}
	report(in.s, fmt.Sprintf("every run follows the one before %s: a busy loop that spends the caller's CPU and the target's capacity for nothing new; space the runs, for example with & spaced(1s)", when),
		whole(func(s schedule.Schedule) schedule.Schedule {
			if s = raiseDelays(s); in.m.Bounds(s).MaxDelay >= MinDelay {
				return s
			}
			if s = widenJitter(s); in.m.Bounds(s).MaxDelay >= MinDelay {
				return s
			}
			return schedule.Intersect{A: s, B: schedule.Spaced{Every: time.Second}}
		}))
}

// MaxHedgeCopies is the most copies of a call a hedging policy sends
// without comment: gRFC A6 caps a hedgingPolicy's maxAttempts at 5.
const MaxHedgeCopies = 5

// hedgeDelay is the first hedge delay a fix writes: a common p95 of a
// service call on one network.
const hedgeDelay = 50 * time.Millisecond

// hedgeNoDelay fires on a hedging policy whose first delay can be below
// MinDelay: those calls send a second copy at once, which doubles their
// load and cuts no tail.
func hedgeNoDelay(in *input, report reportFunc) {
	if in.limits.MaxAttempts < 2 {
		return
	}
	first := in.m.firstWait(in.s)
	if first.MinTotal >= MinDelay {
		return
	}
	msg := "every call sends a second copy at once: twice the load for no gain in latency"
	if first.MaxTotal >= MinDelay {
		msg = fmt.Sprintf("some calls send a second copy at once (the first delay ranges from %v to %v): each of them costs twice", first.MinTotal, first.MaxTotal)
	}
	report(in.s, msg+"; hedge at about the p95 latency, for example & spaced(50ms)",
		whole(func(s schedule.Schedule) schedule.Schedule {
			fixed := schedule.Schedule(schedule.Intersect{A: s, B: schedule.Spaced{Every: hedgeDelay}})
			if in.m.firstWait(fixed).MinTotal >= MinDelay {
				return fixed
			}
			// Bounds cannot tell that the spaced floor holds (a Spaced
			// beside a timeline others shape): fixed delays, as many
			// copies as before, up to gRFC A6's 5.
			n := min(max(in.m.Bounds(s).MaxAttempts, 2), MaxHedgeCopies)
			return schedule.Intersect{A: schedule.Spaced{Every: hedgeDelay}, B: schedule.Times{N: n}}
		}))
}

// hedgeUnbounded fires on a hedging policy with no bound on its copies
// below retry.MaxCopies.
func hedgeUnbounded(in *input, report reportFunc) {
	if in.limits.MaxAttempts <= retry.MaxCopies {
		return
	}
	report(in.s, "no bound on the copies: a call slower than the delays sends up to 100 (retry.MaxCopies), a storm against a target that is merely slow; bound it with & times(3)",
		whole(func(s schedule.Schedule) schedule.Schedule { return in.m.boundTo(s, MaxHedgeCopies) }))
}

// hedgeTooMany fires on a hedging policy of more than MaxHedgeCopies
// copies, up to retry.MaxCopies (above, hedge-unbounded speaks).
func hedgeTooMany(in *input, report reportFunc) {
	n := in.limits.MaxAttempts
	if n <= MaxHedgeCopies || n > retry.MaxCopies {
		return
	}
	report(in.s, fmt.Sprintf("up to %d copies of one call: gRFC A6 allows 5, and each copy past the second buys little", n),
		whole(func(s schedule.Schedule) schedule.Schedule { return in.m.boundTo(s, MaxHedgeCopies) }))
}
