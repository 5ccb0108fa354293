package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestConvertGolden(t *testing.T) {
	for _, tt := range []struct {
		name, stdin string
		args        []string
		code        int
	}{
		{"convert_temporal", "", []string{"convert", "--from", "temporal", "convert_temporal.json"}, 0},
		{"convert_resilience4j", "", []string{"convert", "--from", "resilience4j", "convert_resilience4j.yaml"}, 0},
		{"convert_envoy", "", []string{"convert", "--from", "envoy", "convert_envoy.yaml"}, 0},
		{"convert_polly", "", []string{"convert", "--from", "polly", "convert_polly.json"}, 0},
		{"convert_grpc", "", []string{"convert", "--from", "grpc", "grpc_service.json"}, 0},
		{"convert_to_temporal", "", []string{"convert", "--from", "envoy", "--to", "temporal", "convert_envoy.yaml"}, 1},
		{"convert_to_polly", "linear(1s) & times(4)\n", []string{"convert", "--from", "recur", "--to", "polly", "-"}, 0},
		{"convert_to_resilience4j", "", []string{"convert", "--from", "temporal", "--to", "resilience4j", "convert_temporal.json"}, 0},
		{"convert_bad", "", []string{"convert", "--from", "envoy", "convert_bad_envoy.yaml"}, 1},
		{"convert_no_from", "", []string{"convert", "convert_envoy.yaml"}, 2},
		{"convert_unknown_format", "", []string{"convert", "--from", "hystrix", "x.json"}, 2},
		{"convert_missing_file", "", []string{"convert", "--from", "envoy", "nope.yaml"}, 2},
		{"convert_help", "", []string{"convert", "--help"}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) { checkGolden(t, tt.name, tt.stdin, tt.args, tt.code) })
	}
}

func TestConvertJSON(t *testing.T) {
	out, _, code := schedcheck(t, "", "convert", "--json", "--from", "temporal", "--to", "envoy", "convert_temporal.json")
	if code != 1 {
		t.Errorf("exit %d; want 1 (Temporal's backoff has no Envoy equivalent)", code)
	}
	var r convertResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Policy != "Intersect(Exponential(1s, 200%, 1m40s), Times(5))" || !strings.Contains(r.Error, "no equivalent") || len(r.Retained) != 1 {
		t.Errorf("%+v", r)
	}
	out, _, code = schedcheck(t, "", "convert", "--json", "--from", "temporal", "convert_temporal.json")
	if code != 0 || !strings.Contains(out, `"output":"Intersect(Exponential(1s, 200%, 1m40s), Times(5))\n"`) {
		t.Errorf("exit %d: %s", code, out)
	}
}
