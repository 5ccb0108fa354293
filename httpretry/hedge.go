package httpretry

import (
	"context"
	"net/http"

	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// hedged makes a request that may be repeated with retry.Hedge on s:
// every copy is a request of its own (its own body, from GetBody), the
// first answer that is not retried wins, and every other response is
// drained and closed. Like RoundTrip, it returns the last response
// whatever its status when it has one, and an error only when it has none.
func (c *call) hedged(o retry.Options, s schedule.Schedule) (*http.Response, error) {
	req := c.req
	judge := func(resp *http.Response, err error) retry.Judgement {
		if err != nil {
			v := c.judgeError(req.Context(), err)
			return retry.Judgement{Verdict: v, Reason: c.label.String()}
		}
		c.label = statusLabel(resp.StatusCode)
		jd := retry.Judgement{Verdict: c.judgeStatus(resp.StatusCode), Reason: c.label.String()}
		if jd.Verdict.Retry() {
			if push, ok := newStatusError(resp, c.cfg.maxAfter, c.cfg.clock.Now).RetryAfter(); ok {
				jd.RetryAfter = push
			}
		}
		return jd
	}
	discard := func(resp *http.Response) {
		if resp != nil {
			drain(context.Background(), resp)
		}
	}
	resp, err := retry.Hedge(req.Context(), o, s, judge, discard, c.copy)
	switch {
	case resp == nil:
		return nil, err
	case err != nil && req.Context().Err() != nil:
		drain(req.Context(), resp)
		return nil, err
	}
	return resp, nil
}

// copy sends one hedged copy of the request.
func (c *call) copy(ctx context.Context) (*http.Response, error) {
	r := c.req.Clone(ctx)
	if c.req.Body != nil && c.req.Body != http.NoBody {
		body, err := c.req.GetBody()
		if err != nil {
			return nil, err
		}
		r.Body = body
	}
	resp, err := c.send(ctx, r)
	if err != nil {
		return nil, err
	}
	return resp, nil
}
