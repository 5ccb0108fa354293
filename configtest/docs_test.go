package configtest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// block is one fenced block of docs/language.md.
type block struct {
	line   int    // of the opening fence, from 1
	lang   string // after the fence: "go", "yaml", "text"
	text   string
	marker string // the HTML comment just above it, if any
	head   string // the last "### " heading above it
}

// section returns the blocks of the "## " section of docs/language.md
// named title.
func section(t *testing.T, title string) []block {
	t.Helper()
	b, err := os.ReadFile("../docs/language.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	var (
		out      []block
		in       bool
		head     string
		comment  []string // the lines of the last HTML comment
		afterCom bool     // the comment ends on the line above
	)
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "## ") {
			in = l == "## "+title
			continue
		}
		if !in {
			continue
		}
		switch {
		case strings.HasPrefix(l, "### "):
			head = l[len("### "):]
		case strings.HasPrefix(l, "<!--"):
			comment = nil
			for ; i < len(lines); i++ {
				comment = append(comment, lines[i])
				if strings.Contains(lines[i], "-->") {
					break
				}
			}
			afterCom = true
			continue
		case strings.HasPrefix(l, "```") && len(l) > 3:
			bl := block{line: i + 1, lang: l[3:], head: head}
			if afterCom {
				bl.marker = strings.Join(comment, "\n")
			}
			var body []string
			for i++; i < len(lines) && lines[i] != "```"; i++ {
				body = append(body, lines[i])
			}
			bl.text = strings.Join(body, "\n")
			out = append(out, bl)
		}
		afterCom = false
	}
	if len(out) == 0 {
		t.Fatalf("no blocks in the section %q of docs/language.md", title)
	}
	return out
}

// library is the library a "### " heading names: its first `quoted` word.
var library = regexp.MustCompile("`([^`]+)`")

// flagValue finds the value in a flag's error.
var flagValue = regexp.MustCompile(`^invalid value "(.*)" for flag -retry: `)

// TestDocErrors checks every error of the section "Config libraries" of
// docs/language.md: a ```text block after a ```yaml, ```json, ```toml or
// ```sh block (RETRY=value) is what the heading's library gives for it;
// for flag, the value is the one in the error.
func TestDocErrors(t *testing.T) {
	var doc string
	checked := 0
	for _, b := range section(t, "Config libraries") {
		switch b.lang {
		case "yaml", "json", "toml":
			doc = b.text + "\n"
			if b.lang == "json" {
				doc = b.text
			}
			continue
		case "sh":
			_, v, _ := strings.Cut(b.text, "=")
			doc = strings.Trim(v, "'")
			continue
		case "text":
		default:
			continue
		}
		m := library.FindStringSubmatch(b.head)
		if m == nil {
			t.Fatalf("line %d: heading %q names no library", b.line, b.head)
		}
		lib := m[1]
		if lib == "github.com/pelletier/go-toml/v2" {
			lib += ", strict" // as the section's loader decodes
		}
		if lib == "flag" {
			doc = flagValue.FindStringSubmatch(b.text)[1]
		}
		dec, ok := decoders[lib]
		if !ok {
			t.Fatalf("line %d: no decoder for %q", b.line, lib)
		}
		if doc == "" {
			t.Fatalf("line %d: an error block without a document before it", b.line)
		}
		var c Config
		got := strings.Join(dec(t, doc, &c), "\n")
		if diff := cmp.Diff(b.text, got); diff != "" {
			t.Errorf("line %d: %s, %q (-doc +got):\n%s", b.line, lib, doc, diff)
		}
		doc = ""
		checked++
	}
	if checked < 12 {
		t.Errorf("checked %d examples, want at least 12", checked)
	}
}

// TestDocSnippets compiles the ```go blocks of "Config libraries" that
// the main module leaves to this one (their marker is "snippet: skip
// configtest ..."), each a file of its own with the section's Config,
// which the first Go block declares.
func TestDocSnippets(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go vet")
	}
	blocks := section(t, "Config libraries")
	var config string
	dir, err := os.MkdirTemp(".", "_doccheck-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	var pkgs []string
	for _, b := range blocks {
		if b.lang != "go" {
			continue
		}
		if config == "" {
			config = b.text
			continue
		}
		if !strings.Contains(b.marker, "snippet: skip configtest") {
			continue
		}
		src := "package snippet\n\n" + b.text + "\n"
		if !strings.Contains(b.text, "type Config ") {
			src += "\n" + config + "\n"
		}
		name := fmt.Sprintf("L%d", b.line)
		if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		src = fmt.Sprintf("// Code from docs/language.md:%d.\n\n", b.line) + src
		if err := os.WriteFile(filepath.Join(dir, name, "snippet.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, "./"+filepath.ToSlash(filepath.Join(dir, name)))
	}
	if len(pkgs) < 8 {
		t.Fatalf("found %d snippets to compile, want at least 8", len(pkgs))
	}
	cmd := exec.Command("go", append([]string{"vet"}, pkgs...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Errorf("go vet of the snippets: %v\n%s", err, out.String())
	}
}
