package httpretry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
)

// RoundTrip makes req through Base, and again on the Policy while the
// attempts fail in a way that may pass and req may be repeated. It returns
// the last attempt's response, open and unread, whatever its status; each
// response it did not return was drained (up to 64 KiB, for at most 250 ms)
// and closed.
//
// It returns an error only when it has no response to return: every
// attempt failed without one, the breaker refused an attempt, the budget
// refused the call, or the request's context ended. When it gave up after
// retrying, the error is a *retry.Error that wraps the last attempt's
// error and says how many attempts were made.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	cfg := t.resolve()
	if cfg.err != nil {
		closeBody(req)
		return nil, cfg.err
	}
	sched, retries := cfg.schedule, true
	ovs := overridesOf(req.Context())
	if ovs.hasSched {
		switch s := ovs.sched.s; {
		case s == nil:
			sched, retries = schedule.Times{N: 1}, false // WithoutRetry
		case schedule.Validate(s) != nil:
			closeBody(req)
			return nil, fmt.Errorf("httpretry: WithSchedule: %w", schedule.Validate(s))
		default:
			sched, retries = s, true
		}
	}
	c := call{cfg: cfg, req: req, repeatable: repeatable(req), rewindable: rewindable(req)}
	hedge := cfg.hedge
	if ovs.hasHedge {
		hedge = ovs.hedge.s
		if hedge != nil && schedule.Validate(hedge) != nil {
			closeBody(req)
			return nil, fmt.Errorf("httpretry: WithHedge: %w", schedule.Validate(hedge))
		}
	}
	o := cfg.opts
	g := cfg.guardsOf(req.URL)
	o.Target, o.Breaker, o.Budget = g.target, g.breaker, g.budget
	if hedge != nil && c.repeatable && c.rewindable {
		// The hedged copies run on goroutines of their own and keep
		// the call: it moves to the heap here, so that the other
		// requests keep theirs on the stack.
		h := c
		return h.hedged(o, hedge)
	}
	resp, err := retry.Do(req.Context(), o, sched, c.judge, c.discard, c.attempt)
	if c.attempts == 0 {
		closeBody(req) // refused before the first attempt: Base never saw it
	}
	if re, ok := err.(*retry.Error); ok && re.Reason == retry.Exhausted && !retries {
		err = re.Err // WithoutRetry: Base's error as it was
	}
	switch {
	case err == nil:
		return resp, nil
	case resp == nil:
		return nil, err
	case req.Context().Err() != nil:
		// The caller gave up while the last response was in hand.
		drain(req.Context(), resp)
		return nil, err
	}
	return resp, nil // a status not retried, or not again: the caller's to read
}

// call is one RoundTrip: the request and what its attempts left.
type call struct {
	cfg        *config
	req        *http.Request
	repeatable bool // its method, key or context says it may be repeated
	rewindable bool // its body can be sent again

	attempts int             // attempts made
	v        verdict.Verdict // the last attempt's verdict
	label    label           // and its reason label, such as "http-503"
}

// errNotRetried is what an attempt returns to the runner for a response
// whose verdict is not to retry, so that the runner records the verdict
// and returns; RoundTrip returns the response instead.
var errNotRetried = errors.New("httpretry: response not retried")

var errNoResponse = errors.New("httpretry: Base returned a nil *Response with a nil error")

// attempt makes one attempt. It is the runner's operation.
func (c *call) attempt(ctx context.Context) (*http.Response, error) {
	r := c.req
	if c.attempts > 0 && r.Body != nil && r.Body != http.NoBody {
		body, err := r.GetBody()
		if err != nil {
			c.v = verdict.Neutral
			return nil, err
		}
		r = shallow(r)
		r.Body = body
	}
	c.attempts++
	resp, err := c.send(ctx, r)
	if err != nil {
		c.v = c.judgeError(ctx, err)
		return nil, err
	}
	c.v = c.judgeStatus(resp.StatusCode)
	c.label = statusLabel(resp.StatusCode)
	switch {
	case c.v == verdict.Success:
		return resp, nil
	case !c.v.Retry():
		return resp, errNotRetried
	}
	return resp, newStatusError(resp, c.cfg.maxAfter, c.cfg.clock.Now)
}

// judge is the runner's Judge: the verdict and the reason label that
// attempt left.
func (c *call) judge(*http.Response, error) retry.Judgement {
	return retry.Judgement{Verdict: c.v, Reason: c.label.String()}
}

// discard is the runner's discard: a response it drops to try again is
// drained and closed before the next attempt, which lets its connection
// serve that attempt.
func (c *call) discard(resp *http.Response) {
	if resp != nil {
		drain(c.req.Context(), resp)
	}
}

// withDeadline returns r carrying the deadline header: the time left
// before ctx's deadline, or the attempt timeout if that is shorter, in
// whole milliseconds. With neither, it returns r as it is.
// send makes one round trip of r through Base: with the deadline header
// when the Transport sets one, within AttemptTimeout when there is one.
func (c *call) send(ctx context.Context, r *http.Request) (*http.Response, error) {
	cfg := c.cfg
	if cfg.header != "" {
		r = c.withDeadline(ctx, r)
	}
	var resp *http.Response
	var err error
	if cfg.timeout > 0 {
		resp, err = roundTripTimeout(cfg.base, r, cfg.timeout)
	} else {
		resp, err = cfg.base.RoundTrip(r)
	}
	if err == nil && resp == nil {
		err = errNoResponse // a broken Base; http.Client reports it the same way
	}
	return resp, err
}

func (c *call) withDeadline(ctx context.Context, r *http.Request) *http.Request {
	var left time.Duration
	d, ok := ctx.Deadline()
	if ok {
		left = max(d.Sub(c.cfg.clock.Now()), 0)
	}
	if t := c.cfg.timeout; t > 0 && (!ok || t < left) {
		left, ok = t, true
	}
	if !ok {
		return r
	}
	if r == c.req {
		r = shallow(r)
	}
	r.Header = r.Header.Clone()
	if r.Header == nil {
		r.Header = make(http.Header, 1)
	}
	r.Header[c.cfg.header] = []string{strconv.FormatInt(left.Milliseconds(), 10)}
	return r
}

// shallow returns a copy of r that shares everything with it; the caller
// replaces what must differ.
func shallow(r *http.Request) *http.Request {
	r2 := new(http.Request)
	*r2 = *r
	return r2
}

// roundTripTimeout makes one attempt through base under a context that
// ends d after it starts, unless the response headers come first. The
// context then lives on, without a timer, until the response body is
// closed, so that the caller can read it.
func roundTripTimeout(base http.RoundTripper, r *http.Request, d time.Duration) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(r.Context())
	timer := time.AfterFunc(d, func() { cancel(ErrAttemptTimeout) })
	resp, err := base.RoundTrip(r.WithContext(ctx))
	if timer.Stop() {
		if err != nil {
			cancel(nil)
			return nil, err
		}
		resp.Body = cancelOnClose(resp.Body, cancel)
		return resp, nil
	}
	// The timer fired, perhaps just as the headers came: the context is
	// done, so the body could not be read anyway.
	if err == nil {
		resp.Body.Close()
	}
	return nil, &timeoutError{d: d, err: err}
}
