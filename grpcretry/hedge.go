package grpcretry

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/recur-go/recur/retry"
)

// hedged makes the call with retry.Hedge, as gRFC A6's hedgingPolicy
// says: each copy gets a reply of its own (the copies run at once), the
// metadata grpc-previous-rpc-attempts with the number of copies before
// it, and a pushback trailer on a non-fatal answer puts the next copy off
// (a negative one stops them). The winner's reply is merged into the
// caller's.
func (c *call) hedged(ctx context.Context, o retry.Options) error {
	m, ok := c.reply.(proto.Message)
	if !ok {
		// Not a protobuf message: the copies cannot have replies of their
		// own, so the call is made once.
		_, err := retry.Do(ctx, o, once.s, c.judge, nil, c.attempt)
		return err
	}
	mt := m.ProtoReflect().Type() // read here: the copies must not touch m, which the winner fills
	won, err := retry.Hedge(ctx, o, c.p.s, func(_ proto.Message, err error) retry.Judgement { return c.judge(struct{}{}, err) }, nil,
		func(ctx context.Context) (proto.Message, error) { return c.copy(ctx, mt.New().Interface()) })
	if err == nil && won != nil {
		proto.Reset(m)
		proto.Merge(m, won)
	}
	return err
}

// copy makes one hedged copy of the call into reply, its own.
func (c *call) copy(ctx context.Context, reply proto.Message) (proto.Message, error) {
	if n := retry.AttemptOf(ctx).Number; n > 1 {
		ctx = withPreviousAttempts(ctx, n-1)
	}
	var trailer metadata.MD
	opts := append(c.opts[:len(c.opts):len(c.opts)], grpc.Trailer(&trailer))
	err := c.invoker(ctx, c.method, c.req, reply, c.cc, opts...)
	if err == nil {
		return reply, nil
	}
	ae := &attemptError{err: err}
	ae.push, ae.hasPush = pushback(trailer, c.maxPush)
	ae.callerDone, ae.timedOut = deadlines(c.ctx, ctx, err)
	return reply, ae
}
