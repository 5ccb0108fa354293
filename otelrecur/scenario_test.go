package otelrecur_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/httpretry"
	"github.com/recur-go/recur/otelrecur"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// event is what a test compares of a span event.
type event struct {
	Name  string
	Attrs map[string]string
}

// events returns the events of the ended spans of sr, by span name.
func events(sr *tracetest.SpanRecorder) map[string][]event {
	out := map[string][]event{}
	for _, s := range sr.Ended() {
		evs := []event{}
		for _, e := range s.Events() {
			attrs := map[string]string{}
			for _, a := range e.Attributes {
				attrs[string(a.Key)] = a.Value.String()
			}
			evs = append(evs, event{e.Name, attrs})
		}
		out[s.Name()] = evs
	}
	return out
}

// TestOutageAndRecovery runs requests through httpretry, with a breaker
// and a token bucket per target, against a real server that fails and
// then recovers, and reads every instrument through the SDK's manual
// reader and the span events through a span recorder as the breaker
// opens, half-opens and closes.
func TestOutageAndRecovery(t *testing.T) {
	var failing atomic.Bool
	var during atomic.Pointer[func()] // run inside the handler, while the attempt is in flight
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if f := during.Load(); f != nil {
			(*f)()
		}
		if failing.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	target := srv.URL // http://127.0.0.1:port, httpretry's target

	bclock := clockcap.Virtual(time.Now())
	breakers, err := breaker.NewRegistry(breaker.Config{ConsecutiveFailures: 5, Clock: bclock}, 0)
	if err != nil {
		t.Fatal(err)
	}
	budgets, err := budget.NewRegistry(budget.TokenBucketConfig{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	m, reader := newMetrics(t, otelrecur.Config{Client: "payments", Breaker: breakers, Budget: budgets})
	base := &http.Transport{}
	client := &http.Client{Transport: &httpretry.Transport{
		Base:    base,
		Policy:  schedule.Intersect{A: schedule.Spaced{Every: 10 * time.Millisecond}, B: schedule.Times{N: 8}},
		Breaker: breakers,
		Budget:  budgets,
		Options: retry.Options{Caps: retry.Caps{Clock: clockcap.Virtual(time.Now()), Random: randcap.Seeded(1)}, Observer: m},
	}}
	defer base.CloseIdleConnections()
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	defer func() {
		if err := tp.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
	}()
	get := func(span string) (int, error) {
		ctx := context.Background()
		if span != "" {
			c, sp := tp.Tracer("test").Start(ctx, span)
			defer sp.End()
			ctx = c
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, nil
	}
	check := func(when string, want collected) {
		t.Helper()
		if diff := cmp.Diff(want, collect(t, reader, "payments")); diff != "" {
			t.Errorf("%s: instruments (-want +got):\n%s", when, diff)
		}
	}

	// Before any call: the registries are empty, nothing to report.
	check("before any call", collected{})

	// The outage: five attempts fail; the fifth opens the breaker (five
	// failures in a row) and leaves 5 of the 10 tokens, too few for a
	// retry (more than half must be left).
	failing.Store(true)
	if code, err := get("outage"); err != nil || code != http.StatusServiceUnavailable {
		t.Fatalf("the first call: %d, %v; want the 503", code, err)
	}
	t1 := on(target)
	outage := collected{
		"recur.calls":              one(t1, 1),
		"recur.attempts":           one(on(target, "recur.verdict=transient"), 5),
		"recur.attempt.duration":   one(t1, 5),
		"recur.retries":            one(on(target, "recur.reason=http-503"), 4),
		"recur.throttled_retries":  one(t1, 1),
		"recur.giveups":            one(on(target, "recur.reason=budget"), 1),
		"recur.breaker.state":      one(t1, 2),
		"recur.breaker.openings":   one(t1, 1),
		"recur.breaker.rejections": one(t1, 0),
		"recur.budget.tokens":      one(t1, 5),
	}
	check("after the outage", outage)

	// Open: the breaker refuses the next call before its first attempt.
	if _, err := get("refused"); !errors.Is(err, breaker.ErrOpen) {
		t.Fatalf("the call while open: %v; want breaker.ErrOpen", err)
	}
	outage["recur.calls"] = one(t1, 2)
	outage["recur.giveups"] = map[string]float64{on(target, "recur.reason=budget"): 1, on(target, "recur.reason=open"): 1}
	outage["recur.breaker.rejections"] = one(t1, 1)
	check("after a refused call", outage)

	// The server recovers and the open duration (5 s) passes: the next
	// call is the half-open breaker's probe, seen from inside the
	// handler; its success closes the breaker.
	failing.Store(false)
	bclock.Advance(5 * time.Second)
	var inFlight collected
	f := func() { inFlight = collect(t, reader, "payments") }
	during.Store(&f)
	if code, err := get(""); err != nil || code != http.StatusOK {
		t.Fatalf("the probe: %d, %v; want 200", code, err)
	}
	during.Store(nil)
	if diff := cmp.Diff(one(t1, 1), inFlight["recur.breaker.state"]); diff != "" {
		t.Errorf("recur.breaker.state during the probe (-want +got):\n%s", diff)
	}
	recovered := outage
	recovered["recur.calls"] = one(t1, 3)
	recovered["recur.attempts"] = map[string]float64{on(target, "recur.verdict=transient"): 5, on(target, "recur.verdict=success"): 1}
	recovered["recur.attempt.duration"] = one(t1, 6)
	recovered["recur.breaker.state"] = one(t1, 0)
	recovered["recur.budget.tokens"] = one(t1, 5.1)
	check("after the recovery", recovered)

	// The span events: one per retry and one per give-up, on the caller's
	// span; the call without a span has none to carry them.
	retried := func(n int) event {
		return event{otelrecur.RetryEvent, map[string]string{
			"recur.attempt": attribute.IntValue(n).String(), "recur.delay": "0.01",
			"recur.reason": "http-503", "recur.target": target}}
	}
	want := map[string][]event{
		"outage": {retried(1), retried(2), retried(3), retried(4),
			{otelrecur.GiveUpEvent, map[string]string{"recur.attempt": "5", "recur.reason": "budget", "recur.target": target}}},
		"refused": {{otelrecur.GiveUpEvent, map[string]string{"recur.attempt": "0", "recur.reason": "open", "recur.target": target}}},
	}
	if diff := cmp.Diff(want, events(sr)); diff != "" {
		t.Errorf("span events (-want +got):\n%s", diff)
	}
}
