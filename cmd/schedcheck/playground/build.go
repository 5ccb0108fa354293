package playground

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"
)

// ModulePath is the path of the module of schedcheck and the playground
// (recur's cmd/schedcheck), whose source a Builder builds the program
// from: the program's own package, ./playground/wasm, is in it, and it
// requires the recur library the program runs.
const ModulePath = "github.com/recur-go/recur/cmd/schedcheck"

// Source is a copy of the source of module ModulePath on disk.
type Source struct {
	// Dir is the module's root: its go.mod says module ModulePath.
	Dir string
	// Version is the module version when Dir is a copy in the module
	// cache (a release, built with GOWORK=off as a user of it would), and
	// "" for a working tree such as a git clone.
	Version string
	// How says how it was found, for messages.
	How string
}

// Builder builds the playground's program from the source of module
// ModulePath with the go command: FindSource finds the source, Build
// compiles it into a cache directory. Its zero value is ready to use.
type Builder struct {
	// Go is the go command; "" means go on the PATH.
	Go string
	// CacheDir holds the built programs, one folder per source; ""
	// means DefaultCacheDir().
	CacheDir string
	// Log, when not nil, receives a line saying what Build builds and
	// where.
	Log io.Writer
}

// DefaultCacheDir returns where a Builder builds by default: recur/playground
// under os.UserCacheDir() ($XDG_CACHE_HOME or ~/.cache on Linux,
// ~/Library/Caches on macOS, %LocalAppData% on Windows).
func DefaultCacheDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("playground: no cache directory for the program (%v): set XDG_CACHE_HOME or HOME", err)
	}
	return filepath.Join(dir, "recur", "playground"), nil
}

// goCommand returns the go command to run, or an error that says how to
// get one.
func (b *Builder) goCommand() (string, error) {
	name := b.Go
	if name == "" {
		name = "go"
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("playground: the playground's WebAssembly program is built on first use with the Go toolchain, and there is no %s command (%v): install Go from https://go.dev/dl/ and put it on the PATH; or, where Go is installed, write the page as a static folder (make site) and host that", name, err)
	}
	return p, nil
}

// FindSource finds the source of module ModulePath to build the program
// from, trying in turn:
//
//  1. the module this package was compiled from, when it is still on
//     disk: every binary built without -trimpath (go run, go build, go
//     test, go install) knows it, so the program matches the binary's page;
//  2. for a binary of a released schedcheck (the Main.Version of
//     runtime/debug.ReadBuildInfo, neither "(devel)" nor +dirty), that
//     version, from the module cache or `go mod download` (which needs the
//     network the first time);
//  3. the working tree that `go list -m` finds from the working directory,
//     when ModulePath is its main module or one of its go.work's.
//
// When none is found, the error says what was tried and what to do.
func (b *Builder) FindSource(ctx context.Context) (Source, error) {
	if src, ok := compiledSource(); ok {
		return src, nil
	}
	goCmd, err := b.goCommand()
	if err != nil {
		return Source{}, err
	}
	var tried []string
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Path == ModulePath && releaseVersion(bi.Main.Version) {
		src, err := downloadSource(ctx, goCmd, bi.Main.Version)
		if err == nil {
			return src, nil
		}
		tried = append(tried, err.Error())
	} else {
		tried = append(tried, "this binary is not a release of recur, and was built with -trimpath or elsewhere")
	}
	src, err := workingSource(ctx, goCmd, "")
	if err == nil {
		return src, nil
	}
	tried = append(tried, err.Error())
	return Source{}, fmt.Errorf("playground: found no source of %s to build the WebAssembly program from (%s): run it from a clone of the repository (go run ./cmd/schedcheck serve there), or install a release (go install %s@latest)",
		ModulePath, strings.Join(tried, "; "), ModulePath)
}

// compiledSource is step 1 of FindSource: the module root two folders
// above this file as the compiler saw it.
func compiledSource() (Source, bool) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return Source{}, false
	}
	file = filepath.FromSlash(file)
	if !filepath.IsAbs(file) { // -trimpath: a module path, not a folder
		return Source{}, false
	}
	dir := filepath.Dir(filepath.Dir(file))
	if !isModuleRoot(dir) {
		return Source{}, false
	}
	src := Source{Dir: dir, How: "the source this program was built from"}
	// A module cache copy is named path@version.
	if _, v, ok := strings.Cut(filepath.Base(dir), "@"); ok {
		src.Version = v
	}
	return src, true
}

