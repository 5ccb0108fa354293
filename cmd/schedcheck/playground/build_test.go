package playground

import (
	"archive/zip"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The tests here run the real go command only where it is quick (go list,
// go mod download from a file:// proxy); the WebAssembly build itself is
// tried with a fake go command. A real build takes 20s to a minute on a
// cold build cache, too slow for go test -race ./... of the main module:
// playground/browsertest's TestBuild runs it, and its browser tests serve
// a program built by serve the same way.

// root is the module's root, from this package's folder.
func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func needGo(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	return p
}

// TestCompiledSource: a test binary is built without -trimpath, so the
// source it was compiled from is this tree, and FindSource takes it
// without running go.
func TestCompiledSource(t *testing.T) {
	if _, file, _, _ := runtime.Caller(0); !filepath.IsAbs(filepath.FromSlash(file)) {
		t.Skip("built with -trimpath: no source folder in the binary")
	}
	src, ok := compiledSource()
	if !ok || src.Dir != root(t) || src.Version != "" {
		t.Fatalf("compiledSource() = %+v, %v; want the working tree %s", src, ok, root(t))
	}
	got, err := (&Builder{Go: filepath.Join(t.TempDir(), "no-go")}).FindSource(testContext(t))
	if err != nil || got != src {
		t.Errorf("FindSource = %+v, %v; want %+v", got, err, src)
	}
}

// TestWorkingSource: go list -m finds the tree from inside it, and
// nothing from a folder outside any module or from another module.
func TestWorkingSource(t *testing.T) {
	goCmd := needGo(t)
	ctx := testContext(t)
	for _, dir := range []string{root(t), filepath.Join(root(t), "playground", "wasm")} {
		src, err := workingSource(ctx, goCmd, dir)
		if err != nil || src.Dir != root(t) || src.Version != "" {
			t.Errorf("workingSource(%s) = %+v, %v; want the tree", dir, src, err)
		}
	}
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "go.mod"), []byte("module example.com/other\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOWORK", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	for _, dir := range []string{t.TempDir(), other} {
		if src, err := workingSource(ctx, goCmd, dir); err == nil || !strings.Contains(err.Error(), "not in a clone of "+ModulePath) {
			t.Errorf("workingSource(%s) = %+v, %v; want not in a clone", dir, src, err)
		}
	}
}

// TestDownloadSource: a release comes from the module cache through go
// mod download, here from a file:// proxy holding a tiny recur v0.9.0.
func TestDownloadSource(t *testing.T) {
	goCmd := needGo(t)
	proxy := t.TempDir()
	v := filepath.Join(proxy, ModulePath, "@v")
	if err := os.MkdirAll(v, 0o755); err != nil {
		t.Fatal(err)
	}
	gomod := "module " + ModulePath + "\n\ngo 1.22\n"
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	for name, body := range map[string]string{"go.mod": gomod, "playground/wasm/main.go": "package main\n\nfunc main() {}\n"} {
		w, _ := zw.Create(ModulePath + "@v0.9.0/" + name)
		w.Write([]byte(body))
	}
	zw.Close()
	for name, body := range map[string]string{
		"list": "v0.9.0\n", "v0.9.0.info": `{"Version":"v0.9.0","Time":"2026-01-01T00:00:00Z"}`,
		"v0.9.0.mod": gomod, "v0.9.0.zip": zb.String(),
	} {
		if err := os.WriteFile(filepath.Join(v, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cache := t.TempDir()
	t.Setenv("GOPROXY", "file://"+filepath.ToSlash(proxy))
	t.Setenv("GOMODCACHE", cache)
	t.Setenv("GOSUMDB", "off")
	t.Setenv("GOFLAGS", "-modcacherw") // so that TempDir can remove it
	ctx := testContext(t)
	src, err := downloadSource(ctx, goCmd, "v0.9.0")
	want := filepath.Join(cache, ModulePath+"@v0.9.0")
	if err != nil || src.Dir != want || src.Version != "v0.9.0" {
		t.Fatalf("downloadSource(v0.9.0) = %+v, %v; want %s", src, err, want)
	}
	if _, err := downloadSource(ctx, goCmd, "v0.9.1"); err == nil || !strings.Contains(err.Error(), "v0.9.1") {
		t.Errorf("downloadSource(v0.9.1) = %v, want an error naming the version", err)
	}
	for v, ok := range map[string]bool{"v0.9.0": true, "v0.1.1-0.20261202010050-1576d3e0abcd": true, "(devel)": false, "": false, "v0.2.0+dirty": false} {
		if releaseVersion(v) != ok {
			t.Errorf("releaseVersion(%q) = %v", v, !ok)
		}
	}
}

// fakeGo writes a go command that logs its calls to log, answers go env
// GOROOT with goroot, and for go build writes a tiny WebAssembly file, or
// fails when fail is set.
func fakeGo(t *testing.T, goroot, log string, fail bool) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake go command is a shell script")
	}
	build := `while [ $# -gt 0 ]; do if [ "$1" = -o ]; then printf '\000asm\001\000\000\000' > "$2"; fi; shift; done`
	if fail {
		build = `echo "playground/wasm/main.go:1:1: expected 'package'" >&2; exit 1`
	}
	script := "#!/bin/sh\n" +
		`echo "$PWD|$GOOS/$GOARCH|$GOWORK|$*" >> ` + log + "\n" +
		"case \"$1\" in\nbuild) " + build + " ;;\nenv) echo " + goroot + " ;;\nesac\n"
	p := filepath.Join(t.TempDir(), "go")
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBuild: Build runs go build for js/wasm in the source folder into
// the cache, takes wasm_exec.js from the toolchain's lib/wasm (or misc/wasm
// before Go 1.24), says what it builds, and builds a module cache copy
// with GOWORK=off.
func TestBuild(t *testing.T) {
	for _, sub := range []string{"lib", "misc"} {
		t.Run(sub, func(t *testing.T) {
			goroot := t.TempDir()
			if err := os.MkdirAll(filepath.Join(goroot, sub, "wasm"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(goroot, sub, "wasm", "wasm_exec.js"), []byte("// "+sub+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			log := filepath.Join(t.TempDir(), "log")
			var said strings.Builder
			b := &Builder{Go: fakeGo(t, goroot, log, false), CacheDir: t.TempDir(), Log: &said}
			src := Source{Dir: t.TempDir(), Version: "v0.9.0", How: "a test"}
			t.Setenv("GOWORK", "")
			p, err := b.Build(testContext(t), src)
			if err != nil {
				t.Fatal(err)
			}
			if string(p.Wasm) != "\x00asm\x01\x00\x00\x00" || string(p.Exec) != "// "+sub+"\n" {
				t.Errorf("Build = %q, %q", p.Wasm, p.Exec)
			}
			dir, _ := b.Dir(src)
			if !strings.HasPrefix(dir, b.CacheDir) {
				t.Errorf("Dir = %s, not in the cache %s", dir, b.CacheDir)
			}
			for _, name := range []string{"recur.wasm", "wasm_exec.js"} {
				if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
					t.Error(err)
				}
			}
			calls, _ := os.ReadFile(log)
			want := src.Dir + "|js/wasm|off|build -trimpath -ldflags=-s -w -o " + filepath.Join(dir, "recur.wasm") + " ./playground/wasm\n" +
				src.Dir + "|js/wasm|off|env GOROOT\n"
			if string(calls) != want {
				t.Errorf("go was run as\n%s\nwant\n%s", calls, want)
			}
			if !strings.Contains(said.String(), "building the playground's WebAssembly program from a test") {
				t.Errorf("Build said %q", said.String())
			}
			// A second build of the same source says it updates it.
			said.Reset()
			if _, err := b.Build(testContext(t), src); err != nil || !strings.Contains(said.String(), "up to date") {
				t.Errorf("second Build: %v, said %q", err, said.String())
			}
		})
	}
}

// TestBuildErrors: no go command, a failing build and a toolchain without
// wasm_exec.js each give an error that says why.
func TestBuildErrors(t *testing.T) {
	ctx := testContext(t)
	src := Source{Dir: t.TempDir()}
	b := &Builder{Go: filepath.Join(t.TempDir(), "go"), CacheDir: t.TempDir()}
	if _, err := b.Build(ctx, src); err == nil || !strings.Contains(err.Error(), "https://go.dev/dl/") {
		t.Errorf("Build without go: %v, want a hint to install it", err)
	}
	log := filepath.Join(t.TempDir(), "log")
	b.Go = fakeGo(t, t.TempDir(), log, true)
	if _, err := b.Build(ctx, src); err == nil || !strings.Contains(err.Error(), "expected 'package'") {
		t.Errorf("Build of broken source: %v, want the compiler's message", err)
	}
	b.Go = fakeGo(t, t.TempDir(), log, false)
	if _, err := b.Build(ctx, src); err == nil || !strings.Contains(err.Error(), "no wasm_exec.js") {
		t.Errorf("Build with no wasm_exec.js: %v", err)
	}
}

// TestBuildServer: BuildServer runs go build for this system, without
// -trimpath, in the source folder into the cache, says so the first
// time, builds a module cache copy with GOWORK=off, and reports a failed
// build with the compiler's message.
func TestBuildServer(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log")
	var said strings.Builder
	b := &Builder{Go: fakeGo(t, t.TempDir(), log, false), CacheDir: t.TempDir(), Log: &said}
	src := Source{Dir: t.TempDir(), Version: "v0.9.0", How: "a test"}
	t.Setenv("GOWORK", "")
	exe, err := b.BuildServer(testContext(t), src)
	if err != nil {
		t.Fatal(err)
	}
	dir, _ := b.Dir(src)
	if exe != filepath.Join(dir, "server") {
		t.Errorf("BuildServer = %s, want the server in %s", exe, dir)
	}
	calls, _ := os.ReadFile(log)
	want := src.Dir + "|" + os.Getenv("GOOS") + "/" + os.Getenv("GOARCH") + "|off|build -o " + exe + " ./playground/server\n"
	if string(calls) != want {
		t.Errorf("go was run as\n%s\nwant\n%s", calls, want)
	}
	if !strings.Contains(said.String(), "building the playground's server from a test") {
		t.Errorf("BuildServer said %q", said.String())
	}
	said.Reset()
	if _, err := b.BuildServer(testContext(t), src); err != nil || said.Len() != 0 {
		t.Errorf("second BuildServer: %v, said %q; want nothing said", err, said.String())
	}
	b.Go = fakeGo(t, t.TempDir(), log, true)
	if _, err := b.BuildServer(testContext(t), src); err == nil || !strings.Contains(err.Error(), "expected 'package'") {
		t.Errorf("BuildServer of broken source: %v, want the compiler's message", err)
	}
}
