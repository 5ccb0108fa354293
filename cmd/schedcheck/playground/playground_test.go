package playground_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/cmd/schedcheck/playground"
)

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
