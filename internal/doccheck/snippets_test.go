package doccheck

// TestSnippetsBuild compiles every ```go block of README.md and docs/*.md,
// so that a snippet a reader copies builds against today's API.
//
// How a block becomes a Go file:
//
//   - A block that is a run of declarations (types, funcs, vars, with or
//     without its own import block) is a file as it stands.
//   - Any other block is a fragment of statements. A leading import block
//     is kept as the file's imports, and the rest becomes the body of
//     func _() error { ...; return nil }. Variables the fragment declares
//     with := at its top level are marked used, so a fragment may end on
//     a result it does not read.
//   - A line holding only "..." is elided code and is dropped; "{ ... }"
//     becomes "{}".
//   - Imports the block does not write are added for the packages it
//     names: the recur packages and the standard library packages of
//     imports below. A block that names grpcretry or grpc compiles in the
//     grpcretry module, any other in the main module.
//
// Names a block uses but does not declare come from a marker: an HTML
// comment on the line or lines just above the fence, which Markdown does
// not show. It holds Go declarations at package level:
//
//	<!-- snippet: given
//	var ctx context.Context
//	func worthRetrying(err error) bool { return true }
//	-->
//
// and "<!-- snippet: skip REASON -->" leaves a block out (REASON is
// required). Each block becomes its own package in a temporary directory
// under the module root whose name starts with "_", so that ./... never
// sees it (the packages are named to go vet one by one); the directory is
// removed afterwards. go vet compiles them all at once (its unreachable check is off: a fragment's return nil may
// follow a loop that never ends).

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// imports maps a package name a snippet may use to its import path.
var imports = map[string]string{
	"context":     "context",
	"errors":      "errors",
	"flag":        "flag",
	"fmt":         "fmt",
	"http":        "net/http",
	"httptest":    "net/http/httptest",
	"io":          "io",
	"json":        "encoding/json",
	"log":         "log",
	"math":        "math",
	"os":          "os",
	"slog":        "log/slog",
	"strconv":     "strconv",
	"strings":     "strings",
	"testing":     "testing",
	"time":        "time",
	"grpc":        "google.golang.org/grpc",
	"credentials": "google.golang.org/grpc/credentials",
	"grpcretry":   "github.com/recur-go/recur/grpcretry",
}

func init() {
	for _, p := range []string{"audit", "breaker", "budget", "clockcap", "convert", "grpcconfig", "httpretry", "interp",
		"lint", "parse", "randcap", "repeat", "retry", "schedule", "storm", "verdict"} {
		imports[p] = "github.com/recur-go/recur/" + p
	}
}

// snippet is one ```go block.
type snippet struct {
	doc   string // the Markdown file, relative to the module root
	line  int    // the line of the opening fence
	code  string // the block's text
	given string // declarations from the marker
	skip  string // why the block is left out, if it is
}

// name is the package directory of s: its file and line.
func (s snippet) name() string {
	n := strings.NewReplacer("/", "_", ".", "_", "-", "_").Replace(s.doc)
	return fmt.Sprintf("%s_L%d", n, s.line)
}

// marker matches the last HTML comment above a fence, if it ends just
// above it.
var marker = regexp.MustCompile(`(?s)^<!--\s*snippet:\s*(given|skip)\b(.*?)-->\s*$`)

// snippets extracts the ```go blocks of one Markdown file.
func snippets(t *testing.T, doc, text string) []snippet {
	t.Helper()
	lines := strings.Split(text, "\n")
	var out []snippet
	for i := 0; i < len(lines); i++ {
		fence := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(fence, "```") {
			continue
		}
		start := i
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
		}
		if fence != "```go" {
			continue
		}
		s := snippet{doc: doc, line: start + 1, code: strings.Join(lines[start+1:min(i, len(lines))], "\n")}
		above := strings.Join(lines[:start], "\n")
		if m := marker.FindStringSubmatch(above[max(strings.LastIndex(above, "<!--"), 0):]); m != nil {
			switch m[1] {
			case "given":
				s.given = m[2]
			case "skip":
				s.skip = strings.TrimSpace(m[2])
				if s.skip == "" {
					t.Errorf("%s:%d: a skip marker needs a reason", doc, start)
				}
			}
		}
		out = append(out, s)
	}
	return out
}

var elidedBlock = regexp.MustCompile(`\{\s*\.\.\.\s*\}`)

