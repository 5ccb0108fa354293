package doccheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// forbidden are phrases that mean something only to the project's own
// authors. Users are pointed at the real sources instead: the Google SRE
// book (chapters 21 and 22), Marc Brooker's "Exponential Backoff And
// Jitter", gRFC A6, Resilience4j's CircuitBreaker docs. The patterns match
// phrases, not words: a random seed for jitter is a legitimate "seed".
var forbidden = []struct {
	re    *regexp.Regexp
	hint  string
	allow *regexp.Regexp // a line that also matches this is fine
}{
	{regexp.MustCompile(`(?i)\bthe seeds\b|\bseeds'|\bseed's\b`), "name the real source (SRE book, Brooker, gRFC A6, Resilience4j)", nil},
	{regexp.MustCompile(`(?i)\bseeds? 00\d\b|\bseed quality\b`), "name the real source (SRE book, Brooker, gRFC A6, Resilience4j)", nil},
	{regexp.MustCompile(`(?i)\bsource documents?\b|\bthe seed:`), "name the real source", nil},
	{regexp.MustCompile(`(?i)\bDESIGN(\.md| ?§)`), "say the rule itself; users do not have the design contract", nil},
	{regexp.MustCompile(`(?i)\banole`), "the metrics are recur_*", nil},
	{regexp.MustCompile(`(?i)\bthe issue\b|\bissue #?\d+\b`), "say what the target or rule is, not where it was asked for",
		regexp.MustCompile(`golang/go|github\.com/[^ ]+/issues/`)}, // an upstream bug is a real source
}

// userText lists the files users read, relative to the module root:
// README.md, everything under docs/ and examples/, and every Go file of
// the main module and of the grpcretry and bench modules, except this
// package's own tests, which spell the phrases out.
func userText(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || rel == "internal/doccheck") {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case rel == "README.md",
			strings.HasPrefix(rel, "docs/"),
			strings.HasPrefix(rel, "examples/"),
			strings.HasSuffix(rel, ".go"):
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// moduleRoot is the main module's directory, two levels up from here.
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root: %v", err)
	}
	return root
}

// TestNoInternalWords fails on any forbidden phrase in user-facing text,
// naming the file, the line and what to write instead.
func TestNoInternalWords(t *testing.T) {
	root := moduleRoot(t)
	files := userText(t, root)
	if len(files) < 50 {
		t.Fatalf("found only %d files under %s; the walk is broken", len(files), root)
	}
	for _, rel := range files {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, f := range forbidden {
				if m := f.re.FindString(line); m != "" && (f.allow == nil || !f.allow.MatchString(line)) {
					t.Errorf("%s:%d: %q: %s", rel, i+1, m, f.hint)
				}
			}
		}
	}
}

// TestForbiddenPhrases checks the patterns themselves: they catch the
// phrases and let a random seed through.
func TestForbiddenPhrases(t *testing.T) {
	bad := []string{
		"the policy the seeds recommend", "the seeds' backoff", "seed 002's quality gate",
		"As seed 000 has it", "the seed's sample plan", "DESIGN §3", "see DESIGN.md",
		"anole_breaker_state", "the issue's target", "the targets of issue 8",
		"the source document", "The seed: \"Hystrix is dead\"",
	}
	good := []string{
		"randcap.Seeded(1) pins the seed", "the seed comes from the saved state",
		"a run takes one 64-bit seed", "draws no seed", "Seeds 2 and 3 give the same loads",
		"a design doc", "recur_breaker_state", "Go's own open bug (golang/go#52459, issue 52459)",
	}
	for _, s := range bad {
		if !matchesAny(s) {
			t.Errorf("%q passes; want it caught", s)
		}
	}
	for _, s := range good {
		if matchesAny(s) {
			t.Errorf("%q is caught; want it to pass", s)
		}
	}
}

func matchesAny(s string) bool {
	for _, f := range forbidden {
		if f.re.MatchString(s) && (f.allow == nil || !f.allow.MatchString(s)) {
			return true
		}
	}
	return false
}

// fixedVirtualStart is a virtual clock started at a fixed date.
var fixedVirtualStart = regexp.MustCompile(`clockcap\.Virtual\(time\.Date\(`)

// TestVirtualClocksStartNow: runnable examples (Example functions, the
// programs under examples/ and their tests) and the docs start a virtual
// clock at time.Now(). A deadline taken from a clock started in the past
// has already expired in package context's real time, and a test of it
// passes for the wrong reason.
func TestVirtualClocksStartNow(t *testing.T) {
	root := moduleRoot(t)
	for _, rel := range userText(t, root) {
		if strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "example_test.go") && !strings.HasPrefix(rel, "examples/") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if fixedVirtualStart.MatchString(line) {
				t.Errorf("%s:%d: start the virtual clock at time.Now(), and take deadlines from it", rel, i+1)
			}
		}
	}
}
