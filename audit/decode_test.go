package audit_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/audit"
	"github.com/recur-go/recur/parse"
	"go.yaml.in/yaml/v3"
)

// cmpPlans compares plans by their policies' canonical forms.
var cmpPlans = cmp.Comparer(func(a, b parse.Policy) bool { return a.String() == b.String() })

func TestDecodeJSONAndYAMLAgree(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "examples", "audit", "resilience4j.json"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := audit.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(passing(), got, cmpPlans); diff != "" {
		t.Errorf("Decode(resilience4j.json) differs from the sample plan (-want +got):\n%s", diff)
	}
	var viaJSON audit.Plan
	if err := json.Unmarshal(data, &viaJSON); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got, viaJSON, cmpPlans); diff != "" {
		t.Errorf("encoding/json reads it differently (-Decode +json):\n%s", diff)
	}
	y, err := yaml.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	again, err := audit.Decode(y)
	if err != nil {
		t.Fatalf("Decode(yaml.Marshal(plan)): %v\n%s", err, y)
	}
	if diff := cmp.Diff(got, again, cmpPlans); diff != "" {
		t.Errorf("YAML round trip (-want +got):\n%s", diff)
	}
	j, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	again, err = audit.Decode(j)
	if err != nil {
		t.Fatalf("Decode(json.Marshal(plan)): %v\n%s", err, j)
	}
	if diff := cmp.Diff(got, again, cmpPlans); diff != "" {
		t.Errorf("JSON round trip (-want +got):\n%s", diff)
	}
}

func TestDecodePolicyErrors(t *testing.T) {
	tests := []struct {
		name, plan string
		path       string
		line       int // of the policy text in the file
		text       string
		col        int // of the error in the policy text
	}{
		{"plain", "layers:\n  - name: a\n    retry: times(3) & tims(2)\n", "layers[0].retry", 3, "times(3) & tims(2)", 12},
		{"quoted", "layers:\n  - name: a\n  - name: b\n    retry: \"Times(0)\"\n", "layers[1].retry", 4, "Times(0)", 7},
		{"block", "layers:\n  - name: a\n    retry: |\n      times(3)\n      & spaced(0s)\n", "layers[0].retry", 4, "times(3)\n& spaced(0s)\n", 10},
		{"open_for", `{"layers": [{"name": "a", "breaker": {"open_for": "spaced(0s)"}}]}`, "layers[0].breaker.open_for", 1, "spaced(0s)", 8},
	}
	for _, tt := range tests {
		_, err := audit.Decode([]byte(tt.plan))
		var pe *audit.PolicyError
		if !errors.As(err, &pe) {
			t.Errorf("%s: Decode error %v (%T); want a *PolicyError", tt.name, err, err)
			continue
		}
		got := []any{pe.Path, pe.Line, pe.Text, pe.Err.Column}
		want := []any{tt.path, tt.line, tt.text, tt.col}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: path, line, text, column (-want +got):\n%s", tt.name, diff)
		}
		var parseErr *parse.Error
		if !errors.As(err, &parseErr) || !strings.HasPrefix(err.Error(), "line ") {
			t.Errorf("%s: %q does not unwrap to a *parse.Error or name its line", tt.name, err)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct{ name, plan, want string }{
		{"unknown field", "layers:\n  - name: a\n    atempt_timeout: 1s\n", "line 3: field atempt_timeout not found"},
		{"bare number for a duration", "deadline: 10\nlayers: []\n", `line 1: invalid duration "10"`},
		{"negative duration", "deadline: -1s\n", `line 1: invalid duration "-1s": negative`},
		{"duration as a list", "deadline: [1s]\n", "line 1: want a duration"},
		{"not YAML", "layers: [\n", "yaml:"},
		{"empty", "", "empty plan"},
		{"wrong type", "layers: 3\n", "cannot unmarshal"},
	}
	for _, tt := range tests {
		_, err := audit.Decode([]byte(tt.plan))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Decode error %v; want one containing %q", tt.name, err, tt.want)
		}
	}
}

func TestDurationText(t *testing.T) {
	var d audit.Duration
	if err := d.UnmarshalText([]byte("1m30s")); err != nil || d.String() != "1m30s" {
		t.Errorf("UnmarshalText(1m30s) = %v, %v", d, err)
	}
	b, _ := d.MarshalText()
	if string(b) != "1m30s" {
		t.Errorf("MarshalText = %q", b)
	}
}
