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

// good is the policy the rules' sources recommend, tightened: full jitter,
// three attempts.
var good = schedule.Intersect{A: schedule.FullJitter(100*ms, 30*sec), B: schedule.Times{N: 3}}

func ids(fs []lint.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.ID)
	}
	return out
}

// checkSource lints src, which must parse.
func checkSource(t *testing.T, src string) []lint.Finding {
	t.Helper()
	fs, err := lint.CheckSource(src)
	if err != nil {
		t.Fatalf("CheckSource(%q): %v", src, err)
	}
	return fs
}

// fataler is what checkFixes needs of *testing.T and *rapid.T.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// checkFixes checks that the fix of every finding in fs parses and lints
// clean of that finding's rule and of every rule at or above its severity.
func checkFixes(t fataler, policy string, fs []lint.Finding) {
	t.Helper()
	for _, f := range fs {
		got, err := lint.CheckSource(f.Fix)
		if err != nil {
			t.Fatalf("%s: fix of %s %q does not parse: %v", policy, f.ID, f.Fix, err)
		}
		for _, g := range got {
			if g.ID == f.ID || g.Severity >= f.Severity {
				t.Fatalf("%s: fix of %s (%v), %q, has %v", policy, f.ID, f.Severity, f.Fix, g)
			}
		}
	}
}

func TestGoodPolicyIsClean(t *testing.T) {
	if fs := lint.Check(good); len(fs) != 0 {
		t.Errorf("Check(%v) = %v; want no findings", good, fs)
	}
}

// TestSelfConsistent pins the policies lint once contradicted itself on.
func TestSelfConsistent(t *testing.T) {
	tests := []struct {
		src  string
		want []string
	}{
		// The README's first policy: equal jitter is a documented choice.
		{"backoff(100ms, 30s) & times(5)", nil},
		// no-delay's fix once had a finding of its own.
		{"times(3)", []string{"no-delay"}},
		// A 5m cap that three attempts never reach: 200ms at most at once.
		{"fulljitter(100ms, 5m) & times(3)", nil},
		{"fulljitter(100ms, 5m) & times(5)", nil},
		{"fulljitter(100ms, 5m) & upto(times(20), 1h)", []string{"too-many-attempts", "no-cap"}},
		// Arguments swapped: every wait is 100ms.
		{"backoff(30s, 100ms) & times(3)", []string{"cap-below-base"}},
		// A bare 1 is a millisecond.
		{"spaced(1) & times(3)", []string{"bare-duration"}},
		{"spaced(1s) & times(3)", nil},
		{"spaced(10) & times(3)", nil},
	}
	for _, tt := range tests {
		fs := checkSource(t, tt.src)
		if diff := cmp.Diff(tt.want, ids(fs)); diff != "" {
			t.Errorf("CheckSource(%q) ids (-want +got):\n%s", tt.src, diff)
		}
		checkFixes(t, tt.src, fs)
	}
}

