package lint_test

import (
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
