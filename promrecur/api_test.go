package promrecur_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/promrecur"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/verdict"
)

// TestNewErrors: a Config that cannot work is an error from New, which
// names every problem, and nothing is registered.
func TestNewErrors(t *testing.T) {
	reg := prometheus.NewRegistry()
	cases := []struct {
		name string
		c    promrecur.Config
		want []string
	}{
		{"no client", promrecur.Config{Registerer: reg}, []string{"empty Config.Client"}},
		{"bad client", promrecur.Config{Client: "\xff", Registerer: reg}, []string{"not valid UTF-8"}},
		{"no registerer", promrecur.Config{Client: "a"}, []string{"nil Config.Registerer"}},
		{"negative cap", promrecur.Config{Client: "a", Registerer: reg, MaxTargets: -1}, []string{"negative Config.MaxTargets -1"}},
		{"empty buckets", promrecur.Config{Client: "a", Registerer: reg, Buckets: []float64{}}, []string{"empty Config.Buckets"}},
		{"unsorted buckets", promrecur.Config{Client: "a", Registerer: reg, Buckets: []float64{1, 0.5}}, []string{"do not increase: [1] = 0.5 after 1"}},
		{"everything", promrecur.Config{MaxTargets: -2}, []string{"empty Config.Client", "nil Config.Registerer", "negative Config.MaxTargets -2"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := promrecur.New(tc.c)
			if err == nil || m != nil {
				t.Fatalf("New = %v, %v; want an error", m, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
	if fams, err := reg.Gather(); err != nil || len(fams) != 0 {
		t.Errorf("registry after failed News: %d families, %v; want none", len(fams), err)
	}
}

// TestClientsShareRegistry: two clients' metrics live on one registry,
// told apart by the client label; a second Metrics for a client already
// there is an error until the first is unregistered.
func TestClientsShareRegistry(t *testing.T) {
	reg := prometheus.NewRegistry()
	a, err := promrecur.New(promrecur.Config{Client: "payments", Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	b, err := promrecur.New(promrecur.Config{Client: "search", Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a.Observe(ctx, retry.Event{Kind: retry.Attempted, Target: "db", Attempt: 1})
	b.Observe(ctx, retry.Event{Kind: retry.Attempted, Target: "db", Attempt: 1})
	b.Observe(ctx, retry.Event{Kind: retry.Attempted, Target: "db", Attempt: 1})

	x := newExporter(t, reg)
	fams := x.families()
	got := map[string]float64{}
	for _, m := range fams["recur_calls_total"].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "client" {
				got[l.GetValue()] = m.GetCounter().GetValue()
			}
		}
	}
	if diff := cmp.Diff(map[string]float64{"payments": 1, "search": 2}, got); diff != "" {
		t.Errorf("recur_calls_total by client (-want +got):\n%s", diff)
	}

	if _, err := promrecur.New(promrecur.Config{Client: "payments", Registerer: reg}); err == nil ||
		!strings.Contains(err.Error(), `client "payments" is already registered`) {
		t.Errorf("a second New for payments: %v; want already registered", err)
	}
	if !a.Unregister() {
		t.Fatal("Unregister = false")
	}
	if _, err := promrecur.New(promrecur.Config{Client: "payments", Registerer: reg}); err != nil {
		t.Errorf("New after Unregister: %v", err)
	}
}

// TestFolding: past MaxTargets, breakers are reported together under
// "(other)" with the worst state and their counters added, token buckets
// with the fewest tokens; a target once shown keeps its series even when
// a target that sorts before it comes later; lone breakers and budgets
// count as well, and Ratio budgets show no tokens.
func TestFolding(t *testing.T) {
	breakers, err := breaker.NewRegistry(breaker.Config{}, 100)
	if err != nil {
		t.Fatal(err)
	}
	budgets, err := budget.NewRegistry(budget.TokenBucketConfig{}, 100)
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	m, err := promrecur.New(promrecur.Config{Client: "c", Registerer: reg, Breaker: breakers, Budget: budgets, MaxTargets: 2})
	if err != nil {
		t.Fatal(err)
	}
	x := newExporter(t, reg)
	for _, target := range []string{"b", "c"} {
		breakers.Get(target)
		budgets.Get(target)
	}
	x.scrape("c") // b and c take the two places
	breakers.Get("a").ForceOpen()
	breakers.Get("d").Reset()
	drain := budgets.Get("a")
	drain.Record(verdict.Transient)
	drain.Record(verdict.Transient)
	lone, err := breaker.New(breaker.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.AddBreaker("e", lone); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		lone.Allow() // closed: let through, never recorded
	}
	ratio, err := budget.NewRatio(budget.RatioConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.AddBudget("f", ratio); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		`recur_breaker_state{target="b"}`:                0,
		`recur_breaker_state{target="c"}`:                0,
		`recur_breaker_state{target="(other)"}`:          2, // a is forced open
		`recur_breaker_opened_total{target="b"}`:         0,
		`recur_breaker_opened_total{target="c"}`:         0,
		`recur_breaker_opened_total{target="(other)"}`:   0, // an operator's opening is not counted
		`recur_breaker_rejected_total{target="b"}`:       0,
		`recur_breaker_rejected_total{target="c"}`:       0,
		`recur_breaker_rejected_total{target="(other)"}`: 0,
		`recur_budget_tokens{target="b"}`:                10,
		`recur_budget_tokens{target="c"}`:                10,
		`recur_budget_tokens{target="(other)"}`:          8, // a's
	}
	if diff := cmp.Diff(want, x.scrape("c"), cmpApprox); diff != "" {
		t.Errorf("scrape (-want +got):\n%s", diff)
	}

	if err := m.AddBreaker("e", lone); err == nil {
		t.Error("AddBreaker of a target twice: no error")
	}
	if err := m.AddBreaker("g", nil); err == nil {
		t.Error("AddBreaker(nil): no error")
	}
	if err := m.AddBudget("f", ratio); err == nil {
		t.Error("AddBudget of a target twice: no error")
	}
	if err := m.AddBudget("g", nil); err == nil {
		t.Error("AddBudget(nil): no error")
	}
}

// TestObserveAllocs: once a target and its labels have been seen, an
// event allocates nothing.
func TestObserveAllocs(t *testing.T) {
	m, err := promrecur.New(promrecur.Config{Client: "c", Registerer: prometheus.NewRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	events := []retry.Event{
		{Kind: retry.Attempted, Target: "t", Attempt: 1, Verdict: verdict.Transient, Label: "http-503"},
		{Kind: retry.Retrying, Target: "t", Attempt: 1, Label: "http-503"},
		{Kind: retry.Retrying, Target: "t", Attempt: 1},
		{Kind: retry.Attempted, Target: "t", Attempt: 2, Verdict: verdict.Success},
		{Kind: retry.Recovered, Target: "t", Attempt: 2, Label: "http-503"},
		{Kind: retry.GaveUp, Target: "t", Attempt: 2, Reason: retry.Budget},
		{Kind: retry.GaveUp, Target: "t", Reason: retry.Open},
	}
	for _, e := range events {
		m.Observe(ctx, e)
	}
	if n := testing.AllocsPerRun(100, func() {
		for _, e := range events {
			m.Observe(ctx, e)
		}
	}); n != 0 {
		t.Errorf("%v allocations per run of %d events; want 0", n, len(events))
	}
}

// TestConcurrent: events for many targets from many goroutines while
// /metrics is scraped; -race checks the rest, and no event is lost.
func TestConcurrent(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := promrecur.New(promrecur.Config{Client: "c", Registerer: reg, MaxTargets: 50})
	if err != nil {
		t.Fatal(err)
	}
	x := newExporter(t, reg)
	const goroutines, events = 4, 500
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range events {
				m.Observe(context.Background(), retry.Event{Kind: retry.Retrying, Target: string(rune('A' + (g*events+i)%80)), Label: "x"})
			}
		})
	}
	for range 5 {
		x.families()
	}
	wg.Wait()
	total := 0.0
	for k, v := range x.scrape("c") {
		if strings.HasPrefix(k, "recur_retries_total{") {
			total += v
		}
	}
	if total != goroutines*events {
		t.Errorf("recur_retries_total adds up to %v; want %d", total, goroutines*events)
	}
}

// TestInvalidUTF8: a target or reason that is not UTF-8 is shown with
// U+FFFD in its place rather than breaking the scrape or panicking.
func TestInvalidUTF8(t *testing.T) {
	breakers, err := breaker.NewRegistry(breaker.Config{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	m, err := promrecur.New(promrecur.Config{Client: "c", Registerer: reg, Breaker: breakers})
	if err != nil {
		t.Fatal(err)
	}
	breakers.Get("db\xff")
	m.Observe(context.Background(), retry.Event{Kind: retry.Retrying, Target: "db\xff", Label: "busy\xfe"})
	want := map[string]float64{
		`recur_retries_total{reason="busy\uFFFD",target="db\uFFFD"}`: 1,
		`recur_breaker_state{target="db\uFFFD"}`:                     0,
		`recur_breaker_opened_total{target="db\uFFFD"}`:              0,
		`recur_breaker_rejected_total{target="db\uFFFD"}`:            0,
		`recur_calls_total{target="db\uFFFD"}`:                       0,
		`recur_retries_throttled_total{target="db\uFFFD"}`:           0,
		`recur_recoveries_total{target="db\uFFFD"}`:                  0,
		`recur_attempt_duration_seconds_count{target="db\uFFFD"}`:    0,
		`recur_attempt_duration_seconds_sum{target="db\uFFFD"}`:      0,
	}
	got := map[string]float64{}
	for k, v := range newExporter(t, reg).scrape("c") {
		got[strings.ReplaceAll(k, "\uFFFD", `\uFFFD`)] = v // spelled out, as in want
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scrape (-want +got):\n%s", diff)
	}
}