func TestEachRuleFiresAndHoldsBack(t *testing.T) {
	tests := []struct {
		rule       string
		fires, not string
	}{
		{"never-stops", "fulljitter(100ms, 30s)", "fulljitter(100ms, 30s) & times(3)"},
		{"never-stops", "times(3) then spaced(1m)", "spaced(1s) upto 5s"},
		{"unbounded-wait", "spaced(1s)", "spaced(1s) & times(3)"},
		{"union-unbounded", "(times(3) | spaced(1s)) & (forever upto 1s)", "times(3) | (spaced(1s) & times(2))"},
		{"too-many-attempts", "fulljitter(100ms, 30s) & times(10)", "fulljitter(100ms, 30s) & times(5)"},
		{"too-many-attempts", "forever upto 1s", "spaced(1s) upto 4s"},
		{"bare-duration", "spaced(1) & times(3)", "spaced(1s) & times(3)"},
		{"bare-duration", "fulljitter(base=100ms, cap=9) & times(3)", "fulljitter(base=100, cap=30000) & times(3)"},
		{"cap-below-base", "backoff(30s, 100ms) & times(3)", "backoff(100ms, 30s) & times(3)"},
		{"cap-below-base", "decorrelated(1s, 100ms) & times(3)", "decorrelated(100ms, 1s) & times(3)"},
		{"no-jitter", "exponential(100ms, 200%, 30s) & times(3)", "fulljitter(100ms, 30s) & times(3)"},
		{"no-jitter", "fibonacci(100ms) & times(3)", "jittered(fibonacci(100ms), 0%, 100%) & times(3)"},
		// Nothing waits: no-delay says so, not no-jitter.
		{"no-jitter", "exponential(100ms, 200%, 30s) & times(3)", "exponential(100ms, 200%, 30s) & times(1)"},
		{"no-cap", "fulljitter(100ms, 5m) & times(20) & upto(forever, 1h)", "fulljitter(100ms, 5m) & times(3)"},
		{"no-cap", "jittered(fibonacci(100ms), 0%, 100%) & times(40)", "capped(jittered(fibonacci(100ms), 0%, 100%), 30s) & times(40)"},
		{"no-cap", "decorrelated(100ms, 1h) & times(20)", "decorrelated(100ms, 20s) & times(20)"},
		// A Capped above the growth.
		{"no-cap", "exponential(1s, 200%, 1h) & times(20)", "capped(exponential(1s, 200%, 1h), 30s) & times(20)"},
		{"tiny-delay", "fulljitter(100us, 30s) & times(3)", "fulljitter(1ms, 30s) & times(3)"},
		// The least delay wins in an Intersect.
		{"tiny-delay", "spaced(100us) & times(3)", "spaced(100us) & fulljitter(100ms, 30s) & times(3)"},
		{"dead-upto", "exponential(1s, 200%, 30s) upto 500ms", "fulljitter(1s, 30s) upto 500ms"},
		{"dead-upto", "spaced(10s) upto 5s", "times(1) upto 0s"},
		{"no-delay", "times(3)", "fulljitter(100ms, 30s) & times(3)"},
		{"no-delay", "forever & times(3)", "times(1)"},
		{"jitter-above-cap", "jittered(exponential(100ms, 200%, 30s), 0%, 150%) & times(3)", "fulljitter(100ms, 30s) & times(3)"},
		// rules_language.go
		{"dead-whilebelow", "whilebelow(backoff(1s, 30s) & times(3), 100ms)", "whilebelow(backoff(1s, 30s) & times(3), 2s)"},
		{"whilebelow-unreached", "whilebelow(fulljitter(100ms, 2s) & times(3), 1m)", "whilebelow(fulljitter(100ms, 30s), 10s) & times(3)"},
		{"sum-times", "linear(100ms) + random(0, 100ms) + times(3)", "linear(100ms) + random(0, 100ms) & times(3)"},
		{"resetafter-count", "resetafter(fulljitter(100ms, 10s) & times(3), 1m)", "resetafter(fulljitter(100ms, 10s), 1m) & times(3)"},
	}
	tested := map[string]bool{}
	for _, tt := range tests {
		tested[tt.rule] = true
		fires := checkSource(t, tt.fires)
		if got := ids(fires); !slices.Contains(got, tt.rule) {
			t.Errorf("CheckSource(%q) = %v; want %s among them", tt.fires, got, tt.rule)
		}
		checkFixes(t, tt.fires, fires)
		if got := ids(checkSource(t, tt.not)); slices.Contains(got, tt.rule) {
			t.Errorf("CheckSource(%q) = %v; want no %s", tt.not, got, tt.rule)
		}
	}
	for _, r := range lint.Rules() {
		if !tested[r.ID] && r.Applies(lint.Retry) { // TestRepeatRules tests the others
			t.Errorf("rule %s has no test", r.ID)
		}
	}
}

func TestCheckLeavesSourceRulesOut(t *testing.T) {
	// A schedule has no text, so bare-duration cannot apply.
	s := schedule.Intersect{A: schedule.Spaced{Every: ms}, B: schedule.Times{N: 3}}
	if fs := lint.Check(s); len(fs) != 0 {
		t.Errorf("Check(%v) = %v; want no findings", s, fs)
	}
}

