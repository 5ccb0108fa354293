package exhaustive_test

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/internal/exhaustive"
)

var update = flag.Bool("update", false, "rewrite the list of files in docs/schedules.md")

const root = "../.."

// TestModule: every type switch over the schedule variants in the module
// names every variant.
func TestModule(t *testing.T) {
	sw, err := exhaustive.Check(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(sw) < 20 {
		t.Fatalf("found %d switches over the variants; the module has more: is the check blind?", len(sw))
	}
	for _, s := range sw {
		if !s.OK() {
			t.Error(s)
		}
	}
}

// copySchedule copies the non-test files of package schedule into a new
// module root and returns it.
func copySchedule(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	if err := os.Mkdir(filepath.Join(dst, "schedule"), 0o755); err != nil {
		t.Fatal(err)
	}
	names, err := filepath.Glob(filepath.Join(root, "schedule", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, "schedule", filepath.Base(n)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func write(t *testing.T, path, src string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

// failing returns the switches that fail the check, as strings.
func failing(t *testing.T, dir string) []string {
	t.Helper()
	sw, err := exhaustive.Check(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range sw {
		if !s.OK() {
			out = append(out, s.String())
		}
	}
	return out
}

// TestDummyVariantFails adds a variant to a copy of package schedule: the
// check, clean on the copy before, then fails on every switch of it.
func TestDummyVariantFails(t *testing.T) {
	dir := copySchedule(t)
	if bad := failing(t, dir); len(bad) != 0 {
		t.Fatalf("the copy fails before the new variant:\n%s", strings.Join(bad, "\n"))
	}
	write(t, filepath.Join(dir, "schedule", "dummy.go"), "package schedule\n\ntype Dummy struct{}\n\nfunc (Dummy) validate() *Error { return nil }\n")
	vs, err := exhaustive.Variants(filepath.Join(dir, "schedule"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(vs, "Dummy") || len(vs) != 19 {
		t.Fatalf("variants %v; want the eighteen and Dummy", vs)
	}
	bad := failing(t, dir)
	want := "schedule/schedule.go:"
	if !slices.ContainsFunc(bad, func(s string) bool { return strings.HasPrefix(s, want) && strings.HasSuffix(s, "no case for Dummy") }) {
		t.Errorf("no failure for Children in schedule/schedule.go; got:\n%s", strings.Join(bad, "\n"))
	}
	sw, _ := exhaustive.Check(dir)
	if len(bad) != len(sw) {
		t.Errorf("%d of %d switches fail; want all: each lists every variant but Dummy", len(bad), len(sw))
	}
}

// TestCheckRules: the check in another package of a module, a silent
// default, an explicit partial switch and one without a reason.
func TestCheckRules(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "schedule", "s.go"), "package schedule\n\ntype Error struct{}\ntype A struct{}\ntype B struct{}\n\nfunc (A) validate() *Error { return nil }\nfunc (B) validate() *Error { return nil }\n")
	write(t, filepath.Join(dir, "user", "u.go"), `package user

import sch "github.com/recur-go/recur/schedule"

func all(s any) int {
	switch s.(type) {
	case sch.A, sch.B:
		return 1
	default: // nil
		return 0
	}
}

func silent(s any) int {
	switch s.(type) {
	case sch.A:
		return 1
	default:
		return 0
	}
}

func partial(s any) int {
	//exhaustive:partial only A has a count
	switch s.(type) {
	case sch.A:
		return 1
	}
	return 0
}

func noReason(s any) int {
	//exhaustive:partial
	switch s.(type) {
	case sch.A:
		return 1
	}
	return 0
}

func other(err error) int {
	switch err.(type) {
	case interface{ Timeout() bool }:
		return 1
	}
	return 0
}
`)
	want := []string{
		"user/u.go:15: type switch over schedule variants: no case for B; a default that takes them silently",
		"user/u.go:34: type switch over schedule variants: no case for B",
	}
	if diff := cmp.Diff(want, failing(t, dir)); diff != "" {
		t.Errorf("failing switches (-want +got):\n%s", diff)
	}
	write(t, filepath.Join(dir, "nested", "go.mod"), "module nested\n")
	write(t, filepath.Join(dir, "nested", "n.go"), "package nested\n\nimport \"github.com/recur-go/recur/schedule\"\n\nfunc f(s any) {\n\tswitch s.(type) {\n\tcase schedule.A:\n\t}\n}\n")
	if diff := cmp.Diff(want, failing(t, dir)); diff != "" {
		t.Errorf("a nested module is its own; failing switches (-want +got):\n%s", diff)
	}
}

var listRE = regexp.MustCompile(`(?s)<!-- exhaustive:files -->\n.*?<!-- /exhaustive:files -->`)

// TestDocsListTouchedFiles: docs/schedules.md lists the files a new variant
// touches, as Touched finds them; go test -update rewrites the list.
func TestDocsListTouchedFiles(t *testing.T) {
	files, err := exhaustive.Touched(root)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("<!-- exhaustive:files -->\n")
	for _, f := range files {
		b.WriteString("- `" + f + "`\n")
	}
	b.WriteString("<!-- /exhaustive:files -->")
	path := filepath.Join(root, "docs", "schedules.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cur := listRE.Find(doc)
	if cur == nil {
		t.Fatalf("%s has no <!-- exhaustive:files --> section", path)
	}
	if *update {
		if err := os.WriteFile(path, listRE.ReplaceAll(doc, []byte(b.String())), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if diff := cmp.Diff(b.String(), string(cur)); diff != "" {
		t.Errorf("%s lists other files than a new variant touches (go test -update rewrites it) (-want +got):\n%s", path, diff)
	}
}