// source turns a snippet into a Go file, reporting whether it needs the
// grpcretry module.
func source(s snippet) (string, bool, error) {
	var code []string
	for _, l := range strings.Split(elidedBlock.ReplaceAllString(s.code, "{}"), "\n") {
		if strings.TrimSpace(l) != "..." {
			code = append(code, l)
		}
	}
	body := strings.Join(code, "\n")
	src := "package snippet\n\n" + body + "\n\n" + s.given + "\n"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, 0)
	fragment := err != nil
	var head string
	if fragment {
		head, body = leadingImports(body)
		src = "package snippet\n\n" + head + "\n" + s.given + "\n\nfunc _() error {\n" + body + "\n\treturn nil\n}\n"
		if f, err = parser.ParseFile(fset, "", src, 0); err != nil {
			return "", false, err
		}
	}
	have := map[string]bool{}
	for _, im := range f.Imports {
		p := strings.Trim(im.Path.Value, `"`)
		have[p[strings.LastIndex(p, "/")+1:]] = true
	}
	var add []string
	grpc := false
	seen := map[string]bool{}
	for _, id := range f.Unresolved {
		path, ok := imports[id.Name]
		if !ok || seen[id.Name] {
			continue
		}
		seen[id.Name] = true
		if id.Name == "grpc" || id.Name == "grpcretry" || id.Name == "credentials" {
			grpc = true
		}
		if !have[id.Name] {
			add = append(add, "\t"+fmt.Sprintf("%q", path))
		}
	}
	sort.Strings(add)
	auto := ""
	if len(add) > 0 {
		auto = "import (\n" + strings.Join(add, "\n") + "\n)\n"
	}
	if !fragment {
		return "package snippet\n\n" + auto + "\n" + body + "\n\n" + s.given + "\n", grpc, nil
	}
	var used []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "_" {
			continue
		}
		for _, st := range fn.Body.List {
			if as, ok := st.(*ast.AssignStmt); ok && as.Tok == token.DEFINE {
				for _, e := range as.Lhs {
					if id, ok := e.(*ast.Ident); ok && id.Name != "_" {
						used = append(used, "\t_ = &"+id.Name)
					}
				}
			}
		}
	}
	return "package snippet\n\n" + auto + head + "\n" + s.given + "\n\nfunc _() error {\n" + body + "\n" +
		strings.Join(used, "\n") + "\n\treturn nil\n}\n", grpc, nil
}

// leadingImports splits a fragment's leading import declaration, if any,
// from its statements.
func leadingImports(body string) (head, rest string) {
	lines := strings.Split(body, "\n")
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	if i == len(lines) || !strings.HasPrefix(lines[i], "import ") {
		return "", body
	}
	end := i
	if strings.HasPrefix(lines[i], "import (") {
		for end < len(lines) && strings.TrimSpace(lines[end]) != ")" {
			end++
		}
	}
	return strings.Join(lines[i:end+1], "\n"), strings.Join(lines[end+1:], "\n")
}

func TestSnippetsBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles every snippet of the docs")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	root := moduleRoot(t)
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	docs = append([]string{filepath.Join(root, "README.md")}, docs...)
	var all []snippet
	for _, d := range docs {
		b, err := os.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, d)
		all = append(all, snippets(t, filepath.ToSlash(rel), string(b))...)
	}
	if len(all) < 20 {
		t.Fatalf("found only %d Go snippets; the extraction is broken", len(all))
	}
	modules := map[bool]string{false: root, true: filepath.Join(root, "grpcretry")}
	dirs := map[bool]string{}
	pkgs := map[bool][]string{}
	for _, s := range all {
		if s.skip != "" {
			t.Logf("%s:%d: skipped: %s", s.doc, s.line, s.skip)
			continue
		}
		src, grpc, err := source(s)
		if err != nil {
			t.Errorf("%s:%d: the snippet does not parse, even as statements: %v", s.doc, s.line, err)
			continue
		}
		if dirs[grpc] == "" {
			d, err := os.MkdirTemp(modules[grpc], "_doccheck-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(d) })
			dirs[grpc] = d
		}
		pkg := filepath.Join(dirs[grpc], s.name())
		pkgs[grpc] = append(pkgs[grpc], "./"+filepath.Base(dirs[grpc])+"/"+s.name())
		if err := os.Mkdir(pkg, 0o755); err != nil {
			t.Fatal(err)
		}
		src = fmt.Sprintf("// Code from %s:%d, wrapped by internal/doccheck.\n\n", s.doc, s.line) + src
		if err := os.WriteFile(filepath.Join(pkg, "snippet.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for grpc := range dirs {
		cmd := exec.Command(goTool, append([]string{"vet", "-unreachable=false"}, pkgs[grpc]...)...)
		cmd.Dir = modules[grpc]
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Errorf("go vet of the snippets in %s: %v\n%s", modules[grpc], err, out.String())
		}
	}
}

// TestSnippetWrapping checks the wrapping on its own: a fragment gets its
// imports, its function and its unused variables marked; a declaration
// stays at package level; elided code goes.
func TestSnippetWrapping(t *testing.T) {
	frag := snippet{doc: "x.md", line: 1, code: "s, err := parse.Parse(\"times(3)\")\nif err != nil { ... }\n...",
		given: "var ctx context.Context"}
	src, grpc, err := source(frag)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"github.com/recur-go/recur/parse"`, "func _() error {", "_ = &s\n", "_ = &err\n", "if err != nil {}", "var ctx context.Context", `"context"`} {
		if !strings.Contains(src, want) {
			t.Errorf("wrapped fragment lacks %q:\n%s", want, src)
		}
	}
	if strings.Contains(src, "...") || grpc {
		t.Errorf("wrapped fragment keeps the elision or wants grpc (%v):\n%s", grpc, src)
	}
	decl := snippet{doc: "x.md", line: 1, code: "type Config struct {\n\tRetry parse.Policy\n}"}
	src, _, err = source(decl)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(src, "func _()") || !strings.Contains(src, `"github.com/recur-go/recur/parse"`) {
		t.Errorf("declaration wrapped as a fragment, or without its import:\n%s", src)
	}
	got := snippets(t, "x.md", "<!-- snippet: skip needs a server -->\n```go\nx()\n```\n\n```go\ny()\n```\n")
	if len(got) != 2 || got[0].skip != "needs a server" || got[1].skip != "" || got[1].code != "y()" {
		t.Errorf("snippets = %+v", got)
	}
}
