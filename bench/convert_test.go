package bench

// Package convert's mappings, checked against the peers' own code where
// it is Go. Temporal: the SDK's test workflow environment runs an activity
// that always fails under a RetryPolicy, and retries it with the SDK's own
// backoff (internal.getRetryBackoffWithNowTime, which is not exported; the
// environment is), on its mock clock; the waits between attempts are
// compared with recur's, attempt by attempt. Envoy: its back-off is C++,
// so go-control-plane's generated types check that the JSON convert reads
// and writes is a valid envoy.config.route.v3.RetryPolicy (protojson and
// the proto's validation rules), and the ceilings of Envoy's
// JitteredExponentialBackOffStrategy, transcribed below from
// source/common/common/backoff_strategy.cc, are compared with the bounds
// of recur's draws.

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"github.com/recur-go/recur/convert"
	"github.com/recur-go/recur/interp"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/schedule"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/activity"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/durationpb"
)

// temporalWaits runs an always-failing activity under p in the SDK's test
// environment and returns the waits between its attempts.
func temporalWaits(t *testing.T, p *temporal.RetryPolicy) []time.Duration {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(tlog.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	env := s.NewTestWorkflowEnvironment()
	var starts []time.Time
	env.RegisterActivityWithOptions(func(ctx context.Context) error {
		starts = append(starts, env.Now())
		return errors.New("the target is down")
	}, activity.RegisterOptions{Name: "fail"})
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context) error {
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Hour, RetryPolicy: p})
		return workflow.ExecuteActivity(ctx, "fail").Get(ctx, nil)
	}, workflow.RegisterOptions{Name: "retrying"})
	env.ExecuteWorkflow("retrying")
	if !env.IsWorkflowCompleted() || env.GetWorkflowError() == nil {
		t.Fatalf("the workflow did not fail: %v", env.GetWorkflowError())
	}
	var waits []time.Duration
	for i := 1; i < len(starts); i++ {
		waits = append(waits, starts[i].Sub(starts[i-1]))
	}
	return waits
}

// TestConvertTemporalSideBySide converts Temporal retry policies, written
// by the SDK's own protobuf JSON, to schedules, runs both, and compares
// the attempts and every wait.
func TestConvertTemporalSideBySide(t *testing.T) {
	for _, tc := range []struct {
		policy *commonpb.RetryPolicy
		// exact: the waits agree to the nanosecond, and convert gives no
		// note; otherwise they differ by at most the note's few ns.
		exact bool
	}{
		{&commonpb.RetryPolicy{InitialInterval: dur(time.Second), BackoffCoefficient: 2, MaximumInterval: dur(100 * time.Second), MaximumAttempts: 10}, true},
		{&commonpb.RetryPolicy{InitialInterval: dur(100 * time.Millisecond), BackoffCoefficient: 1.5, MaximumInterval: dur(10 * time.Second), MaximumAttempts: 15}, false},
		{&commonpb.RetryPolicy{InitialInterval: dur(time.Second), BackoffCoefficient: 1.5, MaximumInterval: dur(time.Minute), MaximumAttempts: 10}, true},
		{&commonpb.RetryPolicy{InitialInterval: dur(5 * time.Second), BackoffCoefficient: 1, MaximumInterval: dur(5 * time.Second), MaximumAttempts: 4}, true},
		{&commonpb.RetryPolicy{InitialInterval: dur(2 * time.Second), BackoffCoefficient: 3, MaximumInterval: dur(time.Minute), MaximumAttempts: 8}, true},
		{&commonpb.RetryPolicy{InitialInterval: dur(300 * time.Millisecond), BackoffCoefficient: 1.7, MaximumInterval: dur(1000 * time.Second), MaximumAttempts: 14}, false},
		{&commonpb.RetryPolicy{InitialInterval: dur(time.Second), BackoffCoefficient: 1.1, MaximumInterval: dur(time.Hour), MaximumAttempts: 20}, false},
	} {
		data, err := protojson.Marshal(tc.policy)
		if err != nil {
			t.Fatal(err)
		}
		r, err := convert.FromTemporal(data)
		if err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		got := recurWaits(r.Schedule, 100)
		want := temporalWaits(t, &temporal.RetryPolicy{
			InitialInterval:    tc.policy.InitialInterval.AsDuration(),
			BackoffCoefficient: tc.policy.BackoffCoefficient,
			MaximumInterval:    tc.policy.MaximumInterval.AsDuration(),
			MaximumAttempts:    tc.policy.MaximumAttempts,
		})
		if len(got) != len(want) {
			t.Fatalf("%s: recur waits %d times, Temporal %d", data, len(got), len(want))
		}
		var most time.Duration
		for k := range got {
			most = max(most, absDur(got[k]-want[k]))
		}
		switch {
		case tc.exact && (most != 0 || len(r.Notes) != 0):
			t.Errorf("%s: waits differ by up to %v (notes %q); want them equal", data, most, r.Notes)
		case !tc.exact && (len(r.Notes) != 1 || most == 0 || most > 100*time.Nanosecond):
			t.Errorf("%s: waits differ by up to %v; notes %q", data, most, r.Notes)
		case !tc.exact && !strings.Contains(r.Notes[0], "up to "+most.String()):
			t.Errorf("%s: the SDK's waits differ by up to %v, but the note says %q", data, most, r.Notes[0])
		}
		t.Logf("%s → %v: %d attempts; waits %v; largest difference %v", data, r.Schedule, len(got)+1, want, most)

		// And back: the JSON ToTemporal writes is a RetryPolicy protojson reads.
		if b, err := convert.ToTemporal(r.Schedule); err == nil {
			var back commonpb.RetryPolicy
			if err := protojson.Unmarshal(b, &back); err != nil {
				t.Errorf("%s: protojson refuses %s: %v", data, b, err)
			} else if back.MaximumAttempts != tc.policy.MaximumAttempts || back.InitialInterval.AsDuration() != tc.policy.InitialInterval.AsDuration() ||
				back.MaximumInterval.AsDuration() != tc.policy.MaximumInterval.AsDuration() || back.BackoffCoefficient != tc.policy.BackoffCoefficient {
				t.Errorf("%s written back as %s", data, b)
			}
		} else if tc.exact {
			t.Errorf("%v: %v", r.Schedule, err)
		}
	}
}

