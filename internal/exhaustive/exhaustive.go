// Package exhaustive checks that the type switches over the schedule
// variants give every variant its meaning: each such switch lists every
// variant, and has no default that silently handles a forgotten one. Its
// test runs the check on the module, so a new variant that some switch
// does not handle fails go test.
//
// The check reads source only (go/parser, no type checking). The variants
// are the types of package schedule with a validate method, the sealed
// method of schedule.Schedule. A switch is over the variants when one of
// its cases names a variant (schedule.Times, or Times inside package
// schedule). It passes when its cases name every variant; its default, if
// it has one, then sees only nil or a type that merely embeds a variant. A
// switch with a case missing fails, and says so louder when a default
// takes the missing variants silently. A switch that picks out a few variants on purpose (a
// lint rule that looks at Exponential nodes only) says so with a comment
// on the line above it:
//
//	//exhaustive:partial the rule is about caps; other nodes have none
//
// which the check accepts when it gives a reason.
//
// Nothing imports it: its own test runs the check (make lint runs it).
package exhaustive

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// SchedulePath is the import path of the package whose variants are checked.
const SchedulePath = "github.com/recur-go/recur/schedule"

// Partial is the comment that marks a switch handling some variants on
// purpose; a reason must follow it.
const Partial = "//exhaustive:partial"

// Switch is one type switch over the schedule variants.
type Switch struct {
	File    string   // slash-separated, relative to the module root
	Line    int      // of the switch keyword
	Missing []string // the variants no case names
	// SilentDefault reports a default clause, which takes the missing
	// variants without a word, in a switch with Missing variants.
	SilentDefault bool
	// Partial is the reason given by an //exhaustive:partial comment, or "".
	Partial string
}

// OK reports whether the switch passes the check.
func (s Switch) OK() bool {
	return s.Partial != "" || len(s.Missing) == 0
}

func (s Switch) String() string {
	pos := fmt.Sprintf("%s:%d", s.File, s.Line)
	switch {
	case s.Partial != "":
		return pos + ": partial: " + s.Partial
	case s.OK():
		return pos + ": exhaustive"
	}
	var why []string
	if len(s.Missing) > 0 {
		why = append(why, "no case for "+strings.Join(s.Missing, ", "))
	}
	if s.SilentDefault {
		why = append(why, "a default that takes them silently")
	}
	return pos + ": type switch over schedule variants: " + strings.Join(why, "; ")
}

// Variants returns the variant type names declared in the schedule
// package directory dir, sorted.
func Variants(dir string) ([]string, error) {
	files, err := parseDir(token.NewFileSet(), dir)
	if err != nil {
		return nil, err
	}
	var vs []string
	for _, f := range files {
		for _, d := range f.file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Name.Name != "validate" || len(fn.Recv.List) != 1 {
				continue
			}
			if id, ok := fn.Recv.List[0].Type.(*ast.Ident); ok {
				vs = append(vs, id.Name)
			}
		}
	}
	slices.Sort(vs)
	if len(vs) == 0 {
		return nil, fmt.Errorf("%s: no schedule variants (types with a validate method)", dir)
	}
	return vs, nil
}

// Check finds every type switch over the schedule variants in the module
// rooted at root, outside tests, testdata and nested modules, in file and
// line order.
func Check(root string) ([]Switch, error) {
	variants, err := Variants(filepath.Join(root, "schedule"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var out []Switch
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		if path != root {
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // a module of its own
			}
		}
		files, err := parseDir(fset, path)
		if err != nil {
			return err
		}
		inSchedule := filepath.Clean(path) == filepath.Join(filepath.Clean(root), "schedule")
		for _, f := range files {
			rel, err := filepath.Rel(root, f.path)
			if err != nil {
				return err
			}
			out = append(out, check(fset, f.file, filepath.ToSlash(rel), variants, inSchedule)...)
		}
		return nil
	})
	return out, err
}

type parsed struct {
	path string
	file *ast.File
}

// parseDir parses the non-test Go files of dir, in name order.
func parseDir(fset *token.FileSet, dir string) ([]parsed, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []parsed
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		p := filepath.Join(dir, n)
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		out = append(out, parsed{p, f})
	}
	return out, nil
}

// check returns the switches over the variants in f.
func check(fset *token.FileSet, f *ast.File, rel string, variants []string, inSchedule bool) []Switch {
	alias := ""
	for _, im := range f.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); p == SchedulePath {
			alias = "schedule"
			if im.Name != nil {
				alias = im.Name.Name
			}
		}
	}
	if alias == "" && !inSchedule {
		return nil
	}
	variant := func(e ast.Expr) (string, bool) {
		var name string
		switch e := e.(type) {
		case *ast.Ident:
			if !inSchedule {
				return "", false
			}
			name = e.Name
		case *ast.SelectorExpr:
			x, ok := e.X.(*ast.Ident)
			if !ok || x.Name != alias || alias == "" {
				return "", false
			}
			name = e.Sel.Name
		default:
			return "", false
		}
		_, ok := slices.BinarySearch(variants, name)
		return name, ok
	}
	lines := partialLines(fset, f)
	var out []Switch
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSwitchStmt)
		if !ok {
			return true
		}
		seen := map[string]bool{}
		var def *ast.CaseClause
		for _, st := range ts.Body.List {
			cc := st.(*ast.CaseClause)
			if cc.List == nil {
				def = cc
			}
			for _, e := range cc.List {
				if v, ok := variant(e); ok {
					seen[v] = true
				}
			}
		}
		if len(seen) == 0 {
			return true // not over the variants
		}
		line := fset.Position(ts.Pos()).Line
		s := Switch{File: rel, Line: line, Partial: lines[line-1]}
		for _, v := range variants {
			if !seen[v] {
				s.Missing = append(s.Missing, v)
			}
		}
		s.SilentDefault = def != nil && len(s.Missing) > 0
		out = append(out, s)
		return true
	})
	return out
}

// partialLines maps the line of each //exhaustive:partial comment to its
// reason.
func partialLines(fset *token.FileSet, f *ast.File) map[int]string {
	m := map[int]string{}
	for _, g := range f.Comments {
		for _, c := range g.List {
			if rest, ok := strings.CutPrefix(c.Text, Partial); ok {
				m[fset.Position(c.Pos()).Line] = strings.TrimSpace(rest)
			}
		}
	}
	return m
}
