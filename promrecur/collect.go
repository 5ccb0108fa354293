package promrecur

import (
	"errors"
	"fmt"
	"github.com/recur-go/recur/fold"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
)

// AddBreaker adds a breaker that no Registry holds, such as the one set
// as retry.Options.Breaker, to the breaker series, under the target
// label target. It returns an error if b is nil or target already has a
// breaker added this way. A breaker of Config.Breaker with the same
// target is reported together with it (see the package documentation).
func (m *Metrics) AddBreaker(target string, b *breaker.Breaker) error {
	if b == nil {
		return fmt.Errorf("promrecur: AddBreaker(%q, nil)", target)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var ok bool
	if m.breakers, ok = fold.Add(m.breakers, target, b); !ok {
		return fmt.Errorf("promrecur: AddBreaker: target %q already has a breaker", target)
	}
	return nil
}

// AddBudget adds a budget that no Registry holds, such as the one set as
// retry.Options.Budget, to recur_budget_tokens under the target label
// target. It returns an error if b is nil or target already has a budget
// added this way.
func (m *Metrics) AddBudget(target string, b budget.Budget) error {
	if b == nil {
		return fmt.Errorf("promrecur: AddBudget(%q, nil)", target)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var ok bool
	if m.budgets, ok = fold.Add(m.budgets, target, b); !ok {
		return fmt.Errorf("promrecur: AddBudget: target %q already has a budget", target)
	}
	return nil
}

// Unregister removes the metrics from the Registerer New registered them
// on, and reports whether they were there. A client that goes away calls
// it, so that another Metrics may take its name.
func (m *Metrics) Unregister() bool { return m.reg.Unregister(m) }

// Describe sends the descriptors of every series to ch
// (prometheus.Collector).
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, v := range m.vecs() {
		v.Describe(ch)
	}
	ch <- m.state
	ch <- m.opened
	ch <- m.rejected
	ch <- m.tokens
}

// Collect sends every series to ch, reading the breakers' and budgets'
// Stats (prometheus.Collector).
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	for _, v := range m.vecs() {
		v.Collect(ch)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.collectBreakers(ch)
	m.collectBudgets(ch)
}

func (m *Metrics) vecs() []prometheus.Collector {
	return []prometheus.Collector{m.calls, m.attempts, m.duration, m.retries, m.throttled, m.giveups, m.recovered,
		m.hedges, m.hedgeWon, m.hedgeLost}
}

func (m *Metrics) collectBreakers(ch chan<- prometheus.Metric) {
	for _, r := range fold.Breakers(m.bLabels, m.breakerReg, m.breakers) {
		label := r.Label // folded by fold.Labels
		ch <- constMetric(m.state, prometheus.GaugeValue, float64(r.State), label)
		ch <- constMetric(m.opened, prometheus.CounterValue, float64(r.Opened), label)
		ch <- constMetric(m.rejected, prometheus.CounterValue, float64(r.Rejected), label)
	}
}

func (m *Metrics) collectBudgets(ch chan<- prometheus.Metric) {
	for _, r := range fold.Tokens(m.gLabels, m.budgetReg, m.budgets) {
		ch <- constMetric(m.tokens, prometheus.GaugeValue, r.Tokens, r.Label)
	}
}

// constMetric is prometheus.MustNewConstMetric without the panic: the
// descriptors are the package's own and take one label, so it cannot
// fail, but an error would become an invalid metric that the registry
// reports at scrape time rather than a panic.
func constMetric(d *prometheus.Desc, t prometheus.ValueType, v float64, label string) prometheus.Metric {
	mt, err := prometheus.NewConstMetric(d, t, v, label)
	if err != nil {
		return prometheus.NewInvalidMetric(d, errors.Join(errors.New("promrecur"), err))
	}
	return mt
}
