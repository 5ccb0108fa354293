package otelrecur

import (
	"context"
	"github.com/recur-go/recur/fold"
	"math"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// setLocked returns the attribute set {client, target} as an option.
func (m *Metrics) setLocked(target string) metric.MeasurementOption {
	o, ok := m.sets[target]
	if !ok {
		o = metric.WithAttributeSet(attribute.NewSet(m.client, TargetKey.String(target)))
		m.sets[target] = o
	}
	return o
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
	for _, r := range fold.Breakers(m.bLabels, m.breakerReg, m.breakers) {
		set := m.setLocked(r.Label)
		o.ObserveInt64(m.state, r.State, set)
		o.ObserveInt64(m.openings, clampInt64(r.Opened), set)
		o.ObserveInt64(m.rejections, clampInt64(r.Rejected), set)
	}
}

func (m *Metrics) collectBudgets(o metric.Observer) {
	for _, r := range fold.Tokens(m.gLabels, m.budgetReg, m.budgets) {
		o.ObserveFloat64(m.tokens, r.Tokens, m.setLocked(r.Label))
	}
}

// clampInt64 is n as an int64, at most math.MaxInt64.
func clampInt64(n uint64) int64 {
	if n > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(n)
}
