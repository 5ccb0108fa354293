package parse_test

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestPolicyIsNotASchedule type-checks a program that hands a Policy to
// retry.RetryWhile and to other places that want a schedule.Schedule: none
// of them may compile, for a Policy there would fail at run time. The same
// program passing the Policy's Schedule field must compile, which shows the
// errors come from the Policy and not from the harness, and each error
// names the fix.
func TestPolicyIsNotASchedule(t *testing.T) {
	const prog = `package p

import (
	"context"

	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

type config struct{ Retry parse.Policy }

func call(ctx context.Context, cfg config, op func(context.Context) (int, error)) {
	retry.RetryWhile(ctx, retry.Options{}, cfg.Retry` + "SEL" + `, nil, op)
	retry.Retry(ctx, retry.Options{}, cfg.Retry` + "SEL" + `, op)
	var s schedule.Schedule = cfg.Retry` + "SEL" + `
	_ = s
}
`
	// The export data of the imports, as the go command builds (or finds
	// in its cache) them for this module.
	out, err := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}}={{.Export}}",
		"context", "github.com/recur-go/recur/parse", "github.com/recur-go/recur/retry").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	exports := map[string]string{}
	for line := range strings.Lines(string(out)) {
		path, file, _ := strings.Cut(strings.TrimSpace(line), "=")
		exports[path] = file
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		if exports[path] == "" {
			return nil, fmt.Errorf("no export data for %q", path)
		}
		return os.Open(exports[path])
	})
	check := func(src string) []string {
		t.Helper()
		f, err := parser.ParseFile(fset, "p.go", src, 0)
		if err != nil {
			t.Fatal(err)
		}
		var errs []string
		conf := types.Config{
			Importer: imp,
			Error:    func(err error) { errs = append(errs, err.(types.Error).Msg) },
		}
		conf.Check("p", fset, []*ast.File{f}, nil)
		return errs
	}

	if errs := check(strings.ReplaceAll(prog, "SEL", ".Schedule")); len(errs) != 0 {
		t.Fatalf("passing cfg.Retry.Schedule: %q, want no errors", errs)
	}
	errs := check(strings.ReplaceAll(prog, "SEL", ""))
	if len(errs) != 3 {
		t.Fatalf("passing cfg.Retry: %d errors %q, want 3", len(errs), errs)
	}
	for _, msg := range errs {
		// The error names the fix: the method it says is missing is the
		// seal whose name tells the reader to use the Schedule field.
		const want = "parse.Policy does not implement schedule.Schedule (missing method _ParsePolicyIsNotAScheduleUseItsScheduleField)"
		if !strings.Contains(msg, want) {
			t.Errorf("error %q, want it to contain %q", msg, want)
		}
	}
}
