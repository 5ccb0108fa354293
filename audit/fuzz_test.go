package audit_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/recur-go/recur/audit"
)

// FuzzDecode feeds arbitrary bytes to Decode. It must not panic, and a
// plan it accepts has between one and MaxLayers layers.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"pass.yaml", "fail.yaml", "resilience4j.json"} {
		b, err := os.ReadFile(filepath.Join("..", "examples", "audit", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("layers: [&l {name: a, retry: times(3)}, *l, *l]\n"))
	f.Add([]byte("layers:\n  - name: a\n    propagates_deadlin: true\n"))
	f.Add([]byte("layers: &a [*a]\n"))
	f.Add([]byte("layers: []\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := audit.Decode(data)
		if err != nil {
			return
		}
		if n := len(p.Layers); n < 1 || n > audit.MaxLayers {
			t.Fatalf("Decode accepted a plan of %d layers", n)
		}
		p.Validate()
	})
}
