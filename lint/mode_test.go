package lint_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/lint"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
)

// lintFor lints src, which must parse, for mode.
func lintFor(t *testing.T, mode lint.Mode, src string) []lint.Finding {
	t.Helper()
	fs, err := lint.Options{For: mode}.CheckSource(src)
	if err != nil {
		t.Fatalf("CheckSource(%q) for %v: %v", src, mode, err)
	}
	return fs
}

// TestRepeatRules checks the rules of repeat policies: the retry rules
// hold back, busy-repeat fires, and the rules of both modes still apply.
func TestRepeatRules(t *testing.T) {
	tests := []struct {
		src  string
		want []string
	}{
		{"spaced(5s) upto 10m", nil},
		{"spaced(1m)", nil},
		{"times(3) then spaced(1m)", nil},
		{"exponential(1s, 200%, 10m)", nil},
		{"times(3)", []string{"busy-repeat"}},
		{"spaced(100us) upto 1m", []string{"busy-repeat"}},
		{"backoff(2s, 100ms)", []string{"cap-below-base"}},
		{"spaced(1)", []string{"bare-duration"}},
	}
	for _, tt := range tests {
		fs := lintFor(t, lint.Repeat, tt.src)
		if diff := cmp.Diff(tt.want, ids(fs)); diff != "" {
			t.Errorf("CheckSource(%q) for repeat: ids (-want +got):\n%s", tt.src, diff)
		}
		checkFixesFor(t, lint.Repeat, tt.src, fs)
	}
	// The same policy linted for retry has the retry rules' findings.
	if got := ids(lintFor(t, lint.Retry, "spaced(5s) upto 10m")); !slices.Contains(got, "too-many-attempts") {
		t.Errorf("spaced(5s) upto 10m for retry: %v; want too-many-attempts", got)
	}
	if got := ids(lintFor(t, lint.Retry, "times(3)")); slices.Contains(got, "busy-repeat") {
		t.Errorf("times(3) for retry: %v; want no busy-repeat", got)
	}
}

// TestHedgeRules: a hedging policy gets the hedge rules and none of the
// retry rules, and each fix clears its finding.
func TestHedgeRules(t *testing.T) {
	tests := []struct {
		src, fix string
		want     []string
	}{
		{"spaced(50ms) & times(3)", "", nil},
		{"exponential(20ms, 200%, 200ms) & times(4)", "", nil}, // no jitter is no finding for a hedge
		{"spaced(100ms) & times(5)", "", nil},
		{"times(2)", "times(2) & spaced(50ms)", []string{"hedge-no-delay"}},
		{"fulljitter(20ms, 200ms) & times(3)", "fulljitter(20ms, 200ms) & times(3) & spaced(50ms)", []string{"hedge-no-delay"}},
		{"spaced(10ms)", "spaced(10ms) & times(3)", []string{"hedge-unbounded"}},
		{"spaced(50ms) & times(8)", "spaced(50ms) & times(3)", []string{"hedge-too-many"}},
		{"spaced(50ms) & times(100)", "spaced(50ms) & times(3)", []string{"hedge-too-many"}},
		{"spaced(50ms) & times(101)", "spaced(50ms) & times(3)", []string{"hedge-unbounded"}},
		{"backoff(2s, 100ms) & times(3)", "", []string{"cap-below-base"}},
	}
	for _, tt := range tests {
		fs := lintFor(t, lint.Hedge, tt.src)
		if diff := cmp.Diff(tt.want, ids(fs)); diff != "" {
			t.Errorf("CheckSource(%q) for hedge: ids (-want +got):\n%s", tt.src, diff)
		}
		if tt.fix != "" && (len(fs) == 0 || fs[0].Fix != tt.fix) {
			t.Errorf("CheckSource(%q) for hedge: %v; want the fix %s", tt.src, fs, tt.fix)
		}
		checkFixesFor(t, lint.Hedge, tt.src, fs)
	}
	if got := ids(lintFor(t, lint.Retry, "times(2)")); slices.Contains(got, "hedge-no-delay") {
		t.Errorf("times(2) for retry: %v; want no hedge rule", got)
	}
	if err := (lint.Options{For: lint.Hedge}).StrictSource("times(2)"); err == nil {
		t.Error("StrictSource(times(2)) for hedge: no error; want hedge-no-delay")
	}
}

