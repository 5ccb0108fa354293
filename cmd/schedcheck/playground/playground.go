// Package playground is the browser playground of recur: a page where a
// policy is typed and its meaning, lint findings, delays, storm behaviour
// and gRPC form appear as it is typed. The page runs recur itself,
// compiled to WebAssembly (package engine, through playground/wasm).
//
// This package embeds the page's own files (HTML, script, stylesheet and
// storm worker) and writes them out (WriteSite) with a compiled program;
// the server (playground/server, built by Builder.BuildServer) serves
// them. The program is a build output, never committed: a Builder
// compiles it from the source of its module (cmd/schedcheck's) into a
// cache directory, and only a Builder runs the go command. The package
// does not import net/http, so that schedcheck, which builds the server
// through it, does not link it.
// docs/playground.md describes the page.
package playground

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// The page's files, named one by one so that a build output left in
// static/ is never embedded.
//
//go:embed static/index.html static/app.js static/style.css static/worker.js
var static embed.FS

// Program is the playground's compiled program: Wasm is recur.wasm, the
// WebAssembly build of playground/wasm, and Exec is wasm_exec.js, the
// loader of the Go toolchain that built it (a program needs the loader of
// its own toolchain). Builder.Build makes one.
type Program struct {
	Wasm []byte // recur.wasm
	Exec []byte // wasm_exec.js
}

// Files returns the page's own files as they are embedded: index.html,
// app.js, style.css and worker.js. The program is not among them: see
// Program.
func Files() fs.FS {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // "static" is a valid path, embedded above
	}
	return sub
}

// WriteSite writes the page with the program p into dir as a static site
// for any web host: the files of Files, recur.wasm and wasm_exec.js (a
// host that compresses serves recur.wasm smaller; it should give it the
// type application/wasm). dir is created if missing.
func WriteSite(dir string, p Program) error {
	if len(p.Wasm) == 0 || len(p.Exec) == 0 {
		return fmt.Errorf("playground: writing the site: the program is empty (build it with a Builder)")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	err := fs.WalkDir(Files(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(Files(), path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, filepath.FromSlash(path)), b, 0o644)
	})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "recur.wasm"), p.Wasm, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "wasm_exec.js"), p.Exec, 0o644)
}
