package promrecur_test

import (
	"context"
	"errors"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/httpretry"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/promrecur"
	"github.com/recur-go/recur/retry"
)

// flaky is a real net/http server on 127.0.0.1 whose answers the test
// switches: 200, 503, one 503 then 200, or a 200 held until released.
type flaky struct {
	srv      *httptest.Server
	mode     atomic.Int32
	requests atomic.Int64
	entered  chan struct{} // a held request arrived
	release  chan struct{} // let it answer
}

const (
	healthy int32 = iota
	failing
	failOnce
	hold
)

func newFlaky(t *testing.T) *flaky {
	f := &flaky{entered: make(chan struct{}, 1), release: make(chan struct{})}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.requests.Add(1)
		switch f.mode.Load() {
		case failing:
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		case failOnce:
			f.mode.Store(healthy)
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		case hold:
			f.entered <- struct{}{}
			<-f.release
		}
		w.Write([]byte("ok"))
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// TestScrapeBreakerCycle runs a client through httpretry against a real
// failing server while its breaker opens, half-opens and closes, and
// scrapes /metrics over HTTP after each step: every series the package
// exports changes on the way.
func TestScrapeBreakerCycle(t *testing.T) {
	srv := newFlaky(t)
	clock := clockcap.Virtual(time.Now()) // breaker open time and retry waits
	breakers, err := breaker.NewRegistry(breaker.Config{Clock: clock}, 0)
	if err != nil {
		t.Fatal(err)
	}
	budgets, err := budget.NewRegistry(budget.TokenBucketConfig{}, 0) // gRFC A6: 10 tokens, retries above 5
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	m, err := promrecur.New(promrecur.Config{Client: "checkout", Registerer: reg, Breaker: breakers, Budget: budgets})
	if err != nil {
		t.Fatal(err)
	}
	x := newExporter(t, reg)

	tr, err := httpretry.New(&http.Transport{}, "spaced(10ms) & times(3)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tr.CloseIdleConnections) // the Transport's copy of its Base, and the Base
	tr.Options.Clock, tr.Breaker, tr.Budget, tr.Options.Observer = clock, breakers, budgets, m
	client := &http.Client{Transport: tr}
	ctx := context.Background()
	call := func() error { _, err := get(ctx, client, srv.srv.URL+"/pay"); return err }
	target := srv.srv.URL // scheme://host:port, as httpretry names it

	var snaps []map[string]float64
	snap := func() { snaps = append(snaps, x.scrape("checkout")) }

	// Healthy, then one call that recovers from a 503.
	snap()
	for range 5 {
		if err := call(); err != nil {
			t.Fatal(err)
		}
	}
	srv.mode.Store(failOnce)
	if err := call(); err != nil {
		t.Fatal(err)
	}
	snap()

	// Failing: the retries drain the budget until it throttles them, five
	// failures in a row open the breaker, and it refuses the next calls.
	srv.mode.Store(failing)
	for range 4 {
		call()
	}
	if err := call(); !errors.Is(err, breaker.ErrOpen) {
		t.Fatalf("call through an open breaker: %v, want breaker.ErrOpen", err)
	}
	snap()

	// The open time passes; the next call is the half-open breaker's
	// probe, held by the server while /metrics is scraped.
	clock.Advance(6 * time.Second) // DefaultOpenFor: 5s after the first opening
	srv.mode.Store(hold)
	done := make(chan error, 1)
	go func() { done <- call() }()
	<-srv.entered
	snap()
	close(srv.release)
	if err := <-done; err != nil {
		t.Fatalf("the probe: %v", err)
	}
	snap()

	// The breaker's state, scrape by scrape.
	state := `recur_breaker_state{target="` + target + `"}`
	var states []float64
	for _, s := range snaps[1:] {
		states = append(states, s[state])
	}
	if diff := cmp.Diff([]float64{0, 2, 1, 0}, states); diff != "" {
		t.Errorf("%s after each step (-want +got):\n%s", state, diff)
	}

	// Every sample, step by step (the durations' sums are left out: the
	// virtual clock makes every attempt take no time).
	closedWant := map[string]float64{
		// 6 calls: 5 first tries, then a 503 retried and recovered.
		"recur_calls_total{T}":                        6,
		`recur_attempts_total{T,verdict="success"}`:   6,
		`recur_attempts_total{T,verdict="transient"}`: 1,
		"recur_attempt_duration_seconds_count{T}":     7,
		`recur_retries_total{reason="http-503",T}`:    1,
		"recur_retries_throttled_total{T}":            0,
		"recur_recoveries_total{T}":                   1,
		"recur_breaker_state{T}":                      0,
		"recur_breaker_opened_total{T}":               0,
		"recur_breaker_rejected_total{T}":             0,
		"recur_budget_tokens{T}":                      9.1, // 10, -1 for the 503, +0.1 for the success after it
	}
	openWant := with(closedWant, map[string]float64{
		// Call 1: three 503s, two retries, the schedule ends. Call 2: a
		// 503 and a retry (5.1 tokens left > 5), a 503 that opens the
		// breaker (five failures in a row) and leaves 4.1 tokens, so the
		// next retry is throttled. Calls 3 to 5: refused by the breaker.
		"recur_calls_total{T}":                        11,
		`recur_attempts_total{T,verdict="transient"}`: 6,
		"recur_attempt_duration_seconds_count{T}":     12,
		`recur_retries_total{reason="http-503",T}`:    4,
		"recur_retries_throttled_total{T}":            1,
		`recur_giveups_total{reason="exhausted",T}`:   1,
		`recur_giveups_total{reason="budget",T}`:      1,
		`recur_giveups_total{reason="open",T}`:        3,
		"recur_breaker_state{T}":                      2,
		"recur_breaker_opened_total{T}":               1,
		"recur_breaker_rejected_total{T}":             3,
		"recur_budget_tokens{T}":                      4.1,
	})
	halfOpenWant := with(openWant, map[string]float64{"recur_breaker_state{T}": 1}) // the probe is in flight
	reclosedWant := with(halfOpenWant, map[string]float64{
		"recur_calls_total{T}":                      12,
		`recur_attempts_total{T,verdict="success"}`: 7,
		"recur_attempt_duration_seconds_count{T}":   13,
		"recur_breaker_state{T}":                    0,
		"recur_budget_tokens{T}":                    4.2,
	})
	tg := `target="` + target + `"`
	for i, want := range []map[string]float64{{}, closedWant, openWant, halfOpenWant, reclosedWant} {
		got := map[string]float64{}
		for k, v := range snaps[i] {
			if !strings.Contains(k, "_sum{") {
				got[strings.Replace(k, tg, "T", 1)] = v
			}
		}
		if diff := cmp.Diff(want, got, cmpApprox); diff != "" {
			t.Errorf("scrape %d (-want +got):\n%s", i, diff)
		}
	}

	// Every series the package exports changed on the way, but the hedge
	// series, which this client never feeds (TestScrapeHedges does).
	for _, name := range promrecur.Names() {
		if strings.HasPrefix(name, "recur_hedges_") {
			if len(series(snaps[len(snaps)-1], name)) != 0 {
				t.Errorf("%s shown for a client that never hedged", name)
			}
			continue
		}
		changed := false
		for i := 1; i < len(snaps); i++ {
			if !cmp.Equal(series(snaps[i-1], name), series(snaps[i], name), cmpApprox) {
				changed = true
			}
		}
		if !changed {
			t.Errorf("%s never changed", name)
		}
	}
}

// cmpApprox compares the floats of samples to a millionth: token counts
// are kept in thousandths.
var cmpApprox = cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-6 })

