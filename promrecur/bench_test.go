package promrecur_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/httpretry"
	"github.com/recur-go/recur/promrecur"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
)

func newBenchMetrics(b *testing.B) *promrecur.Metrics {
	m, err := promrecur.New(promrecur.Config{Client: "bench", Registerer: prometheus.NewRegistry()})
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// BenchmarkObserve is the cost of one event of each kind for a target
// already seen, alone and from every core at once.
func BenchmarkObserve(b *testing.B) {
	events := []struct {
		name string
		e    retry.Event
	}{
		{"attempted", retry.Event{Kind: retry.Attempted, Target: "https://api.example:443", Attempt: 1, Elapsed: time.Millisecond}},
		{"retrying", retry.Event{Kind: retry.Retrying, Target: "https://api.example:443", Attempt: 1, Label: "http-503"}},
		{"gaveup", retry.Event{Kind: retry.GaveUp, Target: "https://api.example:443", Attempt: 3, Reason: retry.Exhausted}},
	}
	ctx := context.Background()
	for _, ev := range events {
		b.Run("event="+ev.name, func(b *testing.B) {
			m := newBenchMetrics(b)
			b.ReportAllocs()
			for b.Loop() {
				m.Observe(ctx, ev.e)
			}
		})
	}
	b.Run("event=attempted/parallel", func(b *testing.B) {
		m := newBenchMetrics(b)
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				m.Observe(ctx, events[0].e)
			}
		})
	})
}

// observers are the sides of each comparison: no Observer; an Observer
// that does nothing, which is the runner's own cost of observing (two
// clock reads per attempt and the calls); and a Metrics.
func observers(b *testing.B) []struct {
	name string
	o    retry.Observer
} {
	return []struct {
		name string
		o    retry.Observer
	}{{"none", nil}, {"noop", retry.ObserverFunc(func(context.Context, retry.Event) {})}, {"prom", newBenchMetrics(b)}}
}

// BenchmarkDo is one retry.Do call with a breaker and a budget: a first
// try that succeeds, and a call that retries once at no delay, without
// an Observer, with one that does nothing and with a Metrics.
func BenchmarkDo(b *testing.B) {
	flaky := errors.New("flaky")
	judge := func(_ int, err error) retry.Judgement {
		if err != nil {
			return retry.Judgement{Verdict: verdict.Transient, Reason: "flaky"}
		}
		return retry.Judgement{Verdict: verdict.Success}
	}
	ctx := context.Background()
	for _, call := range []string{"first-try", "one-retry"} {
		for _, obs := range observers(b) {
			b.Run("call="+call+"/obs="+obs.name, func(b *testing.B) {
				br, err := breaker.New(breaker.Config{ConsecutiveFailures: -1, FailureRate: -1})
				if err != nil {
					b.Fatal(err)
				}
				o := retry.Options{Target: "db:5432", Observer: obs.o, Breaker: br, Budget: unlimited{}}
				n := 0
				op := func(context.Context) (int, error) {
					n++
					if call == "one-retry" && n%2 == 1 {
						return 0, flaky
					}
					return n, nil
				}
				b.ReportAllocs()
				for b.Loop() {
					if _, err := retry.Do(ctx, o, schedule.Times{N: 2}, judge, nil, op); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// unlimited is a budget that allows every retry, so that the benchmark
// loops run in steady state.
type unlimited struct{}

func (unlimited) Request() bool          { return true }
func (unlimited) AllowRetry() bool       { return true }
func (unlimited) Record(verdict.Verdict) {}
func (unlimited) Stats() budget.Stats    { return budget.Stats{} }

// cannedBase answers every request with the same 200 at once, without a
// network, so that BenchmarkTransport measures the Transport alone.
type cannedBase struct{}

var cannedBody = io.NopCloser(strings.NewReader(""))

func (cannedBase) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Status: "200 OK", Body: cannedBody}, nil
}

// BenchmarkTransport is one request through httpretry with a breaker
// registry, around a Base that answers at once, without an Observer, with
// one that does nothing and with a Metrics.
func BenchmarkTransport(b *testing.B) {
	req, err := http.NewRequestWithContext(context.Background(), "GET", "http://bench.test/", nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, obs := range observers(b) {
		b.Run("obs="+obs.name, func(b *testing.B) {
			breakers, err := breaker.NewRegistry(breaker.Config{}, 0)
			if err != nil {
				b.Fatal(err)
			}
			tr, err := httpretry.New(cannedBase{}, "backoff(100ms, 30s) & times(3)")
			if err != nil {
				b.Fatal(err)
			}
			tr.Breaker, tr.Options.Observer = breakers, obs.o
			b.ReportAllocs()
			for b.Loop() {
				resp, err := tr.RoundTrip(req)
				if err != nil {
					b.Fatal(err)
				}
				resp.Body.Close()
			}
		})
	}
}

// BenchmarkScrape is the cost of one collection of a client with 256
// targets, each with a breaker, a budget and the runner series.
func BenchmarkScrape(b *testing.B) {
	breakers, err := breaker.NewRegistry(breaker.Config{}, 0)
	if err != nil {
		b.Fatal(err)
	}
	budgets, err := budget.NewRegistry(budget.TokenBucketConfig{}, 0)
	if err != nil {
		b.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	m, err := promrecur.New(promrecur.Config{Client: "bench", Registerer: reg, Breaker: breakers, Budget: budgets})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for i := range promrecur.DefaultMaxTargets {
		target := "https://host-" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + string(rune('a'+i/26)) + ":443"
		breakers.Get(target)
		budgets.Get(target)
		m.Observe(ctx, retry.Event{Kind: retry.Attempted, Target: target, Attempt: 1})
		m.Observe(ctx, retry.Event{Kind: retry.Retrying, Target: target, Attempt: 1, Label: "http-503"})
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := reg.Gather(); err != nil {
			b.Fatal(err)
		}
	}
}
