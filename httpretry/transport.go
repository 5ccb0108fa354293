package httpretry

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/randcap"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// DefaultMaxRetryAfter is the longest Retry-After a Transport waits for
// when its MaxRetryAfter is zero. A response asking for a longer pause is
// returned to the caller at once.
const DefaultMaxRetryAfter = 30 * time.Second

// Transport is an http.RoundTripper that makes each request through Base
// and makes it again, on Schedule, when the attempt failed in a way that
// may pass and the request may be repeated. See the package
// documentation for what is retried and what each outcome counts as.
//
// The zero Transport retries what may be repeated on retry.DefaultSchedule
// (full jitter from 100ms to 2s, three attempts in all), within each
// target's shared default budget (gRFC A6's token bucket, see
// budget.Shared), so that a dead target sees about 10% extra load, never a
// multiple of it. New sets Schedule from a policy string.
//
// A Transport is safe for concurrent use. Its fields are read on first
// use; do not change them after that.
type Transport struct {
	// Base makes each attempt; nil means http.DefaultTransport. net/http's
	// own retries of requests that provably never reached the server (see
	// the package documentation) happen inside Base.
	//
	// An *http.Transport Base is used through a copy (Clone) made on first
	// use, whose dials are counted: one attempt opens at most four
	// connections, then fails with ErrDialLimit. The copy keeps its own
	// idle connections; CloseIdleConnections closes them and Base's. All
	// Transports with a nil Base share one copy of http.DefaultTransport.
	// Any other Base (a wrapper around an *http.Transport) has each
	// attempt's connections counted through net/http's client trace
	// (httptrace GetConn), with the same limit and error.
	Base http.RoundTripper

	// Schedule says when to try again and when to stop; nil means
	// retry.DefaultSchedule(). Times(n) allows n attempts in all, so
	// schedule.Times{N: 1} makes no retries (WithoutRetry does the same
	// for one request). New validates the
	// schedule it builds; a Transport filled in by hand is validated on
	// first use, before anything is sent: an invalid Schedule or field
	// makes every RoundTrip fail with its error, and Base is never called.
	Schedule schedule.Schedule

	// Hedge, if not nil, times hedged copies of every request that may be
	// repeated (an idempotent method, an idempotency key or
	// WithIdempotent, and a body that can be sent again), instead of
	// retries: while no answer has come, another copy starts at each
	// delay Hedge gives, and the first answer that is not retried wins;
	// the other copies are canceled and their responses drained and
	// closed (retry.Hedge). A retryable answer (a 503, a refused
	// connection) starts the next copy at once, or after its Retry-After.
	// A request that may not be repeated is never hedged: it is sent, and
	// retried, as without Hedge. Copies count against the target's budget
	// like retries. WithHedge sets it per request. An invalid Hedge makes
	// every RoundTrip fail before anything is sent.
	Hedge schedule.Schedule

	// Retry500 makes 500 Internal Server Error retryable, like 502, 503 and
	// 504. Off by default: a 500 is often a bug that the same request will
	// hit again.
	Retry500 bool

	// AttemptTimeout, when positive, bounds each attempt from its start
	// until its response headers arrive; an attempt that runs out is
	// retried if the request may be repeated, and otherwise returned as
	// an error for which errors.Is(err, ErrAttemptTimeout) holds. Reading
	// the body of the response that RoundTrip returns is bounded by the
	// request's context only. It uses real timers whatever Clock is.
	// Negative is an error.
	AttemptTimeout time.Duration

	// MaxRetryAfter is the longest Retry-After (on 429 and 503) that the
	// Transport waits for; a response that asks for longer, or for a
	// pause that would end past the request's deadline, is returned at
	// once. Zero means DefaultMaxRetryAfter; negative is an error.
	MaxRetryAfter time.Duration

	// DeadlineHeader, if not empty, names a header that each attempt
	// carries with the time left for it, in whole milliseconds: the
	// request context's remaining time, or AttemptTimeout if that is
	// shorter, so a downstream server never gets a fresh timeout. An
	// attempt with neither carries no such header. A common name is
	// "X-Request-Deadline-Ms".
	DeadlineHeader string

	// Breakers, if not nil, guards every attempt with the circuit breaker
	// of the request's target (scheme://host:port): an attempt the breaker
	// refuses is not made, and RoundTrip returns an error for which
	// errors.Is(err, breaker.ErrOpen) holds.
	Breakers *breaker.Registry

	// Budgets bounds the retries to each target with the target's retry
	// budget (see package budget). Nil means the target's shared default
	// budget, budget.Shared().Get(target): gRFC A6's token bucket (10
	// tokens, 0.1 back per success, retries only while more than half are
	// left), shared by every call to that target in the process, whatever
	// its Transport, schedule or WithSchedule: a failing target sees about
	// 10% extra load, never a storm.
	Budgets *budget.Registry

	// Unthrottled turns the default budget off, so that only the
	// schedule limits retries. It is an error together with Budgets.
	Unthrottled bool

	// Caps are the clock, which reads the time and waits between attempts
	// (nil means clockcap.Real()), the random source, which seeds each
	// request's jitter (nil means randcap.Real()), and the logger, which
	// gets a debug record for each retry. Tests pin the first two.
	retry.Caps

	// OnRetry, if not nil, is called before each wait with the request,
	// the number of the attempt that just failed (from 1), its error (a
	// *StatusError for a response) and the delay before the next attempt.
	// The failed attempt's response, if any, is already closed.
	OnRetry func(req *http.Request, attempt int, err error, delay time.Duration)

	// Observer, if not nil, receives the events of every request's
	// attempts (see retry.Observer), with Target the request's target
	// (scheme://host:port) and Label the attempt's reason: "http-503"
	// and the other retryable statuses ("http-408", "http-429",
	// "http-500", "http-502", "http-504"), "dial" (the connection was
	// never made), "connection" (it broke), "attempt-timeout",
	// "refused-stream", "tls", "no-host", "canceled" or "error"; empty
	// for other responses. The metrics adapters are Observers.
	Observer retry.Observer

	once sync.Once
	cfg  config
}

