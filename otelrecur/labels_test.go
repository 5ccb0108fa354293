package otelrecur_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/otelrecur"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
)

// failOnce runs one call toward target through retry.Do with ctx: it
// fails once with reason and then succeeds.
func failOnce(ctx context.Context, m *otelrecur.Metrics, breakers *breaker.Registry, budgets *budget.Registry, target, reason string) {
	o := retry.Options{Target: target, Observer: m, Breaker: breakers.Get(target), Budget: budgets.Get(target)}
	tries := 0
	judge := func(_ int, err error) retry.Judgement {
		if err != nil {
			return retry.Judgement{Verdict: verdict.Transient, Reason: reason}
		}
		return retry.Judgement{Verdict: verdict.Success}
	}
	retry.Do(ctx, o, schedule.Times{N: 2}, judge, nil, func(context.Context) (int, error) {
		if tries++; tries == 1 {
			return 0, errors.New("busy")
		}
		return 0, nil
	})
}

// TestLongTargets: 300 targets of 1 MiB each, retried with a 1 MiB
// reason under a recording span, with a breaker and a budget each: every
// recur.target and recur.reason value, of the instruments and of the span
// events, is valid UTF-8 of at most 128 bytes, and each instrument has 257
// targets.
func TestLongTargets(t *testing.T) {
	const n, size = 300, 1 << 20
	b := make([]byte, size+n)
	seed := uint32(1)
	for i := range b {
		seed = seed*1664525 + 1013904223
		b[i] = 'a' + byte(seed>>24)%26
	}
	big := string(b) // target i starts at byte i: the test holds 1 MiB, not 300
	breakers, err := breaker.NewRegistry(breaker.Config{}, 2*n)
	if err != nil {
		t.Fatal(err)
	}
	budgets, err := budget.NewRegistry(budget.TokenBucketConfig{}, 2*n)
	if err != nil {
		t.Fatal(err)
	}
	m, r := newMetrics(t, otelrecur.Config{Client: "webhooks", Breaker: breakers, Budget: budgets})
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	for i := range n {
		ctx, span := tp.Tracer("test").Start(context.Background(), "call")
		failOnce(ctx, m, breakers, budgets, big[i:i+size], big[i:i+size])
		span.End()
	}
	var bad []int
	check := func(v string) {
		if len(v) > 128 || !utf8.ValidString(v) {
			bad = append(bad, len(v))
		}
	}
	targets := map[string]int{} // by instrument
	for inst, points := range collect(t, r, "webhooks") {
		seen := map[string]bool{}
		for key := range points {
			for _, kv := range strings.Split(key, ",") {
				name, v, _ := strings.Cut(kv, "=")
				check(v)
				if name == string(otelrecur.TargetKey) {
					seen[v] = true
				}
			}
		}
		targets[inst] = len(seen)
	}
	events := 0
	for _, s := range rec.Ended() {
		for _, e := range s.Events() {
			for _, a := range e.Attributes {
				if a.Value.Type() == attribute.STRING {
					check(a.Value.AsString())
				}
			}
			events++
		}
	}
	if diff := cmp.Diff([]int(nil), bad); diff != "" {
		t.Errorf("lengths of values over 128 bytes or not UTF-8 (-want +got):\n%s", diff)
	}
	for inst, n := range targets {
		if n != otelrecur.DefaultMaxTargets+1 {
			t.Errorf("%s: %d recur.target values, want %d", inst, n, otelrecur.DefaultMaxTargets+1)
		}
	}
	if len(targets) == 0 {
		t.Error("no data points")
	}
	if diff := cmp.Diff(n, events); diff != "" {
		t.Errorf("span events (-want +got):\n%s", diff)
	}
}

// TestTargetsThatFoldTogether: targets, breakers and budgets whose names
// differ only in invalid UTF-8 report under one recur.target value, the
// counts of all summed.
func TestTargetsThatFoldTogether(t *testing.T) {
	breakers, err := breaker.NewRegistry(breaker.Config{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	budgets, err := budget.NewRegistry(budget.TokenBucketConfig{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	m, r := newMetrics(t, otelrecur.Config{Client: "c", Breaker: breakers, Budget: budgets})
	for _, name := range []string{"pay\xff", "pay\xfe", "pay\xc3"} {
		failOnce(context.Background(), m, breakers, budgets, name, "r\xff"+name)
	}
	lone, err := breaker.New(breaker.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.AddBreaker("pay\xfd", lone); err != nil {
		t.Fatal(err)
	}
	got := collect(t, r, "c")
	target := on("pay\uFFFD")
	want := map[string]map[string]float64{
		"recur.calls":              one(target, 3),
		"recur.attempts":           {on("pay\uFFFD", "recur.verdict=success"): 3, on("pay\uFFFD", "recur.verdict=transient"): 3},
		"recur.retries":            one(on("pay\uFFFD", "recur.reason=r\uFFFDpay\uFFFD"), 3),
		"recur.recoveries":         one(target, 3),
		"recur.attempt.duration":   one(target, 6),
		"recur.breaker.state":      one(target, 0),
		"recur.breaker.openings":   one(target, 0),
		"recur.breaker.rejections": one(target, 0),
		"recur.budget.tokens":      one(target, got["recur.budget.tokens"][target]),
	}
	if diff := cmp.Diff(want, map[string]map[string]float64(got)); diff != "" {
		t.Errorf("points (-want +got):\n%s", diff)
	}
}

// TestLongClient: New refuses a client longer than 128 bytes.
func TestLongClient(t *testing.T) {
	_, err := otelrecur.New(otelrecur.Config{Client: strings.Repeat("c", 129)})
	if err == nil || !strings.Contains(err.Error(), "129 bytes") {
		t.Errorf("got %v, want an error about the 129 bytes", err)
	}
}
