package mongorecur_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDocSnippets checks that each Go block of docs/mongo.md is still a
// run of lines of example/main.go, which go vet compiles and whose
// TestRun runs it: the main module's snippet check cannot compile them,
// since the driver is not among its dependencies. Indentation is ignored.
func TestDocSnippets(t *testing.T) {
	doc, err := os.ReadFile("../docs/mongo.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("example/main.go")
	if err != nil {
		t.Fatal(err)
	}
	program := "\n" + trimLines(string(src)) + "\n"
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(doc), -1)
	if len(blocks) == 0 {
		t.Fatal("docs/mongo.md has no Go block")
	}
	for _, b := range blocks {
		if !strings.Contains(program, "\n"+trimLines(b[1])+"\n") {
			t.Errorf("this block of docs/mongo.md is not in example/main.go:\n%s", b[1])
		}
	}
}

func trimLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(lines, "\n")
}
