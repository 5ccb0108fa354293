package otelrecur

import (
	"errors"
	"fmt"
	"github.com/recur-go/recur/fold"
	"math"
	"sync"
	"unicode/utf8"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/retry"
)

// ScopeName is the instrumentation scope of the meter the package takes
// from the MeterProvider: the package's import path, as OpenTelemetry's
// instrumentation libraries name theirs.
const ScopeName = "github.com/recur-go/recur/otelrecur"

// DefaultMaxTargets is the cap on the distinct recur.target values of one
// client's instruments when Config.MaxTargets is 0. It is the default cap
// of breaker.Registry and budget.Registry too.
const DefaultMaxTargets = 256

// MaxReasons caps the distinct recur.reason values of one client's
// recur.retries. Reasons come from judges (see retry.Judgement); a judge
// that put an error's text there would otherwise make a series per
// message.
const MaxReasons = 32

// Overflow is the recur.target value that stands for every target past a
// client's cap, and the recur.reason value for every reason past
// MaxReasons. It is the name breaker.Registry and budget.Registry give
// their own overflow entries, so a registry past its cap reports there
// too.
const Overflow = breaker.Overflow

// Unlabeled is the recur.reason value of a retry whose judgement gave no
// reason label (see retry.Judgement).
const Unlabeled = "unlabeled"

// The attribute keys of the instruments and span events.
const (
	// ClientKey is the client's name, Config.Client, on every data point.
	ClientKey = attribute.Key("recur.client")
	// TargetKey is the dependency a call is made to (retry.Event.Target),
	// such as httpretry's scheme://host:port.
	TargetKey = attribute.Key("recur.target")
	// ReasonKey is a retry's reason label (recur.retries, the recur.retry
	// span event) or why the runner gave up (recur.giveups, the
	// recur.give_up span event).
	ReasonKey = attribute.Key("recur.reason")
	// VerdictKey is an attempt's verdict (recur.attempts): success,
	// transient, retryable, failure or neutral.
	VerdictKey = attribute.Key("recur.verdict")
	// AttemptKey is the number of the attempt a span event is about,
	// from 1.
	AttemptKey = attribute.Key("recur.attempt")
	// DelayKey is the wait before the next attempt, in seconds, on the
	// recur.retry span event.
	DelayKey = attribute.Key("recur.delay")
	// ExceptionMessageKey is OpenTelemetry's exception.message: the
	// attempt's error text, on span events when Config.ErrorText is set.
	ExceptionMessageKey = attribute.Key("exception.message")
)

// The names of the span events Observe adds to the caller's span.
const (
	// RetryEvent is added before each wait for another attempt.
	RetryEvent = "recur.retry"
	// GiveUpEvent is added when the runner gives up on an outcome it
	// would have retried, or is refused before the first attempt.
	GiveUpEvent = "recur.give_up"
)

// The instruments' names.
const (
	nameCalls      = "recur.calls"
	nameAttempts   = "recur.attempts"
	nameDuration   = "recur.attempt.duration"
	nameRetries    = "recur.retries"
	nameThrottled  = "recur.throttled_retries"
	nameGiveups    = "recur.giveups"
	nameRecovered  = "recur.recoveries"
	nameHedges     = "recur.hedges"
	nameHedgeWon   = "recur.hedges.won"
	nameHedgeLost  = "recur.hedges.canceled"
	nameState      = "recur.breaker.state"
	nameOpenings   = "recur.breaker.openings"
	nameRejections = "recur.breaker.rejections"
	nameTokens     = "recur.budget.tokens"
)

// Names lists the names of every instrument the package makes, for
// dashboards, views and tests.
func Names() []string {
	return []string{nameCalls, nameAttempts, nameDuration, nameRetries, nameThrottled,
		nameGiveups, nameRecovered, nameHedges, nameHedgeWon, nameHedgeLost, nameState, nameOpenings, nameRejections, nameTokens}
}

// DefaultBuckets are the explicit bucket boundaries, in seconds, of
// recur.attempt.duration when Config.Buckets is nil: those OpenTelemetry's
// semantic conventions advise for http.client.request.duration, 5 ms to
// 10 s. (The SDK's own default, 0 to 10000, is made for milliseconds.)
var DefaultBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}

// Config says which client the instruments describe, where they come
// from and which breakers and budgets they read.
type Config struct {
	// Client is the recur.client attribute of every data point: the name
	// of the program's client of one or more targets, such as
	// "payments". Required: valid UTF-8 of at most 128 bytes, the cap of
	// every attribute value. Several clients can share a MeterProvider,
	// each with its own Metrics.
	Client string

	// MeterProvider makes the meter, named ScopeName, that makes the
	// instruments. Nil means otel.GetMeterProvider(), the global one, as
	// OpenTelemetry's instrumentation libraries do: until the program
	// sets one with otel.SetMeterProvider, it records nothing, and once it
	// does the instruments forward to it.
	MeterProvider metric.MeterProvider

	// Breaker, if not nil, is the registry whose breakers are read at
	// every collection for the breaker instruments, the one the adapters'
	// Breaker field takes: their Stats, not the calls, are the source, so
	// the breakers cost nothing more on the hot path.
	Breaker *breaker.Registry

	// Budget, if not nil, is the registry whose budgets are read at every
	// collection for recur.budget.tokens.
	Budget *budget.Registry

	// MaxTargets caps the distinct recur.target values of each instrument
	// of this client; the targets past it are reported together under
	// Overflow. Zero means DefaultMaxTargets; negative is an error.
	MaxTargets int

	// Buckets are the explicit bucket boundaries, in seconds and
	// increasing, of recur.attempt.duration. Nil means DefaultBuckets. A
	// view of the MeterProvider can still replace them.
	Buckets []float64

	// ErrorText puts the attempt's error text on the span events, as
	// exception.message. Off by default: an error's text can hold what a
	// trace should not (a URL with a token, a row's value).
	ErrorText bool
}

