// Package lint finds retry policies that are legal but unwise.
//
// Each rule comes from published practice — the Google SRE book on handling
// overload and cascading failures, Marc Brooker's "Exponential Backoff and
// Jitter" and the Amazon Builders' Library, the defaults of gRPC (gRFC A6)
// and Resilience4j — and flags one way a policy can hurt the service it
// retries against: it never stops, it synchronises clients, it hammers
// without waiting, it waits longer than anyone will. Check runs every rule
// over a schedule and returns the findings, most severe first:
//
//	for _, f := range lint.Check(s) {
//		fmt.Println(f) // warning no-jitter: Exponential(100ms, 200%, 30s) has no jitter: … fix: fulljitter(100ms, 30s) & times(3)
//	}
//
// CheckSource does the same for policy text and also flags what only the
// text shows, such as spaced(1), whose bare 1 is one millisecond.
//
// The rules read what a policy can actually do, from schedule.Bounds: a cap
// of 5m that three attempts never reach is no finding. A finding names its
// rule (ID), how bad it is (Severity), what is wrong and what to do
// (Message), and a Fix: a whole policy, in the policy language, that keeps
// the intent and has neither this finding nor any as severe. docs/lint.md
// explains every rule.
package lint

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
)

// Severity says how bad a finding is.
type Severity int

// Severities, least severe first. Error is for a policy that is almost
// certainly not what was meant: Strict and `schedcheck check` fail on it,
// and so does `schedcheck lint` unless --fail-on says otherwise.
const (
	Info Severity = iota
	Warning
	Error
)

// String returns the severity's name: "info", "warning" or "error".
func (s Severity) String() string {
	switch s {
	case Info:
		return "info"
	case Warning:
		return "warning"
	case Error:
		return "error"
	}
	return fmt.Sprintf("Severity(%d)", int(s))
}

// MarshalText encodes the severity as its name, for JSON output.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Finding is one problem with a policy.
type Finding struct {
	ID       string   `json:"id"`       // the rule, such as "no-jitter"
	Severity Severity `json:"severity"` // how bad it is
	Node     string   `json:"node"`     // the canonical form of the offending node
	Message  string   `json:"message"`  // what is wrong, and what to do about it
	// Fix is a whole policy, in the policy language's infix form, that
	// lints clean of this rule and of every rule at or above its severity.
	Fix string `json:"fix"`
}

// String returns the finding on one line: severity, rule, message and fix.
func (f Finding) String() string {
	return f.Severity.String() + " " + f.ID + ": " + f.Message + " — fix: " + f.Fix
}

// Rule is one check. Rules are the package's data: see Rules.
type Rule struct {
	ID       string
	Severity Severity
	Summary  string // one line, for listings
	check    func(in *input, report reportFunc)
}

// input is what the rules look at: the schedule, its limits and, when
// linting text, the bare integers written as durations.
type input struct {
	s      schedule.Schedule
	limits schedule.Limits
	src    string               // "" when there is no text
	bare   []parse.BareDuration // from src
	m      *memo                // what is known of it and of its repairs
}

// rewrite changes a whole policy to remove findings.
type rewrite func(schedule.Schedule) schedule.Schedule

// fix is how to remove one finding: a rewrite of the whole policy, or an
// edit of one node. The edits of one rule's findings are made in one pass
// (see ruleFix), each given its node with the node's children edited.
type fix struct {
	rewrite rewrite
	node    schedule.Schedule
	edit    rewrite
}

// whole is a fix that rewrites the whole policy.
func whole(r rewrite) fix { return fix{rewrite: r} }

// edit is a fix that edits one node.
func edit(node schedule.Schedule, e rewrite) fix { return fix{node: node, edit: e} }

// reportFunc reports a finding on node with a message and its fix.
type reportFunc = func(node schedule.Schedule, msg string, f fix)

// hit is a finding before its fix is worked out.
type hit struct {
	Finding
	fix fix
}

// Check runs every rule over s, linted as a retry policy, and returns the
// findings, most severe first and in rule order within a severity. An
// invalid s yields one error finding, "invalid", with the validation
// message. Options.Check lints a repeat policy.
func Check(s schedule.Schedule) []Finding { return Options{}.Check(s) }

// CheckSource parses src and lints it as Check does, with the rules that
// need the text as well: it flags spaced(1), which waits one millisecond.
// A policy that does not parse yields the *parse.Error of parse.Parse.
func CheckSource(src string) ([]Finding, error) { return Options{}.CheckSource(src) }

// sourceInput parses src and returns the rules' input for it, text
// included.
func sourceInput(m *memo, src string) (*input, error) {
	bare, err := parse.BareDurations(src)
	if err != nil {
		return nil, err
	}
	s, err := parse.Parse(src)
	if err != nil {
		return nil, err // not reached: BareDurations parsed it
	}
	in := m.input(s)
	in.src, in.bare = src, bare
	return in, nil
}

func invalid(err error, mode Mode) Finding {
	return Finding{ID: "invalid", Severity: Error, Message: err.Error(), Fix: Format(newMemo(mode).lastResort())}
}

// run applies the rules of in's mode of severity at least min to in.
func run(in *input, min Severity) []hit {
	var out []hit
	for _, r := range Rules() {
		if r.Severity < min || !r.Applies(in.m.mode) {
			continue
		}
		r.check(in, func(node schedule.Schedule, msg string, fix fix) {
			h := hit{Finding{ID: r.ID, Severity: r.Severity, Message: msg}, fix}
			if node != nil {
				h.Node = node.String()
			}
			if !slices.ContainsFunc(out, func(o hit) bool { return o.Finding == h.Finding }) {
				out = append(out, h)
			}
		})
	}
	slices.SortStableFunc(out, func(a, b hit) int { return cmp.Compare(b.Severity, a.Severity) })
	return out
}

// withFixes works out the fix of each hit on s. The hits of one rule share
// their fix, which removes them all.
func withFixes(m *memo, s schedule.Schedule, hs []hit) []Finding {
	out := make([]Finding, len(hs))
	fixes := map[string]string{}
	for i, h := range hs {
		out[i] = h.Finding
		fix, ok := fixes[h.ID]
		if !ok {
			fix = Format(repair(m, s, ruleFix(hs, h.ID), h.Severity))
			if _, err := parse.Parse(fix); err != nil {
				// Nested past parse.MaxDepth by the rewrites.
				fix = Format(m.lastResort())
			}
			fixes[h.ID] = fix
		}
		out[i].Fix = fix
	}
	return out
}

// Worst returns the highest severity among the findings, and false when
// there are none.
func Worst(fs []Finding) (Severity, bool) {
	if len(fs) == 0 {
		return Info, false
	}
	w := fs[0].Severity
	for _, f := range fs[1:] {
		w = max(w, f.Severity)
	}
	return w, true
}
