//lint:file-ignore SA1019 a Base may still set the deprecated Dial and DialTLS: their dials are counted too

package httpretry

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// maxDialsPerAttempt is how many connections one attempt may open through
// any Base (see boundDials). One is the usual need; net/http opens another
// when a kept-alive connection turns out to be closed, and its HTTP/2
// client yet another when a connection it was given goes away before the
// request was sent. A server that answers every stream with GOAWAY and
// hangs up makes net/http dial again without end (golang/go#52459): this
// bound turns that loop into a failed attempt.
const maxDialsPerAttempt = 4

// ConnBounder is an optional interface of a Transport's Base that is not
// an *http.Transport: a Base that bounds by itself the connections one of
// its RoundTrips may open says how many, and when that is at most four
// (the bound the Transport applies), the Transport does not wrap the Base
// in the client trace that counts them (see Transport.Base). That trace
// makes every attempt's context cancelable, which costs a Base that
// derives contexts of its own from the request's a little on every
// request. Module h3retry's Base implements it: quic-go's HTTP/3 client
// makes at most two connections for one RoundTrip (its one resend).
//
// A MaxConnsPerRoundTrip of zero or less, or above four, is as if the
// Base did not implement ConnBounder. The Transport looks for it on the
// Base it is given, as for ErrorClassifier.
type ConnBounder interface {
	MaxConnsPerRoundTrip() int
}

// ErrDialLimit is what errors.Is finds in the error of an attempt that
// needed more than four connections: the server hung up on each one before
// answering, as a server that sends GOAWAY on every stream does.
var ErrDialLimit = errors.New("httpretry: too many connections for one attempt")

// dialLimitError is the error of the dial one past the limit.
type dialLimitError struct{ addr string }

func (e *dialLimitError) Error() string {
	return "httpretry: one attempt to " + e.addr + " has opened " + strconv.Itoa(maxDialsPerAttempt) +
		" connections without an answer; not dialing again (see golang/go#52459)"
}

func (e *dialLimitError) Unwrap() error { return ErrDialLimit }

// dialKey is the context key under which an attempt's dial count lives.
type dialKey struct{}

// attemptDials is an attempt's context with its dial count: the context
// of orig, the request the attempt was made for, which it keeps rather
// than that context, a word less: with the attempt's request beside it
// (boundAttempt), 320 bytes, a size class smaller than with the context.
type attemptDials struct {
	orig *http.Request
	n    atomic.Int32
}

func (a *attemptDials) Deadline() (time.Time, bool) { return a.orig.Context().Deadline() }
func (a *attemptDials) Done() <-chan struct{}       { return a.orig.Context().Done() }
func (a *attemptDials) Err() error                  { return a.orig.Context().Err() }

func (a *attemptDials) Value(key any) any {
	if _, ok := key.(dialKey); ok {
		return a
	}
	return a.orig.Context().Value(key)
}

// count counts a dial of ctx's attempt, and returns an error when the
// attempt has had its share. A dial outside any attempt is not counted.
func count(ctx context.Context, addr string) error {
	a, _ := ctx.Value(dialKey{}).(*attemptDials)
	if a != nil && a.n.Add(1) > maxDialsPerAttempt {
		return &dialLimitError{addr: addr}
	}
	return nil
}

// dialBound is an *http.Transport Base whose dials are counted per
// attempt: a copy of the caller's Transport with its dial functions
// wrapped, so that the caller's own Transport is left as it was.
type dialBound struct {
	orig *http.Transport // the Base it copies
	t    *http.Transport // the copy that makes the attempts
}

// boundAttempt is one attempt through a dialBound: its context, which
// counts its dials, and the request under that context, in one
// allocation. net/http keeps both until the response body is read, and a
// dial it began for the attempt may count after that: they are never
// reused.
type boundAttempt struct {
	dials attemptDials
	req   http.Request
}

// RoundTrip makes one attempt through the copy, under a context that
// counts the attempt's dials. The response's Request is r, as from any
// Transport.
func (d *dialBound) RoundTrip(r *http.Request) (*http.Response, error) {
	a := &boundAttempt{dials: attemptDials{orig: r}}
	// WithContext is inlined and its copy does not escape: copied into a,
	// it costs no allocation of its own, and a.req is r with a's context,
	// as WithContext's result would be.
	a.req = *r.WithContext(&a.dials)
	resp, err := d.t.RoundTrip(&a.req)
	if resp != nil {
		resp.Request = r
	}
	return resp, err
}

// CloseIdleConnections closes the idle connections of the copy and of the
// Transport it copies.
func (d *dialBound) CloseIdleConnections() {
	d.t.CloseIdleConnections()
	d.orig.CloseIdleConnections()
}

var zeroDialer net.Dialer // what net/http dials with when no hook is set

