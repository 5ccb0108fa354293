package main

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strings"
	"time"

	"github.com/recur-go/recur/cmd/schedcheck/playground"
)

// handler serves the page with the program p: index.html at /, the other
// files by name, wasm_exec.js and recur.wasm from p, recur.wasm with the
// type application/wasm and gzipped to a browser that accepts gzip (all
// do; it is compressed once, here), else as it is. With an empty p.Wasm,
// recur.wasm is not found. It serves only GET and HEAD.
func handler(p playground.Program) http.Handler {
	files := http.FileServerFS(playground.Files())
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.DefaultCompression) // a valid level: no error
	zw.Write(p.Wasm)                                           // a bytes.Buffer does not fail
	zw.Close()
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
		case "/wasm_exec.js":
			if len(p.Exec) == 0 {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
			http.ServeContent(w, r, "wasm_exec.js", modtime, bytes.NewReader(p.Exec))
		case "/recur.wasm":
			if len(p.Wasm) == 0 {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "application/wasm")
			w.Header().Set("Vary", "Accept-Encoding")
			if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
				w.Header().Set("Content-Encoding", "gzip")
				http.ServeContent(w, r, "recur.wasm", modtime, bytes.NewReader(gz.Bytes()))
				return
			}
			http.ServeContent(w, r, "recur.wasm", modtime, bytes.NewReader(p.Wasm))
		default:
			files.ServeHTTP(w, r)
		}
	})
}
