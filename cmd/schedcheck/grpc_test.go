package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/grpcconfig"
)

func TestGRPCGolden(t *testing.T) {
	service, err := os.ReadFile(filepath.Join("testdata", "grpc_service.json"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		args  []string
		stdin string
		code  int
	}{
		{"grpc_explain", []string{"explain", "--from-grpc-config", "grpc_service.json"}, "", 0},
		{"grpc_explain_json", []string{"explain", "--json", "--from-grpc-config", "grpc_service.json"}, "", 0},
		{"grpc_explain_stdin", []string{"explain", "--from-grpc-config", "-"}, string(service), 0},
		{"grpc_explain_shrinking", []string{"explain", "--from-grpc-config", "grpc_shrinking.json"}, "", 1},
		{"grpc_explain_invalid", []string{"explain", "--from-grpc-config", "grpc_invalid.json"}, "", 1},
		{"grpc_explain_empty", []string{"explain", "--from-grpc-config", "-"}, `{"loadBalancingConfig": [{"round_robin": {}}]}`, 1},
		{"grpc_explain_missing", []string{"explain", "--from-grpc-config", "no_such_config.json"}, "", 2},
		{"grpc_explain_both", []string{"explain", "times(3)", "--from-grpc-config", "grpc_service.json"}, "", 2},
		{"grpc_lint", []string{"lint", "fulljitter(100ms, 1s) & times(4)", "--from-grpc-config", "grpc_service.json"}, "", 0},
		{"grpc_lint_json_shrinking", []string{"lint", "--json", "--from-grpc-config", "grpc_shrinking.json"}, "", 1},
		{"grpc_lint_invalid", []string{"lint", "--from-grpc-config", "grpc_invalid.json"}, "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkGolden(t, tt.name, tt.stdin, tt.args, tt.code) })
	}
}

// TestGRPCExplainMatchesConversion: what explain prints for each method
// config is grpcconfig's conversion of it, and names its methods.
func TestGRPCExplainMatchesConversion(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "grpc_service.json"))
	if err != nil {
		t.Fatal(err)
	}
	sc, err := grpcconfig.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	type entry struct {
		Methods []string
		Policy  string
	}
	var want []entry
	for _, mc := range sc.Methods {
		e := entry{Policy: "Times(1)"}
		for _, n := range mc.Names {
			e.Methods = append(e.Methods, n.String())
		}
		if mc.RetryPolicy != nil {
			s, err := mc.RetryPolicy.Schedule(grpcconfig.FullJitter)
			if err != nil {
				t.Fatal(err)
			}
			e.Policy = s.String()
		}
		want = append(want, e)
	}
	out, errs, code := schedcheck(t, "", "explain", "--json", "--from-grpc-config", "grpc_service.json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got []entry
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var e entry
		if err := dec.Decode(&e); err != nil {
			t.Fatal(err)
		}
		got = append(got, e)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("explain --json --from-grpc-config (-want +got):\n%s", diff)
	}
}