// config is what a Transport resolved from its fields on first use.
type config struct {
	err         error // what is wrong with the fields, if anything
	base        http.RoundTripper
	schedule    schedule.Schedule
	hedge       schedule.Schedule
	maxAfter    time.Duration
	clock       clockcap.Clock
	random      randcap.Random
	retry500    bool
	timeout     time.Duration
	header      string
	breakers    *breaker.Registry
	budgets     *budget.Registry
	onRetry     func(*http.Request, int, error, time.Duration)
	observer    retry.Observer
	logger      *slog.Logger
	unthrottled bool // no default budget
}

var _ http.RoundTripper = (*Transport)(nil)

// New returns a Transport that makes its attempts through base (nil means
// http.DefaultTransport) and retries on the schedule that policy spells
// in the policy language (docs/language.md), such as
// "fulljitter(100ms, 2s) & times(3)". It returns an error that points at
// the problem if policy does not parse or is invalid (a *parse.Error,
// which wraps the *schedule.Error of an invalid schedule). Set the other
// fields of the result before its first use.
func New(base http.RoundTripper, policy string) (*Transport, error) {
	s, err := parse.Parse(policy) // which validates s
	if err != nil {
		return nil, fmt.Errorf("httpretry: %w", err)
	}
	return &Transport{Base: base, Schedule: s}, nil
}

// NewClient returns an http.Client whose Transport is New(nil, policy):
// http.DefaultTransport's connections, retried on policy.
func NewClient(policy string) (*http.Client, error) {
	t, err := New(nil, policy)
	if err != nil {
		return nil, err
	}
	return &http.Client{Transport: t}, nil
}

// resolve returns the Transport's configuration, resolving it on first use.
func (t *Transport) resolve() *config {
	t.once.Do(func() { t.cfg = t.build() })
	return &t.cfg
}

func (t *Transport) build() config {
	c := config{
		base:     t.Base,
		schedule: t.Schedule,
		hedge:    t.Hedge,
		maxAfter: t.MaxRetryAfter,
		clock:    t.Clock,
		random:   t.Random,
		retry500: t.Retry500,
		timeout:  t.AttemptTimeout,
		header:   http.CanonicalHeaderKey(t.DeadlineHeader),
		breakers: t.Breakers,
		budgets:  t.Budgets,
		onRetry:  t.OnRetry,
		observer: t.Observer,
		logger:   t.Logger,
	}
	if c.base == nil {
		c.base = http.DefaultTransport
	}
	c.base = boundDials(c.base)
	if c.schedule == nil {
		c.schedule = retry.DefaultSchedule()
	}
	if c.maxAfter == 0 {
		c.maxAfter = DefaultMaxRetryAfter
	}
	if c.clock == nil {
		c.clock = clockcap.Real()
	}
	if c.random == nil {
		c.random = randcap.Real()
	}
	var errs []error
	if t.Budgets != nil && t.Unthrottled {
		errs = append(errs, errors.New("both Budgets and Unthrottled set"))
	}
	c.unthrottled = t.Unthrottled
	if err := schedule.Validate(c.schedule); err != nil {
		errs = append(errs, fmt.Errorf("invalid Schedule: %w", err))
	}
	if c.hedge != nil {
		if err := schedule.Validate(c.hedge); err != nil {
			errs = append(errs, fmt.Errorf("invalid Hedge: %w", err))
		}
	}
	if c.timeout < 0 {
		errs = append(errs, fmt.Errorf("negative AttemptTimeout %v", c.timeout))
	}
	if c.maxAfter < 0 {
		errs = append(errs, fmt.Errorf("negative MaxRetryAfter %v", c.maxAfter))
	}
	if len(errs) > 0 {
		c.err = fmt.Errorf("httpretry: %w", errors.Join(errs...))
	}
	return c
}

// CloseIdleConnections closes the idle connections of Base, if it can.
// http.Client.CloseIdleConnections calls it.
func (t *Transport) CloseIdleConnections() {
	if c, ok := t.resolve().base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
