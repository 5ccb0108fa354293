package convert

import (
	"testing"

	"github.com/recur-go/recur/schedule"
)

// fuzzFormat checks, for any input, that reading never panics, that a
// schedule read is valid, and that a schedule the format can write reads
// back to the same value. testdata/fuzz/FuzzFORMAT holds a starting corpus.
func fuzzFormat(f *testing.F, format Format, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, err := Read(format, data)
		if err != nil {
			return
		}
		for _, r := range rs {
			if err := schedule.Validate(r.Schedule); err != nil {
				t.Fatalf("%s: invalid schedule %v: %v", r.Name, r.Schedule, err)
			}
			b, err := Write(format, r.Schedule)
			if err != nil {
				continue
			}
			back, err := Read(format, b)
			if err != nil {
				t.Fatalf("%v written as %s does not read back: %v", r.Schedule, b, err)
			}
			if !schedule.Equal(back[0].Schedule, r.Schedule) {
				t.Fatalf("%v written as %s reads back as %v", r.Schedule, b, back[0].Schedule)
			}
		}
	})
}

func FuzzTemporal(f *testing.F) {
	fuzzFormat(f, Temporal, `{"initialInterval": "1s", "backoffCoefficient": 2, "maximumInterval": "100s", "maximumAttempts": 5}`,
		`{"backoffCoefficient": 1.7, "initialInterval": "0.3s"}`, `{"maximumAttempts": 1}`)
}

func FuzzResilience4j(f *testing.F) {
	fuzzFormat(f, Resilience4j, "resilience4j.retry:\n  instances:\n    a:\n      maxAttempts: 4\n      waitDuration: 100ms\n      enableExponentialBackoff: true\n      exponentialBackoffMultiplier: 2\n",
		"resilience4j.retry.configs.default.waitDuration: PT1S\nresilience4j.retry.instances.b.enableRandomizedWait: true\n")
}

func FuzzEnvoy(f *testing.F) {
	fuzzFormat(f, Envoy, "retry_on: 5xx\nnum_retries: 3\nretry_back_off:\n  base_interval: 0.1s\n  max_interval: 1s\n",
		`{"retryPolicy": {"numRetries": 2, "retryBackOff": {"baseInterval": "0.025s", "maxInterval": "0.101s"}}}`)
}

func FuzzPolly(f *testing.F) {
	fuzzFormat(f, Polly, `{"MaxRetryAttempts": 4, "BackoffType": "Exponential", "UseJitter": true, "Delay": "00:00:00.200", "MaxDelay": "00:00:05"}`,
		`{"BackoffType": "Linear", "Delay": "1.00:00:00"}`)
}

func FuzzGRPC(f *testing.F) {
	fuzzFormat(f, GRPC, `{"maxAttempts": 4, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}`,
		`{"methodConfig": [{"name": [{"service": "a.A"}], "retryPolicy": {"maxAttempts": 3, "initialBackoff": "1s", "maxBackoff": "5s", "backoffMultiplier": 1.5, "retryableStatusCodes": ["UNAVAILABLE"]}}]}`)
}
