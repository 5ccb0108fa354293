package promrecur_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"slices"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/httpretry"
	"github.com/recur-go/recur/promrecur"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
)

// An HTTP client whose retries, breakers and budgets are on /metrics.
func Example() {
	breakers, err := breaker.NewRegistry(breaker.Config{}, 0)
	if err != nil {
		log.Fatal(err)
	}
	budgets, err := budget.NewRegistry(budget.TokenBucketConfig{}, 0)
	if err != nil {
		log.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	m, err := promrecur.New(promrecur.Config{Client: "payments", Registerer: reg, Breaker: breakers, Budget: budgets})
	if err != nil {
		log.Fatal(err)
	}
	tr, err := httpretry.New(nil, "fulljitter(100ms, 2s) & times(3)")
	if err != nil {
		log.Fatal(err)
	}
	tr.Breaker, tr.Budget, tr.Options.Observer = breakers, budgets, m
	client := &http.Client{Transport: tr}
	_ = client // make the program's calls with it

	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	_ = mux // serve it: http.ListenAndServe("127.0.0.1:9464", mux)
}

// The Metrics is the Observer of retry.Do; each retry counts under the
// reason label of the judgement that asked for it.
func ExampleMetrics_Observe() {
	reg := prometheus.NewRegistry()
	m, err := promrecur.New(promrecur.Config{Client: "ledger", Registerer: reg})
	if err != nil {
		log.Fatal(err)
	}
	busy := errors.New("busy")
	judge := func(_ string, err error) retry.Judgement {
		switch {
		case errors.Is(err, busy):
			return retry.Judgement{Verdict: verdict.Retryable, Reason: "busy"}
		case err != nil:
			return retry.Judgement{Verdict: verdict.Transient}
		}
		return retry.Judgement{Verdict: verdict.Success}
	}
	answers := []error{busy, errors.New("reset"), nil}
	o := retry.Options{Target: "ledger-db:5432", Observer: m}
	retry.Do(context.Background(), o, schedule.Times{N: 3}, judge, nil, func(context.Context) (string, error) {
		err := answers[0]
		answers = answers[1:]
		return "ok", err
	})

	printCounters(reg, "recur_retries_total", "recur_recoveries_total", "recur_calls_total")
	// Output:
	// recur_calls_total{client="ledger",target="ledger-db:5432"} 1
	// recur_recoveries_total{client="ledger",target="ledger-db:5432"} 1
	// recur_retries_total{client="ledger",reason="busy",target="ledger-db:5432"} 1
	// recur_retries_total{client="ledger",reason="unlabeled",target="ledger-db:5432"} 1
}

// A breaker that no Registry holds is added by hand.
func ExampleMetrics_AddBreaker() {
	reg := prometheus.NewRegistry()
	m, err := promrecur.New(promrecur.Config{Client: "ledger", Registerer: reg})
	if err != nil {
		log.Fatal(err)
	}
	b, err := breaker.New(breaker.Config{Name: "ledger-db"})
	if err != nil {
		log.Fatal(err)
	}
	if err := m.AddBreaker("ledger-db:5432", b); err != nil {
		log.Fatal(err)
	}
	b.ForceOpen()
	b.Allow()
	printCounters(reg, "recur_breaker_state", "recur_breaker_rejected_total")
	// Output:
	// recur_breaker_rejected_total{client="ledger",target="ledger-db:5432"} 1
	// recur_breaker_state{client="ledger",target="ledger-db:5432"} 2
}

// printCounters prints the samples of the counters and gauges named.
func printCounters(reg *prometheus.Registry, names ...string) {
	fams, err := reg.Gather() // sorted by name, then labels
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range fams {
		if !slices.Contains(names, f.GetName()) {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := ""
			for i, l := range m.GetLabel() {
				if i > 0 {
					labels += ","
				}
				labels += fmt.Sprintf("%s=%q", l.GetName(), l.GetValue())
			}
			v := m.GetCounter().GetValue() + m.GetGauge().GetValue()
			fmt.Printf("%s{%s} %v\n", f.GetName(), labels, v)
		}
	}
}
