package exhaustive

import (
	"go/ast"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Touched returns the files of the module rooted at root that a new
// variant touches, slash-separated and sorted: those with a type switch
// over the variants, and those outside tests that name every variant (a
// file that lists them all, such as the parser's table of names, lists
// the new one too).
func Touched(root string) ([]string, error) {
	variants, err := Variants(filepath.Join(root, "schedule"))
	if err != nil {
		return nil, err
	}
	sw, err := Check(root)
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, s := range sw {
		set[s.File] = true
	}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if path != root {
			if n := d.Name(); n == "testdata" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		files, err := parseDir(fset, path)
		if err != nil {
			return err
		}
		for _, f := range files {
			if namesAll(f.file, variants) {
				rel, err := filepath.Rel(root, f.path)
				if err != nil {
					return err
				}
				set[filepath.ToSlash(rel)] = true
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(set))
	for f := range set {
		out = append(out, f)
	}
	slices.Sort(out)
	return out, nil
}

// namesAll reports whether f uses an identifier for each variant.
func namesAll(f *ast.File, variants []string) bool {
	seen := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			seen[id.Name] = true
		}
		return true
	})
	for _, v := range variants {
		if !seen[v] {
			return false
		}
	}
	return true
}
