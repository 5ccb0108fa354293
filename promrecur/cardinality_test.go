package promrecur_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/promrecur"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
)

// TestCardinality: 10,000 distinct targets, each called once through
// retry.Do with its own breaker and budget and a retry whose reason is
// one of 100, give every series at most 257 target values (256 and
// "(other)") and recur_retries_total at most 33 reasons; and no call is
// lost in the folding.
func TestCardinality(t *testing.T) {
	const n = 10_000
	clock := clockcap.Virtual(epoch)
	// The breaker registry's cap is above the client's, so the client's
	// own cap is what bounds the breaker series; the budget registry
	// keeps its default cap of 256.
	breakers, err := breaker.NewRegistry(breaker.Config{Clock: clock}, 2*n)
	if err != nil {
		t.Fatal(err)
	}
	budgets, err := budget.NewRegistry(budget.TokenBucketConfig{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	m, err := promrecur.New(promrecur.Config{Client: "crawler", Registerer: reg, Breaker: breakers, Budget: budgets})
	if err != nil {
		t.Fatal(err)
	}
	x := newExporter(t, reg)

	failOnce := errors.New("busy")
	for i := range n {
		target := fmt.Sprintf("https://host-%05d.example:443", i)
		o := retry.Options{Caps: retry.Caps{Clock: clock}, Target: target, Observer: m,
			Breaker: breakers.Get(target), Budget: budgets.Get(target)}
		tries := 0
		judge := func(_ int, err error) retry.Judgement {
			if err != nil {
				return retry.Judgement{Verdict: verdict.Transient, Reason: fmt.Sprintf("reason-%02d", i%100)}
			}
			return retry.Judgement{Verdict: verdict.Success}
		}
		// A hedge of each target, by its events: the hedge series are
		// bounded as the others are.
		for _, k := range []retry.EventKind{retry.Hedged, retry.HedgeWon, retry.HedgeCanceled} {
			m.Observe(context.Background(), retry.Event{Kind: k, Target: target, Attempt: 2})
		}
		retry.Do(context.Background(), o, schedule.Times{N: 2}, judge, nil, func(context.Context) (int, error) {
			if tries++; tries == 1 {
				return 0, failOnce
			}
			return 0, nil
		})
	}

	fams := x.families()
	for _, name := range promrecur.Names() {
		f := fams[name]
		if f == nil {
			t.Errorf("%s: not exported", name)
			continue
		}
		values := labelValues(fams, name, "target")
		if len(values) > promrecur.DefaultMaxTargets+1 {
			t.Errorf("%s: %d target values, want at most %d", name, len(values), promrecur.DefaultMaxTargets+1)
		}
		if values[0] != promrecur.Overflow { // "(" sorts before "h"
			t.Errorf("%s: no %q target among %d", name, promrecur.Overflow, len(values))
		}
	}
	if got := labelValues(fams, "recur_retries_total", "reason"); len(got) != promrecur.MaxReasons+1 {
		t.Errorf("recur_retries_total: %d reasons, want %d: %v", len(got), promrecur.MaxReasons+1, got)
	}

	// Folding loses nothing: every call is counted, and every first
	// failure was retried (and recovered) or throttled, the targets past
	// the budget registry's cap sharing one budget.
	sums := map[string]float64{}
	for k, v := range x.scrape("crawler") {
		name, _, _ := strings.Cut(k, "{")
		sums[name] += v
	}
	got := map[string]float64{
		"calls":                sums["recur_calls_total"],
		"retries + throttled":  sums["recur_retries_total"] + sums["recur_retries_throttled_total"],
		"recoveries - retries": sums["recur_recoveries_total"] - sums["recur_retries_total"],
		"transient attempts":   sums["recur_attempts_total"] - sums["recur_recoveries_total"],
	}
	want := map[string]float64{"calls": n, "retries + throttled": n, "recoveries - retries": 0, "transient attempts": n}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sums over targets (-want +got):\n%s", diff)
	}
}
