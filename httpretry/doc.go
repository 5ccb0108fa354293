// Package httpretry is an http.RoundTripper that retries, safely by
// default: it repeats only what may be repeated, waits as the server
// asks, stays inside the caller's deadline, and leaves a failing target
// alone when a circuit breaker or a retry budget says so.
//
//	client, err := httpretry.NewClient("fulljitter(100ms, 2s) & times(3)")
//	...
//	resp, err := client.Get("https://api.example.com/quote")
//
// The policy is a schedule (package schedule) written in the policy
// language (docs/language.md): here, full-jitter exponential backoff from
// 100ms, at most three attempts in all. New wraps any RoundTripper, and
// the fields of Transport turn on the rest:
//
//	tr, err := httpretry.New(base, "fulljitter(100ms, 2s) & times(3)")
//	tr.Breaker = breakers // a *breaker.Registry: one breaker per scheme://host:port
//	tr.Budget = budgets   // a *budget.Registry: one retry budget per target
//	tr.DeadlineHeader = "X-Request-Deadline-Ms"
//	tr.Options.Observer = retry.LogObserver(slog.Default()) // each retry, and giving up
//	client := &http.Client{Transport: tr}
//
// The zero Transport retries too, on retry.DefaultSchedule (the same
// policy as above), and every Transport is throttled by default: the
// retries to each target (scheme://host:port) draw on that target's
// shared default budget, gRFC A6's token bucket (budget.Shared), unless
// Budget gives a registry of your own or Options.Unthrottled turns it
// off. The Transport's Options are retry.Options: the clock, the random
// source, the attempt timeout, the longest Retry-After honoured and the
// Observer, the one channel for logs, metrics and hooks.
//
// The retry loop is retry.RetryIf's: a request whose context is already
// done is not sent, the first attempt is otherwise always made, the
// request's context deadline bounds all of them together, a wait that would
// end past it is not begun, and an open breaker is never retried through.
//
// # What is repeated
//
// A request is sent again only if repeating it is safe and possible:
//
//   - its method is idempotent — GET, HEAD, OPTIONS, TRACE, PUT, DELETE,
//     QUERY —
//     or it carries an Idempotency-Key (or X-Idempotency-Key) header, or
//     its context was marked with WithIdempotent; a POST or a PATCH
//     without one of those is sent once, because the server may have
//     acted on it before the failure;
//   - and its body can be sent again: it has none, or GetBody makes a new
//     one (http.NewRequest sets GetBody for the usual in-memory bodies).
//
// A request that provably never reached the server is safe to repeat
// whatever its method, if its body can be rewound: one whose connection
// could not be made (refused, unreachable, a temporary DNS failure, a
// dial timeout), and an HTTP/2 stream the server refused (REFUSED_STREAM).
// net/http already resends, inside Base, a request it lost on a reused
// idle connection before writing it, and an HTTP/2 stream that the server
// refused or that was above a GOAWAY's last stream ID; httpretry does not
// add a second layer of those. See docs/http.md for how each case is recognised and
// where that stops. A Base of another protocol says which of its own
// errors prove a request unsent or unprocessed by implementing
// ErrorClassifier, as module h3retry's Base does for HTTP/3.
//
// # What is retried
//
// A repeatable request is retried after the answers 408, 429, 502, 503
// and 504 (and 500 when Retry500 is set), and after a connection that was
// refused, reset or closed, or that timed out (Options.AttemptTimeout).
// It is never retried after a TLS certificate or handshake failure, a host that
// does not exist, any other status, or the caller's own cancellation.
//
// Whatever happens, RoundTrip returns the last response it got, open and
// unread, as net/http would: a 503 that is not retried again is a
// response, not an error. Each response it does not return is drained
// (at most 64 KiB) and closed before the next attempt, so its connection
// serves that attempt. RoundTrip returns an error only when it has no
// response: the attempts failed without one, the breaker refused
// (errors.Is(err, breaker.ErrOpen), with no request made), the budget
// refused the call, or the context ended.
//
// # Retry-After
//
// On 429 and 503, a Retry-After header, in seconds or as an HTTP-date,
// sets the least wait before the next attempt. A wait longer than
// Options.MaxPushback (DefaultMaxPushback, 30s, when zero), or one that
// would end past the request's deadline, is not made: the response is
// returned at once.
//
// # Verdicts
//
// Each attempt's outcome is a verdict.Verdict, which the breaker and the
// budget of its target record. Connection failures,
// TLS and DNS errors, timeouts and 408, 500, 502, 503 and 504 count
// against the target; 429 (Retryable) and other 4xx (Neutral) do not: a
// busy target or a bad request says nothing about the target's health.
//
// # Deadlines
//
// The request's context bounds every attempt and every wait.
// Options.AttemptTimeout bounds one attempt, from its start until its
// response headers arrive. With DeadlineHeader set, each attempt tells the server
// how long it has left, in milliseconds — the caller's remaining time, or
// AttemptTimeout if that is shorter — so a downstream never starts a
// fresh timeout (deadline propagation, as chapter 22 of the Google SRE
// book describes it).
package httpretry
