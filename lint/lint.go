// Package lint finds retry policies that are legal but unwise.
//
// Each rule comes from published practice — Google's SRE book on
// cascading failures, Marc Brooker's "Exponential Backoff and Jitter",
// Resilience4j's and gRPC's defaults — and flags one way a policy can hurt
// the service it retries against: it never stops, it synchronises clients,
// it hammers without waiting, it waits longer than anyone will. Check runs
// every rule over a schedule and returns the findings, most severe first:
//
//	for _, f := range lint.Check(s) {
//		fmt.Println(f) // warning no-jitter: Exponential(100ms, 200%, 30s) has no jitter: … fix: …
//	}
//
// A finding names its rule (ID), how bad it is (Severity), what is wrong
// (Message) and how to fix it (Fix). docs/lint.md explains every rule.
package lint

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/recur-go/recur/schedule"
)

// Severity says how bad a finding is.
type Severity int

// Severities, least severe first.
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
	Message  string   `json:"message"`  // what is wrong
	Fix      string   `json:"fix"`      // how to fix it, in one line
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
	check    func(s schedule.Schedule, report func(node schedule.Schedule, msg, fix string))
}

// Check runs every rule over s and returns the findings, most severe first
// and in rule order within a severity. An invalid s yields one error
// finding, "invalid", with the validation message.
func Check(s schedule.Schedule) []Finding {
	if err := schedule.Validate(s); err != nil {
		return []Finding{{ID: "invalid", Severity: Error, Message: err.Error(), Fix: "correct the policy"}}
	}
	var out []Finding
	for _, r := range Rules() {
		r.check(s, func(node schedule.Schedule, msg, fix string) {
			f := Finding{ID: r.ID, Severity: r.Severity, Message: msg, Fix: fix}
			if node != nil {
				f.Node = node.String()
			}
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		})
	}
	slices.SortStableFunc(out, func(a, b Finding) int { return cmp.Compare(b.Severity, a.Severity) })
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

// walk calls f for every node of s, parents first, with the chain of
// ancestors (root first).
func walk(s schedule.Schedule, f func(n schedule.Schedule, ancestors []schedule.Schedule)) {
	var rec func(n schedule.Schedule, anc []schedule.Schedule)
	rec = func(n schedule.Schedule, anc []schedule.Schedule) {
		if n == nil {
			return
		}
		f(n, anc)
		a, b := schedule.Children(n)
		anc = append(anc, n)
		rec(a, anc)
		rec(b, anc)
	}
	rec(s, nil)
}