// isModuleRoot reports whether dir holds recur's go.mod.
func isModuleRoot(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	for line := range strings.Lines(string(b)) {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`) == ModulePath
		}
	}
	return false
}

// releaseVersion reports whether v names a version of recur that go mod
// download can fetch: not "(devel)" or empty, and not a +dirty build of
// a working tree.
func releaseVersion(v string) bool {
	return strings.HasPrefix(v, "v") && !strings.Contains(v, "+")
}

// goModule is what go list -m -json and go mod download -json print.
type goModule struct {
	Path, Version, Dir, Error string
	Main                      bool
}

// downloadSource is step 2 of FindSource: version from the module cache,
// downloaded there if missing.
func downloadSource(ctx context.Context, goCmd, version string) (Source, error) {
	cmd := exec.CommandContext(ctx, goCmd, "mod", "download", "-json", ModulePath+"@"+version)
	cmd.Dir = os.TempDir() // outside any module or workspace
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.Output()
	var m goModule
	if jerr := json.Unmarshal(out, &m); jerr == nil && m.Error != "" {
		return Source{}, fmt.Errorf("go mod download %s@%s: %s", ModulePath, version, m.Error)
	}
	if err != nil {
		return Source{}, fmt.Errorf("go mod download %s@%s: %v%s", ModulePath, version, err, stderrOf(err))
	}
	if m.Dir == "" || !isModuleRoot(m.Dir) {
		return Source{}, fmt.Errorf("go mod download %s@%s gave no module folder", ModulePath, version)
	}
	return Source{Dir: m.Dir, Version: m.Version, How: "release " + m.Version + " from the module cache"}, nil
}

// workingSource is step 3 of FindSource: the recur module that go list
// -m finds from dir ("" for the working directory), when it is the main
// module or in the workspace.
func workingSource(ctx context.Context, goCmd, dir string) (Source, error) {
	cmd := exec.CommandContext(ctx, goCmd, "list", "-m", "-json", ModulePath)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return Source{}, fmt.Errorf("the working directory is not in a clone of %s (go list -m: %v%s)", ModulePath, err, stderrOf(err))
	}
	var m goModule
	if err := json.Unmarshal(out, &m); err != nil {
		return Source{}, fmt.Errorf("go list -m -json %s: %v", ModulePath, err)
	}
	if !m.Main || m.Dir == "" {
		return Source{}, fmt.Errorf("the working directory is not in a clone of %s (its module depends on %s %s)", ModulePath, ModulePath, m.Version)
	}
	return Source{Dir: m.Dir, How: "the working tree at " + m.Dir}, nil
}

// stderrOf returns the first line of what a failed command wrote to
// standard error, after ": ", or "".
func stderrOf(err error) string {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return ""
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(ee.Stderr)), "\n")
	if line == "" {
		return ""
	}
	return ": " + line
}

// Dir returns the folder where Build and BuildServer build src: a folder
// of the cache directory named for src.Dir, holding recur.wasm,
// wasm_exec.js and the server.
func (b *Builder) Dir(src Source) (string, error) {
	cache := b.CacheDir
	if cache == "" {
		var err error
		if cache, err = DefaultCacheDir(); err != nil {
			return "", err
		}
	}
	// FNV, not a cryptographic hash: the name only tells sources apart, and
	// crypto/sha256 would link 27 packages of crypto into schedcheck,
	// whose initialization every command paid for.
	h := fnv.New64a()
	h.Write([]byte(src.Dir))
	return filepath.Join(cache, hex.EncodeToString(h.Sum(nil))), nil
}

// Build compiles src's ./playground/wasm for GOOS=js GOARCH=wasm with
// `go build -trimpath -ldflags='-s -w'` into b.Dir(src), copies the
// toolchain's wasm_exec.js beside it (from $(go env GOROOT)/lib/wasm, or
// misc/wasm before Go 1.24), and returns the two. A build of unchanged
// source is quick: go build leaves an up-to-date output alone, and Go's
// build cache keeps the compiled packages. A copy in the module cache
// (src.Version set) builds with GOWORK=off.
func (b *Builder) Build(ctx context.Context, src Source) (Program, error) {
	goCmd, err := b.goCommand()
	if err != nil {
		return Program{}, err
	}
	out, err := b.Dir(src)
	if err != nil {
		return Program{}, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return Program{}, fmt.Errorf("playground: %v", err)
	}
	wasmPath := filepath.Join(out, "recur.wasm")
	env := append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if src.Version != "" {
		env = append(env, "GOWORK=off")
	}
	if b.Log != nil {
		if _, err := os.Stat(wasmPath); err != nil {
			fmt.Fprintf(b.Log, "building the playground's WebAssembly program from %s, %s, into %s (a first build can take a minute or two; later ones reuse it)\n", src.How, src.Dir, out)
		} else {
			fmt.Fprintf(b.Log, "bringing the playground's WebAssembly program in %s up to date with %s\n", out, src.Dir)
		}
	}
	start := time.Now()
	build := exec.CommandContext(ctx, goCmd, "build", "-trimpath", "-ldflags=-s -w", "-o", wasmPath, "./playground/wasm")
	build.Dir, build.Env = src.Dir, env
	if msg, err := build.CombinedOutput(); err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return Program{}, fmt.Errorf("playground: building %s for js/wasm: %v\n%s", filepath.Join(src.Dir, "playground", "wasm"), err, bytes.TrimSpace(msg))
	}
	goenv := exec.CommandContext(ctx, goCmd, "env", "GOROOT")
	goenv.Dir, goenv.Env = src.Dir, env // the toolchain that built it, if go.mod switched it
	root, err := goenv.Output()
	if err != nil {
		return Program{}, fmt.Errorf("playground: go env GOROOT: %v%s", err, stderrOf(err))
	}
	goroot := strings.TrimSpace(string(root))
	var execJS []byte
	for _, sub := range []string{"lib", "misc"} {
		if execJS, err = os.ReadFile(filepath.Join(goroot, sub, "wasm", "wasm_exec.js")); err == nil {
			break
		}
	}
	if err != nil {
		return Program{}, fmt.Errorf("playground: no wasm_exec.js in %s/lib/wasm or misc/wasm: %v", goroot, err)
	}
	if err := writeAtomic(filepath.Join(out, "wasm_exec.js"), execJS); err != nil {
		return Program{}, fmt.Errorf("playground: %v", err)
	}
	wasm, err := os.ReadFile(wasmPath)
	if err != nil {
		return Program{}, fmt.Errorf("playground: %v", err)
	}
	if !bytes.HasPrefix(wasm, []byte("\x00asm")) {
		return Program{}, fmt.Errorf("playground: %s is not WebAssembly", wasmPath)
	}
	if b.Log != nil && time.Since(start) > 5*time.Second {
		fmt.Fprintf(b.Log, "built the playground's WebAssembly program in %.0fs\n", time.Since(start).Seconds())
	}
	return Program{Wasm: wasm, Exec: execJS}, nil
}

// BuildServer compiles src's ./playground/server, the playground's web
// server, for this system with `go build` into b.Dir(src) and returns the
// path of the executable. It builds without -trimpath, so that the
// server's FindSource finds src as the source it was built from (and
// builds the page's program from the source of the page it embeds). Like
// Build, a build of unchanged source is quick, and a module cache copy
// builds with GOWORK=off.
func (b *Builder) BuildServer(ctx context.Context, src Source) (string, error) {
	goCmd, err := b.goCommand()
	if err != nil {
		return "", err
	}
	out, err := b.Dir(src)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", fmt.Errorf("playground: %v", err)
	}
	exe := filepath.Join(out, "server")
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	env := os.Environ()
	if src.Version != "" {
		env = append(env, "GOWORK=off")
	}
	if _, err := os.Stat(exe); err != nil && b.Log != nil {
		fmt.Fprintf(b.Log, "building the playground's server from %s, %s, into %s\n", src.How, src.Dir, out)
	}
	build := exec.CommandContext(ctx, goCmd, "build", "-o", exe, "./playground/server")
	build.Dir, build.Env = src.Dir, env
	if msg, err := build.CombinedOutput(); err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return "", fmt.Errorf("playground: building %s: %v\n%s", filepath.Join(src.Dir, "playground", "server"), err, bytes.TrimSpace(msg))
	}
	return exe, nil
}

// writeAtomic writes b to path through a temporary file in its folder,
// so that a reader never sees half of it.
func writeAtomic(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
