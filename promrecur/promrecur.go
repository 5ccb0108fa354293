package promrecur

import (
	"errors"
	"fmt"
	"github.com/recur-go/recur/fold"
	"sync"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/retry"
)

// DefaultMaxTargets is the cap on the distinct values of the target label
// of one client's series when Config.MaxTargets is 0. It is the default
// cap of breaker.Registry and budget.Registry too.
const DefaultMaxTargets = 256

// MaxReasons caps the distinct values of the reason label of one client's
// recur_retries_total. Reasons come from judges (see retry.Judgement); a
// judge that puts an error's text there would otherwise make a series
// per message.
const MaxReasons = 32

// Overflow is the target label value that stands for every target past a
// client's cap, and the reason label value for every reason past
// MaxReasons. It is the name breaker.Registry and budget.Registry give
// their own overflow entries, so a registry past its cap reports there
// too.
const Overflow = breaker.Overflow

// Unlabeled is the reason label value of a retry whose judgement gave no
// reason label (see retry.Judgement).
const Unlabeled = "unlabeled"

// Config says which client the metrics describe, where they are
// registered and which breakers and budgets they read.
type Config struct {
	// Client is the value of the client label of every series: the name
	// of the program's client of one or more targets, such as "payments".
	// Required: valid UTF-8 of at most 128 bytes, the cap of every label
	// value. Several clients can share a Registerer, each with its own
	// Metrics.
	Client string

	// Registerer is where New registers the Metrics, such as a
	// prometheus.NewRegistry() that a promhttp handler serves. Required:
	// the global prometheus.DefaultRegisterer is used only when passed
	// here.
	Registerer prometheus.Registerer

	// Breaker, if not nil, is the registry whose breakers are read at
	// every scrape for the breaker series, the one the adapters' Breaker
	// field takes: their Stats, not the calls, are the source, so the
	// breakers cost nothing more on the hot path.
	Breaker *breaker.Registry

	// Budget, if not nil, is the registry whose budgets are read at every
	// scrape for recur_budget_tokens.
	Budget *budget.Registry

	// MaxTargets caps the distinct target label values of each series of
	// this client; the targets past it are reported together under
	// Overflow. Zero means DefaultMaxTargets; negative is an error.
	MaxTargets int

	// Buckets are the upper bounds, in seconds and increasing, of the
	// buckets of recur_attempt_duration_seconds. Nil means
	// prometheus.DefBuckets (5ms to 10s).
	Buckets []float64
}

// Metrics exports one client's calls, retries, breakers and budgets as
// Prometheus series. It is a retry.Observer, to be set as
// retry.Options.Observer, in an adapter's Options too, and a
// prometheus.Collector, which New registers. It is safe for concurrent
// use.
type Metrics struct {
	reg prometheus.Registerer
	max int

	calls, attempts, retries, throttled, giveups, recovered *prometheus.CounterVec
	hedges, hedgeWon, hedgeLost                             *prometheus.CounterVec
	duration                                                *prometheus.HistogramVec

	targets *fold.Map[*target]
	reasons *fold.Map[string]

	state, opened, rejected, tokens *prometheus.Desc

	breakerReg *breaker.Registry
	budgetReg  *budget.Registry

	mu       sync.Mutex // guards what the scrape reads below
	breakers []fold.Named[*breaker.Breaker]
	budgets  []fold.Named[budget.Budget]
	bLabels  *fold.Labels // the targets with breaker series of their own
	gLabels  *fold.Labels // the same for budget series
}

var (
	_ retry.Observer       = (*Metrics)(nil)
	_ prometheus.Collector = (*Metrics)(nil)
)

// New returns the metrics of c.Client and registers them on
// c.Registerer. It returns an error if c is not valid (no client, no
// Registerer, a negative MaxTargets, buckets that do not increase) or if
// the Registerer already holds metrics for this client.
func New(c Config) (*Metrics, error) {
	var errs []error
	switch {
	case c.Client == "":
		errs = append(errs, errors.New("empty Config.Client"))
	case !utf8.ValidString(c.Client):
		errs = append(errs, fmt.Errorf("Config.Client %q is not valid UTF-8", c.Client))
	case len(c.Client) > fold.MaxValueLen:
		errs = append(errs, fmt.Errorf("Config.Client is %d bytes long, more than a label value's %d", len(c.Client), fold.MaxValueLen))
	}
	if c.Registerer == nil {
		errs = append(errs, errors.New("nil Config.Registerer (pass prometheus.NewRegistry(), or prometheus.DefaultRegisterer for the global one)"))
	}
	if c.MaxTargets < 0 {
		errs = append(errs, fmt.Errorf("negative Config.MaxTargets %d", c.MaxTargets))
	}
	if err := fold.CheckBuckets(c.Buckets); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("promrecur: %w", errors.Join(errs...))
	}
	m := &Metrics{reg: c.Registerer, max: c.MaxTargets,
		breakerReg: c.Breaker, budgetReg: c.Budget,
	}
	if m.max == 0 {
		m.max = DefaultMaxTargets
	}
	m.bLabels, m.gLabels = fold.NewLabels(m.max), fold.NewLabels(m.max)
	m.build(c)
	if err := c.Registerer.Register(m); err != nil {
		var dup prometheus.AlreadyRegisteredError
		if errors.As(err, &dup) {
			return nil, fmt.Errorf("promrecur: client %q is already registered on this Registerer: %w", c.Client, err)
		}
		return nil, fmt.Errorf("promrecur: client %q: %w", c.Client, err)
	}
	return m, nil
}
