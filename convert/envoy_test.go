package convert

import "testing"

// TestFromEnvoy follows Envoy's documentation: the RetryPolicy message of
// route_components.proto (envoy.config.route.v3.RetryPolicy: num_retries
// "defaults to 1"; retry_back_off "default base interval is 25
// milliseconds", "default maximum interval is 10 times the base
// interval"; base_interval "required and must be greater than zero.
// Values less than 1 ms are rounded up to 1 ms"; max_interval "must be
// greater than or equal to the base_interval") and the router filter's
// x-envoy-max-retries section ("a fully jittered exponential back-off
// algorithm"). The ceilings follow Envoy's code,
// source/common/common/backoff_strategy.cc, which doubles from the base
// (0–24ms, 0–49ms, 0–99ms for the default); the router page still gives
// the older [0, (2^N−1)B) (0–24ms, 0–74ms, 0–174ms).
func TestFromEnvoy(t *testing.T) {
	runTable(t, Envoy, []tableCase{
		{name: "defaults", doc: `retry_on: 5xx`, want: "fulljitter(25ms, 250ms) & times(2)", notes: 1},
		{name: "no retry_on", doc: `{}`, want: "fulljitter(25ms, 250ms) & times(2)", notes: 2},
		{name: "three retries", doc: "retry_on: 5xx\nnum_retries: 3\nretry_back_off:\n  base_interval: 0.1s\n  max_interval: 1s\n",
			want: "fulljitter(100ms, 1s) & times(4)", notes: 1},
		{name: "max defaults to 10x base", doc: `{"retry_on": "reset", "retry_back_off": {"base_interval": "0.2s"}}`,
			want: "fulljitter(200ms, 2s) & times(2)", notes: 1},
		{name: "camel case, wrapped", doc: `{"retryPolicy": {"retryOn": "5xx", "numRetries": 2, "retryBackOff": {"baseInterval": "0.050s"}}}`,
			want: "fulljitter(50ms, 500ms) & times(3)", notes: 1},
		{name: "no retries", doc: "retry_on: 5xx\nnum_retries: 0\n", want: "times(1)", notes: 0},
		{name: "sub-millisecond base", doc: "retry_on: 5xx\nretry_back_off:\n  base_interval: 0.0005s\n  max_interval: 0.0015s\n",
			want: "fulljitter(1ms, 1ms) & times(2)", notes: 3},
		{name: "odd max", doc: "retry_on: 5xx\nnum_retries: 4\nretry_back_off:\n  base_interval: 0.025s\n  max_interval: 0.101s\n",
			want: "fulljitter(25ms, 101ms) & times(5)", notes: 2},
		{name: "the rest retained", doc: "retry_on: 5xx\nper_try_timeout: 2s\nretriable_status_codes: [503]\nretry_host_predicate:\n- name: envoy.retry_host_predicates.previous_hosts\nhost_selection_retry_max_attempts: 3\n",
			want: "fulljitter(25ms, 250ms) & times(2)", notes: 1},
		{name: "base required", doc: "retry_back_off:\n  max_interval: 1s\n", err: "retry_back_off: has no base_interval"},
		{name: "base zero", doc: "retry_back_off:\n  base_interval: 0s\n", err: "must be greater than zero"},
		{name: "max below base", doc: "retry_back_off:\n  base_interval: 1s\n  max_interval: 0.5s\n", err: "is less than base_interval"},
		{name: "unknown field", doc: "num_retry: 3\n", err: "num_retry: is not a field of Envoy's RetryPolicy"},
		{name: "unknown back-off field", doc: "retry_back_off:\n  base_interval: 1s\n  multiplier: 3\n", err: "retry_back_off.multiplier: is not a field"},
		{name: "negative retries", doc: "num_retries: -1\n", err: "num_retries: must be from 0 to 4294967295"},
		{name: "bad duration", doc: "per_try_timeout: 2\n", err: "per_try_timeout: want a string"},
	})
}

func TestEnvoyRoundTrip(t *testing.T) {
	roundTrip(t, Envoy, []string{
		"fulljitter(25ms, 250ms) & times(2)",
		"fulljitter(100ms, 1s) & times(4)",
		"fulljitter(100ms, 100ms) & times(3)",
		"fulljitter(25ms, 100ms) & times(6)",
		"times(1)",
	})
	refused(t, Envoy, map[string]string{
		"fulljitter(25ms, 250ms)":                                       "add a Times",
		"backoff(25ms, 250ms) & times(3)":                               "full jitter",
		"exponential(25ms, 200%, 250ms) & times(3)":                     "full jitter",
		"jittered(exponential(25ms, 150%, 250ms), 0%, 100%) & times(3)": "doubles",
		"fulljitter(25500us, 250ms) & times(3)":                         "whole milliseconds",
		"fulljitter(25ms, 101ms) & times(5)":                            "odd max_interval",
	})
}
