package audit_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/audit"
)

var update = flag.Bool("update", false, "rewrite the golden files in examples/audit")

// TestExamplePlans audits every plan in examples/audit and compares the
// text and JSON reports with the golden files beside it: NAME.txt and
// NAME.report.json.
func TestExamplePlans(t *testing.T) {
	dir := filepath.Join("..", "examples", "audit")
	plans, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	jsonPlans, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, j := range jsonPlans {
		if !strings.HasSuffix(j, ".report.json") {
			plans = append(plans, j)
		}
	}
	want := map[string]bool{"pass": true, "fail": false, "resilience4j": true}
	for _, path := range plans {
		base := strings.TrimSuffix(path, filepath.Ext(path))
		name := filepath.Base(base)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			p, err := audit.Decode(data)
			if err != nil {
				t.Fatal(err)
			}
			r := audit.Run(p)
			if pass, ok := want[name]; !ok || r.Pass != pass {
				t.Errorf("%s: pass = %v; want %v (known: %v)", path, r.Pass, pass, ok)
			}
			js, err := json.MarshalIndent(r, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, base+".txt", r.String())
			golden(t, base+".report.json", string(js)+"\n")
		})
	}
	if len(plans) != len(want) {
		t.Errorf("found plans %v; want %d", plans, len(want))
	}
}

// TestFailingExampleFailsEveryRule checks that examples/audit/fail.yaml
// brings a finding of every rule.
func TestFailingExampleFailsEveryRule(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "examples", "audit", "fail.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := audit.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, f := range audit.Run(p).Findings {
		got[f.ID] = true
	}
	for _, r := range audit.Rules() {
		if !got[r.ID] {
			t.Errorf("fail.yaml has no %s finding", r.ID)
		}
	}
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}
