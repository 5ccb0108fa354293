package playground_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
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
	h := playground.Handler(p)

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
	empty := playground.Handler(playground.Program{})
	for path, code := range map[string]int{"/": 200, "/recur.wasm": 404, "/wasm_exec.js": 404} {
		if r := get(t, empty, "GET", path, "gzip"); r.StatusCode != code {
			t.Errorf("with no program: GET %s = %d, want %d", path, r.StatusCode, code)
		}
	}
}

// TestFiles: only the page's own files are embedded, never a build
// output left in static/.
func TestFiles(t *testing.T) {
	var names []string
	fs.WalkDir(playground.Files(), ".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, path)
		}
		return err
	})
	want := []string{"app.js", "index.html", "style.css", "worker.js"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("embedded files (-want +got):\n%s", diff)
	}
}

// TestWriteSite: the static folder holds every page file and the
// program.
func TestWriteSite(t *testing.T) {
	p := playground.Program{Wasm: []byte("\x00asm\x01\x00\x00\x00"), Exec: []byte("// the loader\n")}
	if err := playground.WriteSite(t.TempDir(), playground.Program{}); err == nil {
		t.Error("WriteSite wrote a site without a program")
	}
	dir := filepath.Join(t.TempDir(), "site")
	if err := playground.WriteSite(dir, p); err != nil {
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
	for name, want := range map[string][]byte{"recur.wasm": p.Wasm, "wasm_exec.js": p.Exec} {
		written, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(want, written) {
			t.Errorf("site %s differs from the program's (err %v)", name, err)
		}
	}
}
