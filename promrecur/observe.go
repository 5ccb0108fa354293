package promrecur

import (
	"context"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/recur-go/recur/fold"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/verdict"
)

// The series' names, with their help texts in build.
const (
	nameCalls     = "recur_calls_total"
	nameAttempts  = "recur_attempts_total"
	nameDuration  = "recur_attempt_duration_seconds"
	nameRetries   = "recur_retries_total"
	nameThrottled = "recur_retries_throttled_total"
	nameGiveups   = "recur_giveups_total"
	nameRecovered = "recur_recoveries_total"
	nameHedges    = "recur_hedges_total"
	nameHedgeWon  = "recur_hedges_won_total"
	nameHedgeLost = "recur_hedges_canceled_total"
	nameState     = "recur_breaker_state"
	nameOpened    = "recur_breaker_opened_total"
	nameRejected  = "recur_breaker_rejected_total"
	nameTokens    = "recur_budget_tokens"
)

// Names lists the names of every series the package exports, for
// dashboards and tests; a histogram's _bucket, _sum and _count series
// are named by its own name.
func Names() []string {
	return []string{nameCalls, nameAttempts, nameDuration, nameRetries, nameThrottled,
		nameGiveups, nameRecovered, nameHedges, nameHedgeWon, nameHedgeLost, nameState, nameOpened, nameRejected, nameTokens}
}

// verdicts and reasons are the label values of the attempts' verdicts and
// the give-ups' reasons, by their numbers.
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

func (m *Metrics) build(c Config) {
	constant := prometheus.Labels{"client": c.Client}
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: constant}, labels)
	}
	m.calls = counter(nameCalls, "Calls made through recur's runners: first attempts, and calls refused before theirs.", "target")
	m.attempts = counter(nameAttempts, "Attempts made, by their verdict (success, transient, retryable, failure, neutral).", "target", "verdict")
	m.retries = counter(nameRetries, "Retries decided (the runner is about to wait before another attempt), by the reason label of the failed attempt's judgement.", "target", "reason")
	m.throttled = counter(nameThrottled, "Retries the retry budget refused.", "target")
	m.giveups = counter(nameGiveups, "Calls given up on an outcome that would have been retried, or refused before their first attempt, by reason (exhausted, deadline, canceled, pushback, open, budget).", "target", "reason")
	m.recovered = counter(nameRecovered, "Calls that succeeded after one or more retries.", "target")
	m.hedges = counter(nameHedges, "Hedged copies started: copies of a slow call after the first (retry.Hedge).", "target")
	m.hedgeWon = counter(nameHedgeWon, "Hedged calls that a copy after the first won.", "target")
	m.hedgeLost = counter(nameHedgeLost, "Copies of hedged calls canceled in flight because another copy answered, or the call ended.", "target")
	buckets := c.Buckets
	if buckets == nil {
		buckets = prometheus.DefBuckets
	}
	m.duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: nameDuration,
		Help:    "How long each attempt took, by the runner's clock.",
		Buckets: buckets, ConstLabels: constant}, []string{"target"})

	m.state = prometheus.NewDesc(nameState, "Circuit breaker state: 0 closed, 1 half-open, 2 open (forced open included).", []string{"target"}, constant)
	m.opened = prometheus.NewDesc(nameOpened, "Times the circuit breaker opened, re-openings after a failed probe included.", []string{"target"}, constant)
	m.rejected = prometheus.NewDesc(nameRejected, "Calls the circuit breaker refused.", []string{"target"}, constant)
	m.tokens = prometheus.NewDesc(nameTokens, "Tokens left in the target's retry budget (token buckets only); retries stop at half the maximum.", []string{"target"}, constant)

	m.targets = fold.NewMap(m.max, m.newTarget)
	m.reasons = fold.NewMap(MaxReasons, func(r string) string { return r })
}

// target holds one target's series, resolved once so that an event costs
// a map lookup and an atomic add.
type target struct {
	name                        string
	calls, throttled, recovered prometheus.Counter
	duration                    prometheus.Observer
	attempts                    [len(verdicts)]atomic.Pointer[prometheus.Counter]
	giveups                     [len(reasons)]atomic.Pointer[prometheus.Counter]
	retries                     *fold.Map[prometheus.Counter]
	// hedges, won and canceled are made on the first hedge, so that a
	// client that never hedges shows none of their series.
	hedges, won, canceled atomic.Pointer[prometheus.Counter]
}

// newTarget makes the series of name, a target label value already
// folded (fold.Value): Prometheus takes only UTF-8, client_golang panics
// on anything else, and an unbounded value would make a scrape as large
// as the targets a caller can make up.
func (m *Metrics) newTarget(name string) *target {
	t := &target{name: name,
		calls:     m.calls.WithLabelValues(name),
		throttled: m.throttled.WithLabelValues(name),
		recovered: m.recovered.WithLabelValues(name),
		duration:  m.duration.WithLabelValues(name),
	}
	// At most MaxReasons reasons and Overflow reach it, through m.reasons.
	t.retries = fold.NewMap(MaxReasons+1, func(r string) prometheus.Counter { return m.retries.WithLabelValues(name, r) })
	return t
}

// lazy returns the counter in p, resolving it with labels on first use:
// the series of a verdict or reason that never happens is never shown.
func lazy(p *atomic.Pointer[prometheus.Counter], vec *prometheus.CounterVec, target, label string) prometheus.Counter {
	if c := p.Load(); c != nil {
		return *c
	}
	c := vec.WithLabelValues(target, label)
	p.CompareAndSwap(nil, &c)
	return *p.Load()
}

// lazyTarget is lazy for a series labeled by target alone.
func lazyTarget(p *atomic.Pointer[prometheus.Counter], vec *prometheus.CounterVec, target string) prometheus.Counter {
	if c := p.Load(); c != nil {
		return *c
	}
	c := vec.WithLabelValues(target)
	p.CompareAndSwap(nil, &c)
	return *p.Load()
}

// Observe counts e in the series of e.Target (see the package
// documentation for which event feeds which series). It takes no lock
// and allocates nothing once the target and label have been seen.
func (m *Metrics) Observe(_ context.Context, e retry.Event) {
	// Folded before the lookup, so that targets with the same label share
	// one entry and no entry keeps a long target alive.
	t := m.targets.Get(fold.Value(e.Target))
	switch e.Kind {
	case retry.Attempted:
		if e.Attempt == 1 {
			t.calls.Inc()
		}
		t.duration.Observe(e.Elapsed.Seconds())
		if v := int(e.Verdict); v < len(verdicts) {
			lazy(&t.attempts[v], m.attempts, t.name, verdicts[v]).Inc()
		}
	case retry.Retrying:
		label := e.Label
		if label == "" {
			label = Unlabeled
		}
		t.retries.Get(m.reasons.Get(fold.Value(label))).Inc()
	case retry.GaveUp:
		if e.Attempt == 0 {
			t.calls.Inc()
		} else if e.Reason == retry.Budget {
			t.throttled.Inc()
		}
		if r := int(e.Reason); r < len(reasons) && reasons[r] != "" {
			lazy(&t.giveups[r], m.giveups, t.name, reasons[r]).Inc()
		}
	case retry.Recovered:
		t.recovered.Inc()
	case retry.Hedged:
		lazyTarget(&t.hedges, m.hedges, t.name).Inc()
	case retry.HedgeWon:
		lazyTarget(&t.won, m.hedgeWon, t.name).Inc()
	case retry.HedgeCanceled:
		lazyTarget(&t.canceled, m.hedgeLost, t.name).Inc()
	}
}
