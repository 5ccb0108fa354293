package breaker_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A copy of a Permit would record a second call, and a closed breaker
// cannot tell it at run time without slowing every call: go vet reports
// it instead. This vets a program that copies one (the program is laid
// over an empty directory of this module, testdata/vetprobe, so nothing is
// written into the tree) and checks that vet names the copy, and that the
// same program passing the Permit's address vets clean.
func TestVetReportsPermitCopy(t *testing.T) {
	const prog = `package main

import (
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/verdict"
)

func main() {
	b, _ := breaker.New(breaker.Config{Name: "db"})
	p, _ := b.Allow()
	COPY
	b.Record(&p, verdict.Success)
}
`
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	vet := func(src string) (string, error) {
		dir := t.TempDir()
		file := filepath.Join(dir, "main.go")
		if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		overlay, _ := json.Marshal(map[string]map[string]string{"Replace": {filepath.Join(root, "breaker", "testdata", "vetprobe", "main.go"): file}})
		ov := filepath.Join(dir, "overlay.json")
		if err := os.WriteFile(ov, overlay, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("go", "vet", "-overlay", ov, "./breaker/testdata/vetprobe")
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := vet(strings.Replace(prog, "COPY", "q := &p; _ = q", 1)); err != nil {
		t.Fatalf("vet of a program that passes the Permit's address: %v\n%s", err, out)
	}
	out, err := vet(strings.Replace(prog, "COPY", "q := p; b.Record(&q, verdict.Success)", 1))
	if err == nil || !strings.Contains(out, "assignment copies lock value to q: github.com/recur-go/recur/breaker.Permit") {
		t.Errorf("vet of a program that copies a Permit: %v\n%s\nwant it to report the copy", err, out)
	}
}