// Metrics records one client's calls, retries, breakers and budgets as
// OpenTelemetry instruments, and adds span events to the callers' spans.
// It is a retry.Observer, to be set as retry.Options.Observer, in an
// adapter's Options too. It is safe for concurrent use.
type Metrics struct {
	client    attribute.KeyValue
	max       int
	errorText bool

	calls, attempts, retries, throttled, giveups, recovered metric.Int64Counter
	hedges, hedgeWon, hedgeLost                             metric.Int64Counter
	duration                                                metric.Float64Histogram

	state                metric.Int64ObservableGauge
	openings, rejections metric.Int64ObservableCounter
	tokens               metric.Float64ObservableGauge
	reg                  metric.Registration

	targets *fold.Map[*target]
	reasons *fold.Map[string]

	breakerReg *breaker.Registry
	budgetReg  *budget.Registry

	mu       sync.Mutex // guards what the callback reads below
	breakers []fold.Named[*breaker.Breaker]
	budgets  []fold.Named[budget.Budget]
	bLabels  *fold.Labels                        // the targets with breaker series of their own
	gLabels  *fold.Labels                        // the same for budget series
	sets     map[string]metric.MeasurementOption // {client, target} by target, for the callback
	closed   bool
}

var _ retry.Observer = (*Metrics)(nil)

// New makes the instruments of c.Client on c.MeterProvider's meter and
// registers the callback that reads the breakers and budgets. It returns
// an error if c is not valid (no client, a negative MaxTargets, buckets
// that do not increase) or if the meter refuses an instrument. Close
// unregisters the callback.
func New(c Config) (*Metrics, error) {
	var errs []error
	switch {
	case c.Client == "":
		errs = append(errs, errors.New("empty Config.Client"))
	case !utf8.ValidString(c.Client):
		errs = append(errs, fmt.Errorf("Config.Client %q is not valid UTF-8", c.Client))
	case len(c.Client) > fold.MaxValueLen:
		errs = append(errs, fmt.Errorf("Config.Client is %d bytes long, more than an attribute value's %d", len(c.Client), fold.MaxValueLen))
	}
	if c.MaxTargets < 0 {
		errs = append(errs, fmt.Errorf("negative Config.MaxTargets %d", c.MaxTargets))
	}
	if err := fold.CheckBuckets(c.Buckets); err != nil {
		errs = append(errs, err)
	}
	for i, v := range c.Buckets {
		if math.IsInf(v, 0) {
			errs = append(errs, fmt.Errorf("Config.Buckets[%d] is %v", i, v)) // an OpenTelemetry boundary is finite
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("otelrecur: %w", errors.Join(errs...))
	}
	mp := c.MeterProvider
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	m := &Metrics{client: ClientKey.String(c.Client), max: c.MaxTargets, errorText: c.ErrorText,
		breakerReg: c.Breaker, budgetReg: c.Budget,
		sets: map[string]metric.MeasurementOption{}}
	if m.max == 0 {
		m.max = DefaultMaxTargets
	}
	m.bLabels, m.gLabels = fold.NewLabels(m.max), fold.NewLabels(m.max)
	if err := m.build(mp.Meter(ScopeName), c.Buckets); err != nil {
		return nil, fmt.Errorf("otelrecur: client %q: %w", c.Client, err)
	}
	return m, nil
}

// AddBreaker adds a breaker that no Registry holds, such as the one set
// as retry.Options.Breaker or pgretry's DB.Breaker(), to the breaker
// instruments, under the recur.target value target. It returns an error
// if b is nil or target already has a breaker added this way. A breaker
// of Config.Breaker with the same target is reported together with it:
// the worst state, the sums of the counts.
func (m *Metrics) AddBreaker(target string, b *breaker.Breaker) error {
	if b == nil {
		return fmt.Errorf("otelrecur: AddBreaker(%q, nil)", target)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var ok bool
	if m.breakers, ok = fold.Add(m.breakers, target, b); !ok {
		return fmt.Errorf("otelrecur: AddBreaker: target %q already has a breaker", target)
	}
	return nil
}

// AddBudget adds a budget that no Registry holds, such as the one set as
// retry.Options.Budget, to recur.budget.tokens under the recur.target
// value target. It returns an error if b is nil or target already has a
// budget added this way.
func (m *Metrics) AddBudget(target string, b budget.Budget) error {
	if b == nil {
		return fmt.Errorf("otelrecur: AddBudget(%q, nil)", target)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var ok bool
	if m.budgets, ok = fold.Add(m.budgets, target, b); !ok {
		return fmt.Errorf("otelrecur: AddBudget: target %q already has a budget", target)
	}
	return nil
}

// Close unregisters the callback that reads the breakers and budgets, so
// that a client that goes away is no longer reported and its breakers
// can be collected. The synchronous instruments stay: an Observe after
// Close still counts. Close is safe to call more than once.
func (m *Metrics) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	m.closed = true
	if err := m.reg.Unregister(); err != nil {
		return fmt.Errorf("otelrecur: Close: %w", err)
	}
	return nil
}
