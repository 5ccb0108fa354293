package convert

import (
	"testing"
	"time"
)

// TestFromPolly follows Polly's documentation: the Retry resilience
// strategy page (pollydocs.org/strategies/retry: "Defaults": MaxRetryAttempts
// 3, BackoffType Constant, Delay 2 seconds, MaxDelay null, UseJitter
// false; "Calculation of the next delay": constant Delay, linear
// (attempt+1)·Delay, exponential 2^attempt·Delay; with UseJitter, ±25% for
// constant and linear, DecorrelatedJitterBackoffV2 for exponential;
// MaxDelay caps it) and RetryStrategyOptions' XML docs ("To retry
// indefinitely use int.MaxValue"; Delay and MaxDelay range 00:00:00 to
// 1.00:00:00).
func TestFromPolly(t *testing.T) {
	runTable(t, Polly, []tableCase{
		{name: "defaults", doc: `{}`, want: "exponential(2s, 100%, 2s) & times(4)"},
		{name: "linear", doc: `{"BackoffType": "Linear", "Delay": "00:00:01"}`, want: "linear(1s) & times(4)"},
		{name: "exponential", doc: `{"BackoffType": "Exponential", "Delay": "00:00:00.100", "MaxRetryAttempts": 5}`,
			want: "exponential(100ms, 200%, 2562047h47m16.854775807s) & times(6)"},
		{name: "exponential capped", doc: `{"BackoffType": "Exponential", "Delay": "00:00:00.100", "MaxDelay": "00:00:02"}`,
			want: "exponential(100ms, 200%, 2s) & times(4)"},
		{name: "constant jitter", doc: `{"UseJitter": true, "Delay": "00:00:01"}`, want: "jittered(exponential(1s, 100%, 1s), 75%, 125%) & times(4)"},
		{name: "linear jitter capped", doc: `{"BackoffType": "Linear", "UseJitter": true, "Delay": "00:00:01", "MaxDelay": "00:00:03"}`,
			want: "capped(jittered(linear(1s), 75%, 125%), 3s) & times(4)"},
		{name: "exponential jitter is decorrelated v2", doc: `{"BackoffType": "Exponential", "UseJitter": true, "Delay": "00:00:00.2", "MaxDelay": "00:00:05", "MaxRetryAttempts": 4}`,
			want: "capped(decorrelatedv2(200ms), 5s) & times(5)"},
		{name: "constant above max", doc: `{"Delay": "00:00:05", "MaxDelay": "00:00:02"}`, want: "exponential(2s, 100%, 2s) & times(4)"},
		{name: "forever", doc: `{"MaxRetryAttempts": 2147483647, "Delay": "00:00:01"}`, want: "exponential(1s, 100%, 1s)"},
		{name: "no delay", doc: `{"Delay": "00:00:00", "BackoffType": "Exponential"}`, want: "times(4)"},
		{name: "keys in any case, numbers as strings", doc: `{"maxretryattempts": "2", "backofftype": "2", "usejitter": "True", "delay": "0:0:1"}`,
			want: "decorrelatedv2(1s) & times(3)"},
		{name: "days, minutes", doc: `{"Delay": "1.00:00:00", "MaxRetryAttempts": 1}`, want: "exponential(24h, 100%, 24h) & times(2)"},
		{name: "a bare number is days", doc: `{"Delay": "1"}`, want: "exponential(24h, 100%, 24h) & times(4)", notes: 1},
		{name: "hh:mm", doc: `{"Delay": "00:01"}`, want: "exponential(1m, 100%, 1m) & times(4)"},
		{name: "exponential for ever notes 292 years", doc: `{"BackoffType": "Exponential", "MaxRetryAttempts": 2147483647}`,
			want: "exponential(2s, 200%, 2562047h47m16.854775807s)", notes: 1},
		{name: "zero retries", doc: `{"MaxRetryAttempts": 0}`, err: "MaxRetryAttempts: must be from 1 to 2147483647"},
		{name: "delay above a day", doc: `{"Delay": "2.00:00:00"}`, err: "Delay: must be from 00:00:00 to 1.00:00:00"},
		{name: "negative delay", doc: `{"Delay": "-00:00:01"}`, err: "Delay: must be from"},
		{name: "bad backoff", doc: `{"BackoffType": "Fibonacci"}`, err: "want Constant, Linear or Exponential"},
		{name: "bad time span", doc: `{"Delay": "2s"}`, err: `Delay: TimeSpan "2s"`},
		{name: "minutes out of range", doc: `{"Delay": "00:60:00"}`, err: "60 is more than 59"},
		{name: "a delegate", doc: `{"ShouldHandle": "x"}`, err: "is a delegate", noEquiv: true},
		{name: "unknown", doc: `{"MaxRetries": 3}`, err: "MaxRetries: is not a field of Polly's RetryStrategyOptions"},
	})
}

func TestTimeSpan(t *testing.T) {
	for s, want := range map[string]time.Duration{
		"00:00:02": 2 * time.Second, "1.02:03:04.5": 26*time.Hour + 3*time.Minute + 4500*time.Millisecond,
		"0:0:0.0000001": 100, "3": 72 * time.Hour, "1:02:03:04": 26*time.Hour + 3*time.Minute + 4*time.Second,
	} {
		got, err := parseTimeSpan(s)
		if err != nil || got != want {
			t.Errorf("parseTimeSpan(%q) = %v, %v; want %v", s, got, err, want)
		}
		if back, _ := parseTimeSpan(formatTimeSpan(want)); back != want {
			t.Errorf("formatTimeSpan(%v) = %q reads back as %v", want, formatTimeSpan(want), back)
		}
	}
}

func TestPollyRoundTrip(t *testing.T) {
	roundTrip(t, Polly, []string{
		"exponential(2s, 100%, 2s) & times(4)",
		"linear(1s) & times(4)",
		"capped(linear(1s), 5s) & times(10)",
		"exponential(100ms, 200%, 2s) & times(6)",
		"exponential(100ms, 200%, 2562047h47m16.854775807s) & times(6)",
		"jittered(exponential(1s, 100%, 1s), 75%, 125%) & times(4)",
		"capped(jittered(linear(1s), 75%, 125%), 3s) & times(4)",
		"capped(decorrelatedv2(200ms), 5s) & times(5)",
		"decorrelatedv2(1s)",
		"times(4)",
		"forever",
	})
	refused(t, Polly, map[string]string{
		"times(1)":                                          "Times(1) makes no retry",
		"fulljitter(100ms, 2s) & times(3)":                  "75% to 125%",
		"exponential(100ms, 150%, 2s) & times(3)":           "doubles",
		"linear(1s, 2s) & times(3)":                         "adds its base",
		"exponential(100ms, 200%, 48h) & times(3)":          "at most a day",
		"exponential(150ns, 200%, 2s) & times(3)":           "whole ticks",
		"capped(exponential(1s, 200%, 1m), 10s) & times(3)": "cap an exponential with its own cap",
		"fibonacci(1s) & times(3)":                          "none of Polly's backoffs",
	})
}
