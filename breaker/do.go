package breaker

import (
	"context"
	"errors"

	"github.com/recur-go/recur/verdict"
)

var (
	errNilBreaker = errors.New("breaker: Do with a nil Breaker")
	errNilOp      = errors.New("breaker: Do with a nil operation")
)

// Do makes one call of op through b, in one line where Allow, a mapping
// and Record would take ten. If ctx is already done, op is not called and
// Do returns ctx's error, recording nothing. If b refuses, op is not
// called and Do returns b's *OpenError, which errors.Is matches to ErrOpen. Otherwise it returns
// what op returned, unchanged and unwrapped, after recording judge's
// verdict on it: Success counts for the target, Transient and Failure
// against it, Retryable and Neutral nothing (see package verdict). A nil
// judge calls a nil error a Success and any other a Failure. An error
// while ctx is done is recorded as Neutral whatever judge says: the caller
// gave up, which says nothing of the target. If op or judge panics, the
// call counts nothing: a half-open breaker's probe records Neutral, so
// that its slot is given back, and the panic goes on.
//
// judge sees the result too, so that a (503 response, nil) can count as a
// failure; a retry.Judge adapts as
//
//	func(v T, err error) verdict.Verdict { return judge(v, err).Verdict }
//
// Do retries nothing: wrap it in a runner for that, or give the runner the
// breaker (retry.Options.Breaker) to guard each attempt. Outside a probe
// it costs what Allow and Record cost; it allocates nothing on success.
func Do[T any](ctx context.Context, b *Breaker, judge func(T, error) verdict.Verdict, op func(context.Context) (T, error)) (T, error) {
	var v T
	switch {
	case b == nil:
		return v, errNilBreaker
	case op == nil:
		return v, errNilOp
	}
	if err := ctx.Err(); err != nil {
		return v, err // a done context never reaches op, nor the breaker
	}
	p, err := b.Allow()
	if err != nil {
		return v, err
	}
	if p.g.slot != 0 {
		return probe(ctx, b, &p, judge, op)
	}
	// Not a probe: a panic may leave the permit unrecorded, which counts
	// what Neutral counts, nothing, so no deferred Record is needed.
	v, err = op(ctx)
	b.Record(&p, verdict.Judge(ctx, judge, v, err))
	return v, err
}

// probe is Do for a half-open breaker's probe, whose slot must be given
// back whatever happens: a panic records Neutral.
func probe[T any](ctx context.Context, b *Breaker, p *Permit, judge func(T, error) verdict.Verdict, op func(context.Context) (T, error)) (v T, err error) {
	rec := verdict.Neutral
	defer func() { b.Record(p, rec) }()
	v, err = op(ctx)
	rec = verdict.Judge(ctx, judge, v, err)
	return v, err
}
