package otelrecur_test

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/otelrecur"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/verdict"
)

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    otelrecur.Config
		want string
	}{
		{"no client", otelrecur.Config{}, "empty Config.Client"},
		{"bad utf-8", otelrecur.Config{Client: "\xff"}, "not valid UTF-8"},
		{"negative max", otelrecur.Config{Client: "c", MaxTargets: -1}, "negative Config.MaxTargets -1"},
		{"empty buckets", otelrecur.Config{Client: "c", Buckets: []float64{}}, "empty Config.Buckets"},
		{"buckets down", otelrecur.Config{Client: "c", Buckets: []float64{1, 0.5}}, "do not increase: [1] = 0.5 after 1"},
		{"NaN bucket", otelrecur.Config{Client: "c", Buckets: []float64{math.NaN()}}, "Config.Buckets[0] is NaN"},
		{"infinite bucket", otelrecur.Config{Client: "c", Buckets: []float64{1, math.Inf(1)}}, "Config.Buckets[1] is +Inf"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := otelrecur.New(tc.c)
			if err == nil || !strings.Contains(err.Error(), tc.want) || m != nil {
				t.Errorf("New: %v, %v; want an error with %q", m, err, tc.want)
			}
		})
	}
}

// TestInstruments: every instrument's name, unit and kind, as a reader
// sees them once each has a data point.
func TestInstruments(t *testing.T) {
	b, err := breaker.New(breaker.Config{})
	if err != nil {
		t.Fatal(err)
	}
	tb, err := budget.NewTokenBucket(budget.TokenBucketConfig{})
	if err != nil {
		t.Fatal(err)
	}
	m, reader := newMetrics(t, otelrecur.Config{Client: "c"})
	if err := m.AddBreaker("t", b); err != nil {
		t.Fatal(err)
	}
	if err := m.AddBudget("t", tb); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, e := range []retry.Event{
		{Kind: retry.Attempted, Target: "t", Attempt: 1, Verdict: verdict.Transient},
		{Kind: retry.Retrying, Target: "t", Attempt: 1},
		{Kind: retry.GaveUp, Target: "t", Attempt: 2, Reason: retry.Budget},
		{Kind: retry.Recovered, Target: "t", Attempt: 2},
		{Kind: retry.Hedged, Target: "t", Attempt: 2},
		{Kind: retry.HedgeWon, Target: "t", Attempt: 2},
		{Kind: retry.HedgeCanceled, Target: "t", Attempt: 1},
	} {
		m.Observe(ctx, e)
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	type info struct{ Unit, Kind string }
	got := map[string]info{}
	for _, sm := range rm.ScopeMetrics {
		for _, mt := range sm.Metrics {
			kind := "?"
			switch d := mt.Data.(type) {
			case metricdata.Sum[int64]:
				kind = "gauge-like sum"
				if d.IsMonotonic && d.Temporality == metricdata.CumulativeTemporality {
					kind = "counter"
				}
			case metricdata.Gauge[int64], metricdata.Gauge[float64]:
				kind = "gauge"
			case metricdata.Histogram[float64]:
				kind = "histogram"
			}
			got[mt.Name] = info{mt.Unit, kind}
		}
	}
	want := map[string]info{
		"recur.calls":              {"{call}", "counter"},
		"recur.attempts":           {"{attempt}", "counter"},
		"recur.attempt.duration":   {"s", "histogram"},
		"recur.retries":            {"{retry}", "counter"},
		"recur.throttled_retries":  {"{retry}", "counter"},
		"recur.giveups":            {"{call}", "counter"},
		"recur.recoveries":         {"{call}", "counter"},
		"recur.hedges":             {"{copy}", "counter"},
		"recur.hedges.won":         {"{call}", "counter"},
		"recur.hedges.canceled":    {"{copy}", "counter"},
		"recur.breaker.state":      {"{state}", "gauge"},
		"recur.breaker.openings":   {"{opening}", "counter"},
		"recur.breaker.rejections": {"{call}", "counter"},
		"recur.budget.tokens":      {"{token}", "gauge"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("instruments (-want +got):\n%s", diff)
	}
	names := map[string]bool{}
	for _, n := range otelrecur.Names() {
		names[n] = true
	}
	for n := range want {
		if !names[n] {
			t.Errorf("Names() lacks %s", n)
		}
	}
	if len(names) != len(want) {
		t.Errorf("Names() = %v; want the %d instruments", otelrecur.Names(), len(want))
	}
}

// TestCardinality: 10,000 targets, through the observer and through the
// registries, make at most DefaultMaxTargets values of recur.target and
// Overflow.
func TestCardinality(t *testing.T) {
	breakers, err := breaker.NewRegistry(breaker.Config{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	budgets, err := budget.NewRegistry(budget.TokenBucketConfig{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	m, reader := newMetrics(t, otelrecur.Config{Client: "c", Breaker: breakers, Budget: budgets})
	ctx := context.Background()
	const n = 10000
	for i := range n {
		target := "http://10.0.0.1:" + strconv.Itoa(i)
		breakers.Get(target)
		budgets.Get(target)
		m.Observe(ctx, retry.Event{Kind: retry.Attempted, Target: target, Attempt: 1, Verdict: verdict.Transient})
		m.Observe(ctx, retry.Event{Kind: retry.Retrying, Target: target, Attempt: 1, Label: "l" + strconv.Itoa(i)})
	}
	got := collect(t, reader, "c")
	for _, name := range []string{"recur.calls", "recur.attempts", "recur.attempt.duration", "recur.retries",
		"recur.breaker.state", "recur.breaker.openings", "recur.breaker.rejections", "recur.budget.tokens"} {
		points := got[name]
		targets := map[string]bool{}
		for key := range points {
			for kv := range strings.SplitSeq(key, ",") {
				if v, ok := strings.CutPrefix(kv, "recur.target="); ok {
					targets[v] = true
				}
			}
		}
		if len(targets) > otelrecur.DefaultMaxTargets+1 || !targets[otelrecur.Overflow] {
			t.Errorf("%s: %d recur.target values (Overflow among them: %v); want at most %d with Overflow",
				name, len(targets), targets[otelrecur.Overflow], otelrecur.DefaultMaxTargets+1)
		}
	}
	if total := sum(got["recur.calls"]); total != n {
		t.Errorf("recur.calls adds up to %v; want %d: the overflow keeps the counts", total, n)
	}
	// The reasons are capped too: MaxReasons of the 10,000 labels, and
	// Overflow for the rest.
	reasons := map[string]bool{}
	for key := range got["recur.retries"] {
		for kv := range strings.SplitSeq(key, ",") {
			if v, ok := strings.CutPrefix(kv, "recur.reason="); ok {
				reasons[v] = true
			}
		}
	}
	if len(reasons) != otelrecur.MaxReasons+1 || !reasons[otelrecur.Overflow] {
		t.Errorf("%d recur.reason values (Overflow among them: %v); want %d with Overflow",
			len(reasons), reasons[otelrecur.Overflow], otelrecur.MaxReasons+1)
	}
	if total := sum(got["recur.retries"]); total != n {
		t.Errorf("recur.retries adds up to %v; want %d", total, n)
	}
}

func sum(points map[string]float64) float64 {
	s := 0.0
	for _, v := range points {
		s += v
	}
	return s
}

// TestFolding: past MaxTargets, breakers and budgets are folded into
// Overflow: the worst state, the sums of the counts, the fewest tokens.
// A breaker added with AddBreaker under a registry's target is folded
// with it.
func TestFolding(t *testing.T) {
	breakers, err := breaker.NewRegistry(breaker.Config{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	budgets, err := budget.NewRegistry(budget.TokenBucketConfig{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	m, reader := newMetrics(t, otelrecur.Config{Client: "c", MaxTargets: 1, Breaker: breakers, Budget: budgets})
	breakers.Get("a")
	b, c := breakers.Get("b"), breakers.Get("c")
	b.ForceOpen()
	for range 3 {
		c.Allow() // counted as rejections only when refused
	}
	for range 2 {
		budgets.Get("a").Record(verdict.Transient)
	}
	budgets.Get("b").Record(verdict.Transient)
	budgets.Get("c").Record(verdict.Success)
	extra, err := breaker.New(breaker.Config{})
	if err != nil {
		t.Fatal(err)
	}
	extra.ForceOpen()
	if err := m.AddBreaker("a", extra); err != nil {
		t.Fatal(err)
	}
	if err := m.AddBreaker("a", extra); err == nil {
		t.Error("AddBreaker twice with one target: no error")
	}
	if err := m.AddBreaker("x", nil); err == nil {
		t.Error("AddBreaker with nil: no error")
	}
	if err := m.AddBudget("x", nil); err == nil {
		t.Error("AddBudget with nil: no error")
	}
	if _, err := extra.Allow(); !errors.Is(err, breaker.ErrOpen) {
		t.Fatalf("a forced-open breaker allowed a call: %v", err)
	}
	if _, err := b.Allow(); !errors.Is(err, breaker.ErrOpen) {
		t.Fatalf("a forced-open breaker allowed a call: %v", err)
	}
	got := collect(t, reader, "c")
	// The registry lists its breakers in the order they were made, so
	// "a" is admitted and "b", "c" are folded.
	want := collected{
		"recur.breaker.state":      {on("a"): 2, on(otelrecur.Overflow): 2},
		"recur.breaker.openings":   {on("a"): 0, on(otelrecur.Overflow): 0},
		"recur.breaker.rejections": {on("a"): 1, on(otelrecur.Overflow): 1},
		"recur.budget.tokens":      {on("a"): 8, on(otelrecur.Overflow): 9},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestClose: after Close the breakers and budgets are no longer read; the
// counters still count.
func TestClose(t *testing.T) {
	breakers, err := breaker.NewRegistry(breaker.Config{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	breakers.Get("a")
	m, reader := newMetrics(t, otelrecur.Config{Client: "c", Breaker: breakers})
	if got := collect(t, reader, "c"); len(got["recur.breaker.state"]) != 1 {
		t.Fatalf("before Close: %s; want the breaker's state", describe(got))
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatalf("Close again: %v", err)
	}
	m.Observe(context.Background(), retry.Event{Kind: retry.Recovered, Target: "a", Attempt: 2})
	want := collected{"recur.recoveries": one(on("a"), 1)}
	if diff := cmp.Diff(want, collect(t, reader, "c")); diff != "" {
		t.Errorf("after Close (-want +got):\n%s", diff)
	}
}

// TestSpanEvents: an event on a recording span only, with the error's
// text when ErrorText is set.
func TestSpanEvents(t *testing.T) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	defer func() {
		if err := tp.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
	}()
	unsampled := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.NeverSample()), sdktrace.WithSpanProcessor(sr))
	defer func() {
		if err := unsampled.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
	}()
	plain, _ := newMetrics(t, otelrecur.Config{Client: "c"})
	texts, _ := newMetrics(t, otelrecur.Config{Client: "c", ErrorText: true})
	failed := errors.New("connection reset")
	retrying := retry.Event{Kind: retry.Retrying, Target: "t", Attempt: 2, Delay: 1500 * time.Millisecond, Err: failed}
	gaveUp := retry.Event{Kind: retry.GaveUp, Target: "t", Attempt: 3, Reason: retry.Exhausted, Err: failed}
	for _, tc := range []struct {
		span string
		tp   *sdktrace.TracerProvider
		m    *otelrecur.Metrics
	}{{"plain", tp, plain}, {"texts", tp, texts}, {"unsampled", unsampled, plain}} {
		ctx, span := tc.tp.Tracer("test").Start(context.Background(), tc.span)
		tc.m.Observe(ctx, retrying)
		tc.m.Observe(ctx, gaveUp)
		span.End()
	}
	plain.Observe(context.Background(), retrying) // no span: nothing, no panic
	retried := map[string]string{"recur.attempt": "2", "recur.delay": "1.5", "recur.reason": "unlabeled", "recur.target": "t"}
	gave := map[string]string{"recur.attempt": "3", "recur.reason": "exhausted", "recur.target": "t"}
	with := func(m map[string]string) map[string]string {
		out := map[string]string{"exception.message": "connection reset"}
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	want := map[string][]event{
		"plain": {{otelrecur.RetryEvent, retried}, {otelrecur.GiveUpEvent, gave}},
		"texts": {{otelrecur.RetryEvent, with(retried)}, {otelrecur.GiveUpEvent, with(gave)}},
	}
	if diff := cmp.Diff(want, events(sr)); diff != "" {
		t.Errorf("span events (-want +got):\n%s", diff)
	}
}

// The global provider's delegate can be set once per process, so every
// run of TestGlobalMeterProvider (-count) shares one, whose reader reports
// deltas: each run sees its own events.
var (
	globalOnce   sync.Once
	globalReader *sdkmetric.ManualReader
)

// TestGlobalMeterProvider: with no MeterProvider the instruments come
// from the global one, set after New.
func TestGlobalMeterProvider(t *testing.T) {
	m, err := otelrecur.New(otelrecur.Config{Client: "global"})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	globalOnce.Do(func() {
		globalReader = sdkmetric.NewManualReader(sdkmetric.WithTemporalitySelector(
			func(sdkmetric.InstrumentKind) metricdata.Temporality { return metricdata.DeltaTemporality }))
		otel.SetMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(globalReader)))
	})
	m.Observe(context.Background(), retry.Event{Kind: retry.Recovered, Target: "t", Attempt: 2})
	want := collected{"recur.recoveries": one(on("t"), 1)}
	if diff := cmp.Diff(want, collect(t, globalReader, "global")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
