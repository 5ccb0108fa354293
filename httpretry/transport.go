package httpretry

import (
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/clockcap"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// DefaultMaxPushback is the longest Retry-After a Transport waits for
// when its Options.MaxPushback is zero. A response asking for a longer
// pause is returned to the caller at once.
const DefaultMaxPushback = 30 * time.Second

// Transport is an http.RoundTripper that makes each request through Base
// and makes it again, on Policy, when the attempt failed in a way that
// may pass and the request may be repeated. See the package
// documentation for what is retried and what each outcome counts as.
//
// The zero Transport retries what may be repeated on retry.DefaultSchedule
// (full jitter from 100ms to 2s, three attempts in all), within each
// target's shared default budget (gRFC A6's token bucket, see
// budget.Shared), so that a dead target sees about 10% extra load, never a
// multiple of it. New sets Policy from a policy string.
//
// Its fields are validated on first use, before anything is sent: an
// invalid Policy or Hedge, or Options that retry.Options.CheckAdapter
// refuses, make every RoundTrip fail with an error that says which, and
// Base is never called.
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
	// (httptrace GetConn), with the same limit and error, unless it is a
	// ConnBounder that bounds them itself.
	//
	// A Base that implements ErrorClassifier classifies its own errors:
	// it says which prove that the request was never sent, or was
	// declined unprocessed, and which lost a connection the request had
	// been sent on. Module h3retry's Base does so for HTTP/3.
	Base http.RoundTripper

	// Policy says when to try again and when to stop; nil means
	// retry.DefaultSchedule(). Times(n) allows n attempts in all, so
	// schedule.Times{N: 1} makes no retries (WithoutRetry does the same
	// for one request). A policy read from text is parse.Parse's result,
	// or a parse.Policy's Schedule; New parses and validates one.
	Policy schedule.Schedule

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
	// like retries. WithHedge sets it per request.
	Hedge schedule.Schedule

	// Breaker, if not nil, guards every attempt with the circuit breaker
	// of the request's target (scheme://host:port): an attempt the breaker
	// refuses is not made, and RoundTrip returns an error for which
	// errors.Is(err, breaker.ErrOpen) holds. Nil means no breaker.
	Breaker *breaker.Registry

	// Budget bounds the retries to each target with the target's retry
	// budget (see package budget). Nil means the target's shared default
	// budget, budget.Shared().Get(target): gRFC A6's token bucket (10
	// tokens, 0.1 back per success, retries only while more than half are
	// left), shared by every call to that target in the process, whatever
	// its Transport, policy or WithSchedule: a failing target sees about
	// 10% extra load, never a storm. Options.Unthrottled turns the
	// default budget off; it is an error together with Budget.
	Budget *budget.Registry

	// Options are the runner's (see retry.Options), with httpretry's
	// reading of two of them:
	//
	//   - AttemptTimeout, when positive, bounds each attempt from its
	//     start until its response headers arrive; an attempt that runs
	//     out is retried if the request may be repeated, and otherwise
	//     returned as an error for which errors.Is(err, ErrAttemptTimeout)
	//     holds. Reading the body of the response that RoundTrip returns
	//     is bounded by the request's context only. It uses real timers
	//     whatever Clock is.
	//   - MaxPushback is the longest Retry-After (on 429 and 503) that
	//     the Transport waits for; zero means DefaultMaxPushback (30s). A
	//     response that asks for longer, or for a pause that would end
	//     past the request's deadline, is not waited for: RoundTrip
	//     returns it at once, for the caller to see the status and its
	//     Retry-After. (The runner alone would shorten a longer pause to
	//     MaxPushback instead.)
	//
	// Clock reads the time and waits between attempts, and reads
	// Retry-After dates; Random seeds each request's jitter; Unthrottled
	// turns the default budget off. Observer receives the events of
	// every request's attempts (see retry.Observer) with the request's
	// context, Target the request's target (scheme://host:port) and
	// Label the attempt's reason: "http-503" and the other retryable
	// statuses ("http-408", "http-429", "http-500", "http-502",
	// "http-504"), "dial" (the connection was never made), "connection"
	// (it broke), "attempt-timeout", "refused-stream", "tls", "no-host",
	// "canceled" or "error"; empty for other responses. The error of a
	// retried response is a *StatusError. retry.LogObserver logs the
	// events, and the metrics adapters are Observers.
	//
	// Target, Breaker and Budget are the Transport's to set for each
	// request, from the request's target and the Breaker and Budget
	// registries; Options that set any of them are an error.
	Options retry.Options

	// Retry500 makes 500 Internal Server Error retryable, like 502, 503 and
	// 504. Off by default: a 500 is often a bug that the same request will
	// hit again.
	Retry500 bool

	// DeadlineHeader, if not empty, names a header that each attempt
	// carries with the time left for it, in whole milliseconds: the
	// request context's remaining time, or Options.AttemptTimeout if that
	// is shorter, so a downstream server never gets a fresh timeout. An
	// attempt with neither carries no such header. A common name is
	// "X-Request-Deadline-Ms".
	DeadlineHeader string

	once sync.Once
	cfg  config
}

// config is what a Transport resolved from its fields on first use.
type config struct {
	err      error // what is wrong with the fields, if anything
	base     http.RoundTripper
	classify ErrorClassifier // Base's, if it is one
	schedule schedule.Schedule
	hedge    schedule.Schedule
	opts     retry.Options // for the runner: no AttemptTimeout, MaxPushback resolved
	maxAfter time.Duration
	clock    clockcap.Clock
	retry500 bool
	timeout  time.Duration
	header   string
	breakers *breaker.Registry
	budgets  *budget.Registry
	targets  *targetCache // each host's target key
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
	return &Transport{Base: base, Policy: s}, nil
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
		schedule: t.Policy,
		hedge:    t.Hedge,
		opts:     t.Options,
		maxAfter: t.Options.MaxPushback,
		clock:    t.Options.Clock,
		retry500: t.Retry500,
		timeout:  t.Options.AttemptTimeout,
		header:   http.CanonicalHeaderKey(t.DeadlineHeader),
		breakers: t.Breaker,
		budgets:  t.Budget,
		targets:  new(targetCache),
	}
	if c.base == nil {
		c.base = http.DefaultTransport
	}
	c.classify, _ = c.base.(ErrorClassifier)
	c.base = boundDials(c.base)
	if c.schedule == nil {
		c.schedule = retry.DefaultSchedule()
	}
	if c.maxAfter == 0 {
		c.maxAfter = DefaultMaxPushback
	}
	if c.clock == nil {
		c.clock = clockcap.Real()
	}
	// The Transport bounds each attempt itself, until its headers come:
	// the runner's timeout would end the context the body is read under.
	c.opts.AttemptTimeout = 0
	c.opts.MaxPushback = c.maxAfter
	var errs []error
	if err := schedule.Validate(c.schedule); err != nil {
		errs = append(errs, fmt.Errorf("invalid Policy: %w", err))
	}
	if c.hedge != nil {
		if err := schedule.Validate(c.hedge); err != nil {
			errs = append(errs, fmt.Errorf("invalid Hedge: %w", err))
		}
	}
	if err := t.Options.CheckAdapter(); err != nil {
		errs = append(errs, err)
	}
	if t.Budget != nil && t.Options.Unthrottled {
		errs = append(errs, errors.New("both Budget and Options.Unthrottled set"))
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
