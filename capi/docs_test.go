package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fences returns the fenced blocks of a language in a Markdown file.
func fences(t *testing.T, path, lang string) []string {
	t.Helper()
	re := regexp.MustCompile("(?ms)^```" + lang + "\n(.*?)^```$")
	var out []string
	for _, m := range re.FindAllStringSubmatch(readFile(t, path), -1) {
		out = append(out, m[1])
	}
	return out
}

// TestDocExamples compiles and runs the C program of docs/c.md under
// AddressSanitizer, and runs its Python snippet, against librecur.so.
func TestDocExamples(t *testing.T) {
	lib := sharedLibrary(t)
	var programs []string
	for _, b := range fences(t, "../docs/c.md", "c") {
		if strings.Contains(b, "int main(") {
			programs = append(programs, b)
		}
	}
	if len(programs) != 1 {
		t.Fatalf("docs/c.md has %d C programs, want 1", len(programs))
	}
	src := filepath.Join(buildDir, "doc_example.c")
	if err := os.WriteFile(src, []byte(programs[0]), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(buildDir, "doc_example")
	cc(t, bin, []string{src}, append(asan, linkShared(lib)...)...)
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "ASAN_OPTIONS=detect_leaks=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the C example: %v\n%s", err, out)
	}
	t.Logf("C:\n%s", out)
	for _, want := range []string{"fetched after 3 attempts\n", "after attempt 1: run again in ", "after attempt 5: give up\n"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the C example printed\n%s\nwithout %q", out, want)
		}
	}

	python := need(t, "python3", "apt-get install python3")
	snippets := fences(t, "../docs/c.md", "python")
	if len(snippets) != 1 {
		t.Fatalf("docs/c.md has %d Python snippets, want 1", len(snippets))
	}
	py := exec.Command(python, "-B", "-c", snippets[0])
	py.Env = append(os.Environ(), "RECUR_LIB="+lib, "PYTHONPATH="+filepath.Join("examples", "python"), "PYTHONDONTWRITEBYTECODE=1")
	out, err = py.CombinedOutput()
	if err != nil {
		t.Fatalf("the Python snippet: %v\n%s", err, out)
	}
	for _, want := range []string{"None]\n", `True unknown key "breaker.windw"; did you mean "window"?`, "42 in stock\nNone\n"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the Python snippet printed\n%s\nwithout %q", out, want)
		}
	}
	t.Logf("Python:\n%s", out)
}
