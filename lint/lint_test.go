package lint_test

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/lint"
	"github.com/recur-go/recur/schedule"
)

const (
	ms  = time.Millisecond
	sec = time.Second
)

// good is the README's policy, tightened: full jitter, three
// attempts.
var good = schedule.Intersect{A: schedule.FullJitter(100*ms, 30*sec), B: schedule.Times{N: 3}}

func ids(fs []lint.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.ID)
	}
	return out
}

func TestGoodPolicyIsClean(t *testing.T) {
	if fs := lint.Check(good); len(fs) != 0 {
		t.Errorf("Check(%v) = %v; want no findings", good, fs)
	}
}

func TestEachRuleFiresAndHoldsBack(t *testing.T) {
	exp := schedule.Exponential{Base: 100 * ms, FactorPct: 200, Cap: 30 * sec}
	tests := []struct {
		rule       string
		fires, not schedule.Schedule
	}{
		{"never-stops", schedule.FullJitter(100*ms, 30*sec), good},
		{"never-stops", schedule.AndThen{First: schedule.Times{N: 3}, Then: schedule.Spaced{Every: time.Minute}}, schedule.UpTo{Inner: schedule.Spaced{Every: sec}, Budget: 5 * sec}},
		{"unbounded-wait", schedule.Spaced{Every: sec}, good},
		{"union-unbounded", schedule.Intersect{A: schedule.Union{A: schedule.Times{N: 3}, B: schedule.Spaced{Every: sec}}, B: schedule.UpTo{Inner: schedule.Forever{}, Budget: sec}},
			schedule.Union{A: schedule.Times{N: 3}, B: schedule.Intersect{A: schedule.Spaced{Every: sec}, B: schedule.Times{N: 2}}}},
		{"too-many-attempts", schedule.Intersect{A: schedule.FullJitter(100*ms, 30*sec), B: schedule.Times{N: 10}}, good},
		{"too-many-attempts", schedule.UpTo{Inner: schedule.Forever{}, Budget: sec}, schedule.UpTo{Inner: schedule.Spaced{Every: sec}, Budget: 4 * sec}},
		{"no-jitter", schedule.Intersect{A: exp, B: schedule.Times{N: 3}}, good},
		{"no-jitter", schedule.Intersect{A: schedule.Fibonacci{Base: 100 * ms}, B: schedule.Times{N: 3}}, schedule.Intersect{A: schedule.Jittered{Inner: schedule.Fibonacci{Base: 100 * ms}, LowPct: 0, HighPct: 100}, B: schedule.Times{N: 3}}},
		{"no-cap", schedule.Intersect{A: schedule.FullJitter(100*ms, 5*time.Minute), B: schedule.Times{N: 3}}, good},
		{"no-cap", schedule.Intersect{A: schedule.Jittered{Inner: schedule.Fibonacci{Base: 100 * ms}, LowPct: 0, HighPct: 100}, B: schedule.Times{N: 3}},
			schedule.Intersect{A: schedule.Capped{Inner: schedule.Jittered{Inner: schedule.Fibonacci{Base: 100 * ms}, LowPct: 0, HighPct: 100}, Max: 30 * sec}, B: schedule.Times{N: 3}}},
		{"no-cap", schedule.Intersect{A: schedule.Decorrelated{Base: 100 * ms, Cap: time.Hour}, B: schedule.Times{N: 3}}, schedule.Intersect{A: schedule.Decorrelated{Base: 100 * ms, Cap: 20 * sec}, B: schedule.Times{N: 3}}},
		{"tiny-delay", schedule.Intersect{A: schedule.FullJitter(100*time.Microsecond, 30*sec), B: schedule.Times{N: 3}}, good},
		{"dead-upto", schedule.UpTo{Inner: schedule.Exponential{Base: sec, FactorPct: 200, Cap: 30 * sec}, Budget: 500 * ms}, schedule.UpTo{Inner: schedule.FullJitter(sec, 30*sec), Budget: 500 * ms}},
		{"no-delay", schedule.Times{N: 3}, good},
		{"equal-jitter", schedule.Intersect{A: schedule.Backoff(100*ms, 30*sec), B: schedule.Times{N: 3}}, good},
		{"jitter-above-cap", schedule.Intersect{A: schedule.Jittered{Inner: exp, LowPct: 0, HighPct: 150}, B: schedule.Times{N: 3}}, good},
	}
	for _, tt := range tests {
		if got := ids(lint.Check(tt.fires)); !slices.Contains(got, tt.rule) {
			t.Errorf("Check(%v) = %v; want %s among them", tt.fires, got, tt.rule)
		}
		if got := ids(lint.Check(tt.not)); slices.Contains(got, tt.rule) {
			t.Errorf("Check(%v) = %v; want no %s", tt.not, got, tt.rule)
		}
	}
}

func TestEveryRuleIsTested(t *testing.T) {
	// TestEachRuleFiresAndHoldsBack must name every rule; this keeps a new
	// rule from landing untested.
	tested := map[string]bool{"never-stops": true, "unbounded-wait": true, "union-unbounded": true, "too-many-attempts": true,
		"no-jitter": true, "no-cap": true, "tiny-delay": true, "dead-upto": true, "no-delay": true, "equal-jitter": true, "jitter-above-cap": true}
	for _, r := range lint.Rules() {
		if !tested[r.ID] {
			t.Errorf("rule %s has no test", r.ID)
		}
	}
}

func TestFindingDetails(t *testing.T) {
	s := schedule.Intersect{A: schedule.Exponential{Base: 100 * ms, FactorPct: 200, Cap: 30 * sec}, B: schedule.Times{N: 3}}
	want := []lint.Finding{{
		ID:       "no-jitter",
		Severity: lint.Warning,
		Node:     "Exponential(100ms, 200%, 30s)",
		Message:  "Exponential(100ms, 200%, 30s) has no jitter: clients that failed together retry together, and the retries arrive as one storm",
		Fix:      "add full jitter: fulljitter(100ms, 30s)",
	}}
	if diff := cmp.Diff(want, lint.Check(s)); diff != "" {
		t.Errorf("Check (-want +got):\n%s", diff)
	}
}

func TestSortedBySeverity(t *testing.T) {
	fs := lint.Check(schedule.Union{A: schedule.Times{N: 3}, B: schedule.Exponential{Base: 10 * time.Microsecond, FactorPct: 200, Cap: time.Hour}})
	if len(fs) < 3 || fs[0].Severity != lint.Error {
		t.Fatalf("findings = %v; want several, an error first", fs)
	}
	for i := 1; i < len(fs); i++ {
		if fs[i].Severity > fs[i-1].Severity {
			t.Errorf("finding %d (%v) is more severe than finding %d (%v)", i, fs[i].Severity, i-1, fs[i-1].Severity)
		}
	}
	if w, ok := lint.Worst(fs); !ok || w != lint.Error {
		t.Errorf("Worst = %v, %v; want error, true", w, ok)
	}
}

func TestInvalid(t *testing.T) {
	fs := lint.Check(schedule.Spaced{})
	want := []lint.Finding{{ID: "invalid", Severity: lint.Error, Message: "Spaced: every 0s is not positive", Fix: "correct the policy"}}
	if diff := cmp.Diff(want, fs); diff != "" {
		t.Errorf("Check (-want +got):\n%s", diff)
	}
}
