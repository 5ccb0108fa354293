package simulate_test

import (
	"context"
	"testing"
	"time"

	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/simulate"
)

var service = simulate.Latency{Median: 20 * time.Millisecond, P99: 200 * time.Millisecond}

// TestHedgeAtP95 is the rule of thumb the docs give: a hedge at the p95
// latency adds about 5% load and brings the p99 down to about the p95
// plus a typical answer.
func TestHedgeAtP95(t *testing.T) {
	p95 := service.Quantile(0.95)
	s := parse.MustParse("spaced(" + p95.Round(time.Millisecond).String() + ") & times(2)")
	r, err := simulate.Hedge(context.Background(), s, service, 100_000, 1)
	if err != nil {
		t.Fatal(err)
	}
	if r.Extra < 0.04 || r.Extra > 0.06 {
		t.Errorf("extra load %.3f, want about 0.05", r.Extra)
	}
	if limit := p95 + service.Quantile(0.8); r.Hedged.P99 > limit || r.Hedged.P99 >= r.Plain.P99 {
		t.Errorf("p99 %v hedged, %v plain: want it below the plain one and the p95 plus the p80, %v", r.Hedged.P99, r.Plain.P99, limit)
	}
	if r.Hedged.P50 != r.Plain.P50 {
		t.Errorf("p50 %v hedged, %v plain: a hedge at the p95 does not touch the median", r.Hedged.P50, r.Plain.P50)
	}
	t.Logf("%s: extra %.1f%%, p99 %v → %v", r.Policy, 100*r.Extra, r.Plain.P99, r.Hedged.P99)
}

// TestHedgeCosts: a hedge with no delay doubles the load; one that never
// fires costs nothing; one copy in all is the plain call.
func TestHedgeCosts(t *testing.T) {
	for _, tt := range []struct {
		policy   string
		min, max float64
	}{
		{"times(2)", 1, 1}, // two copies at once
		{"spaced(1h) & times(5)", 0, 0},
		{"times(1)", 0, 0},
		{"spaced(1ms)", 3, 99}, // copies until one answers, at most retry.MaxCopies
	} {
		r, err := simulate.Hedge(context.Background(), parse.MustParse(tt.policy), service, 2000, 7)
		if err != nil {
			t.Fatal(err)
		}
		if r.Extra < tt.min || r.Extra > tt.max {
			t.Errorf("%s: extra %.3f, want %v to %v", tt.policy, r.Extra, tt.min, tt.max)
		}
		if r.Hedged.P99 > r.Plain.P99 {
			t.Errorf("%s: hedged p99 %v above plain %v", tt.policy, r.Hedged.P99, r.Plain.P99)
		}
	}
}

func TestHedgeRefuses(t *testing.T) {
	ok := parse.MustParse("spaced(50ms) & times(3)")
	for name, f := range map[string]func() error{
		"bad latency": func() error {
			_, err := simulate.Hedge(context.Background(), ok, simulate.Latency{Median: time.Second, P99: time.Millisecond}, 10, 1)
			return err
		},
		"no calls": func() error { _, err := simulate.Hedge(context.Background(), ok, service, 0, 1); return err },
		"too many calls": func() error {
			_, err := simulate.Hedge(context.Background(), ok, service, simulate.MaxHedgeCalls+1, 1)
			return err
		},
		"done context": func() error {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			_, err := simulate.Hedge(ctx, ok, service, 5000, 1)
			return err
		},
	} {
		if f() == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestLatencyQuantile(t *testing.T) {
	if got := service.Quantile(0.5); got.Round(time.Millisecond) != service.Median {
		t.Errorf("median %v, want %v", got, service.Median)
	}
	if got := service.Quantile(0.99); got.Round(time.Millisecond) != service.P99 {
		t.Errorf("p99 %v, want %v", got, service.P99)
	}
}
