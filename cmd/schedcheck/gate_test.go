package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/parse"
)

// TestLintGate checks the exit statuses that make lint and check gates.
func TestLintGate(t *testing.T) {
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"lint", "--fail-on", "warning", "backoff(2s, 100ms) & times(5)"}, 1},
		{[]string{"lint", "backoff(2s, 100ms) & times(5)"}, 1},
		{[]string{"lint", "exponential(100ms, 200%, 30s) & times(3)"}, 0},
		{[]string{"lint", "--fail-on", "warning", "exponential(100ms, 200%, 30s) & times(3)"}, 1},
		{[]string{"lint", "--fail-on", "warning", "backoff(100ms, 30s) & times(5)"}, 0},
		{[]string{"lint", "--for", "repeat", "--fail-on", "info", "spaced(5s) upto 10m"}, 0},
		{[]string{"lint", "--fail-on", "warning", "spaced(5s) upto 10m"}, 1},
		{[]string{"lint", "--for", "poll", "times(3)"}, 2},
		{[]string{"check", "backoff(2s, 100ms) & times(5)"}, 1},
		{[]string{"check", "spaced(1) & times(3)"}, 1},
		{[]string{"check", "exponential(100ms, 200%, 30s) & times(3)"}, 0}, // a warning: no gate
		{[]string{"check", "spaced(1m)"}, 1},
		{[]string{"check", "--for", "repeat", "spaced(1m)"}, 0},
		{[]string{"check", "--for", "sometimes", "spaced(1m)"}, 2},
	}
	for _, tt := range tests {
		if _, errs, code := schedcheck(t, "", tt.args...); code != tt.code {
			t.Errorf("schedcheck %q: exit %d; want %d\n%s", tt.args, code, tt.code, errs)
		}
	}
}

func TestCheckJSONFindings(t *testing.T) {
	out, _, code := schedcheck(t, "", "check", "--json", "backoff(2s, 100ms) & times(5)")
	if code != 1 {
		t.Errorf("exit %d; want 1", code)
	}
	var got checkResult
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, f := range got.Findings {
		ids = append(ids, f.ID+" "+f.Severity.String()+" "+f.Fix)
	}
	if diff := cmp.Diff([]string{"cap-below-base error backoff(100ms, 2s) & times(5)"}, ids); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	if !got.Valid || got.Canonical == "" {
		t.Errorf("check --json = %+v; want valid, with its canonical form", got)
	}
}

// TestFmtInfixHuman: fmt --infix writes durations as people do, and what
// it writes parses back to the same value.
func TestFmtInfixHuman(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"AndThen(Times(3), UpTo(Spaced(1m0s), 1h0m0s))", "times(3) then (spaced(1m) upto 1h)"},
		{"Capped(Fibonacci(250ms), 1m30s)", "capped(fibonacci(250ms), 1m30s)"},
		{"UpTo(Spaced(90s), 5400s)", "spaced(1m30s) upto 1h30m"},
	} {
		out, _, code := schedcheck(t, "", "fmt", "--infix", tt.in)
		if code != 0 {
			t.Fatalf("fmt --infix %q: exit %d", tt.in, code)
		}
		if got := strings.TrimSpace(out); got != tt.want {
			t.Errorf("fmt --infix %q = %q; want %q", tt.in, got, tt.want)
		}
		orig, _ := parse.Parse(tt.in)
		if back, err := parse.Parse(out); err != nil || back != orig {
			t.Errorf("fmt --infix %q = %q parses to %v, %v; want %v", tt.in, out, back, err, orig)
		}
	}
}
