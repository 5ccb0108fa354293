package layout_test

import (
	"bytes"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/recur-go/recur"

// root is the main module's folder.
const root = "../.."

// testKits are the internal packages that only tests may import.
var testKits = []string{module + "/internal/schedgen", module + "/internal/leakcheck"}

// copies are, by nested module, the internal packages of the main module
// of which it keeps a copy in its own internal/.
var copies = map[string][]string{
	"cmd/schedcheck": {"sat", "schedgen", "suggest", "yamlguard"},
	"capi":           {"sat", "suggest"},
}

// goFile is a Go file of the repository and what it imports.
type goFile struct {
	path    string // slash-separated, relative to root
	module  string // the folder of its module, relative to root: "." for the main one
	test    bool
	imports []string
}

// files returns every Go file of the repository outside testdata.
func files(t *testing.T) []goFile {
	t.Helper()
	var out []goFile
	mods := map[string]bool{".": true}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				mods[rel] = true
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		g := goFile{path: rel, module: ".", test: strings.HasSuffix(rel, "_test.go")}
		for dir := filepath.ToSlash(filepath.Dir(rel)); dir != "."; dir = filepath.ToSlash(filepath.Dir(dir)) {
			if mods[dir] {
				g.module = dir
				break
			}
		}
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			g.imports = append(g.imports, path)
		}
		out = append(out, g)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("no Go files found")
	}
	return out
}

// TestNoTestLibraryOutsideTests: what go list -deps says the main
// module's non-test packages need holds no test library.
func TestNoTestLibraryOutsideTests(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command("go", "list", "-deps", "-test=false", "-f", "{{.ImportPath}}", "./...")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr(err))
	}
	for _, p := range strings.Fields(string(out)) {
		for _, lib := range []string{"pgregory.net/rapid", "go.uber.org/goleak", "github.com/stretchr/testify"} {
			if p == lib || strings.HasPrefix(p, lib+"/") {
				t.Errorf("a non-test package of the main module depends on %s (go list -deps -test=false ./... lists it)", p)
			}
		}
	}
}

func stderr(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(bytes.TrimSpace(ee.Stderr))
	}
	return ""
}

// TestNestedModulesImportNoInternal: a nested module imports the main
// module's exported packages only.
func TestNestedModulesImportNoInternal(t *testing.T) {
	for _, f := range files(t) {
		if f.module == "." {
			continue
		}
		for _, im := range f.imports {
			if strings.HasPrefix(im, module+"/internal/") {
				t.Errorf("%s (module %s) imports %s, an internal package of the main module", f.path, f.module, im)
			}
		}
	}
}

// TestTestKitsOnlyInTests: the test kits are imported from _test.go
// files only.
func TestTestKitsOnlyInTests(t *testing.T) {
	kits := slices.Clone(testKits)
	for _, k := range testKits {
		kits = append(kits, strings.Replace(k, module+"/internal/", module+"/cmd/schedcheck/internal/", 1))
	}
	for _, f := range files(t) {
		if f.test {
			continue
		}
		for _, im := range f.imports {
			if slices.Contains(kits, im) {
				t.Errorf("%s imports the test kit %s, and is not a test", f.path, im)
			}
		}
	}
}

// TestCopiesAreTheSame: each package of a nested module's internal/ that
// copies one of internal/ has the same files, the same but for the import
// paths that lead into its own module's internal/.
func TestCopiesAreTheSame(t *testing.T) {
	for mod, names := range copies {
		dir := filepath.Join(root, filepath.FromSlash(mod))
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
			t.Logf("no %s here (a copy of the main module alone)", mod)
			continue
		}
		for _, name := range names {
			orig, cp := filepath.Join(root, "internal", name), filepath.Join(dir, "internal", name)
			want, got := goFiles(t, orig), goFiles(t, cp)
			if !slices.Equal(want, got) {
				t.Errorf("%s/internal/%s has the files %v, internal/%s has %v", mod, name, got, name, want)
				continue
			}
			for _, f := range want {
				a, err := os.ReadFile(filepath.Join(orig, f))
				if err != nil {
					t.Fatal(err)
				}
				b, err := os.ReadFile(filepath.Join(cp, f))
				if err != nil {
					t.Fatal(err)
				}
				b = bytes.ReplaceAll(b, []byte(`"`+module+`/`+mod+`/internal/`), []byte(`"`+module+`/internal/`))
				if !bytes.Equal(a, b) {
					t.Errorf("%s/internal/%s/%s differs from internal/%s/%s: copy it again (see internal/%s's doc)", mod, name, f, name, f, name)
				}
			}
		}
	}
}

// goFiles returns the names of the Go files in dir, sorted.
func goFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".go") {
			names = append(names, e.Name())
		}
	}
	return names
}