// with returns a copy of base with the samples of changes set.
func with(base, changes map[string]float64) map[string]float64 {
	out := maps.Clone(base)
	maps.Copy(out, changes)
	return out
}

// series returns the samples of snap whose names are name or name's
// histogram series.
func series(snap map[string]float64, name string) map[string]float64 {
	out := map[string]float64{}
	for k, v := range snap {
		if n, _, _ := strings.Cut(k, "{"); n == name || n == name+"_count" || n == name+"_sum" {
			out[k] = v
		}
	}
	return out
}

// TestScrapeHedges runs hedged GETs through httpretry against a real
// server that holds every first copy until its client gives up on it:
// each call starts a second copy, which wins, and the first is canceled.
func TestScrapeHedges(t *testing.T) {
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1)%2 == 1 { // the first copy of each call: slow
			<-r.Context().Done()
			return
		}
		w.Write([]byte("ok"))
	}))
	t.Cleanup(srv.Close)
	reg := prometheus.NewRegistry()
	m, err := promrecur.New(promrecur.Config{Client: "search", Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	x := newExporter(t, reg)
	hedge, err := parse.Parse("spaced(20ms) & times(2)")
	if err != nil {
		t.Fatal(err)
	}
	base := &http.Transport{}
	t.Cleanup(base.CloseIdleConnections)
	tr := &httpretry.Transport{Base: base, Hedge: hedge, Options: retry.Options{Observer: m, Unthrottled: true}}
	t.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr}
	before := x.scrape("search")
	const calls = 3
	for range calls {
		code, err := get(context.Background(), client, srv.URL+"/q")
		if err != nil || code != http.StatusOK {
			t.Fatalf("GET: %d, %v", code, err)
		}
	}
	// The canceled copies' cancellations are counted as Hedge returns.
	tg := `{target="` + srv.URL + `"}`
	want := map[string]float64{
		"recur_hedges_total" + tg:          calls,
		"recur_hedges_won_total" + tg:      calls,
		"recur_hedges_canceled_total" + tg: calls,
	}
	got := map[string]float64{}
	for k, v := range x.scrape("search") {
		if strings.HasPrefix(k, "recur_hedges_") {
			got[k] = v
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hedge series (-want +got):\n%s", diff)
	}
	for k := range before {
		if strings.HasPrefix(k, "recur_hedges_") {
			t.Errorf("%s shown before the first hedge", k)
		}
	}
}
