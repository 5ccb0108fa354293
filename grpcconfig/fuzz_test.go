package grpcconfig

import (
	"testing"

	"github.com/recur-go/recur/schedule"
)

// FuzzParse: any input either fails to parse with an error or yields
// policies that convert to valid schedules or fail with an error; nothing
// panics.
func FuzzParse(f *testing.F) {
	f.Add([]byte(fullConfig))
	f.Add([]byte(`{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 3, "initialBackoff": "1.5s", "maxBackoff": "0.5s", "backoffMultiplier": 0.5, "retryableStatusCodes": [14]}}]}`))
	f.Add([]byte(`{"retryThrottling": {"maxTokens": 3, "tokenRatio": 1e-300}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := Parse(data)
		if err != nil {
			return
		}
		for _, m := range sc.Methods {
			if m.RetryPolicy == nil {
				continue
			}
			for _, j := range []Jitter{FullJitter, PlusMinus20} {
				s, err := m.RetryPolicy.Schedule(j)
				if err != nil {
					continue
				}
				if err := schedule.Validate(s); err != nil {
					t.Fatalf("%+v converts to an invalid schedule %v: %v", m.RetryPolicy, s, err)
				}
				m.RetryPolicy.Notes()
			}
		}
	})
}
