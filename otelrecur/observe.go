package otelrecur

import (
	"context"
	"errors"
	"github.com/recur-go/recur/fold"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/verdict"
)

// verdicts and reasons are the attribute values of the attempts' verdicts
// and the give-ups' reasons, by their numbers.
var (
	verdicts = [...]string{
		verdict.Success: "success", verdict.Transient: "transient", verdict.Retryable: "retryable",
		verdict.Failure: "failure", verdict.Neutral: "neutral",
	}
	reasons = [...]string{
		retry.Exhausted: "exhausted", retry.Deadline: "deadline", retry.Canceled: "canceled",
		retry.Refused: "pushback", retry.Open: "open", retry.Budget: "budget",
	}
)

func (m *Metrics) build(meter metric.Meter, buckets []float64) error {
	var errs []error
	counter := func(name, unit, desc string) metric.Int64Counter {
		c, err := meter.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return c
	}
	m.calls = counter(nameCalls, "{call}", "Calls made through recur's runners: first attempts, and calls refused before theirs.")
	m.attempts = counter(nameAttempts, "{attempt}", "Attempts made, by their verdict (recur.verdict).")
	m.retries = counter(nameRetries, "{retry}", "Retries decided (the runner is about to wait before another attempt), by the reason label of the failed attempt's judgement (recur.reason).")
	m.throttled = counter(nameThrottled, "{retry}", "Retries the retry budget refused.")
	m.giveups = counter(nameGiveups, "{call}", "Calls given up on an outcome that would have been retried, or refused before their first attempt, by reason (recur.reason: exhausted, deadline, canceled, pushback, open, budget).")
	m.recovered = counter(nameRecovered, "{call}", "Calls that succeeded after one or more retries.")
	m.hedges = counter(nameHedges, "{copy}", "Hedged copies started: copies of a slow call after the first (retry.Hedge).")
	m.hedgeWon = counter(nameHedgeWon, "{call}", "Hedged calls that a copy after the first won.")
	m.hedgeLost = counter(nameHedgeLost, "{copy}", "Copies of hedged calls canceled in flight because another copy answered, or the call ended.")
	if buckets == nil {
		buckets = DefaultBuckets
	}
	var err error
	m.duration, err = meter.Float64Histogram(nameDuration, metric.WithUnit("s"),
		metric.WithDescription("How long each attempt took, by the runner's clock."),
		metric.WithExplicitBucketBoundaries(buckets...))
	errs = append(errs, err)

	m.state, err = meter.Int64ObservableGauge(nameState, metric.WithUnit("{state}"),
		metric.WithDescription("Circuit breaker state: 0 closed, 1 half-open, 2 open (forced open included)."))
	errs = append(errs, err)
	m.openings, err = meter.Int64ObservableCounter(nameOpenings, metric.WithUnit("{opening}"),
		metric.WithDescription("Times the circuit breaker opened, re-openings after a failed probe included."))
	errs = append(errs, err)
	m.rejections, err = meter.Int64ObservableCounter(nameRejections, metric.WithUnit("{call}"),
		metric.WithDescription("Calls the circuit breaker refused."))
	errs = append(errs, err)
	m.tokens, err = meter.Float64ObservableGauge(nameTokens, metric.WithUnit("{token}"),
		metric.WithDescription("Tokens left in the target's retry budget (token buckets only); retries stop at half the maximum."))
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		return err
	}
	m.reg, err = meter.RegisterCallback(m.collect, m.state, m.openings, m.rejections, m.tokens)
	if err != nil {
		return err
	}
	m.targets = fold.NewMap(m.max, m.newTarget)
	m.reasons = fold.NewMap(MaxReasons, func(r string) string { return r })
	return nil
}

// target holds one target's attribute sets, built once, so that an event
// costs a map lookup and the SDK's own work: no attribute set is built or
// sorted on the hot path.
type target struct {
	m        *Metrics
	name     string
	add      []metric.AddOption    // {client, target}
	record   []metric.RecordOption // the same, for the histogram
	attempts [len(verdicts)]atomic.Pointer[[]metric.AddOption]
	giveups  [len(reasons)]atomic.Pointer[[]metric.AddOption]
	retries  *fold.Map[[]metric.AddOption]
}

func (m *Metrics) newTarget(name string) *target {
	opt := metric.WithAttributeSet(attribute.NewSet(m.client, TargetKey.String(name)))
	t := &target{m: m, name: name, add: []metric.AddOption{opt}, record: []metric.RecordOption{opt}}
	// At most MaxReasons reasons and Overflow reach it, through m.reasons.
	t.retries = fold.NewMap(MaxReasons+1, func(r string) []metric.AddOption { return t.with(ReasonKey.String(r)) })
	return t
}

