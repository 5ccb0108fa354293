package otelrecur

import (
	"context"
	"math"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
)

// stateValue is the gauge value of s: 0 closed, 1 half-open, 2 open. An
// operator's ForcedOpen refuses calls as Open does and reports 2;
// Disabled and MetricsOnly let every call through and report 0.
func stateValue(s breaker.State) int64 {
	switch s {
	case breaker.HalfOpen:
		return 1
	case breaker.Open, breaker.ForcedOpen:
		return 2
	}
	return 0
}

// admitLocked returns the recur.target value under which target's data
// points are reported: target itself while fewer than m.max targets are
// in seen, else Overflow. A target once admitted stays, so that no
// counter moves between values from one collection to the next.
func (m *Metrics) admitLocked(seen map[string]bool, target string) string {
	if target == Overflow || (!seen[target] && len(seen) >= m.max) {
		return Overflow
	}
	seen[target] = true
	return target
}

// setLocked returns the attribute set {client, target} as an option.
func (m *Metrics) setLocked(target string) metric.MeasurementOption {
	o, ok := m.sets[target]
	if !ok {
		o = metric.WithAttributeSet(attribute.NewSet(m.client, TargetKey.String(target)))
		m.sets[target] = o
	}
	return o
}

// breakerRow is what one recur.target value reports: the worst state of
// the breakers folded into it and the sums of their counts.
type breakerRow struct {
	state              int64
	openings, rejected uint64
}

// collect is the callback of the observable instruments: it reads the
// breakers' and budgets' Stats.
func (m *Metrics) collect(_ context.Context, o metric.Observer) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	m.collectBreakers(o)
	m.collectBudgets(o)
	return nil
}

func (m *Metrics) collectBreakers(o metric.Observer) {
	rows := map[string]*breakerRow{}
	var order []string
	add := func(target string, b *breaker.Breaker) {
		label := m.admitLocked(m.bTargets, target)
		s := b.Stats()
		r := rows[label]
		if r == nil {
			r = &breakerRow{}
			rows[label] = r
			order = append(order, label)
		}
		r.state = max(r.state, stateValue(s.State))
		r.openings += s.Opened
		r.rejected += s.Rejected
	}
	if m.breakerReg != nil {
		for target, b := range m.breakerReg.All() {
			add(target, b)
		}
	}
	for _, n := range m.breakers {
		add(n.target, n.b)
	}
	for _, label := range order {
		r, set := rows[label], m.setLocked(label)
		o.ObserveInt64(m.state, r.state, set)
		o.ObserveInt64(m.openings, clampInt64(r.openings), set)
		o.ObserveInt64(m.rejections, clampInt64(r.rejected), set)
	}
}

func (m *Metrics) collectBudgets(o metric.Observer) {
	tokens := map[string]float64{} // the least left among the buckets folded into a value
	var order []string
	add := func(target string, b budget.Budget) {
		tb, ok := b.(*budget.TokenBucket)
		if !ok {
			return // Ratio and Adaptive keep no tokens
		}
		label := m.admitLocked(m.gTargets, target)
		t := tb.Tokens()
		if old, ok := tokens[label]; ok {
			tokens[label] = math.Min(old, t)
			return
		}
		tokens[label] = t
		order = append(order, label)
	}
	if m.budgetReg != nil {
		for target, b := range m.budgetReg.All() {
			add(target, b)
		}
	}
	for _, n := range m.budgets {
		add(n.target, n.b)
	}
	for _, label := range order {
		o.ObserveFloat64(m.tokens, tokens[label], m.setLocked(label))
	}
}

// clampInt64 is n as an int64, at most math.MaxInt64.
func clampInt64(n uint64) int64 {
	if n > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(n)
}
