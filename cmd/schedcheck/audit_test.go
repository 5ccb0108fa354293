package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/audit"
)

// examplePlan is the path of a plan in examples/audit, as seen from
// testdata, where the tests run the binary.
func examplePlan(name string) string { return "../../../examples/audit/" + name }

func TestAuditGolden(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		stdin string
		code  int
	}{
		{"audit_pass", []string{"audit", examplePlan("pass.yaml")}, "", 0},
		{"audit_fail", []string{"audit", examplePlan("fail.yaml")}, "", 1},
		{"audit_seed_json", []string{"audit", "--json", examplePlan("resilience4j.json")}, "", 0},
		{"audit_bad_policy", []string{"audit", "audit_bad_policy.yaml"}, "", 1},
		{"audit_bad_block", []string{"audit", "--json", "audit_bad_block.yaml"}, "", 1},
		{"audit_unknown_field", []string{"audit", "-"}, "layers:\n  - name: a\n    atempt_timeout: 1s\n", 1},
		{"audit_invalid_plan", []string{"audit", "-"}, `{"layers": [{"name": "a", "budget": {"kind": "leaky"}}]}`, 1},
		{"audit_usage", []string{"audit"}, "", 2},
		{"audit_missing_file", []string{"audit", "no_such_plan.yaml"}, "", 2},
		{"audit_help", []string{"audit", "--help"}, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkGolden(t, tt.name, tt.stdin, tt.args, tt.code) })
	}
}

// auditJSON is the JSON report with exactly its documented field names.
type auditJSON struct {
	Pass            bool           `json:"pass"`
	Score           int            `json:"score"`
	Findings        []auditFinding `json:"findings"`
	Recommendations []string       `json:"recommendations"`
}

type auditFinding struct {
	ID       string `json:"id"`
	Severity string `json:"severity"`
	Layer    string `json:"layer"`
	Message  string `json:"message"`
}

// TestAuditJSONMatchesLibrary checks that audit --json prints what
// audit.Run returns, with exactly its documented field names, and the text
// output what Report.String does.
func TestAuditJSONMatchesLibrary(t *testing.T) {
	for _, name := range []string{"pass.yaml", "fail.yaml", "resilience4j.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", examplePlan(name)))
		if err != nil {
			t.Fatal(err)
		}
		p, err := audit.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		r := audit.Run(p)
		want := auditJSON{Pass: r.Pass, Score: r.Score, Findings: []auditFinding{}, Recommendations: r.Recommendations}
		for _, f := range r.Findings {
			want.Findings = append(want.Findings, auditFinding{f.ID, f.Severity.String(), f.Layer, f.Message})
		}
		out, _, _ := schedcheck(t, "", "audit", "--json", examplePlan(name))
		var got auditJSON
		dec := json.NewDecoder(strings.NewReader(out))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&got); err != nil {
			t.Fatalf("%s: %v in %s", name, err, out)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: audit --json (-want +got):\n%s", name, diff)
		}
		if text, _, _ := schedcheck(t, "", "audit", examplePlan(name)); text != r.String() {
			t.Errorf("%s: audit prints\n%s\nwant Report.String():\n%s", name, text, r.String())
		}
	}
}
