package convert

import (
	"testing"
)

// TestFromTemporal follows Temporal's documentation: the Retry Policies
// page of the encyclopedia (docs.temporal.io/encyclopedia/retry-policies,
// "Default values for Retry Policy": initial interval 1s, backoff
// coefficient 2.0, maximum interval 100 × initial interval, maximum
// attempts 0 meaning unlimited, and 1 meaning no retries) and the Go
// SDK's RetryPolicy comments (go.temporal.io/sdk/temporal.RetryPolicy:
// "Must be 1 or larger", "If not set or set to 0, it means unlimited").
func TestFromTemporal(t *testing.T) {
	runTable(t, Temporal, []tableCase{
		{name: "defaults", doc: `{}`, want: "exponential(1s, 200%, 100s)"},
		{name: "docs example", doc: `{"initialInterval": "1s", "backoffCoefficient": 2.0, "maximumInterval": "100s", "maximumAttempts": 5}`,
			want: "exponential(1s, 200%, 100s) & times(5)"},
		{name: "max defaults to 100x initial", doc: `{"initialInterval": "2s"}`, want: "exponential(2s, 200%, 200s)"},
		{name: "zero means default", doc: `{"initialInterval": "0s", "backoffCoefficient": 0, "maximumInterval": "0s", "maximumAttempts": 0}`,
			want: "exponential(1s, 200%, 100s)"},
		{name: "one attempt, nothing else checked", doc: `{"maximumAttempts": 1, "backoffCoefficient": 0.5}`, want: "times(1)"},
		{name: "coefficient 1 is constant", doc: `{"initialInterval": "5s", "backoffCoefficient": 1, "maximumAttempts": 3}`,
			want: "exponential(5s, 100%, 500s) & times(3)"},
		{name: "snake case and a string int", doc: `{"initial_interval": "0.5s", "maximum_attempts": "4", "backoff_coefficient": 1.5}`,
			want: "exponential(500ms, 150%, 50s) & times(4)"},
		{name: "wrapped", doc: `{"retryPolicy": {"maximumAttempts": 3}}`, want: "exponential(1s, 200%, 100s) & times(3)"},
		{name: "error types are retained", doc: `{"maximumAttempts": 3, "nonRetryableErrorTypes": ["InvalidOrder"]}`,
			want: "exponential(1s, 200%, 100s) & times(3)"},
		{name: "a float power that differs by nanoseconds", doc: `{"initialInterval": "0.3s", "backoffCoefficient": 1.7, "maximumInterval": "1000s"}`,
			want: "exponential(300ms, 170%, 1000s)", notes: 1},
		{name: "coefficient below 1", doc: `{"backoffCoefficient": 0.5}`, err: "backoffCoefficient: must be at least 1"},
		{name: "max below initial", doc: `{"initialInterval": "10s", "maximumInterval": "5s"}`, err: "maximumInterval: 5s is less than initialInterval 10s"},
		{name: "negative attempts", doc: `{"maximumAttempts": -1}`, err: "maximumAttempts: must not be negative"},
		{name: "negative interval", doc: `{"initialInterval": "-1s"}`, err: "initialInterval: must not be negative"},
		{name: "not protobuf's duration", doc: `{"initialInterval": "1000ms"}`, err: `initialInterval: duration "1000ms"`},
		{name: "a number for a duration", doc: `{"initialInterval": 1}`, err: "want a string such as"},
		{name: "unknown field", doc: `{"maximumAttempt": 3}`, err: "maximumAttempt: is not a field of Temporal's RetryPolicy"},
		{name: "coefficient finer than a millionth", doc: `{"backoffCoefficient": 1.0000001}`, err: "not a whole millionth", noEquiv: true},
		{name: "attempts out of int32", doc: `{"maximumAttempts": 3000000000}`, err: "must be from"},
	})
	r, _ := FromTemporal([]byte(`{"nonRetryableErrorTypes": ["A", "B"]}`))
	if len(r.Retained) != 1 || r.Retained[0].Path != "nonRetryableErrorTypes" || r.Retained[0].Value != `["A", "B"]` {
		t.Errorf("retained %+v", r.Retained)
	}
}

func TestTemporalRoundTrip(t *testing.T) {
	roundTrip(t, Temporal, []string{
		"exponential(1s, 200%, 100s) & times(5)",
		"exponential(1s, 200%, 100s)",
		"exponential(100ms, 150%, 10s) & times(10)",
		"exponential(250ms, 100%, 250ms) & times(3)",
		"exponential(1s, 110%, 1m) & times(4)",
		"times(1)",
		"exponential(1ms, 100%, 1h)",
	})
	refused(t, Temporal, map[string]string{
		"fulljitter(100ms, 2s) & times(3)":              "Temporal's backoff is an Exponential",
		"times(3)":                                      "Temporal's backoff is an Exponential",
		"exponential(2s, 200%, 1s) & times(3)":          "below its base",
		"exponential(300ms, 170%, 1000s)":               "floating point",
		"exponential(1s, 200%, 1m) & times(3000000000)": "32-bit",
	})
}
