package lint_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
)

// The patterns that find policy text in the docs and examples.
var (
	codeSpan   = regexp.MustCompile("`([^`\n]+)`")
	quoted     = regexp.MustCompile(`'([^'\n]+)'|"((?:[^"\\\n]|\\.)+)"`)
	yamlValue  = regexp.MustCompile(`^\s*[\w.-]+:\s+([^"'\s#][^#]*?)\s*(#.*)?$`)
	fenceStart = regexp.MustCompile("^\\s*```")
)

// docPolicy is a policy written in a doc or an example.
type docPolicy struct {
	file, text string
}

// candidates returns the texts of a file that might be policies: code spans
// and code lines in Markdown, string literals in Go, values in config files.
func candidates(path, data string) []string {
	var out []string
	addLine := func(line string) {
		out = append(out, strings.TrimSpace(line))
		for _, m := range quoted.FindAllStringSubmatch(line, -1) {
			out = append(out, m[1]+m[2])
		}
		if m := yamlValue.FindStringSubmatch(line); m != nil {
			out = append(out, m[1])
		}
	}
	switch filepath.Ext(path) {
	case ".md":
		inFence := false
		for _, line := range strings.Split(data, "\n") {
			switch {
			case fenceStart.MatchString(line):
				inFence = !inFence
			case inFence || strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t"):
				addLine(line)
			default:
				for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
					out = append(out, m[1])
				}
			}
		}
	case ".go":
		for _, line := range strings.Split(data, "\n") {
			for _, m := range quoted.FindAllStringSubmatch(line, -1) {
				out = append(out, m[2])
			}
		}
		for _, m := range regexp.MustCompile("`([^`]*)`").FindAllStringSubmatch(data, -1) {
			out = append(out, m[1])
		}
	case ".yaml", ".yml", ".json", ".toml":
		for _, line := range strings.Split(data, "\n") {
			addLine(line)
		}
	}
	return out
}

