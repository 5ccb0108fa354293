package natsretry

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync/atomic"

	"github.com/nats-io/nats.go"
	"github.com/recur-go/recur/parse"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// Config says how marked requests are retried. The zero value is usable:
// retry.DefaultSchedule(), recur's default policy (full jitter from 100ms
// doubling to 2s, three attempts in all), within the server's shared
// default budget; the real clock; no attempt timeout.
type Config struct {
	// Schedule is the retry policy of requests marked WithRetry or
	// WithSafe. Set at most one of Schedule and Policy; with neither it is
	// retry.DefaultSchedule(). The request's context bounds it too.
	Schedule schedule.Schedule

	// Policy is Schedule in recur's policy language.
	Policy string

	// Retry is the runner's options, as package retry documents them:
	// Retry.AttemptTimeout bounds each attempt.
	Retry RetryOptions
}

// Requester sends NATS requests and retries the ones marked WithRetry or
// WithSafe on a schedule, within the request's context. A Requester is
// safe for concurrent use.
type Requester struct {
	nc *nats.Conn
	s  schedule.Schedule
	o  retry.Options

	// last is the last server URL target was asked about and its
	// scheme://host:port, so that a request with an Observer parses a URL
	// only when the connection moved to another server.
	last atomic.Pointer[[2]string]
}

// New returns a Requester on nc configured by c, or an error that says
// what is wrong with c.
func New(nc *nats.Conn, c Config) (*Requester, error) {
	if nc == nil {
		return nil, errors.New("natsretry: nil *nats.Conn")
	}
	s := c.Schedule
	switch {
	case s != nil && c.Policy != "":
		return nil, errors.New("natsretry: set Schedule or Policy, not both")
	case c.Policy != "":
		p, err := parse.Parse(c.Policy)
		if err != nil {
			return nil, fmt.Errorf("natsretry: Policy: %w", err)
		}
		s = p
	case s == nil:
		s = retry.DefaultSchedule()
	}
	if err := schedule.Validate(s); err != nil {
		return nil, fmt.Errorf("natsretry: Schedule: %w", err)
	}
	if c.Retry.Unthrottled && c.Retry.Budget != nil {
		return nil, errors.New("natsretry: set Retry.Budget or Retry.Unthrottled, not both")
	}
	if c.Retry.AttemptTimeout < 0 {
		return nil, fmt.Errorf("natsretry: Retry.AttemptTimeout %v is negative", c.Retry.AttemptTimeout)
	}
	return &Requester{nc: nc, s: s, o: c.Retry.runner()}, nil
}

// Request sends data to subj and returns the first reply. A request whose
// ctx is not marked is sent once, as nc.RequestWithContext sends it. One
// marked WithRetry is sent again on the schedule while nobody listens
// (nats.ErrNoResponders); one marked WithSafe also after an attempt's
// timeout (Config.Retry.AttemptTimeout) and after a responder's reply with
// no data and a Status: 503 header. The schedule stops at ctx's end. A
// request that was retried and still fails returns a *retry.Error that
// wraps the last attempt's error, with the last reply if there was one.
//
// For a marked request, nats.ErrNoResponders means the server's own
// no-responders status, which nats-server 2.12 and later tell apart by
// a Nats-Subject header: the request reached nobody. nats.go takes any
// reply with no data and a Status: 503 header for no responders; to a
// marked request such a reply from a responder is a reply, returned (not
// an error) and never sent again unless the request is marked WithSafe.
// A server older than 2.12 writes no Nats-Subject, so its no-responders
// status is such a reply too, returned to a WithRetry request at once.
func (r *Requester) Request(ctx context.Context, subj string, data []byte) (*nats.Msg, error) {
	m := marked(ctx)
	if m == 0 {
		if r.o.AttemptTimeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, r.o.AttemptTimeout)
			defer cancel()
		}
		return r.nc.RequestWithContext(ctx, subj, data)
	}
	return retry.Do(ctx, r.options(), r.s, judge(m), nil, func(ctx context.Context) (*nats.Msg, error) {
		return r.ask(ctx, &nats.Msg{Subject: subj, Data: data})
	})
}

