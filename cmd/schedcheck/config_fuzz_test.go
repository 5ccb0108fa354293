package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/recur-go/recur/cmd/schedcheck/internal/yamlguard"
	"github.com/recur-go/recur/parse"
)

// FuzzConfigKey feeds arbitrary bytes to check --key's config reader, as
// YAML, JSON and TOML, with an arbitrary key path. It must not panic, and
// what it finds is bounded: no more values than the file has bytes, plus
// what aliases may stand for; every position is in the file.
func FuzzConfigKey(f *testing.F) {
	for _, name := range []string{"service.yaml", "service.json", "service.toml", "grpc_service.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(0), "clients.*.retry")
		f.Add(b, uint8(1), "clients.*.retry")
		f.Add(b, uint8(2), "*")
	}
	f.Add([]byte("x: &a [*a]\n"), uint8(0), "x")
	f.Add([]byte("a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n"), uint8(0), "c")
	f.Add([]byte("x = [[[\"t\"]]]\n[[y]]\nz = 1\n[y.w]\nq = {r = 's'}\n"), uint8(2), "*.*")
	f.Add([]byte(`{"x": [1, "times(3)", {"y": true}]}`), uint8(1), "x")
	f.Fuzz(func(t *testing.T, data []byte, ext uint8, key string) {
		if len(data) > maxInput {
			return
		}
		name := "f" + [...]string{".yaml", ".json", ".toml"}[ext%3]
		res, err := configPolicies(name, data, key)
		if err != nil {
			if len(res.srcs)+len(res.bad) != 0 {
				t.Fatalf("error %v with results", err)
			}
			return
		}
		if n := len(res.srcs) + len(res.bad); n > len(data)+yamlguard.MaxNodes {
			t.Fatalf("%d values from %d bytes", n, len(data))
		}
		lines := len(newFileText(data).starts)
		for _, b := range res.bad {
			m := b.(misfit)
			if m.line < 1 || m.line > lines || m.col < 1 {
				t.Fatalf("misfit at %d:%d in a file of %d lines", m.line, m.col, lines)
			}
		}
		for _, src := range res.srcs[:min(len(res.srcs), 100)] {
			if src.line < 1 || src.line > lines+1 {
				t.Fatalf("policy at line %d in a file of %d lines", src.line, lines)
			}
			if _, err := parse.Parse(src.text); err != nil {
				var pe *parse.Error
				if errors.As(err, &pe) {
					src.position(pe)
				}
			}
		}
	})
}