func TestBusyRepeatFix(t *testing.T) {
	for _, tt := range []struct{ src, fix string }{
		{"times(3)", "times(3) & spaced(1s)"},
		{"spaced(100us) upto 1m", "spaced(100ms) upto 1m"},
	} {
		fs := lintFor(t, lint.Repeat, tt.src)
		if len(fs) != 1 || fs[0].Fix != tt.fix {
			t.Errorf("%s for repeat: %v; want one finding, fix %s", tt.src, fs, tt.fix)
		}
	}
}

// TestPhasesKept pins the fixes that once cut off a policy's later phase.
func TestPhasesKept(t *testing.T) {
	tests := []struct{ src, rule, fix string }{
		{"times(3) then spaced(1m)", "never-stops", "times(3) then spaced(1m) & times(3)"},
		{"times(3) then spaced(1m) & times(10)", "too-many-attempts", "times(3) then spaced(1m) & times(3)"},
		{"times(2) | (times(3) then spaced(1s))", "union-unbounded", "times(2) | (times(3) then spaced(1s) & times(3))"},
	}
	for _, tt := range tests {
		var got []string
		for _, f := range checkSource(t, tt.src) {
			if f.ID == tt.rule {
				got = append(got, f.Fix)
			}
		}
		if diff := cmp.Diff([]string{tt.fix}, got); diff != "" {
			t.Errorf("CheckSource(%q): fixes of %s (-want +got):\n%s", tt.src, tt.rule, diff)
		}
		checkFixesFor(t, lint.Retry, tt.src, checkSource(t, tt.src))
	}
}

func TestStrict(t *testing.T) {
	backoff := func(base, cap time.Duration) schedule.Schedule {
		return schedule.Intersect{A: schedule.Backoff(base, cap), B: schedule.Times{N: 5}}
	}
	if err := lint.Strict(backoff(100*ms, 30*sec)); err != nil {
		t.Errorf("Strict(good) = %v; want nil", err)
	}
	// A warning does not fail.
	if err := lint.Strict(schedule.Intersect{A: schedule.Exponential{Base: 100 * ms, FactorPct: 200, Cap: 30 * sec}, B: schedule.Times{N: 3}}); err != nil {
		t.Errorf("Strict(no jitter) = %v; want nil", err)
	}
	err := lint.Strict(backoff(2*sec, 100*ms))
	var se *lint.StrictError
	if !errors.As(err, &se) {
		t.Fatalf("Strict(backoff(2s, 100ms) & times(5)) = %v; want a *StrictError", err)
	}
	if diff := cmp.Diff([]string{"cap-below-base"}, ids(se.Findings)); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	want := "lint: cap-below-base: Exponential(2s, 200%, 100ms) has its cap 100ms below its base 2s, so every wait is the cap: were they swapped? (fix: backoff(100ms, 2s) & times(5))"
	if diff := cmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("Error() (-want +got):\n%s", diff)
	}
	// Invalid, never stopping for retry but not for repeat.
	if err := lint.Strict(schedule.Spaced{}); err == nil {
		t.Errorf("Strict(Spaced{}) = nil; want an error")
	}
	forever := schedule.Spaced{Every: time.Minute}
	if err := lint.Strict(forever); err == nil {
		t.Errorf("Strict(%v) = nil; want never-stops", forever)
	}
	if err := (lint.Options{For: lint.Repeat}).Strict(forever); err != nil {
		t.Errorf("Strict(%v) for repeat = %v; want nil", forever, err)
	}
	// Only the text shows a bare number.
	if err := (lint.Options{}).StrictSource("spaced(1) & times(3)"); err == nil {
		t.Errorf("StrictSource(spaced(1) & times(3)) = nil; want bare-duration")
	}
	var pe *parse.Error
	if err := (lint.Options{}).StrictSource("spaced("); !errors.As(err, &pe) {
		t.Errorf("StrictSource(spaced() = %v; want a *parse.Error", err)
	}
}

