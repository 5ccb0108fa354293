package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The library and the programs that use it are built into one temporary
// directory per test binary, never into the tree: make test leaves git
// status clean.
var (
	buildDir string

	sharedOnce sync.Once
	sharedLib  string // librecur.so, with librecur.h beside it
	sharedErr  error

	archiveOnce sync.Once
	archiveLib  string // librecur.a
	archiveErr  error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "recur-capi-")
	if err != nil {
		panic(err)
	}
	buildDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// need returns the path of a tool the test needs. Without it the test
// is skipped with the command that installs it, or fails when CI=true,
// where the tools must be there.
func need(t testing.TB, tool, install string) string {
	t.Helper()
	path, err := exec.LookPath(tool)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s not found: %s", tool, install)
		}
		t.Skipf("%s not found: %s", tool, install)
	}
	return path
}

// goBuild builds this package with a -buildmode into out.
func goBuild(mode, out string) error {
	cmd := exec.Command("go", "build", "-buildmode="+mode, "-o", out, ".")
	cmd.Stderr = os.Stderr
	if b, err := cmd.Output(); err != nil {
		return &buildError{mode: mode, err: err, out: string(b)}
	}
	return nil
}

type buildError struct {
	mode, out string
	err       error
}

func (e *buildError) Error() string {
	return "go build -buildmode=" + e.mode + ": " + e.err.Error() + e.out
}

// sharedLibrary builds librecur.so once per test binary.
func sharedLibrary(t testing.TB) string {
	t.Helper()
	need(t, "cc", "apt-get install gcc")
	sharedOnce.Do(func() {
		sharedLib = filepath.Join(buildDir, "librecur.so")
		sharedErr = goBuild("c-shared", sharedLib)
	})
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return sharedLib
}

// archiveLibrary builds librecur.a once per test binary.
func archiveLibrary(t testing.TB) string {
	t.Helper()
	need(t, "cc", "apt-get install gcc")
	archiveOnce.Do(func() {
		archiveLib = filepath.Join(buildDir, "static", "librecur.a")
		archiveErr = goBuild("c-archive", archiveLib)
	})
	if archiveErr != nil {
		t.Fatal(archiveErr)
	}
	return archiveLib
}

// cc compiles C sources with the system compiler, against recur.h in
// this directory, into out. args follow the sources.
func cc(t testing.TB, out string, srcs []string, args ...string) {
	t.Helper()
	argv := []string{"-std=c11", "-Wall", "-Wextra", "-Werror", "-I.", "-o", out}
	argv = append(argv, srcs...)
	argv = append(argv, args...)
	cmd := exec.Command("cc", argv...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cc %s: %v\n%s", strings.Join(argv, " "), err, b)
	}
}

// linkShared are the cc arguments that link with librecur.so.
func linkShared(lib string) []string {
	dir := filepath.Dir(lib)
	return []string{"-L" + dir, "-lrecur", "-Wl,-rpath," + dir, "-lpthread"}
}