// docPolicies returns every policy in README.md, docs/*.md and examples/,
// once per file.
func docPolicies(t *testing.T) []docPolicy {
	t.Helper()
	files := []string{filepath.Join("..", "README.md")}
	mds, _ := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	files = append(files, mds...)
	err := filepath.WalkDir(filepath.Join("..", "examples"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []docPolicy
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel("..", f)
		var seen []string
		for _, c := range candidates(f, string(data)) {
			if c == "" || slices.Contains(seen, c) {
				continue
			}
			if _, err := parse.Parse(c); err != nil {
				continue
			}
			seen = append(seen, c)
			out = append(out, docPolicy{filepath.ToSlash(rel), c})
		}
	}
	return out
}

// Why a policy in the docs or examples may have findings.
const (
	whyShown       = "shows lint's or another command's findings on purpose"
	whyTool        = "a schedcheck example: more attempts make a fuller timeline or plot"
	whySimplify    = "input to fmt --simplify, shown being simplified"
	whyAudit       = "explains how audit counts attempts and finds unbounded policies"
	whyBench       = "a benchmark's subject, or another library's default it is compared with"
	whyWorked      = "a worked example of what a combinator or Bounds does, not a policy to copy"
	whyPrecedence  = "shows how the operators bind, not a policy to copy"
	whyThen        = "shows then: a repeat schedule that goes on every minute"
	whyPoll        = "a repeat (polling) schedule: many attempts within a time budget are the point"
	whyPollForever = "a repeat schedule that polls for ever, every second, then every minute"
	whyGRPC        = "gRPC's connection backoff as its spec writes it, jitter of ±20% included"
	whyAWS         = "AWS's decorrelated jitter example as published, with 8 attempts"
	whyBackground  = "a background job's backoff, where attempts do not multiply across layers"
	whyTransaction = "a transaction retry bounded by time: many quick attempts within 5s by design"
	whyFailPlan    = "the audit plan that fails every rule on purpose; the comment beside it names the problem"
	whyGate        = "shows lint or check failing a policy with an error finding, on purpose"
	whyCutPhase    = "the fix lint no longer gives: it cuts off the slow phase"
	whyFmt         = "input and output of fmt --infix, shown for its durations"
)

// whyMigrate: the migration guide spells a peer's own configuration
// (cenkalti/backoff's defaults, retry-go's with jitter off) to show the
// recur policy that waits the same, findings and all.
const whyMigrate = "a peer's configuration, translated as it is"

// whyConvert: docs/convert.md shows what package convert makes of a
// peer's configuration, which has no jitter when the peer has none.
const whyConvert = "a peer's configuration, converted as it is"

// notClean lists the policies of README.md, docs/*.md and examples/ that
// have lint findings, with the reason.
var notClean = []struct{ file, policy, why string }{
	{"examples/audit/fail.yaml", "exponential(100ms, 200%, 30s) & times(4)", whyFailPlan},
	{"examples/audit/fail.yaml", "backoff(100ms, 10s) & times(8)", whyFailPlan},
	{"examples/audit/fail.yaml", "forever upto 30s", whyFailPlan},
	{"docs/migrating.md", "exponential(100ms, 200%, 2s) & times(4)", whyMigrate},
	{"docs/migrating.md", "exponential(100ms, 200%, 2s) & times(5)", whyMigrate},
	{"docs/migrating.md", "jittered(exponential(500ms, 150%, 60s), 50%, 150%) upto 15m", whyMigrate},
	{"docs/migrating.md", "jittered(exponential(100ms, 200%, 2s), 50%, 150%) & times(5)", whyMigrate},
	{"docs/convert.md", "Intersect(Exponential(1s, 200%, 1m40s), Times(5))", whyConvert},
	{"docs/convert.md", "Intersect(Exponential(500ms, 150%, 2562047h47m16.854775807s), Times(5))", whyConvert},
	{"docs/convert.md", "exponential(500ms, 150%, 10s) & times(5)", whyConvert},
	{"docs/audit.md", "fulljitter(100ms, 5s) upto 1m", whyAudit},
	{"docs/audit.md", "times(3) then times(2)", whyAudit},
	{"docs/audit.md", "spaced(1s) upto 10s", whyAudit},
	{"docs/audit.md", "forever upto 10s", whyAudit},
	{"docs/audit.md", "forever upto 30s", whyAudit},
	{"docs/benchmarks.md", "UpTo(Jittered(Exponential(500ms, 150%, 1m0s), 50%, 150%), 15m0s)", whyBench},
	{"docs/benchmarks.md", "AndThen(Intersect(Times(2), Jittered(Exponential(20ms, 100%, 20ms), 500%, 1000%)), AndThen(Intersect(Times(2), Jittered(Exponential(31.25ms, 100%, 31.25ms), 640%, 960%)), AndThen(Intersect(Times(2), Jittered(Exponential(50ms, 100%, 50ms), 800%, 1000%)), AndThen(Intersect(Times(2), Jittered(Exponential(100ms, 100%, 100ms), 800%, 900%)), AndThen(Intersect(Times(2), Jittered(Exponential(200ms, 100%, 200ms), 800%, 850%)), AndThen(Intersect(Times(2), Jittered(Exponential(400ms, 100%, 400ms), 800%, 825%)), AndThen(Intersect(Times(2), Jittered(Exponential(1s, 100%, 1s), 640%, 650%)), AndThen(Intersect(Times(2), Jittered(Exponential(2s, 100%, 2s), 640%, 645%)), AndThen(Intersect(Times(2), Jittered(Exponential(5s, 100%, 5s), 512%, 514%)), Times(1))))))))))", whyBench},
	{"docs/benchmarks.md", "Intersect(Exponential(1s, 200%, 30s), Times(5))", whyBench},
	{"docs/benchmarks.md", "AndThen(Times(3), Spaced(60000))", whyBench},
	{"docs/benchmarks.md", "Union(Intersect(Jittered(Exponential(100ms, 200%, 30s), 50%, 100%), Times(5)), AndThen(Capped(Fibonacci(1s), 10s), UpTo(Spaced(1m), 1h)))", whyBench},
	{"docs/benchmarks.md", "Intersect(Forever, Times(4))", whyBench},
	{"docs/benchmarks.md", "UpTo(Backoff(100ms, 5s), 30s)", whyBench},
	{"docs/benchmarks.md", "UpTo(Spaced(30s), 5m)", whyBench},
	{"docs/benchmarks.md", "backoff(100ms, 30s) & times(5) | (capped(fibonacci(1s), 10s) then (spaced(1m0s) upto 1h0m0s))", whyBench},
	{"docs/benchmarks.md", "(fulljitter(100ms, 10s) | decorrelated(50ms, 5s)) & times(6) & capped(spaced(1s), 5s) upto 30s", whyBench},
	{"docs/language.md", "times(3) then spaced(1m) & times(10) | forever upto 1h", whyPrecedence},
	{"docs/language.md", "UpTo(AndThen(Times(3), Union(Intersect(Spaced(1m0s), Times(10)), Forever)), 1h0m0s)", whyPrecedence},
	{"docs/language.md", "jittered(times(2) | forever upto 1s, 50, 100)", whyPrecedence},
	{"docs/language.md", "AndThen(Times(3), Spaced(1m0s))", whyThen},
	{"docs/language.md", "times(3) then spaced(1m0s)", whyThen},
	{"docs/language.md", "jittered(exponential(1s, 160%, 2m), 80%, 120%) & times(5)", whyGRPC},
	{"docs/language.md", "Intersect(Jittered(Exponential(1s, 160%, 2m0s), 80%, 120%), Times(5))", whyGRPC},
	{"docs/language.md", "times(3) then spaced(1m)", whyThen},
	{"docs/language.md", "AndThen(Times(3), Spaced(60000))", whyThen},
	{"docs/language.md", "spaced(5s) upto 10m", whyPoll},
	{"docs/language.md", "UpTo(Spaced(5s), 10m0s)", whyPoll},
	{"docs/language.md", "decorrelated(100ms, 20s) & times(8)", whyAWS},
	{"docs/language.md", "Intersect(Decorrelated(100ms, 20s), Times(8))", whyAWS},
	{"docs/language.md", "fibonacci(250ms) & times(10)", whyBackground},
	{"docs/language.md", "Intersect(Fibonacci(250ms), Times(10))", whyBackground},
	{"docs/language.md", "times(3) then backoff(1s, 1m) & times(10)", whyBackground},
	{"docs/language.md", "AndThen(Times(3), Intersect(Jittered(Exponential(1s, 200%, 1m0s), 50%, 100%), Times(10)))", whyBackground},
	{"docs/language.md", "spaced(1s) & times(5) | spaced(1m)", whyPollForever},
	{"docs/language.md", "Union(Intersect(Spaced(1s), Times(5)), Spaced(1m0s))", whyPollForever},
	{"docs/language.md", "backoff(10ms, 1s) upto 5s", whyTransaction},
	{"docs/language.md", "UpTo(Jittered(Exponential(10ms, 200%, 1s), 50%, 100%), 5s)", whyTransaction},
	{"docs/lint.md", "exponential(100ms, 200%, 30s) & times(8)", whyShown},
	{"docs/lint.md", "times(3) then spaced(1m)", whyShown},
	{"docs/lint.md", "backoff(2s, 100ms) & times(5)", whyGate},
	{"docs/lint.md", "spaced(5s) upto 10m", whyPoll},
	{"docs/lint.md", "(times(3) then spaced(1m)) & times(3)", whyCutPhase},
	{"docs/lint.md", "spaced(50ms) & times(8)", whyShown}, // a hedge's findings, linted for retry here
	{"docs/schedcheck.md", "backoff(2s, 100ms) & times(5)", whyGate},
	{"docs/schedcheck.md", "AndThen(Times(3), UpTo(Spaced(1m0s), 1h0m0s))", whyFmt},
	{"docs/schedcheck.md", "times(3) then (spaced(1m) upto 1h)", whyFmt},
	{"docs/schedcheck.md", "spaced(5s) upto 10m", whyPoll},
	{"docs/schedcheck.md", "times(3) | times(5) | (forever & spaced(1s))", whySimplify},
	{"docs/schedcheck.md", "times(3) then spaced(1m)", whyThen},
	{"docs/schedcheck.md", "fulljitter(100ms, 10s) upto 1m", whyTool},
	{"docs/schedcheck.md", "exponential(100ms, 200%, 30s) & times(8)", whyShown},
	{"docs/schedcheck.md", "spaced(10s) upto 1m", whyTool},
	{"docs/schedcheck.md", "backoff(100ms, 30s) & times(6)", whyTool},
	{"docs/schedcheck.md", "fulljitter(100ms, 10s) & times(8)", whyTool},
	{"docs/schedcheck.md", "Intersect(Jittered(Exponential(100ms, 200%, 30s), 50%, 100%), Times(6))", whyTool},
	{"docs/schedules.md", "Union(Times(4), UpTo(Spaced(20s), 1m))", whyWorked},
	{"docs/schedules.md", "Intersect(Exponential(1s, 200%, 1m), Times(5))", whyWorked},
	{"docs/schedules.md", "UpTo(Exponential(1s, 200%, 1m), 10s)", whyWorked},
	{"docs/schedules.md", "Capped(Fibonacci(1s), 4s)", whyWorked},
	{"docs/schedules.md", "UpTo(Times(3), 1s)", whyWorked},
	{"docs/schedules.md", "Union(Intersect(Times(3), Forever), AndThen(AndThen(Times(2), Times(1)), Times(4)))", whyWorked},
	{"docs/schedules.md", "backoff(100ms, 30s) upto 1m", whyWorked},
	{"docs/schedules.md", "times(3) then spaced(1m)", whyWorked},
	{"docs/schedules.md", "forever upto 1m", whyWorked},
}

// TestDocsLintClean checks that every policy in README.md, docs/*.md and
// examples/ lints clean, or is listed in notClean with the reason. A
// building block shown alone (spaced(1s), Forever) is not a policy.
func TestDocsLintClean(t *testing.T) {
	listed := map[docPolicy]string{}
	for _, n := range notClean {
		listed[docPolicy{n.file, n.policy}] = n.why
	}
	seen := map[docPolicy]bool{}
	for _, p := range docPolicies(t) {
		fs := checkSource(t, p.text)
		if len(fs) == 0 || part(p.text) {
			continue
		}
		seen[p] = true
		if _, ok := listed[p]; !ok {
			t.Errorf("%s: %s has findings %v; fix it, or list it in notClean with the reason", p.file, p.text, ids(fs))
		}
	}
	for _, n := range notClean {
		if !seen[docPolicy{n.file, n.policy}] {
			t.Errorf("notClean lists %s in %s, which is not there or lints clean now", n.policy, n.file)
		}
	}
}

// TestReadmeFirstPolicyIsClean checks the policy a reader meets first.
func TestReadmeFirstPolicyIsClean(t *testing.T) {
	for _, p := range docPolicies(t) {
		if p.file != "README.md" || part(p.text) {
			continue
		}
		if fs := checkSource(t, p.text); len(fs) != 0 {
			t.Errorf("README.md's first policy %s: %v", p.text, fs)
		}
		t.Logf("README.md's first policy: %s", p.text)
		return
	}
	t.Error("README.md has no policy")
}

// part reports whether s is a building block shown alone: a leaf, or a
// jitter over one.
func part(src string) bool {
	s, err := parse.Parse(src)
	if err != nil {
		return false
	}
	if j, ok := s.(schedule.Jittered); ok {
		s = j.Inner
	}
	a, _ := schedule.Children(s)
	return a == nil
}

// TestOpenTimeAdviceAgrees checks that docs/breaker.md and docs/audit.md
// give the same advice for a constant open time, and that the advice is
// right: exponential(d, 100%, d) opens for d whenever it opens, while
// spaced(d) keeps a grid from the first opening.
func TestOpenTimeAdviceAgrees(t *testing.T) {
	for _, tt := range []struct{ file, advice string }{
		{"breaker.md", "a constant is `Exponential(30s, 100%, 30s)`, not `Spaced(30s)`"},
		{"audit.md", "`open_for: exponential(60s, 100%, 60s)` — a constant open time (not `spaced(60s)`"},
	} {
		data, err := os.ReadFile(filepath.Join("..", "docs", tt.file))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), tt.advice) {
			t.Errorf("docs/%s does not say %s", tt.file, tt.advice)
		}
	}
	// The breaker asks for the k-th opening at the time since the first.
	openings := func(s schedule.Schedule) []time.Duration {
		r := interp.Start(s, 0)
		var out []time.Duration
		for _, since := range []time.Duration{0, 70 * time.Second, 150 * time.Second} {
			d, _ := r.Next(since, since)
			out = append(out, d)
		}
		return out
	}
	constant := schedule.Exponential{Base: time.Minute, FactorPct: 100, Cap: time.Minute}
	if diff := cmp.Diff([]time.Duration{time.Minute, time.Minute, time.Minute}, openings(constant)); diff != "" {
		t.Errorf("openings of %v (-want +got):\n%s", constant, diff)
	}
	if diff := cmp.Diff([]time.Duration{time.Minute, 50 * time.Second, 30 * time.Second}, openings(schedule.Spaced{Every: time.Minute})); diff != "" {
		t.Errorf("openings of Spaced(1m) (-want +got):\n%s", diff)
	}
}
