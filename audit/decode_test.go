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
		{"unknown field", "layers:\n  - name: a\n    atempt_timeout: 1s\n", `3:5: layer "a": unknown key "atempt_timeout"; did you mean "attempt_timeout"?`},
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

func TestDecodeKeyError(t *testing.T) {
	tests := []struct {
		name, plan string
		want       audit.KeyError
	}{
		{"in a layer", "layers:\n  - name: web\n  - name: api\n    propagates_deadlin: true\n",
			audit.KeyError{Line: 4, Column: 5, Layer: "api", Key: "propagates_deadlin", Suggestion: "propagates_deadline"}},
		{"in a breaker", "layers:\n  - breaker:\n      windw: 1s\n",
			audit.KeyError{Line: 3, Column: 7, Layer: "layers[0]", Path: "breaker", Key: "windw", Suggestion: "window"}},
		{"in an operation", `{"layers": [{"name": "a", "operations": [{"name": "get", "idempotnt": true}]}]}`,
			audit.KeyError{Line: 1, Column: 58, Layer: "a", Path: "operations[0]", Key: "idempotnt", Suggestion: "idempotent"}},
		{"at the top, nothing near", "deadlines: 1s\nfrobnicate: 2\nlayers: [{name: a}]\n",
			audit.KeyError{Line: 1, Column: 1, Key: "deadlines", Suggestion: "deadline"}},
		{"no suggestion", "layers: [{name: a, frobnicate: 2}]\n",
			audit.KeyError{Line: 1, Column: 20, Layer: "a", Key: "frobnicate"}},
	}
	for _, tt := range tests {
		_, err := audit.Decode([]byte(tt.plan))
		var ke *audit.KeyError
		if !errors.As(err, &ke) {
			t.Errorf("%s: Decode error %v (%T); want a *KeyError", tt.name, err, err)
			continue
		}
		if diff := cmp.Diff(tt.want, *ke); diff != "" {
			t.Errorf("%s: KeyError (-want +got):\n%s", tt.name, diff)
		}
	}
	_, err := audit.Decode([]byte("layers:\n  - name: api\n    propagates_deadlin: true\n"))
	if want := `3:5: layer "api": unknown key "propagates_deadlin"; did you mean "propagates_deadline"?`; err == nil || err.Error() != want {
		t.Errorf("Decode error %v; want %s", err, want)
	}
}

func TestDecodeNoLayers(t *testing.T) {
	for _, plan := range []string{"", "name: x\n", "layers: []\n", "layers:\n", `{"layers": []}`} {
		_, err := audit.Decode([]byte(plan))
		if !errors.Is(err, audit.ErrNoLayers) {
			t.Errorf("Decode(%q) error %v; want ErrNoLayers", plan, err)
		}
	}
}

// TestDecodeBoundsBeforePolicies checks that the size, the aliases and
// the number of layers are checked before any policy is parsed: a plan
// repeating one layer by alias is refused for its layer count, though
// that layer's policy does not parse.
func TestDecodeBoundsBeforePolicies(t *testing.T) {
	layer := `&l {name: a, retry: "times(3) & tims(2)"}`
	tests := []struct{ name, plan, want string }{
		{"layers by alias", "layers: [" + layer + strings.Repeat(", *l", audit.MaxLayers) + "]\n", "the plan has 65 layers; at most 64"},
		{"alias cycle", "layers: &a [*a]\n", "refers to a node that contains it"},
		{"billion laughs", "a: &a [" + layer + ", *l, *l, *l, *l, *l, *l, *l, *l, *l]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n" +
			"c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n" +
			"e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nlayers: *e\n", "aliases expand to more than"},
		{"too long", "layers: [{name: a}]\n#" + strings.Repeat("x", audit.MaxPlanSize), "the limit is 1048576"},
	}
	for _, tt := range tests {
		_, err := audit.Decode([]byte(tt.plan))
		var pe *audit.PolicyError
		if err == nil || errors.As(err, &pe) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Decode error %v; want one containing %q, before any policy is parsed", tt.name, err, tt.want)
		}
	}
}
