package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/cmd/schedcheck/playground"
)

func get(t *testing.T, h http.Handler, method, path, encoding string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	if encoding != "" {
		req.Header.Set("Accept-Encoding", encoding)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

// TestHandler: the page at /, the program gzipped to a browser that
// accepts gzip and plain otherwise, only GET and HEAD.
func TestHandler(t *testing.T) {
	raw := bytes.Repeat([]byte("\x00asm\x01\x00\x00\x00"), 1000)
	p := playground.Program{Wasm: raw, Exec: []byte("// the loader\n")}
	h := handler(p)

	r := get(t, h, "GET", "/", "")
	body, _ := io.ReadAll(r.Body)
	if r.StatusCode != 200 || !strings.Contains(string(body), `<label for="policy">`) {
		t.Errorf("GET / = %d, %.80q", r.StatusCode, body)
	}

	r = get(t, h, "GET", "/recur.wasm", "gzip, deflate")
	zr, err := gzip.NewReader(r.Body)
	if err != nil {
		t.Fatalf("GET /recur.wasm with gzip: %v", err)
	}
	unzipped, _ := io.ReadAll(zr)
	got := []string{r.Header.Get("Content-Type"), r.Header.Get("Content-Encoding")}
	if diff := cmp.Diff([]string{"application/wasm", "gzip"}, got); diff != "" || !bytes.Equal(raw, unzipped) {
		t.Errorf("GET /recur.wasm with gzip: headers (-want +got):\n%s; body equal: %v", diff, bytes.Equal(raw, unzipped))
	}

	r = get(t, h, "GET", "/recur.wasm", "")
	plain, _ := io.ReadAll(r.Body)
	if r.Header.Get("Content-Encoding") != "" || !bytes.Equal(raw, plain) {
		t.Errorf("GET /recur.wasm without gzip: Content-Encoding %q, body equal: %v", r.Header.Get("Content-Encoding"), bytes.Equal(raw, plain))
	}

	for _, c := range []struct {
		method, path string
		code         int
	}{{"POST", "/", 405}, {"GET", "/recur.wasm.gz", 404}, {"GET", "/nothing", 404}, {"HEAD", "/app.js", 200}} {
		if r := get(t, h, c.method, c.path, ""); r.StatusCode != c.code {
			t.Errorf("%s %s = %d, want %d", c.method, c.path, r.StatusCode, c.code)
		}
	}

	r = get(t, h, "GET", "/wasm_exec.js", "")
	loader, _ := io.ReadAll(r.Body)
	if string(loader) != string(p.Exec) || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/javascript") {
		t.Errorf("GET /wasm_exec.js = %q, %q; want the program's loader as JavaScript", loader, r.Header.Get("Content-Type"))
	}

	// Without a program the page is served, the program is not found.
	empty := handler(playground.Program{})
	for path, code := range map[string]int{"/": 200, "/recur.wasm": 404, "/wasm_exec.js": 404} {
		if r := get(t, empty, "GET", path, "gzip"); r.StatusCode != code {
			t.Errorf("with no program: GET %s = %d, want %d", path, r.StatusCode, code)
		}
	}
}
