package convert

import "testing"

// TestFromGRPC follows gRFC A6 (github.com/grpc/proposal, A6-client-retries.md,
// "Retry Policy": maxAttempts including the original, capped at 5;
// initialBackoff, maxBackoff, backoffMultiplier; the n-th retry waits
// random(0, min(initialBackoff·backoffMultiplier^(n−1), maxBackoff))),
// through package grpcconfig.
func TestFromGRPC(t *testing.T) {
	policy := `{"maxAttempts": 4, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}`
	runTable(t, GRPC, []tableCase{
		{name: "a retryPolicy", doc: policy, want: "fulljitter(100ms, 1s) & times(4)", notes: 1},
		{name: "a service config", doc: `{"methodConfig": [{"name": [{"service": "echo.Echo"}], "retryPolicy": ` + policy + `}]}`,
			want: "fulljitter(100ms, 1s) & times(4)", notes: 1},
		{name: "no retryPolicy", doc: `{"methodConfig": [{"name": [{"service": "echo.Echo"}]}]}`, want: "times(1)", notes: 1},
		{name: "above 5 attempts", doc: `{"maxAttempts": 9, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}`,
			want: "fulljitter(100ms, 1s) & times(5)", notes: 2},
		{name: "invalid", doc: `{"maxAttempts": 1, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}`,
			err: "maxAttempts must be at least 2"},
		{name: "no method config", doc: `{"methodConfig": []}`, err: "no method config"},
	})
	rs, err := FromGRPC([]byte(`{"methodConfig": [{"name": [{"service": "a.A"}], "retryPolicy": ` + policy + `}, {"name": [{"service": "b.B", "method": "M"}]}],
		"retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || rs[0].Name != "methodConfig[0] /a.A/*" || rs[1].Name != "methodConfig[1] /b.B/M" || len(rs[0].Retained) != 2 {
		t.Errorf("%+v", rs)
	}
}

func TestGRPCRoundTrip(t *testing.T) {
	roundTrip(t, GRPC, []string{"fulljitter(100ms, 1s) & times(4)", "jittered(exponential(1s, 150%, 30s), 0%, 100%) & times(5)"})
	refused(t, GRPC, map[string]string{
		"jittered(exponential(1s, 160%, 2m), 80%, 120%) & times(5)": "which jitter",
		"backoff(100ms, 1s) & times(3)":                             "A6's formulas",
		"fulljitter(100ms, 1s) & times(9)":                          "cap of 5",
	})
}
