package promrecur

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
)

// AddBreaker adds a breaker that no Registry holds, such as the one set
// as retry.Options.Breaker, to the breaker series, under the target
// label target. It returns an error if b is nil or target already has a
// breaker added this way. A breaker of Config.Breakers with the same
// target is reported together with it (see the package documentation).
func (m *Metrics) AddBreaker(target string, b *breaker.Breaker) error {
	if b == nil {
		return fmt.Errorf("promrecur: AddBreaker(%q, nil)", target)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if slices.ContainsFunc(m.breakers, func(n namedBreaker) bool { return n.target == target }) {
		return fmt.Errorf("promrecur: AddBreaker: target %q already has a breaker", target)
	}
	m.breakers = append(m.breakers, namedBreaker{target, b})
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
	if slices.ContainsFunc(m.budgets, func(n namedBudget) bool { return n.target == target }) {
		return fmt.Errorf("promrecur: AddBudget: target %q already has a budget", target)
	}
	m.budgets = append(m.budgets, namedBudget{target, b})
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
	return []prometheus.Collector{m.calls, m.attempts, m.duration, m.retries, m.throttled, m.giveups, m.recovered}
}

// admitLocked returns the label under which target's series are reported:
// target itself while fewer than m.max targets are in seen, else
// Overflow. A target once admitted stays, so that no counter moves
// between labels from one scrape to the next.
func (m *Metrics) admitLocked(seen map[string]bool, target string) string {
	if target == Overflow || (!seen[target] && len(seen) >= m.max) {
		return Overflow
	}
	seen[target] = true
	return labelValue(target)
}

// breakerRow is what one target label reports: the worst state of the
// breakers folded into it and the sums of their counters.
type breakerRow struct {
	state            float64
	opened, rejected uint64
}

// stateValue is the gauge value of s: 0 closed, 1 half-open, 2 open. An
// operator's ForcedOpen refuses calls as Open does and reports 2;
// Disabled and MetricsOnly let every call through and report 0.
func stateValue(s breaker.State) float64 {
	switch s {
	case breaker.HalfOpen:
		return 1
	case breaker.Open, breaker.ForcedOpen:
		return 2
	}
	return 0
}

func (m *Metrics) collectBreakers(ch chan<- prometheus.Metric) {
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
		r.opened += s.Opened
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
		r := rows[label]
		ch <- constMetric(m.state, prometheus.GaugeValue, r.state, label)
		ch <- constMetric(m.opened, prometheus.CounterValue, float64(r.opened), label)
		ch <- constMetric(m.rejected, prometheus.CounterValue, float64(r.rejected), label)
	}
}

func (m *Metrics) collectBudgets(ch chan<- prometheus.Metric) {
	tokens := map[string]float64{} // the least left among the buckets folded into a label
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
		ch <- constMetric(m.tokens, prometheus.GaugeValue, tokens[label], label)
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
