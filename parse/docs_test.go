package parse_test

import (
	"bufio"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/parse"
)

// languageDoc returns the lines of docs/language.md.
func languageDoc(t *testing.T) []string {
	t.Helper()
	f, err := os.Open("../docs/language.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// TestDocCookbook checks every policy of the cookbook in docs/language.md:
// each "### " entry has the policy as an indented block, then a line
// "Canonical: `…`" with the form it must parse to.
func TestDocCookbook(t *testing.T) {
	lines := languageDoc(t)
	start := -1
	for i, l := range lines {
		if l == "## Cookbook" {
			start = i
		}
	}
	if start < 0 {
		t.Fatal("docs/language.md has no ## Cookbook section")
	}
	canonical := regexp.MustCompile("^Canonical: `(.*)`$")
	var (
		entries int
		title   string
		policy  []string
	)
scan:
	for _, l := range lines[start+1:] {
		switch {
		case strings.HasPrefix(l, "## "):
			break scan
		case strings.HasPrefix(l, "### "):
			title, policy = l, nil
		case strings.HasPrefix(l, "    ") && title != "":
			policy = append(policy, strings.TrimPrefix(l, "    "))
		case canonical.MatchString(l):
			entries++
			src := strings.Join(policy, "\n")
			want := canonical.FindStringSubmatch(l)[1]
			s, err := parse.Parse(src)
			if err != nil {
				t.Errorf("%s: Parse(%q): %v", title, src, err)
				continue
			}
			if diff := cmp.Diff(want, s.String()); diff != "" {
				t.Errorf("%s: canonical form of %q (-doc +parsed):\n%s", title, src, diff)
			}
			title = ""
		}
	}
	if entries != 10 {
		t.Errorf("cookbook has %d checked entries, want 10", entries)
	}
}

// TestDocErrors checks that each ```error block of docs/language.md holds
// a policy and the exact message Parse gives for it.
func TestDocErrors(t *testing.T) {
	lines := languageDoc(t)
	blocks := 0
	for i := 0; i < len(lines); i++ {
		if lines[i] != "```error" {
			continue
		}
		if i+3 >= len(lines) || lines[i+3] != "```" {
			t.Fatalf("line %d: an error block is a policy line and a message line", i+1)
		}
		blocks++
		src, want := lines[i+1], lines[i+2]
		_, err := parse.Parse(src)
		if err == nil {
			t.Errorf("line %d: Parse(%q) succeeded, doc says %q", i+2, src, want)
			continue
		}
		if diff := cmp.Diff(want, err.Error()); diff != "" {
			t.Errorf("line %d: Parse(%q) (-doc +got):\n%s", i+2, src, diff)
		}
	}
	if blocks < 15 {
		t.Errorf("found %d error blocks, want at least 15", blocks)
	}
}

// TestDocForms checks the table of canonical and infix forms in the
// section on printing, and the precedence example.
func TestDocForms(t *testing.T) {
	row := regexp.MustCompile("^\\| `(.*)` \\| `(.*)` \\|$")
	rows, inSection := 0, false
	for _, l := range languageDoc(t) {
		if strings.HasPrefix(l, "## ") {
			inSection = strings.HasPrefix(l, "## Printing")
		}
		m := row.FindStringSubmatch(l)
		if !inSection {
			m = nil
		}
		if m == nil {
			continue
		}
		rows++
		canon, infix := strings.ReplaceAll(m[1], `\|`, "|"), strings.ReplaceAll(m[2], `\|`, "|")
		s, err := parse.Parse(canon)
		if err != nil {
			t.Errorf("Parse(%q): %v", canon, err)
			continue
		}
		if diff := cmp.Diff(infix, parse.Format(s, parse.Infix)); diff != "" {
			t.Errorf("infix form of %q (-doc +got):\n%s", canon, diff)
		}
	}
	if rows != 3 {
		t.Errorf("found %d rows of forms, want 3", rows)
	}
	s, err := parse.Parse("times(3) then spaced(1m) & times(10) | forever upto 1h")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("UpTo(AndThen(Times(3), Union(Intersect(Spaced(1m0s), Times(10)), Forever)), 1h0m0s)", s.String()); diff != "" {
		t.Errorf("precedence example (-doc +got):\n%s", diff)
	}
}
