package grpcretry

import (
	"context"
	"strconv"
	"time"

	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/verdict"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// UnaryClientInterceptor returns an interceptor that retries unary calls
// as c says, or an error that says what is wrong with c. Install it with
// grpc.WithUnaryInterceptor or grpc.WithChainUnaryInterceptor, and turn
// grpc-go's own retries off with grpc.WithDisableRetry, so that a call is
// not retried by both:
//
//	retrying, err := grpcretry.UnaryClientInterceptor(grpcretry.Config{
//		Policy: parse.MustParse("fulljitter(100ms, 2s) & times(4)"),
//	})
//	...
//	conn, err := grpc.NewClient(target,
//		grpc.WithDisableRetry(),
//		grpc.WithChainUnaryInterceptor(retrying),
//		...)
//
// For each call it finds the method's policy, the target's breaker and
// budget, and runs the attempts with retry.Do. Each retry carries
// the metadata grpc-previous-rpc-attempts and the call's context, so the
// server learns the time that is left through grpc-timeout, and the
// call's deadline bounds all attempts together. A server's
// grpc-retry-pushback-ms trailer sets the least wait before the next
// attempt, up to Options.MaxPushback (DefaultMaxPushback when zero); a
// negative or unreadable one ends the retries.
//
// Options.Observer gets the runner's events, each with the ClientConn's
// Target() as Target and the call's context; retry.LogObserver writes
// them to a log/slog logger.
//
// A call that is retried and still fails returns a *retry.Error that
// wraps the last attempt's status error: status.Code, status.FromError
// and errors.As see that status through it. Any other failure returns the
// attempt's status error itself.
func UnaryClientInterceptor(c Config) (grpc.UnaryClientInterceptor, error) {
	ic, err := build(c)
	if err != nil {
		return nil, err
	}
	return ic.unary, nil
}

func (ic *interceptor) unary(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	o := ic.opts
	target := ""
	if cc != nil {
		target = cc.Target()
	}
	o.Target = target
	if ic.breakers != nil {
		o.Breaker = ic.breakers.Get(target)
	}
	if ic.budgets != nil {
		o.Budget = ic.budgets.Get(target)
	}
	c := &call{ctx: ctx, p: ic.policy(method), method: method, req: req, reply: reply, cc: cc, invoker: invoker, opts: opts, maxPush: o.MaxPushback}
	if c.maxPush == 0 {
		c.maxPush = DefaultMaxPushback
	}
	if c.p.hedge {
		return finish(c.hedged(ctx, o))
	}
	_, err := retry.Do(ctx, o, c.p.s, c.judge, nil, c.attempt)
	return finish(err)
}

// call is one unary call and its attempts so far.
type call struct {
	ctx        context.Context // the caller's
	p          *policy
	method     string
	req, reply any
	cc         *grpc.ClientConn
	invoker    grpc.UnaryInvoker
	opts       []grpc.CallOption
	n          int           // attempts made
	maxPush    time.Duration // the longest pushback waited for
}

// attempt makes one attempt. ctx is the caller's context, or one the
// runner derived from it with the attempt timeout.
func (c *call) attempt(ctx context.Context) (struct{}, error) {
	c.n++
	if c.n > 1 {
		ctx = withPreviousAttempts(ctx, c.n-1)
	}
	var trailer metadata.MD
	opts := append(c.opts[:len(c.opts):len(c.opts)], grpc.Trailer(&trailer))
	err := c.invoker(ctx, c.method, c.req, c.reply, c.cc, opts...)
	if err == nil {
		return struct{}{}, nil
	}
	ae := &attemptError{err: err}
	ae.push, ae.hasPush = pushback(trailer, c.maxPush)
	ae.callerDone, ae.timedOut = deadlines(c.ctx, ctx, err)
	return struct{}{}, ae
}

// deadlines tells whose deadline ended a failed attempt: the caller's
// (callerDone: its context is done or its deadline has passed), or only
// the attempt's own, which Options.AttemptTimeout set (timedOut). It
// reads the real clock, as the context package's timers do, because the
// server may report DEADLINE_EXCEEDED a moment before the client's timer
// has cancelled the context: a server's deadline is never earlier than
// the client's, since grpc-timeout is rounded up.
func deadlines(caller, attempt context.Context, err error) (callerDone, timedOut bool) {
	if caller.Err() != nil {
		return true, false
	}
	if status.Code(err) != codes.DeadlineExceeded {
		return false, false
	}
	now := time.Now()
	if d, ok := caller.Deadline(); ok && !now.Before(d) {
		return true, false
	}
	d, ok := attempt.Deadline()
	return false, ok && !now.Before(d)
}

// withPreviousAttempts returns ctx with grpc-previous-rpc-attempts set to
// n in its outgoing metadata, replacing any value already there.
func withPreviousAttempts(ctx context.Context, n int) context.Context {
	md, ok := metadata.FromOutgoingContext(ctx) // a copy
	if !ok {
		md = metadata.MD{}
	}
	md.Set(PreviousAttemptsHeader, strconv.Itoa(n))
	return metadata.NewOutgoingContext(ctx, md)
}

// judge is the runner's Judge: the verdict of classify and the attempt's
// reason label (see Config.Options). A nil error is a Success, with no
// label.
func (c *call) judge(_ struct{}, err error) retry.Judgement {
	if err == nil {
		return retry.Judgement{Verdict: verdict.Success}
	}
	v, label := c.classify(err)
	return retry.Judgement{Verdict: v, Reason: label}
}

// classify returns the verdict on a failed attempt, as docs/grpc.md
// sorts them, and its reason label: UNAVAILABLE and DEADLINE_EXCEEDED
// count against the target (Transient when retried, Failure when not);
// any other code is the application's answer and counts nothing
// (Retryable when retried, Neutral when not). An attempt cut short by
// Options.AttemptTimeout is always retried ("attempt-timeout"); an
// attempt the caller's own context ended is Neutral ("canceled"). The
// label of any other attempt is its code's (codeLabel).
func (c *call) classify(err error) (verdict.Verdict, string) {
	if ae, ok := err.(*attemptError); ok {
		switch {
		case ae.callerDone:
			return verdict.Neutral, "canceled"
		case ae.timedOut:
			return verdict.Transient, "attempt-timeout"
		}
	} else if c.ctx.Err() != nil {
		return verdict.Neutral, "canceled"
	}
	code := status.Code(err)
	label := codeLabel(code)
	failed := code == codes.Unavailable || code == codes.DeadlineExceeded
	switch retried := c.p.retries(code); {
	case failed && retried:
		return verdict.Transient, label
	case failed:
		return verdict.Failure, label
	case retried:
		return verdict.Retryable, label
	}
	return verdict.Neutral, label
}

// codeLabels are the reason labels of the status codes: each code's name
// in lower-case kebab form.
var codeLabels = [...]string{
	codes.OK:                 "ok",
	codes.Canceled:           "canceled",
	codes.Unknown:            "unknown",
	codes.InvalidArgument:    "invalid-argument",
	codes.DeadlineExceeded:   "deadline-exceeded",
	codes.NotFound:           "not-found",
	codes.AlreadyExists:      "already-exists",
	codes.PermissionDenied:   "permission-denied",
	codes.ResourceExhausted:  "resource-exhausted",
	codes.FailedPrecondition: "failed-precondition",
	codes.Aborted:            "aborted",
	codes.OutOfRange:         "out-of-range",
	codes.Unimplemented:      "unimplemented",
	codes.Internal:           "internal",
	codes.Unavailable:        "unavailable",
	codes.DataLoss:           "data-loss",
	codes.Unauthenticated:    "unauthenticated",
}

// codeLabel returns the reason label of status code c: "unavailable",
// "deadline-exceeded", ...; a code outside the 17 that gRPC defines is
// labelled "unknown", so that the labels stay a bounded set.
func codeLabel(c codes.Code) string {
	if int(c) < len(codeLabels) {
		return codeLabels[c]
	}
	return "unknown"
}