// RequestMsg is Request with a message, headers included.
func (r *Requester) RequestMsg(ctx context.Context, msg *nats.Msg) (*nats.Msg, error) {
	if msg == nil {
		return nil, nats.ErrInvalidMsg
	}
	m := marked(ctx)
	if m == 0 {
		if r.o.AttemptTimeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, r.o.AttemptTimeout)
			defer cancel()
		}
		return r.nc.RequestMsgWithContext(ctx, msg)
	}
	out := &nats.Msg{Subject: msg.Subject, Header: msg.Header, Data: msg.Data}
	return retry.Do(ctx, r.options(), r.s, judge(m), nil, func(ctx context.Context) (*nats.Msg, error) {
		return r.ask(ctx, out)
	})
}

// ask sends one attempt of a marked request and returns the first reply,
// as nc.RequestMsgWithContext does with one difference: it returns
// nats.ErrNoResponders only for the server's own no-responders status
// (fromServer). nats.go takes any reply with no data and a Status: 503
// header for that, so a responder that answers so would have its
// request sent again, though it handled it. ask subscribes to an inbox
// of its own for the one reply, as nats.go's old request style does, to
// see the reply nats.go would have turned into an error.
func (r *Requester) ask(ctx context.Context, msg *nats.Msg) (*nats.Msg, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ch := make(chan *nats.Msg, 1)
	inbox := r.nc.NewInbox()
	sub, err := r.nc.ChanSubscribe(inbox, ch)
	if err != nil {
		return nil, err
	}
	defer func() { _ = sub.Unsubscribe() }()
	if err := sub.AutoUnsubscribe(1); err != nil {
		return nil, err
	}
	out := *msg
	out.Reply = inbox
	if err := r.nc.PublishMsg(&out); err != nil {
		return nil, err
	}
	select {
	case reply := <-ch:
		if fromServer(reply, msg.Subject) {
			return nil, nats.ErrNoResponders
		}
		return reply, nil
	case <-ctx.Done():
		if r.nc.IsClosed() {
			return nil, nats.ErrConnectionClosed
		}
		return nil, ctx.Err()
	}
}

// fromServer reports whether reply, the answer to a request sent to
// subj, is the server's own no-responders status: no data, and the
// headers the server (2.12 and later) writes and nothing else — status
// 503 and Nats-Subject set to the request's subject. A responder's reply
// with a Status: 503 header and no data is a reply: the responder saw
// the request. So is the bare status 503 of a server older than 2.12,
// which a responder's reply cannot be told from.
func fromServer(reply *nats.Msg, subj string) bool {
	if len(reply.Data) != 0 || len(reply.Header) != 2 {
		return false
	}
	status, subject := reply.Header[statusHeader], reply.Header[subjectHeader]
	return len(status) == 1 && status[0] == statusNoResponders &&
		len(subject) == 1 && subject[0] == subj
}

// The headers of the server's no-responders status, as nats.go decodes
// them.
const (
	statusHeader       = "Status"
	subjectHeader      = "Nats-Subject"
	statusNoResponders = "503"
)

// unavailable reports whether reply is one nats.go would take for no
// responders, a Status: 503 header and no data, that fromServer says a
// responder sent.
func unavailable(reply *nats.Msg) bool {
	return reply != nil && len(reply.Data) == 0 && reply.Header.Get(statusHeader) == statusNoResponders
}

// judge returns the runner's Judge for a request marked m.
func judge(m mark) retry.Judge[*nats.Msg] {
	if m == askSafe {
		return judgeSafe
	}
	return judgeAsked
}

// options returns the runner's options for one request: Target is the
// server the connection is on now, which names its shared default budget
// and tags the Observer's events.
func (r *Requester) options() retry.Options {
	o := r.o
	o.Target = r.target()
	return o
}

// target returns the scheme://host:port of the server the connection is
// connected to, or of the first configured one while it is not connected.
func (r *Requester) target() string {
	u := r.nc.ConnectedUrlRedacted()
	if u == "" {
		u = r.nc.Opts.Url
	}
	if u == "" && len(r.nc.Opts.Servers) > 0 {
		u = r.nc.Opts.Servers[0]
	}
	if last := r.last.Load(); last != nil && last[0] == u {
		return last[1]
	}
	t := ""
	if p, err := url.Parse(u); err == nil && p.Host != "" {
		t = p.Scheme + "://" + p.Host
	}
	r.last.Store(&[2]string{u, t})
	return t
}
