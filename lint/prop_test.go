package lint_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/recur-go/recur/lint"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
	"pgregory.net/rapid"
)

// millis matches a whole number of milliseconds in a printed duration, such
// as the 5ms of spaced(5ms), but not the 5ms of 1.5ms.
var millis = regexp.MustCompile(`(^|[^0-9.])([0-9]+)ms`)

// hedgeFixed matches the fix that gives a hedge's copies fixed delays.
var hedgeFixed = regexp.MustCompile(`^spaced\(50ms\) & times\([2-5]\)$`)

// genSource draws a policy as text: a generated schedule in infix form,
// sometimes with its whole milliseconds written bare, as in spaced(5).
func genSource(t *rapid.T) string {
	src := parse.Format(genSchedule().Draw(t, "s"), parse.Infix)
	if rapid.Bool().Draw(t, "bare") {
		src = millis.ReplaceAllString(src, "$1$2")
	}
	return src
}

// TestPropFixIsClean checks, over generated policies linted for retry and
// for repeat, that each finding's fix is a policy that, linted in the same
// mode, has neither that finding's rule nor any finding at or above its
// severity, and keeps the policy's phases (see checkFixesFor).
func TestPropFixIsClean(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		src := genSource(t)
		mode := rapid.SampledFrom([]lint.Mode{lint.Retry, lint.Repeat, lint.Hedge}).Draw(t, "mode")
		fs, err := lint.Options{For: mode}.CheckSource(src)
		if err != nil {
			t.Fatalf("CheckSource(%q): %v", src, err)
		}
		checkFixesFor(t, mode, src, fs)
	})
}

// checkFixesFor checks the fix of every finding in fs, which linting src
// for mode found: it parses; linted for mode, it has no finding of the
// same rule and none at or above the finding's severity; and it keeps the
// live phases of src (lint.LivePhases), as many as the attempts allow: a
// retry policy's fix makes at most lint.MaxAttempts attempts, which leave
// room for lint.MaxAttempts-1 phases after the first, and as many as the
// time allows (see spendsBudget).
func checkFixesFor(t fataler, mode lint.Mode, src string, fs []lint.Finding) {
	t.Helper()
	orig, err := parse.Parse(src)
	if err != nil {
		t.Fatalf("%s does not parse: %v", src, err)
	}
	want := lint.LivePhases(orig)
	if strings.Contains(orig.String(), "ResetAfter(") || strings.Contains(orig.String(), "WhileBelow(") {
		// Bounds reads a resetafter as restarting at any time and a
		// whilebelow as giving up on any wait it might, so the phases
		// beside them are live or not by that reading, not the policy.
		want = 0
	}
	switch mode {
	case lint.Retry:
		want = min(want, lint.MaxAttempts-1)
	case lint.Hedge:
		want = min(want, lint.MaxHedgeCopies-1)
	}
	for _, f := range fs {
		fix, err := parse.Parse(f.Fix)
		if err != nil {
			t.Fatalf("%s: fix of %s %q does not parse: %v", src, f.ID, f.Fix, err)
		}
		got, err := lint.Options{For: mode}.CheckSource(f.Fix)
		if err != nil {
			t.Fatalf("%s: fix of %s %q: %v", src, f.ID, f.Fix, err)
		}
		for _, g := range got {
			if g.ID == f.ID || g.Severity >= f.Severity {
				t.Fatalf("%s (%v): fix of %s (%v), %q, has %v", src, mode, f.ID, f.Severity, f.Fix, g)
			}
		}
		// hedge-no-delay, on its own or in the chain of another
		// finding's fix, may give the copies fixed delays when Bounds
		// cannot tell that a floor under the policy's own holds.
		fixedHedge := mode == lint.Hedge && hedgeFixed.MatchString(f.Fix)
		if f.ID != "invalid" && !fixedHedge && lint.LivePhases(fix) < want && !spendsBudget(orig, fix) {
			t.Fatalf("%s (%v): fix of %s, %q, keeps %d of its %d phases", src, mode, f.ID, f.Fix, lint.LivePhases(fix), want)
		}
	}
}

// spendsBudget reports whether orig has a time budget (upto)
// and fix waits otherwise: a later phase is reached only if the waits
// before it leave time for it, so a fix that raises the waits of
// (times(3) then spaced(1us)) upto 1ms keeps the budget and may no longer
// reach the slow phase.
func spendsBudget(orig, fix schedule.Schedule) bool {
	o, f := schedule.Bounds(orig), schedule.Bounds(fix)
	o1, f1 := schedule.FirstWait(orig), schedule.FirstWait(fix)
	if o.MinTotal == f.MinTotal && o.MaxTotal == f.MaxTotal && o.MaxDelay == f.MaxDelay && o1.MinTotal == f1.MinTotal && o1.MaxTotal == f1.MaxTotal {
		return false
	}
	return strings.Contains(orig.String(), "UpTo(")
}

// TestFallbackIsClean checks the fix of last resort, which is also the fix
// of an invalid schedule.
func TestFallbackIsClean(t *testing.T) {
	inv := lint.Check(schedule.Spaced{})
	if len(inv) != 1 {
		t.Fatalf("Check(Spaced{}) = %v; want one finding", inv)
	}
	if fs := checkSource(t, inv[0].Fix); len(fs) != 0 {
		t.Errorf("fallback %q has findings: %v", inv[0].Fix, fs)
	}
}

// balanced returns the parts joined by op, nested as a balanced tree so
// that the policy stays within parse.MaxDepth.
func balanced(parts []string, op string) string {
	if len(parts) == 1 {
		return parts[0]
	}
	m := len(parts) / 2
	return "(" + balanced(parts[:m], op) + " " + op + " " + balanced(parts[m:], op) + ")"
}

// TestLargePolicy lints policies of a few hundred nodes, with findings at
// every leaf, and checks their fixes: they stay clean and parse back, though
// Simplify would nest them past parse.MaxDepth.
func TestLargePolicy(t *testing.T) {
	for _, op := range []string{"|", "then"} {
		var parts []string
		for i := 1; i <= 70; i++ {
			parts = append(parts, fmt.Sprintf("((decorrelated(%d, 1) & times(%d)) upto %ds)", i, i+1, i))
		}
		src := balanced(parts, op)
		fs := checkSource(t, src)
		if len(fs) == 0 {
			t.Fatalf("%s-policy: no findings", op)
		}
		checkFixes(t, op+"-policy", fs)
	}
}
