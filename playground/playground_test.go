package playground_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/playground"
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
	h := playground.Handler()
	raw, err := playground.Wasm()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(raw, []byte("\x00asm")) {
		t.Fatalf("Wasm() does not start with the WebAssembly magic: % x", raw[:4])
	}

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
}

// TestWriteSite: the static folder holds every page file and the program
// decompressed.
func TestWriteSite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "site")
	if err := playground.WriteSite(dir); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	want := []string{"app.js", "index.html", "recur.wasm", "style.css", "wasm_exec.js", "worker.js"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("site files (-want +got):\n%s", diff)
	}
	raw, _ := playground.Wasm()
	written, err := os.ReadFile(filepath.Join(dir, "recur.wasm"))
	if err != nil || !bytes.Equal(raw, written) {
		t.Errorf("site recur.wasm differs from Wasm() (err %v)", err)
	}
}
