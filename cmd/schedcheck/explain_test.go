package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/explain"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
)

// TestExplainGoldenExtremes: explain at saturating values says what they
// mean, and speaks of a time budget only where the policy has one.
func TestExplainGoldenExtremes(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"explain_times_max", []string{"explain", "times(9223372036854775807)"}},
		{"explain_spaced_max", []string{"explain", "spaced(2562047h47m16.854775807s) & times(3)"}},
		{"explain_upto_max", []string{"explain", "spaced(1s) upto 2562047h47m16.854775807s"}},
		{"explain_times_one", []string{"explain", "times(1)"}},
		{"explain_andthen_times", []string{"explain", "times(3) then times(5)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkGolden(t, tt.name, "", tt.args, 0) })
	}
}

// TestExplainSaysEachFactOnce: the number of attempts appears at most
// once in an explanation, "time budget" only for a policy with an UpTo,
// and "no limit" on attempts never for a policy with a count.
func TestExplainSaysEachFactOnce(t *testing.T) {
	policies := []string{
		"backoff(100ms, 30s) & times(5)",
		"times(3)",
		"times(1)",
		"fulljitter(100ms, 2s) & times(4)",
		"times(3) then spaced(1m)",
		"forever upto 1m",
		"spaced(10s) upto 35s",
		"spaced(1s) & times(4)",
		"times(5) | times(3)",
		"decorrelated(100ms, 10s) & times(4)",
		"times(9223372036854775807)",
		"spaced(2562047h47m16.854775807s) & times(3)",
		"exponential(1s, 200%, 2562047h) & times(100)",
		"fibonacci(1s) & times(200)",
	}
	for _, src := range policies {
		s, err := parse.Parse(src)
		if err != nil {
			t.Fatalf("Parse(%q): %v", src, err)
		}
		e := explain.Explain(s).Explanation
		b := schedule.Bounds(s)
		if n := strings.Count(e, " "+strconv.Itoa(b.MaxAttempts)+" attempt"); n > 1 {
			t.Errorf("explain(%q) = %q: says %d attempts %d times", src, e, b.MaxAttempts, n)
		}
		if strings.Contains(e, "time budget") && !strings.Contains(src, "upto") {
			t.Errorf("explain(%q) = %q: speaks of a time budget the policy lacks", src, e)
		}
		if strings.Contains(src, "times(") && strings.Contains(e, "no limit on attempts") {
			t.Errorf("explain(%q) = %q: says there is no limit on attempts", src, e)
		}
	}
}

// quotedExplain matches a quoted explain command in the docs.
var quotedExplain = regexp.MustCompile(`^\$ (?:go run \./cmd/schedcheck|schedcheck) explain '([^']+)'$`)

// TestDocsQuoteExplain: where README.md or docs/ quote explain on a
// policy, the quoted output is what explain prints today.
func TestDocsQuoteExplain(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	files = append(files, filepath.Join("..", "..", "README.md"))
	quotes := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		for i, l := range lines {
			m := quotedExplain.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			quotes++
			var quoted []string
			for _, o := range lines[i+1:] {
				if o == "" || strings.HasPrefix(o, "```") || strings.HasPrefix(o, "$ ") {
					break
				}
				quoted = append(quoted, o)
			}
			out, _, _ := schedcheck(t, "", "explain", m[1])
			if diff := cmp.Diff(strings.Join(quoted, "\n"), strings.TrimSuffix(out, "\n")); diff != "" {
				t.Errorf("%s:%d: quoted explain output (-quoted +today):\n%s", f, i+1, diff)
			}
		}
	}
	if quotes < 2 {
		t.Errorf("found %d quoted explain commands; want the README's and docs/schedcheck.md's", quotes)
	}
}