// TestFormat checks that the fixes' form parses back to the same value.
func TestFormat(t *testing.T) {
	for _, tt := range []struct{ src, want string }{
		{"spaced(1m)", "spaced(1m)"},
		{"spaced(90s)", "spaced(1m30s)"},
		{"spaced(1h)", "spaced(1h)"},
		{"spaced(3630s)", "spaced(1h30s)"},
		{"spaced(5400s)", "spaced(1h30m)"},
		{"spaced(250ms) upto 2m", "spaced(250ms) upto 2m"},
		{"spaced(60.5s)", "spaced(1m0.5s)"},
		{"spaced(1.5s) upto 10m", "spaced(1.5s) upto 10m"},
		{"backoff(100ms, 5m) & times(3)", "backoff(100ms, 5m) & times(3)"},
	} {
		s, err := parse.Parse(tt.src)
		if err != nil {
			t.Fatal(err)
		}
		got := lint.Format(s)
		if got != tt.want {
			t.Errorf("Format(%s) = %q; want %q", tt.src, got, tt.want)
		}
		if back, err := parse.Parse(got); err != nil || back != s {
			t.Errorf("Format(%s) = %q parses to %v, %v; want %v", tt.src, got, back, err, s)
		}
	}
}

func TestParseFlags(t *testing.T) {
	for _, name := range []string{"retry", "Repeat"} {
		if m, err := lint.ParseMode(name); err != nil || !slices.Contains([]lint.Mode{lint.Retry, lint.Repeat}, m) {
			t.Errorf("ParseMode(%q) = %v, %v", name, m, err)
		}
	}
	if _, err := lint.ParseMode("poll"); err == nil {
		t.Errorf("ParseMode(poll) = nil error")
	}
	for _, sev := range []lint.Severity{lint.Info, lint.Warning, lint.Error} {
		if got, err := lint.ParseSeverity(sev.String()); err != nil || got != sev {
			t.Errorf("ParseSeverity(%q) = %v, %v", sev, got, err)
		}
	}
	if _, err := lint.ParseSeverity("fatal"); err == nil {
		t.Errorf("ParseSeverity(fatal) = nil error")
	}
}

// Strict at load: a policy read from a config file that is valid but
// almost certainly wrong fails at start-up, naming the rule and the fix.
func ExampleStrict() {
	var cfg struct{ Retry parse.Policy }
	for _, text := range []string{"backoff(100ms, 2s) & times(5)", "backoff(2s, 100ms) & times(5)"} {
		if err := cfg.Retry.UnmarshalText([]byte(text)); err != nil {
			fmt.Println(err)
			continue
		}
		if err := lint.Strict(cfg.Retry.Schedule); err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println("ok:", text)
	}
	// Output:
	// ok: backoff(100ms, 2s) & times(5)
	// lint: cap-below-base: Exponential(2s, 200%, 100ms) has its cap 100ms below its base 2s, so every wait is the cap: were they swapped? (fix: backoff(100ms, 2s) & times(5))
}

// A polling policy is linted for Repeat: many runs within a time budget
// are its point, not a finding.
func ExampleOptions_Check() {
	poll := schedule.UpTo{Inner: schedule.Spaced{Every: 5 * time.Second}, Budget: 10 * time.Minute}
	fmt.Println("retry: ", ids(lint.Check(poll)))
	fmt.Println("repeat:", ids(lint.Options{For: lint.Repeat}.Check(poll)))
	// Output:
	// retry:  [too-many-attempts]
	// repeat: []
}

func ExampleFormat() {
	s := schedule.AndThen{First: schedule.Times{N: 3}, Then: schedule.UpTo{Inner: schedule.Spaced{Every: 90 * time.Second}, Budget: time.Hour}}
	fmt.Println(s)
	fmt.Println(lint.Format(s))
	// Output:
	// AndThen(Times(3), UpTo(Spaced(1m30s), 1h0m0s))
	// times(3) then (spaced(1m30s) upto 1h)
}
