// Package playground is the browser playground of recur: a page where a
// policy is typed and its meaning, lint findings, delays, storm behaviour
// and gRPC form appear as it is typed. The page runs recur itself,
// compiled to WebAssembly (package engine, through playground/wasm); this
// package holds its files, embedded, and serves them or writes them out.
//
// The compiled program is committed gzipped as static/recur.wasm.gz, so
// that a fresh clone builds and serves without a WebAssembly build step;
// `make wasm` rebuilds it (make browser-test does so first), and the
// browser tests fail when it is stale. docs/playground.md describes the
// page.
package playground

import (
	"bytes"
	"compress/gzip"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

//go:embed static
var static embed.FS

// wasmGz is the embedded compiled program, gzipped.
const wasmGz = "recur.wasm.gz"

// Files returns the page's files as they are embedded: the program is
// recur.wasm.gz, gzipped.
func Files() fs.FS {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // "static" is a valid path, embedded above
	}
	return sub
}

// Wasm returns the compiled program, decompressed.
func Wasm() ([]byte, error) {
	b, err := fs.ReadFile(Files(), wasmGz)
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("playground: %s: %w", wasmGz, err)
	}
	return io.ReadAll(zr)
}

// Handler serves the page: index.html at /, the other files by name, and
// recur.wasm gzipped to a browser that accepts gzip (all do), else
// decompressed. It serves only GET and HEAD.
func Handler() http.Handler {
	files := http.FileServerFS(Files())
	gz, _ := fs.ReadFile(Files(), wasmGz)
	modtime := time.Now()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:")
		switch r.URL.Path {
		case "/" + wasmGz:
			http.NotFound(w, r)
		case "/recur.wasm":
			w.Header().Set("Content-Type", "application/wasm")
			if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
				w.Header().Set("Content-Encoding", "gzip")
				w.Header().Set("Vary", "Accept-Encoding")
				http.ServeContent(w, r, "recur.wasm", modtime, bytes.NewReader(gz))
				return
			}
			raw, err := Wasm()
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			http.ServeContent(w, r, "recur.wasm", modtime, bytes.NewReader(raw))
		default:
			files.ServeHTTP(w, r)
		}
	})
}

// WriteSite writes the page into dir as a static site for any web host:
// every file, with the program decompressed as recur.wasm (a host that
// compresses serves it smaller; it should give it the type
// application/wasm). dir is created if missing.
func WriteSite(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return fs.WalkDir(Files(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		var b []byte
		if path == wasmGz {
			path = "recur.wasm"
			b, err = Wasm()
		} else {
			b, err = fs.ReadFile(Files(), path)
		}
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, filepath.FromSlash(path)), b, 0o644)
	})
}