// with returns the options of the attribute set {client, target, kv}.
func (t *target) with(kv attribute.KeyValue) []metric.AddOption {
	return []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(t.m.client, TargetKey.String(t.name), kv))}
}

// lazy returns the options in p, building them with kv on first use.
func (t *target) lazy(p *atomic.Pointer[[]metric.AddOption], kv attribute.KeyValue) []metric.AddOption {
	if o := p.Load(); o != nil {
		return *o
	}
	o := t.with(kv)
	p.CompareAndSwap(nil, &o)
	return *p.Load()
}

// Observe records e in the instruments under e.Target (see the package
// documentation for which event feeds which instrument), and adds a span
// event for a retry or a give-up to the span in ctx if that span is
// recording. Once the target and reason have been seen it takes no lock
// of its own and builds no attribute set.
func (m *Metrics) Observe(ctx context.Context, e retry.Event) {
	// Folded before the lookup, so that targets with the same value share
	// one entry, no entry keeps a long target alive, and no attribute is
	// text an exporter cannot encode.
	t := m.targets.Get(fold.Value(e.Target))
	switch e.Kind {
	case retry.Attempted:
		if e.Attempt == 1 {
			m.calls.Add(ctx, 1, t.add...)
		}
		m.duration.Record(ctx, e.Elapsed.Seconds(), t.record...)
		if v := int(e.Verdict); v < len(verdicts) && verdicts[v] != "" {
			m.attempts.Add(ctx, 1, t.lazy(&t.attempts[v], VerdictKey.String(verdicts[v]))...)
		}
	case retry.Retrying:
		label := e.Label
		if label == "" {
			label = Unlabeled
		}
		label = fold.Value(label)
		m.retries.Add(ctx, 1, t.retries.Get(m.reasons.Get(label))...)
		if span := trace.SpanFromContext(ctx); span.IsRecording() {
			m.retryEvent(span, e, label)
		}
	case retry.GaveUp:
		if e.Attempt == 0 {
			m.calls.Add(ctx, 1, t.add...)
		} else if e.Reason == retry.Budget {
			m.throttled.Add(ctx, 1, t.add...)
		}
		reason := ""
		if r := int(e.Reason); r < len(reasons) {
			reason = reasons[r]
		}
		if reason != "" {
			m.giveups.Add(ctx, 1, t.lazy(&t.giveups[e.Reason], ReasonKey.String(reason))...)
		}
		if span := trace.SpanFromContext(ctx); span.IsRecording() {
			m.giveUpEvent(span, e, reason)
		}
	case retry.Recovered:
		m.recovered.Add(ctx, 1, t.add...)
	case retry.Hedged:
		m.hedges.Add(ctx, 1, t.add...)
	case retry.HedgeWon:
		m.hedgeWon.Add(ctx, 1, t.add...)
	case retry.HedgeCanceled:
		m.hedgeLost.Add(ctx, 1, t.add...)
	}
}

// retryEvent adds RetryEvent to span: the attempt that failed, the wait
// before the next one, its reason label and the call's target, folded as
// the instruments' values are (fold.Value) but not capped in number.
func (m *Metrics) retryEvent(span trace.Span, e retry.Event, label string) {
	attrs := make([]attribute.KeyValue, 0, 5)
	attrs = append(attrs, AttemptKey.Int(e.Attempt), DelayKey.Float64(e.Delay.Seconds()),
		ReasonKey.String(label), TargetKey.String(fold.Value(e.Target)))
	if m.errorText && e.Err != nil {
		attrs = append(attrs, ExceptionMessageKey.String(e.Err.Error()))
	}
	span.AddEvent(RetryEvent, trace.WithAttributes(attrs...))
}

// giveUpEvent adds GiveUpEvent to span: the attempts made, why no other
// was and the call's target.
func (m *Metrics) giveUpEvent(span trace.Span, e retry.Event, reason string) {
	attrs := make([]attribute.KeyValue, 0, 4)
	attrs = append(attrs, AttemptKey.Int(e.Attempt), ReasonKey.String(reason), TargetKey.String(fold.Value(e.Target)))
	if m.errorText && e.Err != nil {
		attrs = append(attrs, ExceptionMessageKey.String(e.Err.Error()))
	}
	span.AddEvent(GiveUpEvent, trace.WithAttributes(attrs...))
}
