package lint_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/recur-go/recur/internal/schedgen"
	"github.com/recur-go/recur/lint"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
	"pgregory.net/rapid"
)

// millis matches a whole number of milliseconds in a printed duration, such
// as the 5ms of spaced(5ms), but not the 5ms of 1.5ms.
var millis = regexp.MustCompile(`(^|[^0-9.])([0-9]+)ms`)

// genSource draws a policy as text: a generated schedule in infix form,
// sometimes with its whole milliseconds written bare, as in spaced(5).
func genSource(t *rapid.T) string {
	src := parse.Format(schedgen.Gen().Draw(t, "s"), parse.Infix)
	if rapid.Bool().Draw(t, "bare") {
		src = millis.ReplaceAllString(src, "$1$2")
	}
	return src
}

// TestPropFixIsClean checks, over generated policies and every rule, that
// each finding's fix is a policy that lints clean of that rule and of every
// rule at or above its severity.
func TestPropFixIsClean(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		src := genSource(t)
		fs, err := lint.CheckSource(src)
		if err != nil {
			t.Fatalf("CheckSource(%q): %v", src, err)
		}
		checkFixes(t, src, fs)
	})
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
