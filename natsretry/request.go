package natsretry

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync/atomic"

	"github.com/nats-io/nats.go"
	"github.com/recur-go/recur/budget"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
)

// Config says how requests are retried, in the shape every recur adapter
// shares (docs/adapters.md). The zero value is usable: retry.DefaultSchedule(),
// recur's default policy (full jitter from 100ms doubling to 2s, three
// attempts in all), within the server's shared default budget; the real
// clock; no attempt timeout.
//
// There is no Breaker field: a request goes to whoever subscribes to its
// subject, not to one server whose health a breaker could judge.
type Config struct {
	// Policy is the retry policy of every request that nobody received,
	// and of the requests marked WithIdempotent after a timeout or a
	// status-503 reply. Nil means retry.DefaultSchedule(). A policy in
	// recur's language, such as "fulljitter(50ms, 1s) & times(5)", is
	// parse.Parse's result or a parse.Policy's Schedule. The request's
	// context bounds it too.
	Policy schedule.Schedule

	// Budget holds the retry budgets, one per target (see package budget):
	// a request's retries are bounded by Budget.Get of its target, the
	// server described at Options. Nil means budget.Shared(), the
	// process's default budgets (gRFC A6's token bucket, shared by every
	// call to that server in the process), unless Options.Unthrottled is
	// set; both set is an error.
	Budget *budget.Registry

	// Options is the runner's options, as package retry documents them,
	// with the adapters' rule: Target and Budget are the Requester's to set
	// for each request (Breaker has no use here), so an Options that sets
	// any of the three is an error from New.
	//
	// AttemptTimeout, when positive, bounds each attempt of a request,
	// marked or not. Without it an attempt waits until the request's
	// context ends, so no timeout is ever retried. MaxPushback has no use
	// here: no NATS error carries a pushback.
	//
	// The Observer's events have as their Target the scheme://host:port
	// of the server the connection is connected to at the start of the
	// request (nats.Conn's ConnectedUrl without its user and password), or
	// of the first configured URL (nats.Options.Url, else Servers[0])
	// while it is not connected. The Label of a failed attempt (also
	// retry.Error.Label) is Code of its error: "no-responders", "timeout"
	// (nats.ErrTimeout or a deadline), "canceled" or "other"; or
	// "unavailable" for a responder's reply with no data and a Status: 503
	// header, retried WithIdempotent. A successful attempt has no label.
	Options retry.Options
}

// Requester sends NATS requests and retries them on a policy, within the
// request's context: every request that nobody received, and the ones
// marked WithIdempotent after a timeout or a status-503 reply too. A
// Requester is safe for concurrent use.
type Requester struct {
	nc      *nats.Conn
	s       schedule.Schedule
	o       retry.Options
	budgets *budget.Registry

	// last is the last server URL target was asked about and its
	// scheme://host:port, so that a request parses a URL only when the
	// connection moved to another server.
	last atomic.Pointer[[2]string]
}

// New returns a Requester on nc configured by c, or an error that says
// what is wrong with c.
func New(nc *nats.Conn, c Config) (*Requester, error) {
	if nc == nil {
		return nil, errors.New("natsretry: nil *nats.Conn")
	}
	if err := c.Options.CheckAdapter(); err != nil {
		return nil, fmt.Errorf("natsretry: %w", err)
	}
	if c.Budget != nil && c.Options.Unthrottled {
		return nil, errors.New("natsretry: Config sets both Budget and Options.Unthrottled")
	}
	s := c.Policy
	if s == nil {
		s = retry.DefaultSchedule()
	}
	if err := schedule.Validate(s); err != nil {
		return nil, fmt.Errorf("natsretry: Policy: %w", err)
	}
	return &Requester{nc: nc, s: s, o: c.Options, budgets: c.Budget}, nil
}

// Request sends data to subj and returns the first reply. Every request
// is sent again on the policy while nobody listens (nats.ErrNoResponders,
// the server's answer before anyone has seen the message: nothing ran, so
// a retry cannot make it run twice). One marked WithIdempotent is also
// sent again after an attempt's timeout (Config.Options.AttemptTimeout)
// and after a responder's reply with no data and a Status: 503 header; one
// not marked returns those at once, its timeout as an error and the reply
// as a reply. The policy stops at ctx's end. A request that was retried
// and still fails returns a *retry.Error that wraps the last attempt's
// error, with the last reply if there was one; one that was not retried
// returns its error unchanged.
//
// nats.ErrNoResponders means the server's own no-responders status, which
// nats-server 2.12 and later tell apart by a Nats-Subject header: the
// request reached nobody. nats.go takes any reply with no data and a
// Status: 503 header for no responders; to a Requester such a reply from
// a responder is a reply, returned (not an error) and never sent again
// unless the request is marked WithIdempotent. A server older than 2.12
// writes no Nats-Subject, so its no-responders status is such a reply
// too, returned at once to a request not marked.
func (r *Requester) Request(ctx context.Context, subj string, data []byte) (*nats.Msg, error) {
	return retry.Do(ctx, r.options(), r.s, judge(ctx), nil, func(ctx context.Context) (*nats.Msg, error) {
		return r.ask(ctx, &nats.Msg{Subject: subj, Data: data})
	})
}

// RequestMsg is Request with a message, headers included.
func (r *Requester) RequestMsg(ctx context.Context, msg *nats.Msg) (*nats.Msg, error) {
	if msg == nil {
		return nil, nats.ErrInvalidMsg
	}
	out := &nats.Msg{Subject: msg.Subject, Header: msg.Header, Data: msg.Data}
	return retry.Do(ctx, r.options(), r.s, judge(ctx), nil, func(ctx context.Context) (*nats.Msg, error) {
		return r.ask(ctx, out)
	})
}

// ask sends one attempt of a request and returns the first reply,
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

// judge returns the runner's Judge for a request made with ctx.
func judge(ctx context.Context) retry.Judge[*nats.Msg] {
	if IsIdempotent(ctx) {
		return judgeIdempotent
	}
	return judgeUnmarked
}

// options returns the runner's options for one request: Target is the
// server the connection is on now, which names its budget and tags the
// Observer's events.
func (r *Requester) options() retry.Options {
	o := r.o
	o.Target = r.target()
	if r.budgets != nil {
		o.Budget = r.budgets.Get(o.Target)
	}
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