// recurWaits returns the waits of a run of s whose attempts take no time.
func recurWaits(s schedule.Schedule, most int) []time.Duration {
	var out []time.Duration
	for d := range interp.Delays(s, 1) {
		if len(out) == most {
			break
		}
		out = append(out, d)
	}
	return out
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// envoyCeilings transcribes Envoy's JitteredExponentialBackOffStrategy
// (source/common/common/backoff_strategy.cc): the ceiling of each retry,
// in milliseconds; the retry waits random() % ceiling.
func envoyCeilings(baseMS, maxMS uint64, retries int) []uint64 {
	next, doublingLimit := baseMS, maxMS/2
	var out []uint64
	for range retries {
		out = append(out, next)
		if next < doublingLimit {
			next *= 2
		} else {
			next = maxMS
		}
	}
	return out
}

// TestConvertEnvoySideBySide reads Envoy retry policies with
// go-control-plane's types and with convert, checks they agree on every
// field that shapes the schedule, and compares the range of each retry's
// wait with Envoy's algorithm over many draws.
func TestConvertEnvoySideBySide(t *testing.T) {
	for _, doc := range []string{
		`{"retry_on": "5xx"}`,
		`{"retry_on": "5xx,reset", "num_retries": 4, "retry_back_off": {"base_interval": "0.1s", "max_interval": "1s"}}`,
		`{"retryOn": "gateway-error", "numRetries": 6, "retryBackOff": {"baseInterval": "0.025s", "maxInterval": "0.1s"}, "perTryTimeout": "2s"}`,
		`{"retry_on": "5xx", "num_retries": 5, "retry_back_off": {"base_interval": "0.025s", "max_interval": "0.101s"}}`,
		`{"retry_on": "5xx", "num_retries": 3, "retry_back_off": {"base_interval": "0.0005s"}}`,
	} {
		var rp routev3.RetryPolicy
		if err := protojson.Unmarshal([]byte(doc), &rp); err != nil {
			t.Fatalf("%s: go-control-plane: %v", doc, err)
		}
		if err := rp.ValidateAll(); err != nil {
			t.Fatalf("%s: go-control-plane: %v", doc, err)
		}
		r, err := convert.FromEnvoy([]byte(doc))
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		// What Envoy's RetryPolicyImpl makes of the proto.
		retries := 1
		if rp.NumRetries != nil {
			retries = int(rp.NumRetries.Value)
		}
		baseMS, maxMS := uint64(25), uint64(0)
		if b := rp.RetryBackOff; b != nil {
			baseMS = max(1, uint64(b.BaseInterval.AsDuration()/time.Millisecond))
			if b.MaxInterval != nil {
				maxMS = max(1, uint64(b.MaxInterval.AsDuration()/time.Millisecond))
			}
		}
		if maxMS == 0 {
			maxMS = 10 * baseMS
		}
		ceilings := envoyCeilings(baseMS, maxMS, retries)

		// recur's draws over many seeds: each wait within [0, ceiling];
		// Envoy's within [0, ceiling − 1ms], whole milliseconds.
		n := 4000
		highs := make([]time.Duration, retries)
		sums := make([]float64, retries)
		envoySums := make([]float64, retries)
		rng := rand.New(rand.NewPCG(1, 2))
		for seed := range uint64(n) {
			k := 0
			for d := range interp.Delays(r.Schedule, seed) {
				c := time.Duration(ceilings[k]) * time.Millisecond
				if d < 0 || d > c {
					t.Fatalf("%s: retry %d waits %v, outside Envoy's [0, %v)", doc, k+1, d, c)
				}
				highs[k] = max(highs[k], d)
				sums[k] += float64(d)
				envoySums[k] += float64(time.Duration(rng.Uint64()%ceilings[k]) * time.Millisecond)
				k++
			}
			if k != retries {
				t.Fatalf("%s: recur retries %d times; Envoy %d", doc, k, retries)
			}
		}
		for k := range retries {
			c := time.Duration(ceilings[k]) * time.Millisecond
			if highs[k] < c*9/10 {
				t.Errorf("%s: retry %d: recur's waits reach only %v of Envoy's ceiling %v", doc, k+1, highs[k], c)
			}
			mean, envoyMean := sums[k]/float64(n), envoySums[k]/float64(n)
			if diff := mean - envoyMean; diff > float64(c)/20+float64(time.Millisecond) || -diff > float64(c)/20+float64(time.Millisecond) {
				t.Errorf("%s: retry %d: mean wait %v, Envoy's %v", doc, k+1, time.Duration(mean), time.Duration(envoyMean))
			}
		}
		t.Logf("%s → %v; Envoy's ceilings %vms; notes %q", doc, r.Schedule, ceilings, r.Notes)
	}
}

// TestConvertEnvoyWritten checks that what ToEnvoy writes is a valid
// envoy.config.route.v3.RetryPolicy with the schedule's attempts and
// back-off, and Envoy's ceilings equal to recur's.
func TestConvertEnvoyWritten(t *testing.T) {
	for _, p := range []string{"fulljitter(25ms, 250ms) & times(2)", "fulljitter(100ms, 1s) & times(5)", "fulljitter(50ms, 50ms) & times(3)", "times(1)"} {
		s := parse.MustParse(p)
		b, err := convert.ToEnvoy(s)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		var rp routev3.RetryPolicy
		if err := protojson.Unmarshal(b, &rp); err != nil {
			t.Fatalf("%s: go-control-plane refuses %s: %v", p, b, err)
		}
		if err := rp.ValidateAll(); err != nil {
			t.Fatalf("%s: %s: %v", p, b, err)
		}
		bounds := schedule.Bounds(s)
		if int64(rp.NumRetries.GetValue())+1 != int64(bounds.MaxAttempts) {
			t.Errorf("%s: num_retries %d; recur makes %d attempts", p, rp.NumRetries.GetValue(), bounds.MaxAttempts)
		}
		if rp.RetryBackOff == nil {
			continue
		}
		ceilings := envoyCeilings(uint64(rp.RetryBackOff.BaseInterval.AsDuration()/time.Millisecond), uint64(rp.RetryBackOff.MaxInterval.AsDuration()/time.Millisecond), int(rp.NumRetries.GetValue()))
		inner, _ := s.(schedule.Intersect)
		exp := inner.A.(schedule.Jittered).Inner
		k := 0
		for d := range interp.Delays(exp, 0) {
			if k == len(ceilings) {
				break
			}
			if d != time.Duration(ceilings[k])*time.Millisecond {
				t.Errorf("%s: ceiling %d: recur %v, Envoy %dms", p, k+1, d, ceilings[k])
			}
			k++
		}
	}
}

func dur(d time.Duration) *durationpb.Duration { return durationpb.New(d) }