// boundDials returns base with its dials bounded per attempt. An
// *http.Transport is used through a copy whose dial functions count
// (newDialBound). Any other Base, such as a tracing or logging wrapper
// around an *http.Transport that httpretry cannot reach, is wrapped in a
// traceBound, which counts the connections net/http asks for, unless it
// is a ConnBounder that bounds them at least as tightly. A nil
// base is returned as it is. http.DefaultTransport's copy is made once
// and shared, so that every Transport with a nil Base shares one pool of
// connections, as it would share http.DefaultTransport's.
func boundDials(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		return nil
	}
	t, ok := base.(*http.Transport)
	if !ok {
		if _, ok := base.(*dialBound); ok {
			return base
		}
		if _, ok := base.(*traceBound); ok {
			return base
		}
		if cb, ok := base.(ConnBounder); ok {
			if n := cb.MaxConnsPerRoundTrip(); n > 0 && n <= maxDialsPerAttempt {
				return base // it bounds its own connections, as tightly
			}
		}
		return &traceBound{base: base}
	}
	if t == nil {
		return base
	}
	if t != http.DefaultTransport {
		return newDialBound(t)
	}
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.orig != t {
		shared.orig, shared.bound = t, newDialBound(t)
	}
	return shared.bound
}

// shared is the bounded copy of http.DefaultTransport.
var shared struct {
	mu    sync.Mutex
	orig  *http.Transport
	bound *dialBound
}

// newDialBound copies t and wraps the copy's dial functions with count.
func newDialBound(t *http.Transport) *dialBound {
	c := t.Clone() // which settles whether t speaks HTTP/2
	// net/http turns HTTP/2 on by itself only for a Transport without
	// custom dialers or TLS config: keep it on for the copy, which has
	// custom dialers now, when it is on for t.
	if t.TLSNextProto["h2"] != nil && c.Protocols == nil {
		c.ForceAttemptHTTP2 = true
	}
	dial := c.DialContext
	if dial == nil {
		dial = zeroDialer.DialContext
		if d := c.Dial; d != nil {
			dial = func(_ context.Context, network, addr string) (net.Conn, error) { return d(network, addr) }
		}
	}
	c.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if err := count(ctx, addr); err != nil {
			return nil, err
		}
		return dial(ctx, network, addr)
	}
	c.Dial = nil
	if tls := c.DialTLSContext; tls != nil || c.DialTLS != nil {
		if tls == nil {
			d := c.DialTLS
			tls = func(_ context.Context, network, addr string) (net.Conn, error) { return d(network, addr) }
		}
		c.DialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			if err := count(ctx, addr); err != nil {
				return nil, err
			}
			return tls(ctx, network, addr)
		}
		c.DialTLS = nil
	}
	return &dialBound{orig: t, t: c}
}

// traceBound is a Base that is not an *http.Transport, with each
// attempt's connections bounded through net/http's client trace: the
// dial functions it would count are out of reach inside base. Every time
// an *http.Transport under base asks for a connection for the attempt
// (httptrace.ClientTrace.GetConn, once per connection net/http gets or
// dials, also when it retries a request by itself after a GOAWAY), the
// attempt's count goes up; past maxDialsPerAttempt the attempt's context
// is canceled with a *dialLimitError as its cause, which net/http
// returns as the attempt's error. A dial net/http had already queued
// then still completes (net/http detaches dials from the request's
// cancellation) and goes to its idle pool: at most one connection more
// than through an *http.Transport Base. A base that does not pass the
// request's context on, or makes its connections without net/http, is
// not bounded.
type traceBound struct {
	base http.RoundTripper
}

// traceAttempt is one attempt through a traceBound: its connection
// count, the trace that counts, the request under the context that
// carries the trace, and the body that ends that context, in one
// allocation. Like a boundAttempt, it is never reused.
type traceAttempt struct {
	n      atomic.Int32 // the connections net/http asked for
	cancel context.CancelCauseFunc
	trace  httptrace.ClientTrace
	req    http.Request
	body   cancelBody
}

// getConn is the trace's GetConn: it counts a connection, and past the
// attempt's share ends the attempt.
func (a *traceAttempt) getConn(hostPort string) {
	if a.n.Add(1) > maxDialsPerAttempt {
		a.cancel(&dialLimitError{addr: hostPort})
	}
}

// RoundTrip makes one attempt through base under a context that counts
// its connections and lives, once the response has come, until its body
// is closed.
func (b *traceBound) RoundTrip(r *http.Request) (*http.Response, error) {
	a := new(traceAttempt)
	ctx, cancel := context.WithCancelCause(r.Context())
	a.cancel = cancel
	a.trace.GetConn = a.getConn
	ctx = httptrace.WithClientTrace(ctx, &a.trace)
	a.req = *r.WithContext(ctx) // as in dialBound.RoundTrip: no allocation of its own
	resp, err := b.base.RoundTrip(&a.req)
	if err != nil {
		if cause := context.Cause(ctx); errors.Is(cause, ErrDialLimit) && !errors.Is(err, ErrDialLimit) {
			err = errors.Join(err, cause)
		}
		cancel(nil)
		return resp, err
	}
	if resp == nil || resp.Body == nil || resp.Body == http.NoBody {
		cancel(nil)
		if resp != nil {
			resp.Request = r
		}
		return resp, nil
	}
	if _, ok := resp.Body.(io.ReadWriteCloser); ok {
		resp.Body = cancelOnClose(resp.Body, cancel) // which keeps it writable
	} else {
		a.body = cancelBody{resp.Body, cancel}
		resp.Body = &a.body
	}
	resp.Request = r
	return resp, nil
}

// CloseIdleConnections closes base's idle connections, if it can.
func (b *traceBound) CloseIdleConnections() {
	if c, ok := b.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