func TestFindingDetails(t *testing.T) {
	s := schedule.Intersect{A: schedule.Exponential{Base: 100 * ms, FactorPct: 200, Cap: 30 * sec}, B: schedule.Times{N: 3}}
	want := []lint.Finding{{
		ID:       "no-jitter",
		Severity: lint.Warning,
		Node:     "Exponential(100ms, 200%, 30s)",
		Message:  "Exponential(100ms, 200%, 30s) has no jitter: clients that failed together retry together, and the retries arrive as one storm; add full jitter",
		Fix:      "fulljitter(100ms, 30s) & times(3)",
	}}
	if diff := cmp.Diff(want, lint.Check(s)); diff != "" {
		t.Errorf("Check (-want +got):\n%s", diff)
	}
}

func TestBareDurationDetails(t *testing.T) {
	want := []lint.Finding{{
		ID:       "bare-duration",
		Severity: lint.Error,
		Node:     "Intersect(Spaced(2ms), Times(3))",
		Message:  "2:8: 2 is 2ms: a bare number is milliseconds; write 2s, or 2ms if you mean it",
		Fix:      "spaced(2s) & times(3)",
	}}
	if diff := cmp.Diff(want, checkSource(t, "# poll\nspaced(2) & times(3)")); diff != "" {
		t.Errorf("CheckSource (-want +got):\n%s", diff)
	}
}

func TestCheckSourceError(t *testing.T) {
	if fs, err := lint.CheckSource("spaced("); err == nil {
		t.Errorf("CheckSource(%q) = %v, nil; want an error", "spaced(", fs)
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
	want := []lint.Finding{{ID: "invalid", Severity: lint.Error, Message: "Spaced: every 0s is not positive", Fix: "fulljitter(100ms, 30s) & times(3)"}}
	if diff := cmp.Diff(want, fs); diff != "" {
		t.Errorf("Check (-want +got):\n%s", diff)
	}
}

// TestFixes pins the fix of each rule on a typical policy: the smallest
// change that removes the finding, not the recommended policy in its place.
func TestFixes(t *testing.T) {
	tests := []struct{ src, rule, fix string }{
		{"fulljitter(100ms, 30s) & times(10)", "too-many-attempts", "fulljitter(100ms, 30s) & times(3)"},
		{"spaced(1s)", "never-stops", "spaced(1s) & times(3)"},
		{"times(3) | spaced(1s)", "union-unbounded", "times(3) & spaced(1s)"},
		{"exponential(1s, 200%, 30s) upto 500ms", "dead-upto", "(fulljitter(1s, 30s) upto 2s) & times(3)"},
		{"jittered(exponential(100ms, 200%, 30s), 0%, 150%) & times(3)", "jitter-above-cap", "fulljitter(100ms, 30s) & times(3)"},
		{"fibonacci(100ms) & times(3)", "no-jitter", "jittered(fibonacci(100ms), 0%, 100%) & times(3)"},
		{"decorrelated(100ms, 1h) & times(20)", "no-cap", "decorrelated(100ms, 30s) & times(3)"},
		{"fulljitter(100us, 30s) & times(3)", "tiny-delay", "fulljitter(100ms, 30s) & times(3)"},
		{"forever & times(3)", "no-delay", "fulljitter(100ms, 30s) & times(3)"},
		{"backoff(30s, 100ms) & times(3)", "cap-below-base", "backoff(100ms, 30s) & times(3)"},
		{"spaced(2) & times(3) upto 5", "bare-duration", "spaced(2s) & times(3) upto 5s"},
	}
	for _, tt := range tests {
		var got []string
		for _, f := range checkSource(t, tt.src) {
			if f.ID == tt.rule {
				got = append(got, f.Fix)
			}
		}
		if len(got) == 0 || slices.ContainsFunc(got, func(fix string) bool { return fix != tt.fix }) {
			t.Errorf("CheckSource(%q): fixes of %s = %q; want %q", tt.src, tt.rule, got, tt.fix)
		}
	}
}
