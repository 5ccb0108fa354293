package grpcconfig

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recur-go/recur/schedule"
)

// a6Hedging is the hedgingPolicy example of gRFC A6.
const a6Hedging = `{
  "methodConfig": [{
    "name": [{"service": "EchoService"}],
    "hedgingPolicy": {
      "maxAttempts": 4,
      "hedgingDelay": "0.5s",
      "nonFatalStatusCodes": ["UNAVAILABLE", "INTERNAL", "ABORTED"]
    }
  }]
}`

// A6's example reads, becomes the schedule that starts a copy every
// 500ms up to four, and comes back the same, in its JSON form too.
func TestHedgingPolicyA6Example(t *testing.T) {
	sc, err := Parse([]byte(a6Hedging))
	if err != nil {
		t.Fatal(err)
	}
	mc, ok := sc.Lookup("/EchoService/Echo")
	if !ok || mc.HedgingPolicy == nil || mc.RetryPolicy != nil {
		t.Fatalf("Lookup = %+v, %v; want the hedging policy", mc, ok)
	}
	want := HedgingPolicy{MaxAttempts: 4, HedgingDelay: 500 * time.Millisecond, NonFatalStatusCodes: []Code{Unavailable, 13, 10}} // INTERNAL, ABORTED
	if diff := cmp.Diff(want, *mc.HedgingPolicy); diff != "" {
		t.Errorf("policy (-want +got):\n%s", diff)
	}
	s, err := mc.HedgingPolicy.Schedule()
	if err != nil {
		t.Fatal(err)
	}
	wantS := schedule.Intersect{A: schedule.Spaced{Every: 500 * time.Millisecond}, B: schedule.Times{N: 4}}
	if diff := cmp.Diff(schedule.Schedule(wantS), s); diff != "" {
		t.Errorf("schedule (-want +got):\n%s", diff)
	}
	back, err := HedgingFromSchedule(s)
	if err != nil {
		t.Fatal(err)
	}
	back.NonFatalStatusCodes = want.NonFatalStatusCodes
	if diff := cmp.Diff(want, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	b, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(`{"maxAttempts":4,"hedgingDelay":"0.500s","nonFatalStatusCodes":["UNAVAILABLE","INTERNAL","ABORTED"]}`, string(b)); diff != "" {
		t.Errorf("JSON (-want +got):\n%s", diff)
	}
	var again HedgingPolicy
	if err := json.Unmarshal(b, &again); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, again); diff != "" {
		t.Errorf("JSON round trip (-want +got):\n%s", diff)
	}
}

// With no hedgingDelay every copy goes at once: Times(n) alone, and back.
func TestHedgingPolicyZeroDelay(t *testing.T) {
	p := HedgingPolicy{MaxAttempts: 9}
	s, err := p.Schedule()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(schedule.Schedule(schedule.Times{N: 5}), s); diff != "" {
		t.Errorf("schedule, capped at A6's 5 (-want +got):\n%s", diff)
	}
	back, err := HedgingFromSchedule(schedule.Intersect{A: schedule.Times{N: 3}, B: schedule.Spaced{Every: time.Second}})
	if err != nil || back.MaxAttempts != 3 || back.HedgingDelay != time.Second {
		t.Errorf("HedgingFromSchedule = %+v, %v; want 3 copies a second apart", back, err)
	}
}

func TestHedgingPolicyErrors(t *testing.T) {
	for _, tc := range []struct{ name, config, want string }{
		{"both policies", `{"methodConfig": [{"name": [{}],
			"retryPolicy": {"maxAttempts": 2, "initialBackoff": "1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": [14]},
			"hedgingPolicy": {"maxAttempts": 2}}]}`,
			"grpcconfig: methodConfig[0] has both a retryPolicy and a hedgingPolicy; gRFC A6 allows one"},
		{"one attempt", `{"methodConfig": [{"name": [{}], "hedgingPolicy": {"maxAttempts": 1}}]}`,
			"grpcconfig: methodConfig[0].hedgingPolicy.maxAttempts must be at least 2; got 1"},
		{"negative delay", `{"methodConfig": [{"name": [{}], "hedgingPolicy": {"maxAttempts": 2, "hedgingDelay": "-1s"}}]}`,
			"grpcconfig: methodConfig[0].hedgingPolicy"},
		{"unknown code", `{"methodConfig": [{"name": [{}], "hedgingPolicy": {"maxAttempts": 2, "nonFatalStatusCodes": [99]}}]}`,
			"grpcconfig: methodConfig[0].hedgingPolicy: unknown status code \"99\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.config))
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("Parse: %v; want an error starting %q", err, tc.want)
			}
		})
	}
	for _, s := range []schedule.Schedule{
		schedule.Times{N: 1},
		schedule.Times{N: 6},
		schedule.Intersect{A: schedule.Exponential{Base: time.Millisecond, FactorPct: 200, Cap: time.Second}, B: schedule.Times{N: 3}},
		schedule.Spaced{Every: time.Second},
	} {
		if _, err := HedgingFromSchedule(s); !errors.Is(err, ErrNoEquivalent) {
			t.Errorf("HedgingFromSchedule(%v) = %v; want ErrNoEquivalent", s, err)
		}
	}
}

// A multiplier with a fraction of a percent converts exactly, and jitter
// with one has no A6 equivalent: neither is silently rounded.
func TestFromScheduleFractions(t *testing.T) {
	s := schedule.Intersect{
		A: schedule.Jittered{Inner: schedule.Exponential{Base: time.Second, FactorPct: 100, FactorFrac: 100, Cap: time.Minute}, LowPct: 0, HighPct: 100},
		B: schedule.Times{N: 3},
	}
	p, _, err := FromSchedule(s)
	if err != nil || p.BackoffMultiplier != 1.0001 {
		t.Errorf("FromSchedule = %+v, %v; want backoffMultiplier 1.0001", p, err)
	}
	s.A = schedule.Jittered{Inner: schedule.Exponential{Base: time.Second, FactorPct: 200, Cap: time.Minute}, LowPct: 0, HighPct: 99, HighFrac: 5000}
	if _, _, err := FromSchedule(s); !errors.Is(err, ErrNoEquivalent) {
		t.Errorf("FromSchedule of jitter 0–99.5%%: %v; want ErrNoEquivalent", err)
	}
}
